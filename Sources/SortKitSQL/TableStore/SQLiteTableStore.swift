import Crypto
import Foundation
import GRDB
import OrderKeys
import SortKit

/// The embedded ``TableStore``: one SQLite file through GRDB, in WAL mode with a busy timeout,
/// readers in parallel with one writer.
///
///     let store = try SQLiteTableStore(path: "library.sqlite")
///     try await store.importCSV(Array("title,price\nDune,9.99\nEmma,4.5\n".utf8), as: "books")
///     try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price")))).rows.map(\.id)   // [2, 1]
///
/// Each table is stored as `st_<n>` with, per column `i`, its text `c<i>` (NFC), its typed
/// value `n<i>` for non-string columns, and ``KeyVariant`` sort-key BLOBs `k<i>_…` as orders
/// need them (the natural-collation key of every string column from the start; others are
/// added and filled on first use, in one transaction). A folded text column `s` serves search
/// (`instr` per term: substring semantics like memory's, which an FTS5 token index can't give).
/// The manual order lives in `ordered_item` (``SQLiteOrderedListStore``'s layout), written in
/// the same transaction as the row.
public final class SQLiteTableStore: TableStore {
    let database: DatabasePool
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

    /// Opens (creating if needed) the store at `path`.
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
        configuration.prepareDatabase { db in
            // 16 KB pages in a new database (an existing one keeps its size: in WAL mode it can't
            // change): a 1M-row import inserted in 0.79 s instead of 0.95 and committed in 0.09 s
            // instead of 0.15 (`sortkit serve big.csv`, 2026-11-26); 64 KB was no faster.
            try db.execute(sql: "PRAGMA page_size = 16384")
            // 64 MB of page cache per connection (SQLite's default is 2 MB): big imports and
            // sorts spill to disk far less.
            try db.execute(sql: "PRAGMA cache_size = -65536")
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
            db.add(
                function: DatabaseFunction("sortkit_key", argumentCount: nil, pure: true) { values in
                    KeyVariant.computedKey(values.map { String.fromDatabaseValue($0) }).map { Data($0) }
                })
        }
        database = try DatabasePool(path: path, configuration: configuration)
        checkpointer = _WALCheckpointer(path: path)
        try Self.migrator.migrate(database)
        secret = try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM sortkit_meta WHERE key = 'cursor-secret'") ?? Data()
        }
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
        return migrator
    }

    // MARK: Tables

    public func tables() async throws -> [TableSchema] {
        try await database.read { db in
            try String.fetchAll(db, sql: "SELECT schema FROM sortkit_table ORDER BY id").map(TableSchema.decode)
        }
    }

    public func catalog() async throws -> [TableCatalogEntry] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT schema, row_count FROM sortkit_table ORDER BY id").map { row in
                TableCatalogEntry(schema: try TableSchema.decode(row[0]), rowCount: row[1])
            }
        }
    }

    public func schema(of table: String) async throws -> TableSchema {
        try await database.read { db in try Self.info(table, db).schema }
    }

    /// Writes a consistent copy of the SortKit database at `source` to the new file `path` with
    /// SQLite's `VACUUM INTO`: one snapshot, compacted, readable as a store of its own. The
    /// source is opened read-only (nothing migrated, nothing written), and other connections and
    /// processes go on reading and writing it meanwhile (WAL mode). The copy gets the source's
    /// file permissions.
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

    public func indexUsage(of table: String) async throws -> IndexUsage? {
        let id = try await database.read { db in try Self.info(table, db).id }
        return indexes.usage(table: id)
    }

    public func dropTable(_ table: String) async throws {
        let id = try await write { db in
            let info = try Self.info(table, db)
            try db.execute(sql: "DROP TABLE \(info.physical)")
            try db.execute(sql: "DELETE FROM ordered_item WHERE list = ?", arguments: [info.list])
            try db.execute(sql: "DELETE FROM sortkit_change WHERE table_id = ?", arguments: [info.id])
            try db.execute(sql: "DELETE FROM sortkit_table WHERE id = ?", arguments: [info.id])
            // Table ids are never given again (an index another process keeps for this id
            // must not pass for a new table's): the highest one ever given is kept.
            try db.execute(
                sql:
                    "INSERT INTO sortkit_meta (key, value) VALUES ('last-table-id', ?) ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), excluded.value)",
                arguments: [info.id])
            return info.id
        }
        indexes.forget(table: id)
    }

    public func createTable(_ schema: TableSchema) async throws {
        try await write { db in _ = try Self.create(schema, db) }
    }

    /// Imports a CSV file as a new table: read into columns on every core, types inferred,
    /// the rows inserted in one transaction while the table's in-memory index is built on the
    /// other cores; the manual order is id order until a row is first moved.
    @discardableResult
    public func importCSV(
        _ csv: [UInt8], as name: String, delimiter: UInt8 = UInt8(ascii: ","), presets: [String: SortSpec] = [:]
    ) async throws -> TableSchema {
        let columns = try _CSVColumns.read(csv, delimiter: delimiter)
        let schema = TableSchema(
            name: name, columns: zip(columns.header, columns.inferredTypes()).map { TableSchema.Column($0, $1) }, presets: presets)
        try schema.validateDefinition()
        guard try await database.read({ db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sortkit_table WHERE name = ?", arguments: [name]) }) == 0
        else { throw TableStoreError.tableExists(name) }
        let variants = try _TableIndex.defaultVariants(schema)
        let ids = (0..<columns.count).map { Int64($0 + 1) }
        let (folded, typed) = columns.derived(schema)
        // A child task: when the transaction below fails, leaving this scope waits for the build,
        // so the memory it holds is freed before the import's error returns.
        async let building =
            inMemoryIndex
            ? _TableIndex(
                schema: schema, schemaVersion: 0, dataVersion: 0, ids: ids, columns: columns.columns, variants: variants,
                folded: folded, typedValues: typed) : nil
        let large = columns.count >= 100_000
        let info = try await database.writeWithoutTransaction { db in
            // A large import commits without waiting for the disk; its log is checkpointed
            // after it, in the background: the table is served sooner. The transaction is still
            // all or nothing; a crash of the machine (not of the process) in the next moments
            // could lose it, as an import never happened.
            if large { try db.execute(sql: "PRAGMA synchronous = OFF") }
            defer { if large { try? db.execute(sql: "PRAGMA synchronous = NORMAL") } }
            var info: _TableInfo?
            try db.inTransaction(.immediate) {
                let created = try Self.create(schema, db, manualReady: false)
                try Self.bulkInsert(columns, folded: folded, typed: typed, created, db)
                try Self.count(columns.count, created, db)
                try db.execute(sql: "UPDATE sortkit_table SET next_id = ? WHERE id = ?", arguments: [columns.count + 1, created.id])
                info = try Self.info(name, db)
                return .commit
            }
            return info!
        }
        checkpointer.afterWrite()
        indexes.installImported(await building, info)
        return schema
    }

    // MARK: Rows

    @discardableResult
    public func insert(_ values: [String: String], into table: String) async throws -> Int64 {
        try await write { db in
            let info = try Self.info(table, db)
            let cells = try info.merging(values, into: Array(repeating: "", count: info.schema.columns.count))
            let id = try Self.nextID(info, db)
            try Self.insertStatement(info, db, withID: true).execute(arguments: [id.databaseValue] + Self.rowArguments(cells, info))
            try Self.count(1, info, db)
            try Self.logChange(id, info, db)
            // Until the manual order is written out it is id order, where a new row is last.
            guard info.manualReady else { return id }
            var random = SystemRandomNumberGenerator()
            let reader = _SQLiteLabelReader(db: db, list: info.list)
            let writes = try LabelPlanner.insert(id, before: nil, in: reader, using: &random)
            try SQLiteOrderedListStore._apply(writes, to: info.list, in: db)
            return id
        }
    }

    public func update(_ id: Int64, in table: String, set values: [String: String]) async throws {
        try await write { db in
            let info = try Self.info(table, db)
            let cells = try info.merging(values, into: Self.cells(id, info, db))
            let columns = info.physicalColumns.map { "\($0) = ?" }.joined(separator: ", ")
            try db.execute(
                sql: "UPDATE \(info.physical) SET \(columns) WHERE id = ?",
                arguments: StatementArguments(info.rowValues(cells).map(\.databaseValue) + [id.databaseValue]))
            try Self.logChange(id, info, db)
        }
    }

    public func delete(_ id: Int64, from table: String) async throws {
        try await write { db in
            let info = try Self.info(table, db)
            try db.execute(sql: "DELETE FROM \(info.physical) WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { throw TableStoreError.unknownRow(id, table: table) }
            try Self.count(-1, info, db)
            try Self.logChange(id, info, db)
            try db.execute(sql: "DELETE FROM ordered_item WHERE list = ? AND id = ?", arguments: [info.list, id])
        }
    }

    public func delete(_ ids: [Int64], from table: String) async throws {
        try _BlockMove.checkIDs(ids)
        try await write { db in
            let info = try Self.info(table, db)
            try Self.checkRowsExist(ids, info, db)
            let list = Self.idList(ids)
            try db.execute(sql: "DELETE FROM \(info.physical) WHERE id IN (SELECT value FROM json_each(?))", arguments: [list])
            try db.execute(sql: "DELETE FROM ordered_item WHERE list = ? AND id IN (SELECT value FROM json_each(?))", arguments: [info.list, list])
            try Self.logChanges(ids, info, db)
            try Self.count(-ids.count, info, db)
        }
    }

    public func row(_ id: Int64, in table: String) async throws -> TableRow {
        try await database.read { db in
            let info = try Self.info(table, db)
            return TableRow(id: id, cells: try Self.cells(id, info, db))
        }
    }

    // MARK: Manual order

    public func move(_ id: Int64, in table: String, to destination: MoveDestination) async throws {
        try await write { db in
            let info = try Self.info(table, db)
            try Self.checkRowsExist([id], info, db)
            try Self.prepareManualOrder(info, db)
            try Self.move(id, to: destination, info, db)
        }
    }

    public func move(_ ids: [Int64], in table: String, to destination: MoveDestination, keepingOrder: Bool) async throws {
        let anchor = try _BlockMove.check(ids, destination)
        try await write { db in
            let info = try Self.info(table, db)
            try Self.checkRowsExist(ids + [anchor], info, db)
            try Self.prepareManualOrder(info, db)
            var block = ids
            if keepingOrder {
                block = try Int64.fetchAll(
                    db, sql: "SELECT id FROM ordered_item WHERE list = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY pos, id",
                    arguments: [info.list, Self.idList(ids)])
            }
            for (id, step) in _BlockMove.steps(block, destination) { try Self.move(id, to: step, info, db) }
        }
    }

    /// Moves one row inside a write transaction.
    static func move(_ id: Int64, to destination: MoveDestination, _ info: _TableInfo, _ db: Database) throws {
        let reader = _SQLiteLabelReader(db: db, list: info.list)
        var random = SystemRandomNumberGenerator()
        do {
            let writes: [LabelWrite<Int64>]
            switch destination {
            case .after(let anchor):
                guard try reader.detach(id, anchor: anchor) else { return }
                writes = try LabelPlanner.insert(id, after: anchor, in: reader, using: &random)
            case .before(let anchor):
                guard try reader.detach(id, anchor: anchor) else { return }
                writes = try LabelPlanner.insert(id, before: anchor, in: reader, using: &random)
            case .toIndex(let index):
                guard index >= 0 else { throw TableStoreError.invalid("toIndex must be 0 or more, got \(index)") }
                let predecessor =
                    index == 0
                    ? nil
                    : try Int64.fetchOne(
                        db, sql: "SELECT id FROM ordered_item WHERE list = ? AND id != ? ORDER BY pos, id LIMIT 1 OFFSET ?",
                        arguments: [info.list, id, index - 1])
                _ = try reader.detach(id, anchor: nil)
                if index > 0 && predecessor == nil {
                    writes = try LabelPlanner.insert(id, before: nil, in: reader, using: &random)
                } else {
                    writes = try LabelPlanner.insert(id, after: predecessor, in: reader, using: &random)
                }
            }
            try SQLiteOrderedListStore._apply(writes, to: info.list, in: db)
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// Throws ``TableStoreError/unknownRow(_:table:)`` for the first of `ids` the table lacks.
    static func checkRowsExist(_ ids: [Int64], _ info: _TableInfo, _ db: Database) throws {
        let found = Set(
            try Int64.fetchAll(
                db, sql: "SELECT id FROM \(info.physical) WHERE id IN (SELECT value FROM json_each(?))", arguments: [Self.idList(ids)]))
        if let missing = ids.first(where: { !found.contains($0) }) { throw TableStoreError.unknownRow(missing, table: info.schema.name) }
    }

    // MARK: Schema changes

    @discardableResult
    public func alter(_ table: String, _ changes: [SchemaChange]) async throws -> TableSchema {
        try await write { db in try Self.migrate(Self.info(table, db), changes, db) }
    }

    // MARK: Pages

    public func page(of table: String, _ request: PageRequest) async throws -> TablePage {
        // The budget runs from here: a wait for a search before this one counts in it.
        let deadline = _Deadline(queryBudget)
        let cursor = try request.checkedCursor(secret: secret)
        let info = try await database.read { db in try Self.info(table, db) }
        if inMemoryIndex, case .spec(let spec) = request.order {
            let index = try await self.index(of: info)
            let (secret, indexes) = (secret, indexes)
            return try await indexes.searching(request, index: index, table: info.id, deadline: deadline) {
                try index.tablePage(request, spec: spec, cursor: cursor, secret: secret, cache: indexes, table: info.id, deadline: deadline)
            }
        }
        // A manual order not written out yet is id order.
        let order = request.order == .manual && !info.manualReady ? .spec(SortSpec()) : request.order
        let ordering = try SQLOrdering(order, schema: info.schema, dialect: .sqlite, stored: info.variants)
        let query = try PageQuery(request, info: info, ordering: ordering)
        let secret = secret
        return try await read(budget: queryBudget) { db in
            let select = query.select(request, cursor: cursor)
            let rows = try Row.fetchAll(db, sql: select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
            let columns = info.schema.columns.count
            let total = try Self.info(table, db).rowCount
            let count = query.count()
            let filtered =
                query.isUnfiltered
                ? total
                : try Int.fetchOne(db, sql: count.sql, arguments: StatementArguments(count.arguments.map(\.databaseValue))) ?? 0
            return try query.page(
                rows.map { row in TableRow(id: row[0], cells: (0..<columns).map { row[1 + $0] ?? "" }) }, request,
                total: total, filtered: filtered, secret: secret
            ) { index in (0..<ordering.terms.count).map { SQLValue(rows[index][1 + columns + $0] as DatabaseValue) } }
        }
    }

    /// The SQLite query plan of the page query for `request` (`EXPLAIN QUERY PLAN` details), to
    /// check which index serves an order.
    public func queryPlan(of table: String, _ request: PageRequest, cursorValues: [SQLValue]? = nil) async throws -> [String] {
        try await database.read { db in
            let info = try Self.info(table, db)
            let ordering = try SQLOrdering(request.order, schema: info.schema, dialect: .sqlite, stored: info.variants)
            let query = PageQuery(info: info, ordering: ordering, search: SearchQuery(request.search), columnSearch: [:])
            let select = query.select(after: cursorValues, offset: request.offset, limit: request.limit)
            return try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue))
            ).map { $0["detail"] }
        }
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

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let result = try await database.writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .commit
            }
            return result!
        }
        checkpointer.afterWrite()
        return result
    }
}
