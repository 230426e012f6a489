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

    /// ``served(_:)`` with `csv` imported as table `name`, its indexes made.
    static func served(_ path: String, importing csv: String, as name: String = "t") async throws -> SQLiteTableStore {
        let store = try served(path)
        try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
        try await store.buildIndexes()
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
            var request = PageRequest(order: .spec(spec), offset: Int.random(in: 0...300, using: &random), limit: 200)
            DatabaseServedTests.drawSearch(&request, columns: columns, using: &random)
            let context = "\(round): \(spec), search '\(request.search)' \(request.columnSearch), offset \(request.offset)"
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
            #expect(try await Self.downloaded(database, name, request).ids == all, "\(context): download")
        }
        for request in [PageRequest(order: .manual, limit: 5_000), PageRequest(order: .manual, offset: 700, limit: 40)] {
            let expected = try await memory.page(of: name, request)
            let got = try await database.page(of: name, request)
            #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(round): manual order from \(request.offset)")
        }
    }

    /// A download of `request`'s view: streamed where the store streams it, then page by page
    /// from where the stream stopped, if it did (a client left behind on a busy machine).
    static func downloaded(_ store: some TableStore, _ table: String, _ request: PageRequest) async throws -> (ids: [Int64], csv: [UInt8]) {
        var ids: [Int64] = [], csv: [UInt8] = [], request = request
        let end = try await store.streamPages(of: store.table(table), request) { page in
            ids += page.rows.map(\.id)
            csv += page.csv ?? []
        }
        switch end {
        case .finished: return (ids, csv)
        case .notStreamed: break
        case .continues(let after): request.after = after
        }
        while true {
            let page = try await store.page(of: table, request)
            ids += page.rows.map(\.id)
            csv += page.csv ?? []
            guard let next = page.next else { return (ids, csv) }
            request.after = next
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
            let refusals: [@Sendable () async throws -> Void] = [
                { _ = try await database.row(ghost, in: "t") }, { try await database.update(ghost, in: "t", set: ["s": "x"]) },
                { try await database.delete(ghost, from: "t") }, { [live] in try await database.delete([live[0], ghost], from: "t") },
                { [live] in try await database.move(live[0], in: "t", to: .after(ghost)) },
                { [live] in try await database.move([live[0], live[1]], in: "t", to: .before(ghost)) },
                { [live] in try await database.move(ghost, in: "t", to: .after(live[0])) },
            ]
            for (number, refused) in refusals.enumerated() {
                let error = await #expect(throws: TableStoreError.self, "request \(number)") { try await refused() }
                #expect(error?.kind == .notFound && error?.description.contains("\(ghost)") == true, "request \(number): \(String(describing: error))")
            }
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
        // The compactor removed the rows, their search entries and order entries alike (the
        // search index, made in the background while the rounds ran, is done now).
        try await database.buildIndexes()
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
        // Row 3's "n/a" can't be a number: marked gone, it mustn't fail the change.
        let store = try await Self.served(try temporaryDatabase(), importing: "title,count\nA,1\nB,2\nC,n/a\nD,4\n")
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
        try await store.buildIndexes()
        // The import's log copied and cut to nothing: the delete's frames are the file's.
        try await store.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        func log() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
        let before = log()
        let ids = (0..<1_000).map { Int64($0 * 20 + 1) }
        try await store.delete(ids, from: "t")
        #expect(log() - before < 1 << 20, "the delete logged \(log() - before) bytes")
        #expect(try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "b")), limit: 1)).total == 19_000)
    }

    @Test("A table stored without marks gets their table and view when the file is opened")
    func migration() async throws {
        let path = try temporaryDatabase()
        do {
            let store = try await Self.served(path, importing: "title\nX\nY\nZ\n")
            // As a file from before marks, or a table an older version imported: no marks
            // table, no view.
            try await store.database.write { db in try db.execute(sql: "DROP VIEW st_1_live; DROP TABLE st_1_gone") }
        }
        let store = try Self.served(path)
        try await store.delete(2, from: "t")
        #expect(try await Self.marked(store, "t") == 1)
        #expect(try await store.page(of: "t", PageRequest(limit: 10)).rows.map(\.id) == [1, 3])
        // Another process's older version serves a table from the database while this store
        // has the file open: it has no marks table, and the compactor passes it by.
        try await store.importCSV(Array("title\nA\nB\n".utf8), as: "u", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.buildIndexes()
        try await store.database.write { db in try db.execute(sql: "DROP VIEW st_2_live; DROP TABLE st_2_gone") }
        try await store.compactTombstones()
        #expect(try await Self.marked(store, "t") == 0)
    }

    @Test("A store whose deletes marked rows is freed when its last reference goes")
    func storeFreed() async throws {
        var store: SQLiteTableStore? = try await Self.served(try temporaryDatabase(), importing: "title\nA\nB\n")
        // Paused: the compactor keeps the delete's step for `resume()`.
        try await store!.delete(1, from: "t")
        weak let freed = store
        store = nil
        #expect(freed == nil)
    }

    @Test("A view an older version left over a dropped table goes when the file is opened")
    func strayView() async throws {
        let path = try temporaryDatabase()
        do {
            let store = try await Self.served(path, importing: "title\nX\nY\n")
            // An older version's drop: the table goes, its view and marks stay.
            try await store.database.write { db in try db.execute(sql: "DROP TABLE st_1; DROP TABLE st_1_search; DELETE FROM sortkit_table") }
        }
        let store = try Self.served(path)
        try await store.buildIndexes()
        let left = try await store.database.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name GLOB 'st_*'") }
        #expect(left.isEmpty, "\(left)")
        try await store.importCSV(Array("title,n\nX,1\nY,2\n".utf8), as: "u", delimiter: UInt8(ascii: ","), presets: [:])
        // A schema change checks every view of the file: a stray one would fail it.
        try await store.alter("u", [.renameColumn("n", to: "m")])
    }

    @Test("A backup holds no row marked gone")
    func backup() async throws {
        let path = try temporaryDatabase()
        let store = try await Self.served(path, importing: "title\nX\nY\nZ\n")
        try await store.delete([1, 3], from: "t")
        let copy = path + ".backup"
        try SQLiteTableStore.backup(path, to: copy)
        let rows = try await DatabaseQueue(path: copy).read { db in
            try [Int.fetchOne(db, sql: "SELECT count(*) FROM st_1"), Int.fetchOne(db, sql: "SELECT count(*) FROM st_1_gone")]
        }
        #expect(rows == [1, 0])
        #expect(try await Self.marked(store, "t") == 2, "the source keeps its marks for its compactor")
    }

    @Test("Resumed, the compactor removes what deletes marked while it was paused")
    func resume() async throws {
        let store = try await Self.served(try temporaryDatabase(), importing: "title\n" + (1...50).map { "b\($0)\n" }.joined())
        try await store.delete(Array(1...20), from: "t")
        #expect(try await Self.marked(store, "t") == 20)
        store.compactor.resume()
        try await Self.waitUntilCompacted(store, "t")
    }

    @Test("Deep offsets, halves and downloads of a 45,000-row table with rows marked gone")
    func bigTable() async throws {
        var random = SplitMix64(seed: 45)
        var csv = "title,author,price\n"
        for row in 1...45_000 {
            csv += "\(["Ærø", "ant", "Zoë", "é"][row % 4])\(random.next() % 10_000),a\(random.next() % 7),\(Int(random.next() % 2_000) - 1_000)\n"
        }
        let database = try Self.served(try temporaryDatabase())
        let memory = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        for store in [database, memory] { try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:]) }
        let gone = (0..<2_000).map { _ in Int64(random.next() % 45_000 + 1) }
        for store in [database, memory] { try await store.delete(Array(Set(gone)).sorted(), from: "t") }
        for (spec, offset) in [("title:len", 0), ("-price:abs,title", 0), ("author,-price", 20_000), ("title", 30_000), ("-title", 42_000)] {
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), offset: offset, limit: 25)
            let (got, expected) = (try await database.page(of: "t", request), try await memory.page(of: "t", request))
            #expect(got.rows.map(\.id) == expected.rows.map(\.id) && got.rows.count == 25, "\(spec) from \(offset)")
        }
        var download = PageRequest(order: .spec(try SortSpec(parsing: "title")), limit: 500)
        download.csv = CSVExport(defusing: nil)
        let (got, expected) = (try await Self.downloaded(database, "t", download), try await Self.downloaded(memory, "t", download))
        #expect(got.csv == expected.csv && got.csv.count(where: { $0 == UInt8(ascii: "\n") }) == 45_000 - Set(gone).count)
    }
}
