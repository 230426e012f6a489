import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// An imported table's manual order is computed from ids until rows move: a move writes the
/// rows it places, and every read and write agrees with a model of the order.
@Suite("Manual order computed from ids")
struct ImplicitOrderTests {
    /// Runs `sql` on `store`'s database and returns the integer it selects.
    static func integer(_ store: any TableStore, _ sql: String) async throws -> Int64? {
        func run<Store: _SQLTableStore>(_ store: Store) async throws -> Int64? {
            try await store.read { session in try await session.integer(sql, []) }
        }
        let sql = store as! any _SQLTableStore
        return try await run(sql)
    }

    /// Rows whose label (their entry's, or computed from the id) another row shares, plus
    /// rows with no label at all: 0 in a sound list.
    static func labelFaults(_ store: any TableStore) async throws -> Int64? {
        try await integer(
            store,
            """
            SELECT (SELECT count(*) FROM (SELECT coalesce(o.pos, \(_ImplicitLabels.sql)) AS label FROM st_1 AS t
              LEFT JOIN ordered_item AS o ON o.list = 'sortkit:st_1' AND o.id = t.id GROUP BY label HAVING count(*) > 1) AS d)
            + (SELECT count(*) FROM ordered_item WHERE list = 'sortkit:st_1' AND id NOT IN (SELECT id FROM st_1))
            """)
    }

    /// The whole manual order, read one way: one page, pages by cursor, or pages by offset.
    static func manual(_ store: any TableStore, limit: Int, byOffset: Bool = false, search: String = "") async throws -> [Int64] {
        var ids: [Int64] = []
        var request = PageRequest(order: .manual, search: search, limit: limit)
        while true {
            let page = try await store.page(of: "t", request)
            ids += page.rows.map(\.id)
            guard page.next != nil, !page.rows.isEmpty else { return ids }
            if byOffset { request.offset += limit } else { request.after = page.next }
        }
    }

    @Test("A computed label's ids for a label range equal a scan's (seeded)")
    func labelRanges() {
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x1AB3)
        let replay = "seed \(random.seed) (replay with SORTKIT_SEED=\(random.seed))"
        let ids = Array(Int64(1)...40) + [(1 << 29) - 1, 1 << 29]
        let labels = ids.map(_ImplicitLabels.label)
        #expect(_ImplicitLabels.label(1) == Int64(OrderLabels.first))
        #expect(labels.last! < Int64(OrderLabels.limit))
        for _ in 0..<2_000 {
            // Bounds near labels (on, one off either side) and anywhere.
            func bound() -> Int64 {
                Bool.random(using: &random)
                    ? labels.randomElement(using: &random)! + Int64.random(in: -1...1, using: &random)
                    : Int64.random(in: 0..<Int64(OrderLabels.limit), using: &random)
            }
            let (a, b) = (bound(), bound())
            let range = min(a, b)...max(a, b)
            let expected = ids.filter { range.contains(_ImplicitLabels.label($0)) }
            let found = _ImplicitLabels.ids(labelledIn: range)
            let listed = ids.filter { found?.contains($0) ?? false }
            #expect(listed == expected, "range \(range), \(replay)")
            if listed != expected { return }
        }
    }

    @Test(
        "Seeded moves, block moves, inserts and deletes on an imported table write only the rows they place and agree with a model",
        arguments: Backend.available)
    func randomOperations(_ backend: Backend) async throws {
        let store = try await backend.open(try backend.newLocation())
        let count = 60
        let csv = "title\n" + (1...count).map { $0 % 3 == 0 ? "Émile \($0)" : "plain \($0)" }.joined(separator: "\n") + "\n"
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x5EED)
        let replay = "seed \(random.seed) (replay with SORTKIT_SEED=\(random.seed))"
        var model = Array(Int64(1)...Int64(count))
        var titles = Dictionary(uniqueKeysWithValues: model.map { ($0, $0 % 3 == 0 ? "Émile \($0)" : "plain \($0)") })
        // The first move writes one entry, not one per row.
        try await store.move(7, in: "t", to: .after(50))
        model.removeAll { $0 == 7 }
        model.insert(7, at: model.firstIndex(of: 50)! + 1)
        #expect(try await Self.integer(store, "SELECT count(*) FROM ordered_item") == 1, "\(backend)")
        try await store.move([3, 4, 5], in: "t", to: .before(1))
        model.removeAll { [3, 4, 5].contains($0) }
        model.insert(contentsOf: [3, 4, 5], at: 0)
        #expect(try await Self.integer(store, "SELECT count(*) FROM ordered_item") == 4, "\(backend)")
        #expect(try await Self.manual(store, limit: 100) == model, "\(backend)")
        for round in 0..<40 {
            let operation = Int.random(in: 0..<6, using: &random)
            let anchor = model.randomElement(using: &random)!
            let id = model.filter { $0 != anchor }.randomElement(using: &random)!
            var step = ""
            switch operation {
            case 0:
                step = "move \(id) after \(anchor)"
                try await store.move(id, in: "t", to: .after(anchor))
                model.removeAll { $0 == id }
                model.insert(id, at: model.firstIndex(of: anchor)! + 1)
            case 1:
                let index = Int.random(in: 0...model.count, using: &random)
                step = "move \(id) to index \(index)"
                try await store.move(id, in: "t", to: .toIndex(index))
                model.removeAll { $0 == id }
                model.insert(id, at: min(index, model.count))
            case 2:
                let block = Array(model.filter { $0 != anchor }.shuffled(using: &random).prefix(Int.random(in: 1...6, using: &random)))
                step = "move \(block) before \(anchor)"
                try await store.move(block, in: "t", to: .before(anchor))
                model.removeAll { block.contains($0) }
                model.insert(contentsOf: block, at: model.firstIndex(of: anchor)!)
            case 3:
                step = "move \(id) last, then insert"
                if let last = model.last, last != id {
                    try await store.move(id, in: "t", to: .after(last))
                    model.removeAll { $0 == id }
                    model.append(id)
                }
                let new = try await store.insert(["title": "new \(round)"], into: "t")
                model.append(new)
                titles[new] = "new \(round)"
            case 4:
                step = "delete \(id)"
                try await store.delete(id, from: "t")
                model.removeAll { $0 == id }
            default:
                step = "insert"
                let new = try await store.insert(["title": "Émile new \(round)"], into: "t")
                model.append(new)
                titles[new] = "Émile new \(round)"
            }
            let order = try await Self.manual(store, limit: 7)
            #expect(order == model, "\(backend) round \(round): \(step), \(replay)")
            #expect(try await Self.labelFaults(store) == 0, "\(backend) round \(round): \(step), \(replay)")
            if order != model { return }
        }
        #expect(try await Self.manual(store, limit: 9, byOffset: true) == model, "\(backend) by offset, \(replay)")
        #expect(try await Self.manual(store, limit: 500) == model, "\(backend) one page, \(replay)")
        let accented = model.filter { titles[$0]!.hasPrefix("Émile") }
        #expect(try await Self.manual(store, limit: 4, search: "emile") == accented, "\(backend) searched, \(replay)")
        #expect(try await Self.integer(store, "SELECT count(*) FROM ordered_item WHERE pos < 0") == 0, "\(backend): no row left detached")
    }

    @Test("Blocks moved into one narrowing gap re-space a window around the anchor, not the table", arguments: Backend.available)
    func narrowingGap(_ backend: Backend) async throws {
        let store = try await backend.open(try backend.newLocation())
        let count = 3_000
        let csv = "n\n" + (1...count).map { "\($0)\n" }.joined()
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        var model = Array(Int64(1)...Int64(count))
        var moved: Set<Int64> = []
        // Each block goes right after row 1,500, between it and the block before: the gap
        // halves and more each time, so from the fifth or so the gap can't hold a block.
        for round in 0..<12 {
            let block = (0..<40).map { Int64(2 + round * 40 + $0) }
            try await store.move(block, in: "t", to: .after(1_500))
            model.removeAll { block.contains($0) }
            model.insert(contentsOf: block, at: model.firstIndex(of: 1_500)! + 1)
            moved.formUnion(block)
            #expect(try await Self.manual(store, limit: 1_000) == model, "\(backend) round \(round)")
            #expect(try await Self.labelFaults(store) == 0, "\(backend) round \(round)")
        }
        let entries = try await Self.integer(store, "SELECT count(*) FROM ordered_item") ?? 0
        #expect(entries >= Int64(moved.count) && entries < Int64(count / 2), "\(backend): \(entries) entries for \(moved.count) moved rows")
    }

    @Test("SQLite: a manual page, first and after a cursor, seeks the label index and the primary key; no table scan")
    func manualPagePlan() async throws {
        let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        let csv = "n\n" + (1...2_000).map { "\($0)\n" }.joined()
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.move([5, 6], in: "t", to: .after(1_000))
        for cursor in [nil, [SQLValue.integer(_ImplicitLabels.label(1_500)), .integer(1_500)]] {
            let plan = try await store.queryPlan(of: "t", PageRequest(order: .manual, limit: 50), cursorValues: cursor)
            #expect(plan.contains { $0.contains("SEARCH o USING INDEX") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH t USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN t") }, "\(plan)")
        }
    }

    @Test("A row moved after the last one and a row inserted next never share a label; an unknown anchor changes nothing")
    func insertAfterMoveToEnd() async throws {
        let store = try await Backend.sqlite.open(try Backend.sqlite.newLocation())
        try await store.importCSV(Array("title\na\nb\nc\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.move(1, in: "t", to: .after(3))
        let new = try await store.insert(["title": "d"], into: "t")
        #expect(try await Self.manual(store, limit: 10) == [2, 3, 1, new])
        await #expect(throws: TableStoreError.self) { try await store.move(2, in: "t", to: .after(99)) }
        await #expect(throws: TableStoreError.self) { try await store.move([2, 3], in: "t", to: .before(99)) }
        #expect(try await Self.manual(store, limit: 10) == [2, 3, 1, new])
        #expect(try await Self.integer(store, "SELECT count(*) FROM ordered_item") == 2)
    }

    @Test("A table stored before this layout, with a row whose id has no computed label, has its order written out at its first move")
    func idsWithoutLabels() async throws {
        let store = try await Backend.sqlite.open(try Backend.sqlite.newLocation())
        try await store.importCSV(Array("title\na\nb\nc\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        func run<Store: _SQLTableStore>(_ store: Store) async throws {
            try await store.write { session in try await session.execute("UPDATE st_1 SET id = 1099511627776 WHERE id = 2", []) }
        }
        let sql = store as! any _SQLTableStore
        try await run(sql)
        // Until a move, id order, the row past the computed labels included (cursor and offset).
        #expect(try await Self.manual(store, limit: 2) == [1, 3, 1 << 40])
        #expect(try await Self.manual(store, limit: 2, byOffset: true) == [1, 3, 1 << 40])
        // A row inserted with an id past them goes last; the first move writes the order out.
        let new = try await store.insert(["title": "d"], into: "t")
        #expect(new == (1 << 40) + 1)
        #expect(try await Self.manual(store, limit: 2) == [1, 3, 1 << 40, new])
        try await store.move(3, in: "t", to: .before(1))
        #expect(try await Self.manual(store, limit: 2) == [3, 1, 1 << 40, new])
        #expect(try await Self.integer(store, "SELECT count(*) FROM ordered_item") == 4)
        #expect(try await Self.integer(store, "SELECT manual_ready FROM sortkit_table") == 1)
    }
}
