import Foundation
import SortBy
import SortKit
import SortKitSQL
import Testing

// snippet: stored-rank
// On Apple platforms, mark the class @Model: SwiftData stores `statusRaw` and `statusRank`
// and ignores the computed `status`.
final class Chore {
    enum Status: String, CaseIterable, Sendable { case todo, doing, done }

    var title: String
    var due: Date?
    private(set) var statusRaw: String
    /// The status's position in declared order, kept in sync so the store can sort by it.
    private(set) var statusRank: Int

    var status: Status {
        get { Status(rawValue: statusRaw) ?? .todo }
        set {
            statusRaw = newValue.rawValue
            statusRank = newValue.declaredOrderRank
        }
    }

    init(title: String, due: Date? = nil, status: Status = .todo) {
        self.title = title
        self.due = due
        statusRaw = status.rawValue
        statusRank = status.declaredOrderRank
    }
}
// end snippet

// snippet: chore-fields
enum ChoreSorting {
    static let fields = SortFields<Chore>()
        .field("title", \.title)
        .field("due", \.due)
        .field("status", declaredOrderOf: \.status, storedRank: \.statusRank)

    static let presets = [
        SortPreset(id: "workflow", label: "Status", order: .spec(try! SortSpec(parsing: "status,due:nulls-natural"))),
        SortPreset(id: "title", label: "Title", order: .spec(try! SortSpec(parsing: "title:binary"))),
        SortPreset(id: "latest", label: "Due last", order: .spec(try! SortSpec(parsing: "-due:nulls-natural"))),
    ]

    /// The sort descriptors a "Sort by" choice means. The presets are code, so a preset the
    /// store can't sort exactly is a programmer's error.
    static func descriptors(for presetID: SortPreset.ID) throws -> [SortDescriptor<Chore>] {
        guard case .spec(let spec)? = presets.first(where: { $0.id == presetID })?.order else { return [] }
        let converted = try fields.sortDescriptors(for: spec)
        precondition(converted.isExact, "preset \(presetID): \(converted.losses)")
        return converted.value
    }
}
// end snippet

@Suite("Article: SwiftData patterns")
struct SwiftDataPatternsTests {
    @Test("The article's code blocks are the code compiled here")
    func articleMatchesCode() throws {
        try ArticleSnippets.check(article: "Sources/SortKit/Documentation.docc/SwiftDataPatterns.md")
    }

    func chores() -> [Chore] {
        [
            Chore(title: "Write", due: Date(timeIntervalSince1970: 30), status: .done),
            Chore(title: "Read", due: nil, status: .todo),
            Chore(title: "Plan", due: Date(timeIntervalSince1970: 10), status: .doing),
            Chore(title: "Call", due: Date(timeIntervalSince1970: 20), status: .todo),
        ]
    }

    @Test("A stored rank sorts the enum in declared order, and stays in sync")
    func storedRank() throws {
        let all = chores()
        // snippet: rank-query
        // A store sorts by what it stores: by the raw value that is doing, done, todo;
        // by the rank it is todo, doing, done.
        let byStatus = [SortDescriptor(\Chore.statusRank), SortDescriptor(\Chore.title)]
        // SwiftData: @Query(sort: [SortDescriptor(\Chore.statusRank), SortDescriptor(\Chore.title)])
        // end snippet
        #expect(all.sorted(using: byStatus).map(\.title) == ["Call", "Read", "Plan", "Write"])
        #expect(all.sorted(using: SortDescriptor(\Chore.statusRaw)).map(\.status) == [.doing, .done, .todo, .todo])
        all[0].status = .todo
        #expect(all[0].statusRank == 0 && all[0].statusRaw == "todo")
        #expect(all.sorted(using: byStatus).map(\.title) == ["Call", "Read", "Write", "Plan"])
    }

    @Test("A Sort-by choice rebuilds the query from its spec, the same order as in memory")
    func sortByQuery() throws {
        let all = chores()
        for preset in ChoreSorting.presets {
            guard case .spec(let spec) = preset.order else { continue }
            let descriptors = try ChoreSorting.descriptors(for: preset.id)
            let inMemory = all.sorted(using: try ChoreSorting.fields.sortKeys(for: spec)).map(\.title)
            #expect(all.sorted(using: descriptors).map(\.title) == inMemory, "\(preset.id)")
        }
        #expect(try ChoreSorting.descriptors(for: "workflow").count == 2)
        #expect(try ChoreSorting.descriptors(for: "unknown").isEmpty)
    }

    @Test("A schema change keeps every row: SortKitSQL's migrations")
    func migration() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("chores.sqlite").path
        let csv = Array("title,status\nWrite,done\nRead,todo\nPlan,doing\n".utf8)
        let store = try SQLiteTableStore(path: path, queryBudget: .seconds(120))
        _ = try await store.importCSV(csv, as: "chores", delimiter: UInt8(ascii: ","), presets: [:])
        // snippet: migration
        // Version 2: a due date, and a "Status" preset in declared order. One transaction:
        // every row is kept, or nothing changes.
        let workflow = try SortSpec(parsing: "status:enum=todo|doing|done,title")
        let schema = try await store.alter("chores", [.addColumn("due", .date), .addPreset("Status", workflow)])
        let page = try await store.page(of: "chores", PageRequest(order: .spec(workflow), limit: 50))
        // page.rows: Read (todo), Plan (doing), Write (done), each with a blank due date
        // end snippet
        #expect(schema.columns.map(\.name) == ["title", "status", "due"])
        #expect(page.rows.map(\.cells) == [["Read", "todo", ""], ["Plan", "doing", ""], ["Write", "done", ""]])
        // A change that can't apply changes nothing.
        await #expect(throws: TableStoreError.self) {
            try await store.alter("chores", [.addColumn("notes", .string), .changeType("title", to: .integer)])
        }
        #expect(try await store.schema(of: "chores") == schema)
    }
}
