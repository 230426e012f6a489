import Foundation
import GRDB
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// Deletes from SQLite tables served from the database mark rows gone and a compactor removes
/// them later (``_Tombstones``): every read leaves marked rows out, before and after the
/// compactor ran, as a store that deleted them at once does (the in-memory index, the oracle).
@Suite("Deletes that mark rows gone")
struct TombstoneTests {
    /// A SQLite store serving every imported table from the database, its compactor paused.
    static func served(_ path: String) throws -> SQLiteTableStore {
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        store.compactor.pause()
        return store
    }

    /// How many rows of `table` are marked gone.
    static func marked(_ store: SQLiteTableStore, _ table: String) async throws -> Int {
        let info = try await store.info(of: store.table(table))
        return try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(info.gone)") ?? -1 }
    }

    /// Pages, counts, keyset paging and downloads of both stores, for random requests.
    static func expectSame(
        _ database: SQLiteTableStore, _ memory: some TableStore, _ name: String, _ columns: [String], _ random: inout SplitMix64, _ round: String
    ) async throws {
        for _ in 0..<12 {
            var spec = DifferentialTests.randomSpec(columns: columns, using: &random)
            if Bool.random(using: &random) { spec = try SortSpec(parsing: columns.randomElement(using: &random)!) }
            let search = Bool.random(using: &random) ? "" : DatabaseServedTests.terms.randomElement(using: &random)!
            var request = PageRequest(order: .spec(spec), search: search, offset: Int.random(in: 0...300, using: &random), limit: 200)
            if Int.random(in: 0..<4, using: &random) == 0 {
                request.columnSearch = [columns.randomElement(using: &random)!: DatabaseServedTests.terms.randomElement(using: &random)!]
            }
            let context = "\(round): \(spec), search '\(search)' \(request.columnSearch), offset \(request.offset)"
            let expected = try await memory.page(of: name, request)
            let got = try await database.page(of: name, request)
            #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(context)")
            #expect(got.rows.map(\.cells) == expected.rows.map(\.cells), "\(context): cells")
            #expect(got.total == expected.total && got.filtered == expected.filtered, "\(context): counts")
            request.offset = 0
            request.limit = 97
            let paged = try await DifferentialTests.keysetPages(database, name, request, most: 5_000)
            let all = try await DifferentialTests.keysetPages(memory, name, request, most: 5_000)
            #expect(paged == all, "\(context): keyset paging")
            var streamed: [Int64] = []
            _ = try await database.streamPages(of: database.table(name), request) { streamed += $0.rows.map(\.id) }
            #expect(streamed == all, "\(context): download")
        }
        for request in [PageRequest(order: .manual, limit: 5_000), PageRequest(order: .manual, offset: 700, limit: 40)] {
            let expected = try await memory.page(of: name, request)
            let got = try await database.page(of: name, request)
            #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(round): manual order from \(request.offset)")
        }
    }

    @Test("Rows marked gone are left out of every read, and the compactor removes them unseen (seeded)")
    func marksAgreeWithMemory() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let path = try temporaryDatabase()
        let database = try Self.served(path)
        let memory = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        let csv = Array(DifferentialTests.randomCSV(rows: 3_000, using: &random).utf8)
        for store in [database, memory] as [any TableStore] { try await store.importCSV(csv, as: "t", delimiter: UInt8(ascii: ","), presets: [:]) }
        #expect(try await database.indexPlacement(of: "t") == .database)
        let columns = try await memory.schema(of: "t").columns.map(\.name)
        // A few moves first: part of the manual order is written out, part computed from ids.
        for _ in 0..<5 {
            let id = Int64.random(in: 1...3_000, using: &random), anchor = Int64.random(in: 1...3_000, using: &random)
            guard id != anchor else { continue }
            for store in [database, memory] as [any TableStore] { try await store.move(id, in: "t", to: .after(anchor)) }
        }
        var live = Array(Int64(1)...3_000)
        for round in 0..<3 {
            live.shuffle(using: &random)
            let gone = Array(live.prefix(round == 0 ? 400 : 150))
            live.removeFirst(gone.count)
            for store in [database, memory] as [any TableStore] {
                try await store.delete(Array(gone.dropFirst()), from: "t")
                try await store.delete(gone[0], from: "t")
            }
            // Round 1's marks are removed at its end.
            #expect(try await Self.marked(database, "t") == (round == 2 ? 150 : 400 + 150 * round), "seed \(seed)")
            try await Self.expectSame(database, memory, "t", columns, &random, "round \(round), marks pending, seed \(seed)")
            // A marked row is gone for every request that names it.
            let ghost = gone[gone.count / 2]
            await #expect(throws: TableStoreError.self) { try await database.row(ghost, in: "t") }
            await #expect(throws: TableStoreError.self) { try await database.update(ghost, in: "t", set: ["s": "x"]) }
            await #expect(throws: TableStoreError.self) { try await database.delete(ghost, from: "t") }
            await #expect(throws: TableStoreError.self) { try await database.delete([live[0], ghost], from: "t") }
            await #expect(throws: TableStoreError.self) { try await database.move(live[0], in: "t", to: .after(ghost)) }
            await #expect(throws: TableStoreError.self) { try await database.move([live[0], live[1]], in: "t", to: .before(ghost)) }
            await #expect(throws: TableStoreError.self) { try await database.move(ghost, in: "t", to: .after(live[0])) }
            // Writes after the marks: an insert gets a new id, a move places a live row.
            let inserted = try await database.insert(["s": "abé one", "e": "todo"], into: "t")
            #expect(try await memory.insert(["s": "abé one", "e": "todo"], into: "t") == inserted)
            #expect(inserted > 3_000, "a marked row's id is never given again")
            live.append(inserted)
            for store in [database, memory] as [any TableStore] { try await store.move(live[2], in: "t", to: .before(live[3])) }
            if round == 1 {
                try await database.compactTombstones()
                #expect(try await Self.marked(database, "t") == 0)
                try await Self.expectSame(database, memory, "t", columns, &random, "round \(round), compacted, seed \(seed)")
            }
        }
        #expect(try await database.catalog().first?.rowCount == live.count)
        try await database.compactTombstones()
        try await Self.expectSame(database, memory, "t", columns, &random, "compacted, seed \(seed)")
        // The compactor removed the rows, their search entries and order entries alike.
        let (integrity, stored, strays) = try await database.database.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM st_1"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ordered_item WHERE id NOT IN (SELECT id FROM st_1)")
            )
        }
        #expect(integrity == "ok" && stored == live.count && strays == 0)
        try await database.database.write { db in try db.execute(sql: "INSERT INTO st_1_search(st_1_search) VALUES ('integrity-check')") }
    }

    @Test("The compactor runs by itself after a delete, and on opening a file with rows marked gone")
    func compactorRuns() async throws {
        let path = try temporaryDatabase()
        var store: SQLiteTableStore? = try Self.served(path)
        let csv = "title,price\n" + (1...2_000).map { "Book \($0),\($0)" }.joined(separator: "\n") + "\n"
        try await store!.importCSV(Array(csv.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        try await store!.delete(Array(1...300), from: "books")
        #expect(try await Self.marked(store!, "books") == 300)
        store = nil
        // Reopened: the compactor starts by itself.
        let reopened = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        #expect(try await reopened.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price")), limit: 1)).rows.map(\.id) == [301])
        try await Self.waitUntilCompacted(reopened, "books")
        try await reopened.delete(Array(500...700), from: "books")
        try await Self.waitUntilCompacted(reopened, "books")
        let count = try await reopened.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM st_1") }
        #expect(count == 2_000 - 300 - 201)
        let deep = PageRequest(order: .spec(try SortSpec(parsing: "-price")), offset: 1_300, limit: 5)
        #expect(try await reopened.page(of: "books", deep).rows.map(\.id) == [499, 498, 497, 496, 495])
    }

    /// Waits up to 20 s for `table`'s marked rows to be removed.
    static func waitUntilCompacted(_ store: SQLiteTableStore, _ table: String) async throws {
        let start = ContinuousClock.now
        while try await marked(store, table) > 0 {
            guard ContinuousClock.now - start < .seconds(20) else {
                Issue.record("the compactor left \(try await marked(store, table)) rows marked after 20 s")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("Another store on the file, with the table in memory, never sees a marked row")
    func otherProcess() async throws {
        let path = try temporaryDatabase()
        let writer = try Self.served(path)
        let csv = "title,price\n" + (1...500).map { "Book \($0),\($0)" }.joined(separator: "\n") + "\n"
        try await writer.importCSV(Array(csv.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        let reader = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        reader.compactor.pause()
        let price = PageRequest(order: .spec(try SortSpec(parsing: "price")), limit: 1_000)
        #expect(try await reader.page(of: "books", price).rows.count == 500)
        // The reader's index catches up from the change log...
        try await writer.delete(Array(stride(from: 2, through: 500, by: 2)), from: "books")
        #expect(try await reader.page(of: "books", price).rows.map(\.id) == Array(stride(from: 1, through: 499, by: 2)))
        // ...or, a new store, reads the table whole.
        let fresh = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        fresh.compactor.pause()
        #expect(try await fresh.page(of: "books", price).rows.map(\.id) == Array(stride(from: 1, through: 499, by: 2)))
        #expect(try await fresh.page(of: "books", PageRequest(search: "book 10", limit: 1_000)).rows.map(\.id) == [101, 103, 105, 107, 109])
    }

    @Test("A schema change, a drop and a name used again with rows marked gone")
    func schemaChanges() async throws {
        let store = try Self.served(try temporaryDatabase())
        // Row 3's "n/a" can't be a number: marked gone, it mustn't fail the change.
        try await store.importCSV(Array("title,count\nA,1\nB,2\nC,n/a\nD,4\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await store.schema(of: "t").columns.map(\.type) == [.string, .string])
        try await store.delete(3, from: "t")
        try await store.alter("t", [.changeType("count", to: .integer)])
        #expect(try await Self.marked(store, "t") == 0)
        let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "-count")), limit: 10))
        #expect(page.rows.map(\.id) == [4, 2, 1] && page.total == 3)
        try await store.delete([1, 2], from: "t")
        try await store.dropTable("t")
        try await store.importCSV(Array("title\nX\nY\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await store.page(of: "t", PageRequest(limit: 10)).rows.map(\.cells) == [["X"], ["Y"]])
        #expect(try await Self.marked(store, "t") == 0)
        // The dropped table's view and marks went with it.
        let left = try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'st\\_1%' ESCAPE '\\'") }
        #expect(left == 0)
    }

    @Test("A bulk delete writes a few pages of log, not every index's")
    func smallLog() async throws {
        let path = try temporaryDatabase()
        let store = try Self.served(path)
        var random = SplitMix64(seed: 7)
        var csv = "a,b,c,d\n"
        for row in 1...20_000 { csv += "w\(random.next() % 100_000),\(random.next() % 1_000),\(row),x\(random.next())\n" }
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        // The import's log copied and cut to nothing: the delete's frames are the file's.
        try await store.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        func log() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
        let before = log()
        let ids = (0..<1_000).map { Int64($0 * 20 + 1) }
        try await store.delete(ids, from: "t")
        #expect(log() - before < 1 << 20, "the delete logged \(log() - before) bytes")
        #expect(try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "b")), limit: 1)).total == 19_000)
    }

    @Test("A file stored before marks gets their table and view when opened")
    func migration() async throws {
        let path = try temporaryDatabase()
        do {
            let store = try Self.served(path)
            try await store.importCSV(Array("title\nX\nY\nZ\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
            // As a file from before v6: no marks table, no view, the migration not run.
            try await store.database.write { db in
                try db.execute(sql: "DROP VIEW st_1_live; DROP TABLE st_1_gone; DELETE FROM grdb_migrations WHERE identifier = 'v6: tombstones'")
            }
        }
        let store = try Self.served(path)
        try await store.delete(2, from: "t")
        #expect(try await Self.marked(store, "t") == 1)
        #expect(try await store.page(of: "t", PageRequest(limit: 10)).rows.map(\.id) == [1, 3])
    }
}
