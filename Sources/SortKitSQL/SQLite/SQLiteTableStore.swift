import CSQLiteSettings
import Crypto
import Foundation
import GRDB
import OrderKeys
import SortKit
import Synchronization

/// The embedded ``TableStore``: one SQLite file through GRDB, in WAL mode with a busy timeout,
/// readers in parallel with one writer.
///
///     let store = try SQLiteTableStore(path: "library.sqlite")
///     try await store.importCSV(Array("title,price\nDune,9.99\nEmma,4.5\n".utf8), as: "books")
///     try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price")))).rows.map(\.id)   // [2, 1]
///
/// Each table is stored as `st_<n>` with, per column `i`, its text `c<i>` (NFC), its typed
/// value `n<i>` for non-string columns, and ``KeyVariant`` sort-key BLOBs `k<i>_…` for the
/// presets' orders (indexed with them; another order's keys are computed in its query, never
/// stored by a read). A folded text column `s` serves search
/// (`instr` per term: substring semantics like memory's, which an FTS5 token index can't give).
/// The manual order lives in `ordered_item` (``SQLiteOrderedListStore``'s layout), written in
/// the same transaction as the row.
public final class SQLiteTableStore: _SQLTableStore {
    static let dialect = SQLDialect.sqlite
    let database: DatabasePool
    /// Whose turn it is to write: a write transaction spans many statements, each sent to the
    /// writing connection on its own, so writers take turns for the whole transaction.
    let turns = _WriteTurns()
    /// The cursor-signing key (kept in the file, so cursors outlive restarts).
    let secret: Data
    /// The tables held in memory to answer pages (see ``init(path:busyTimeout:inMemoryIndex:)``).
    let indexes: _TableIndexCache
    let inMemoryIndex: Bool
    /// The longest a page's query may run — its SQL (interrupted), or a search's scan of the
    /// in-memory index (stopped) — before the page throws ``TableStoreError/Kind/timedOut``.
    let queryBudget: Duration
    /// Checkpoints the write-ahead log off the writing connection (see ``_WALCheckpointer``).
    let checkpointer: _WALCheckpointer
    /// Removes the rows deletes marked gone, in the background (see ``_Tombstones``).
    let compactor = _TombstoneCompactor()
    /// Makes the indexes of tables served from the database after their import (``_IndexBuilder``).
    let builder = _IndexBuilder()
    /// The one-statement reads of downloads running now (``streamRows(_:columns:terms:csv:batchRows:_:)``):
    /// each holds one of GRDB's readers while its client reads.
    let streams = _StreamSlots(maximum: 2)
    /// How long a batch of a streamed read waits for the client to make room, and how long the
    /// whole read may last, before it stops (the client goes on page by page).
    let streamWait: Duration = .seconds(1)
    let streamLimit: Duration = .seconds(30)

    /// Opens (creating if needed) the store at `path`.
    ///
    /// A server that reads side by side does well to call ``turnOffMemoryStatistics()`` first.
    ///
    /// - Parameters:
    ///   - path: The SQLite database file (created with its folder's permissions if missing).
    ///   - busyTimeout: How long a write waits for another process's write.
    ///   - inMemoryIndex: Whether pages sorted by a spec are answered from an in-memory index of
    ///     each table (the default: every order, offset and search at interactive speed on
    ///     millions of rows, about twice the table's text in memory) rather than by SQL
    ///     (`ORDER BY`; keys that aren't stored are computed in the query).
    ///   - queryBudget: The longest a page's SQL or in-memory work (a search, a ranking build, a
    ///     sort) may take before it stops, counted from when the page was asked for.
    ///   - indexLimits: What the in-memory indexes keep, and the work one request may start
    ///     (see ``IndexLimits``).
    public init(
        path: String, busyTimeout: TimeInterval = 10, inMemoryIndex: Bool = true, queryBudget: Duration = .seconds(5),
        indexLimits: IndexLimits = IndexLimits()
    ) throws {
        self.inMemoryIndex = inMemoryIndex
        indexes = _TableIndexCache(limits: indexLimits)
        self.queryBudget = queryBudget
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // A write transaction stays open between its statements (see `write(durable:_:)`).
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            // 16 KB pages in a new database (an existing one keeps its size: in WAL mode it can't
            // change): a 1M-row import inserted in 0.79 s instead of 0.95 and committed in 0.09 s
            // instead of 0.15 (`sortkit serve big.csv`, 2026-11-26); 64 KB was no faster.
            try db.execute(sql: "PRAGMA page_size = 16384")
            // 64 MB of page cache per connection (SQLite's default is 2 MB): big imports and
            // sorts spill to disk far less.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
            // Reads through a memory map of the file (up to SQLite's 2 GB limit): a table served
            // from the database reads its rows in an index's order, page after random page,
            // and a mapped page costs no copy into the cache (a 1M-row read in title order
            // took 4.4 s instead of 10.4 s).
            try db.execute(sql: "PRAGMA mmap_size = 2147483648")
            // No checkpoint inside a commit: `checkpointer` runs them on its own connection. It
            // goes by the log file's size, so the file is cut back to its threshold when SQLite
            // starts the log over (else, after one big import, it would stay over it for good).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = \(_WALCheckpointer.defaultThreshold)")
            // Per-column search folds a cell at query time, with memory's folding.
            db.add(
                function: DatabaseFunction("sortkit_fold", argumentCount: 1, pure: true) { values in
                    String.fromDatabaseValue(values[0]).map(SearchQuery.fold)
                })
            // A key column that isn't stored, computed in a query (never in an index or a
            // stored column: other readers of the file don't have the function).
            try _SQLiteKeyFunction.register(db)
        }
        database = try DatabasePool(path: path, configuration: configuration)
        checkpointer = _WALCheckpointer(path: path)
        try Self.migrator.migrate(database)
        secret = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM sortkit_meta WHERE key = 'cursor-secret'") ?? Data()
        }
        // Rows a delete marked gone before the file was last closed.
        if try Self.checkTombstones(database) { rowsMarkedGone() }
        // Indexes an import or schema change left to make when the file was last closed.
        if try database.read({ db in try !Self.missingIndexes(db).isEmpty }) {
            databaseIndexesMissing()
        }
    }

    /// The catalog's tables; `tombstoned`, those served from the database only.
    static func catalogRows(_ db: Database, tombstoned: Bool = false) throws -> [_TableInfo] {
        let sql = "SELECT \(catalogColumns) FROM sortkit_table" + (tombstoned ? " WHERE db_index IS NOT NULL" : "") + " ORDER BY id"
        return try db.sqlValueRows(sql, [], cached: false).map(decodeInfo)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        SQLiteOrderedListStore.registerMigrations(in: &migrator)
        migrator.registerMigration("v1: sortkit tables") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sortkit_table (
                      id INTEGER PRIMARY KEY,
                      name TEXT NOT NULL UNIQUE,
                      schema TEXT NOT NULL,
                      variants TEXT NOT NULL DEFAULT '[]');
                    CREATE TABLE sortkit_meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
                    """)
            let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try db.execute(sql: "INSERT INTO sortkit_meta (key, value) VALUES ('cursor-secret', ?)", arguments: [secret])
        }
        // A table's schema version counts its changes (1 when created); files made before it
        // keep their rows and start at 1.
        migrator.registerMigration("v2: table versions") { db in
            try db.execute(sql: "ALTER TABLE sortkit_table ADD COLUMN version INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "UPDATE sortkit_table SET version = 1")
        }
        // Row counts in the catalog: a page's total without scanning the table.
        migrator.registerMigration("v3: row counts") { db in
            try db.execute(sql: "ALTER TABLE sortkit_table ADD COLUMN row_count INTEGER NOT NULL DEFAULT 0")
            for id in try Int64.fetchAll(db, sql: "SELECT id FROM sortkit_table") {
                try db.execute(sql: "UPDATE sortkit_table SET row_count = (SELECT COUNT(*) FROM st_\(id)) WHERE id = ?", arguments: [id])
            }
        }
        // Data versions and a change log keep in-memory indexes current across processes; a
        // manual order is written out at its first move (until then it is id order).
        migrator.registerMigration("v4: data versions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sortkit_table ADD COLUMN data_version INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE sortkit_table ADD COLUMN manual_ready INTEGER NOT NULL DEFAULT 1;
                    ALTER TABLE sortkit_table ADD COLUMN next_id INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE sortkit_change (table_id INTEGER NOT NULL, version INTEGER NOT NULL, row_id INTEGER NOT NULL);
                    CREATE INDEX sortkit_change_version ON sortkit_change (table_id, version);
                    """)
        }
        // Tables served from the database's own indexes (`--index-memory`) record their
        // collation; others have none.
        migrator.registerMigration("v5: database indexes") { db in
            try db.execute(sql: "ALTER TABLE sortkit_table ADD COLUMN db_index TEXT")
        }
        return migrator
    }

    /// Writes a consistent copy of the SortKit database at `source` to the new file `path` with
    /// SQLite's `VACUUM INTO`: one snapshot, compacted, readable as a store of its own. The
    /// source is opened read-only (nothing migrated, nothing written), and other connections and
    /// processes go on reading and writing it meanwhile (WAL mode). The copy gets the source's
    /// file permissions, and holds no deleted row: the rows a delete from a table served from
    /// the database marked gone, for a compactor to remove later, are removed from the copy.
    ///
    ///     try SQLiteTableStore.backup("sortkit.sqlite", to: "backups/sortkit-2026-11-27.sqlite")
    ///
    /// - Throws: ``TableStoreError`` (`invalid`) naming the problem: `path` exists (it is never
    ///   overwritten), its folder doesn't, `source` is missing or isn't a SortKit database, or the
    ///   copy can't be written (a partial copy is removed).
    public static func backup(_ source: String, to path: String) throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: source) else { throw TableStoreError.invalid("no database at '\(source)'") }
        guard !manager.fileExists(atPath: path) else {
            throw TableStoreError.invalid("'\(path)' exists; a backup never overwrites a file")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw TableStoreError.invalid("the folder '\(folder)' for the backup doesn't exist")
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let database = try DatabaseQueue(path: source, configuration: configuration)
            // VACUUM can't run inside a transaction; it only reads this database.
            try database.inDatabase { db in
                guard try db.tableExists("sortkit_table") else {
                    throw TableStoreError.invalid("'\(source)' is not a SortKit database (it has no sortkit_table)")
                }
                try db.execute(sql: "VACUUM INTO ?", arguments: [path])
            }
            // Rows marked gone (see `_Tombstones`) are removed from the copy: a backup holds
            // no deleted row.
            try DatabaseQueue(path: path).write { db in
                // (A file from before tables were served from the database has none.)
                guard try db.columns(in: "sortkit_table").contains(where: { $0.name == "db_index" }) else { return }
                for info in try catalogRows(db, tombstoned: true) where try db.tableExists(info.gone) {
                    for statement in _Tombstones.removal(info, ids: "SELECT id FROM \(info.gone)") { try db.execute(sql: statement) }
                }
            }
        } catch let error as DatabaseError {
            try? manager.removeItem(atPath: path)
            throw TableStoreError.invalid("can't copy '\(source)' to '\(path)': \(error.message ?? "SQLite error \(error.resultCode)")")
        } catch {
            try? manager.removeItem(atPath: path)
            throw error
        }
        if let mode = try? manager.attributesOfItem(atPath: source)[.posixPermissions] {
            try? manager.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
    }

    // MARK: Sessions

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the writing connection; its
    /// statements go to the connection one by one while this write holds ``turns``. A
    /// write that isn't `durable` commits without waiting for the disk (see ``load(_:folded:typed:as:)``).
    func write<T: Sendable>(durable: Bool, _ body: (_SQLiteSession) async throws -> T) async throws -> T {
        await turns.take()
        defer { turns.pass() }
        let session = _SQLiteSession(database: database, writing: true)
        do {
            if !durable { try await session.execute("PRAGMA synchronous = OFF") }
            // Awaited (`long`): another process's write lock keeps it waiting up to the busy
            // timeout, which must not hold a thread.
            try await session.execute("BEGIN IMMEDIATE", [], long: true)
            let value = try await body(session)
            try await session.execute("COMMIT")
            if !durable { try? await session.execute("PRAGMA synchronous = NORMAL") }
            checkpointer.afterWrite()
            return value
        } catch {
            // Not cancellable: a cancelled write still ends its transaction.
            Self.rollBack(database, durable: durable)
            throw error
        }
    }

    func write<T: Sendable>(_ body: (_SQLiteSession) async throws -> T) async throws -> T {
        try await write(durable: true, body)
    }

    func read<T: Sendable>(_ body: (_SQLiteSession) async throws -> T) async throws -> T {
        try await body(_SQLiteSession(database: database, writing: false))
    }

    /// Ends a failed write: its transaction rolled back (SQLite may have done it already, on an
    /// interrupt or a full disk) and the commit mode restored, each whatever the other did.
    private static func rollBack(_ database: DatabasePool, durable: Bool) {
        database.writeWithoutTransaction { db in
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            if !durable { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            // In case a failed load's own restore failed too (a cancelled access).
            try? db.execute(sql: "PRAGMA cache_size = -\(pageCacheKiB)")
        }
    }

    /// Each connection's page cache, in KiB (SQLite's default is 2 MB; an import's load runs
    /// with 8 MB and puts this back).
    static let pageCacheKiB = 65_536

    // MARK: What SQLite does its own way

    /// Writes hold the whole database already; the manual order's moves aren't counted.
    func infoLockingList(_ table: String, _ session: _SQLiteSession) async throws -> (_TableInfo, Int64) {
        (try await Self.info(table, session), 0)
    }

    /// Above every id the table ever gave (the catalog's `next_id`), so a deleted row's id is
    /// never given again — as PostgreSQL's sequences never do — and clients' ids and cursors
    /// never point at another row. (`AUTOINCREMENT` would do it too, at the cost of a write per
    /// inserted row, which halves a bulk import's speed.)
    func newRowID(_ info: _TableInfo, _ session: _SQLiteSession) async throws -> Int64? {
        let id =
            try await session.integer(
                "SELECT max(next_id, (SELECT coalesce(max(id), 0) + 1 FROM \(info.physical))) FROM sortkit_table WHERE id = $1",
                [.integer(info.id)]) ?? 1
        try await session.execute("UPDATE sortkit_table SET next_id = $1 WHERE id = $2", [.integer(id + 1), .integer(info.id)])
        return id
    }

    /// One prepared `UPDATE` run per row, in one visit to the writing connection.
    func rewrite(_ info: _TableInfo, rows: [[SQLValue]], _ session: _SQLiteSession) async throws {
        let table = info.physical, set = info.physicalColumns.map { "\($0) = ?" }.joined(separator: ", ")
        try await session.onConnection { db in
            let update = try db.makeStatement(sql: "UPDATE \(table) SET \(set) WHERE id = ?")
            for row in rows { try update.execute(arguments: StatementArguments(row.dropFirst().map(\.databaseValue) + [row[0].databaseValue])) }
        }
    }

    func created(_ info: _TableInfo, _ session: _SQLiteSession) async throws {}

    func servingFromDatabase(_ info: _TableInfo, rewritten: Bool) async throws {}

    /// Table ids are never given again (an index another process keeps for this id must not
    /// pass for a new table's): the highest one ever given is kept.
    func dropping(_ info: _TableInfo, _ session: _SQLiteSession) async throws {
        try await session.execute(
            """
            INSERT INTO sortkit_meta (key, value) VALUES ('last-table-id', $1)
            ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), excluded.value)
            """, [.integer(info.id)])
    }

    /// Creates the table and inserts every record with ``bulkInsert(_:folded:typed:_:_:)``. A
    /// large import commits without waiting for the disk; its log is checkpointed after it, in
    /// the background: the table is served sooner. The transaction is still all or nothing; a
    /// crash of the machine (not of the process) in the next moments could lose it, as an
    /// import never happened.
    func load(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], as schema: TableSchema, databaseIndex: Collation?
    ) async throws -> _TableInfo {
        let count = cells.baseCount
        let info = try await write(durable: count < 100_000) { session in
            // A table served from the database gets its indexes after its rows: built from
            // them in one pass each, not kept up to date row by row.
            // Its column and search indexes are made after the commit (``_IndexBuilder``).
            let later = databaseIndex != nil
            let created = try await create(schema, session, manualReady: false, indexesLater: later, databaseIndex: databaseIndex)
            try await session.onConnection { db in try Self.bulkInsert(cells, folded: folded, typed: typed, created, db) }
            if later { try await Self.createIndexes(created, session) }
            try await Self.count(count, created, session)
            try await session.execute("UPDATE sortkit_table SET next_id = $1 WHERE id = $2", [.integer(Int64(count + 1)), .integer(created.id)])
            return try await Self.info(schema.name, session)
        }
        // The writing connection's cache keeps the import's pages once they are written.
        await releaseWriterMemory()
        if databaseIndex != nil { databaseIndexesMissing() }
        return info
    }

    /// Gives back what the writing connection's cache holds (up to `cache_size`, 64 MB, which
    /// would stay resident for the server's life after an import or an index step) and the
    /// malloc arenas' free memory.
    func releaseWriterMemory() async {
        try? await database.writeWithoutTransaction { $0.releaseMemory() }
        _returnFreedMemoryToSystemSoon()
    }

    func orderIDs(_ query: PageQuery, _ order: _WholeOrder) async throws -> [Int64]? {
        let select = query.ids(after: nil, offset: 0)
        return try await read(budget: queryBudget) { db in
            try Int64.fetchAll(db, sql: select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
        }
    }

    /// `nil`: SQLite computes a key its table doesn't store in the page's query (`sortkit_key`).
    func computedRows(_ query: PageQuery, into selection: _ComputedSelection, from offset: Int, reading: Int) async throws -> _ComputedRows? {
        nil
    }

    /// The page's statements on one reader, in one snapshot, interrupted past `budget` (the
    /// query budget when `nil`).
    func pageRows(
        select: (sql: String, arguments: [SQLValue]), count: (sql: String, arguments: [SQLValue])?, csv: _PageCSV?, budget: Duration?
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?) {
        try await read(budget: budget ?? queryBudget) { db in
            var records: [UInt8] = []
            let rows = try db.sqlValueRows(select.sql, select.arguments, cached: false, csv: csv, into: &records)
            let filtered = try count.map { Int(try db.sqlValueRows($0.sql, $0.arguments, cached: false).first?.first?.integer ?? 0) }
            return (rows, csv == nil ? nil : records, filtered)
        }
    }

    /// One statement in one read on a reader of its own, at most two batches ahead of `body`
    /// (the client), as on PostgreSQL: page by cursor, a search's download found its matches
    /// again for every batch (10.6 s for a search matching most of 1M ASCII rows), and an
    /// index walk sought its place again. The reader waits for room on its thread up to
    /// ``streamWait``, and reads at most ``streamLimit`` (its snapshot holds back the
    /// write-ahead log's checkpoints); either stops it, and the caller goes on page by page
    /// after the last row handed on. A read that fails after a batch went out stops the same way.
    func streamRows(
        _ select: (sql: String, arguments: [SQLValue]), columns: Int, terms: Int, csv: CSVExport?, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd {
        let database = database, wait = streamWait, limit = streamLimit
        return try await streams.stream(body) { sink, ahead in
            /// The read stops: the client fell behind, or the read went on too long.
            struct Stopped: Error {}
            let started = ContinuousClock.now
            // The limit bounds the statement too: one that finds few rows (a rare search's
            // matches deep in an order) would otherwise hold its reader and snapshot between
            // batches. Cancelled, GRDB interrupts it; the group waits for the read's end,
            // so the values handed on are final when the deadline's `nil` comes.
            let end: _StreamEnd? = try await _withDeadline(limit) {
                try await database.read { db in
                    do {
                        let statement = try db.makeStatement(sql: select.sql)
                        // GRDB steps the statement (its checks for a cancelled read); the
                        // cells are read from the row it stands on.
                        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
                        let handle = statement.sqliteStatement
                        var batch = _StreamBatch()
                        func handOn(terms values: [SQLValue]?) throws {
                            let waiting = ContinuousClock.now
                            while ahead.count.load(ordering: .acquiring) >= 2 {
                                guard !ahead.gone.load(ordering: .acquiring) else { throw CancellationError() }
                                guard ContinuousClock.now - waiting < wait else { throw Stopped() }
                                // A GRDB reader's thread, not one of Swift's pool.
                                Thread.sleep(forTimeInterval: 0.002)
                            }
                            guard ContinuousClock.now - started < limit else { throw Stopped() }
                            ahead.count.add(1, ordering: .releasing)
                            // Not enqueued: the client is gone, and the batch would be lost.
                            guard case .enqueued = sink.yield(batch) else { throw CancellationError() }
                            if let values { ahead.handed.withLock { $0 = values } } else { ahead.complete.store(true, ordering: .releasing) }
                            batch = _StreamBatch()
                        }
                        while try cursor.next() != nil {
                            batch.append(sqlite: handle, columns: columns, csv: csv)
                            guard batch.count == batchRows else { continue }
                            // The order values of a batch's last row: where page by page goes on.
                            var values: [SQLValue] = []
                            _appendValues(handle, Int32(1 + columns)..<Int32(1 + columns + terms), to: &values)
                            try handOn(terms: values)
                        }
                        // The last batch's values aren't needed: handed on, the read is complete.
                        if batch.count > 0 { try handOn(terms: nil) }
                        return .finished
                    } catch is Stopped {
                        return .stopped(after: ahead.handed.withLock { $0 })
                    } catch  where ahead.handed.withLock({ $0 }) != nil && !(error is CancellationError) {
                        // After a batch went out, a failure only stops the read (a retry
                        // would repeat rows).
                        return .stopped(after: ahead.handed.withLock { $0 })
                    }
                }
            }
            return end ?? (ahead.complete.load(ordering: .acquiring) ? .finished : .stopped(after: ahead.handed.withLock { $0 }))
        }
    }

    /// Turns SQLite's memory statistics off for the whole process (`SQLITE_CONFIG_MEMSTATUS`)
    /// and says whether they are off: call it at startup, before SQLite is in use in the
    /// process (SQLite takes the setting only before its first connection, and not while
    /// another thread opens one). With them, every allocation of every connection takes one
    /// global mutex: the two readers of a search's page and count (1M ASCII rows) spent a tenth
    /// of their time in it, and answered in 0.31–0.33 s instead of 0.24–0.25. Without them,
    /// `sqlite3_memory_used`, `sqlite3_status64` and SQLite's soft and hard heap limits
    /// (`PRAGMA soft_heap_limit`) no longer work, in the whole process: so the store never does
    /// it on its own. `sortkit serve` calls it before it opens its database.
    ///
    ///     _ = SQLiteTableStore.turnOffMemoryStatistics()   // true: off from now on
    ///     let store = try SQLiteTableStore(path: "tables.sqlite")
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool { memoryStatisticsOff }

    /// Whether the statistics are off (the first call's result, kept: the setting is made once).
    static let memoryStatisticsOff: Bool = sortkit_sqlite_memory_statistics_off() == 0

    /// The bytes SQLite's memory statistics count as in use: 0 while they are off.
    static var sqliteMemoryUsed: Int64 { sortkit_sqlite_memory_used() }

    func loadIndex(_ info: _TableInfo, _ session: _SQLiteSession) async throws -> _TableIndex {
        let budget = indexes.limits.rankingBytesPerTable
        return try await database.read { db in try Self.loadIndex(info, db, rankingBudget: budget) }
    }

    /// Runs `body` on a reader; when it runs over `budget` its task is cancelled, which GRDB
    /// turns into an interrupt of the running statement (`sqlite3_interrupt`), and the read
    /// throws ``TableStoreError/Kind/timedOut``. The connection goes back to the pool unharmed.
    /// The budget is the statement's: one that ran within it is never reported late, however
    /// long the read waited for a thread before it or to resume after it.
    func read<T: Sendable>(budget: Duration, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let database = database
        // Set on the reader's thread when the statement itself took no longer than the budget
        // (a wait for a thread or a connection before it is not the query's).
        let done = _DoneFlag()
        let value = try await _withDeadline(budget, finished: { done.isSet }) {
            try await database.read { db in
                let start = ContinuousClock.now
                let value = try body(db)
                if ContinuousClock.now - start <= budget { done.set() }
                return value
            }
        }
        guard let value else { throw TableStoreError.timedOut(budget) }
        return value
    }
}
