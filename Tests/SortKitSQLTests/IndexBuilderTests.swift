import Foundation
import GRDB
import OrderKeys
import PostgresNIO
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// An SQLite table served from the database is served as soon as its import commits; its
/// column and search indexes are made after it, one per write (``_IndexBuilder``). Before,
/// during and after, its pages are the in-memory index's (the oracle).
@Suite("Indexes made after the import")
struct IndexBuilderTests {
    /// A store serving every imported table from the database, its builder and compactor paused.
    static func paused(_ path: String) throws -> SQLiteTableStore {
        let store = try TombstoneTests.served(path)
        store.builder.pause()
        return store
    }

    /// The names of `store`'s indexes and tables of table id 1 (`st_1…`).
    static func made(_ store: SQLiteTableStore) async throws -> Set<String> {
        try await store.database.read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name GLOB 'st_1_*'")) }
    }

    @Test("Served before its indexes, a table answers as memory does, through writes, and gets them one write each (seeded)")
    func servedBeforeIndexes() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let database = try Self.paused(try temporaryDatabase())
        let memory = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        let csv = Array(DifferentialTests.randomCSV(rows: 2_000, using: &random).utf8)
        for store in [database, memory] as [any TableStore] { try await store.importCSV(csv, as: "t", delimiter: UInt8(ascii: ","), presets: [:]) }
        let columns = try await memory.schema(of: "t").columns.map(\.name)
        #expect(try await database.indexPlacement(of: "t") == .database)
        #expect(try await database.indexesPending(of: "t"))
        #expect(try await memory.indexesPending(of: "t") == false)
        let info = try await database.info(of: database.table("t"))
        let expected = try Self.planned(info)
        #expect(try await Self.made(database).isDisjoint(with: expected), "no column or search index yet, seed \(seed)")
        try await TombstoneTests.expectSame(database, memory, "t", columns, &random, "no index, seed \(seed)")
        // Writes before the indexes: the search index, made later, holds them.
        func write() async throws {
            let id = Int64.random(in: 1...2_000, using: &random)
            let text = ["Ærø søk", "zoë", "ñandú 12", "e\u{301}cole"].randomElement(using: &random)!
            for store in [database, memory] as [any TableStore] {
                _ = try await store.insert([columns[0]: text], into: "t")
                try? await store.update(id, in: "t", set: [columns[0]: text + " mended"])
                try? await store.delete(id + 1, from: "t")
            }
        }
        try await write()
        // One index a step, each its own write, with users' writes between them.
        var steps = 0
        while try await database.indexStep() {
            steps += 1
            if steps % 5 == 0 { try await write() }
            if steps == 7 { try await TombstoneTests.expectSame(database, memory, "t", columns, &random, "half the indexes, seed \(seed)") }
        }
        #expect(steps == expected.count, "seed \(seed)")
        #expect(try await Self.made(database).isSuperset(of: expected))
        #expect(try await database.indexesPending(of: "t") == false)
        try await write()
        try await TombstoneTests.expectSame(database, memory, "t", columns, &random, "indexed, seed \(seed)")
        try await database.database.write { db in try db.execute(sql: "INSERT INTO st_1_search(st_1_search) VALUES ('integrity-check')") }
    }

    /// The indexes ``_IndexBuilder`` makes for `info`, by name.
    static func planned(_ info: _TableInfo) throws -> Set<String> {
        Set(try SQLiteTableStore.databaseIndexes(info).map { $0.name(info) })
    }

    @Test("An import whose indexes weren't all made gets them when the file is opened again")
    func reopened() async throws {
        let path = try temporaryDatabase()
        do {
            let store = try Self.paused(path)
            try await store.importCSV(Array("title,n\nb,2\na,1\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
            #expect(try await store.indexStep())
        }
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        await store.builder.idle()
        #expect(try await store.indexesPending(of: "t") == false)
        let plan = try await store.queryPlan(of: "t", PageRequest(order: .spec(try SortSpec(parsing: "-n")), limit: 10)).joined(separator: " | ")
        #expect(plan.contains("USING INDEX st_1_c"), "\(plan)")
    }

    @Test("A drop or a schema change between two steps: the builder makes what the table has then")
    func changedBetweenSteps() async throws {
        let store = try Self.paused(try temporaryDatabase())
        try await store.importCSV(Array("title,n\nb,x\na,1\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await store.indexStep())
        try await store.dropTable("t")
        #expect(try await store.indexStep() == false)
        #expect(try await Self.made(store).isEmpty)
        try await store.importCSV(Array("title,n\nbob,2\nann,1\ncat,\n".utf8), as: "u", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await store.indexStep())
        try await store.alter("u", [.renameColumn("title", to: "name"), .changeType("n", to: .integer)])
        store.builder.resume()
        try await store.buildIndexes()
        #expect(try await store.indexesPending(of: "u") == false)
        // A search of three letters or more: the trigram index's.
        let page = try await store.page(of: "u", PageRequest(order: .spec(try SortSpec(parsing: "-n")), search: "bob", limit: 10))
        #expect(page.rows.map(\.id) == [1] && page.filtered == 1)
        #expect(try await store.page(of: "u", PageRequest(order: .spec(try SortSpec(parsing: "n")), limit: 10)).rows.map(\.id) == [2, 1, 3])
    }
}

extension IndexBuilderTests {
    @Test(
        "PostgreSQL serves an import before its indexes, makes them concurrently between writes, and marks the table (seeded)",
        .needs(.postgres, for: "PostgreSQL's concurrent index builds"))
    func postgres() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let database = try #require(try await DatabaseServedTests.open(.postgres, try Backend.postgres.newLocation(), budget: 1) as? PostgresTableStore)
        database.builder.pause()
        let memory = try await DatabaseServedTests.open(.postgres, try Backend.postgres.newLocation(), budget: nil)
        let csv = Array(DifferentialTests.randomCSV(rows: 1_500, using: &random).utf8)
        for store in [database, memory] as [any TableStore] { try await store.importCSV(csv, as: "t", delimiter: UInt8(ascii: ","), presets: [:]) }
        let columns = try await memory.schema(of: "t").columns.map(\.name)
        #expect(try await database.indexesPending(of: "t"))
        let info = try await database.read { try await PostgresTableStore.info("t", $0) }
        func made() async throws -> Set<String> {
            try await database.read { session in
                Set(
                    try await session.select("SELECT indexname FROM pg_indexes WHERE tablename = $1 AND schemaname = current_schema()", [.text(info.physical)])
                        .map { $0[0].cell })
            }
        }
        let planned = Set(try PostgresTableStore.databaseIndexes(info).map { $0.name(info) })
        let early = try await made().intersection(planned)
        #expect(early.isEmpty, "\(early), seed \(seed)")
        func expectSame(_ round: String) async throws {
            for _ in 0..<8 {
                var request = PageRequest(
                    order: .spec(DifferentialTests.randomSpec(columns: columns, using: &random)), offset: Int.random(in: 0...200, using: &random),
                    limit: 50)
                DatabaseServedTests.drawSearch(&request, columns: columns, using: &random)
                let (got, expected) = (try await database.page(of: "t", request), try await memory.page(of: "t", request))
                #expect(got.rows.map(\.id) == expected.rows.map(\.id) && got.filtered == expected.filtered, "\(round): \(request), seed \(seed)")
            }
        }
        try await expectSame("no index")
        // A concurrent build that failed (here: division by zero at row 5) leaves its index
        // invalid: the builder drops it and makes it again.
        let leftover = "\(info.physical)_c0a"
        try? await database.client.withConnection { connection in
            try await _PostgresSession(connection: connection, logger: database.logger).execute(
                "CREATE INDEX CONCURRENTLY \(leftover) ON \(info.physical) ((1 / (id - 5)))")
        }
        let invalid = try await database.read { session in
            try await session.select("SELECT NOT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", [.text(leftover)])
        }
        #expect(invalid.first?.first == .integer(1) || invalid.first?.first?.cell == "true", "\(invalid)")
        var steps = 0
        while try await database.indexStep() {
            steps += 1
            if steps % 4 == 0 {
                for store in [database, memory] as [any TableStore] {
                    _ = try await store.insert([columns[0]: "Ærø \(steps)"], into: "t")
                    try await store.delete(Int64(steps), from: "t")
                }
                try await expectSame("after step \(steps)")
            }
        }
        // The leftover dropped, every index, then the mark.
        #expect(steps == planned.count + 2, "seed \(seed)")
        #expect(try await made().isSuperset(of: planned))
        #expect(try await database.indexesPending(of: "t") == false)
        try await expectSame("indexed")
        // A schema change drops the column indexes and the mark; the builder makes them again.
        try await database.alter("t", [.renameColumn(columns[0], to: "renamed")])
        #expect(try await database.indexesPending(of: "t"))
        database.builder.resume()
        try await database.buildIndexes()
        #expect(try await database.indexesPending(of: "t") == false)
    }
}
