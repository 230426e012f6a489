import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// Random tables and specs: the order of ids from memory (``TextTable``), SQLite and
/// PostgreSQL (with the C collation and with ICU's en-US as the database default) must be
/// identical, and keyset paging must return every row exactly once in that order.
@Suite("Memory, SQLite and PostgreSQL agree")
struct DifferentialTests {
    @Test("Random tables × random specs (seeded)", arguments: Backend.available)
    func randomTables(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 2026
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        for tableNumber in 0..<12 {
            let csv = Self.randomCSV(rows: Int.random(in: 0...60, using: &random), using: &random)
            let memory = try TextTable(csv: Array(csv.utf8))
            let name = "t\(tableNumber)"
            try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
            for _ in 0..<25 {
                let spec = Self.randomSpec(columns: memory.columns, using: &random)
                let expected = try memory.sortedRowIndices(by: spec).map { Int64($0 + 1) }
                let all = try await store.page(of: name, PageRequest(order: .spec(spec), limit: 1_000)).rows.map(\.id)
                #expect(all == expected, "\(backend): spec \(spec), table \(tableNumber), seed \(seed) (replay with SORTKIT_SEED=\(seed))")
                let paged = try await Self.keysetPages(
                    store, name, PageRequest(order: .spec(spec), limit: Int.random(in: 1...9, using: &random)), most: expected.count)
                #expect(paged == expected, "\(backend): keyset paging, spec \(spec), table \(tableNumber), seed \(seed)")
            }
        }
    }

    @Test(
        "Transformed keys read from stored key columns by SQL agree with memory (seeded)",
        arguments: [Backend.sqliteSQL, .postgres].filter(Backend.available.contains))
    func storedTransforms(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 2027
        var random = SplitMix64(seed: seed)
        // PostgreSQL answering by SQL: the presets' key columns are stored at import.
        let store: any TableStore
        if backend == .postgres {
            store = try await PostgresTableStore(
                url: try Service.postgres.value(), schema: try backend.newLocation(), inMemoryIndex: false, queryBudget: testQueryBudget)
        } else {
            store = try await backend.makeStore()
        }
        for tableNumber in 0..<6 {
            let csv = Self.randomCSV(rows: Int.random(in: 0...80, using: &random), using: &random)
            let memory = try TextTable(csv: Array(csv.utf8))
            var presets: [String: SortSpec] = [
                "abs": try SortSpec(parsing: "-i:abs,f:abs"), "len": try SortSpec(parsing: "s:len:nulls-first,-m:len"),
                "shuffle": try SortSpec(parsing: "s:random=\(random.next())"), "num": try SortSpec(parsing: "m:num:abs:nulls-natural"),
                "empty": try SortSpec(parsing: "-e:empty=null:fold"),
                // A regional tag: its key column's name has capitals (`sv-SE`), one spelling on
                // every store (PostgreSQL folds unquoted names to lower case).
                "region": try SortSpec(parsing: "s:locale=sv-SE,-m:locale=de-AT:nocase"),
            ]
            presets["mixed"] = try SortSpec(parsing: "d:random=\(random.next() % 5),-i:abs")
            let name = "s\(tableNumber)"
            try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: presets)
            for (preset, spec) in presets.sorted(by: { $0.key < $1.key }) {
                let expected = try memory.sortedRowIndices(by: spec).map { Int64($0 + 1) }
                let all = try await store.page(of: name, PageRequest(order: .spec(spec), limit: 1_000)).rows.map(\.id)
                #expect(all == expected, "\(backend): \(preset) \(spec), seed \(seed)")
                let paged = try await Self.keysetPages(
                    store, name, PageRequest(order: .spec(spec), limit: Int.random(in: 1...7, using: &random)), most: expected.count)
                #expect(paged == expected, "\(backend): keyset paging, \(preset) \(spec), seed \(seed)")
            }
        }
    }

    /// The ids of every page from `request` on, each after the last one's cursor; stops once
    /// more than `most` ids came (a cursor that loops).
    static func keysetPages(_ store: any TableStore, _ table: String, _ request: PageRequest, most: Int) async throws -> [Int64] {
        var request = request
        var ids: [Int64] = []
        while true {
            let page = try await store.page(of: table, request)
            ids += page.rows.map(\.id)
            guard let next = page.next, ids.count <= most else { return ids }
            request.after = next
        }
    }

    static let pieces = [
        "a", "B", "é", "e\u{301}", "É", "ß", "SS", "Σ", "ж", "0", "2", "10", "007", " ", "-", "😀", "Å", "A\u{30A}", "x",
    ]

    static func randomCSV(rows: Int, using random: inout SplitMix64) -> String {
        func text() -> String {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        var records = [["s", "i", "f", "d", "e", "m"]]
        for _ in 0..<rows {
            let blank = { (random: inout SplitMix64) in Int.random(in: 0..<6, using: &random) == 0 }
            records.append([
                text(),
                blank(&random) ? "" : String(Int.random(in: -5...5, using: &random)),
                blank(&random) ? "" : String(Double(Int.random(in: -20...20, using: &random)) / 4),
                blank(&random)
                    ? "" : "20\(Int.random(in: 10...12, using: &random))-0\(Int.random(in: 1...3, using: &random))-1\(Int.random(in: 0...2, using: &random))",
                ["todo", "Done", "DONE", "reading", "", "zz", "Todo"].randomElement(using: &random)!,
                blank(&random) ? "" : [String(Int.random(in: 0...20, using: &random)), "$1,234.5", "n/a", text()].randomElement(using: &random)!,
            ])
        }
        return CSV.format(records)
    }

    /// The built-in collations and locale ones (a tailoring with contractions, a reordered
    /// script, the root at each strength): their keys are stored, computed in SQL and compared
    /// in memory alike.
    static let collations: [Collation] =
        Collation.allCases
        + ["locale=sv", "locale=cs:nocase", "locale=uk:fold", "locale=und:natural", "locale=zh"].map { Collation(rawValue: $0)! }

    static func randomSpec(columns: [String], using random: inout SplitMix64) -> SortSpec {
        var keys: [SortSpec.Key] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let column = columns.randomElement(using: &random)!
            var modifiers: [SortSpec.Modifier] = []
            if Bool.random(using: &random) { modifiers.append(.collation(Self.collations.randomElement(using: &random)!)) }
            if Bool.random(using: &random) {
                modifiers.append(.nulls([NullPlacement.first, .last, .natural].randomElement(using: &random)!))
            }
            switch Int.random(in: 0..<6, using: &random) {
            case 0: modifiers.append(.interpretation(SortSpec.Interpretation.allCases.randomElement(using: &random)!))
            case 1 where column == "e" || column == "m": modifiers.append(.enumOrder(["done", "todo", "zz"].shuffled(using: &random)))
            default: break
            }
            // The second wave's key kinds, where they combine with what was drawn.
            let kinds: [SortSpec.Modifier] = [
                .transform(.absolute), .transform(.length), .transform(.random(seed: UInt64.random(in: 0...3, using: &random))),
                .transform(.random(seed: .max)), .emptyIsNull,
            ]
            if Int.random(in: 0..<3, using: &random) == 0, let kind = kinds.randomElement(using: &random),
                !modifiers.contains(where: { kind.conflict(with: $0) != nil })
            {
                modifiers.append(kind)
            }
            keys.append(SortSpec.Key(column, Bool.random(using: &random) ? .ascending : .descending, modifiers))
        }
        return SortSpec(keys)
    }
}
