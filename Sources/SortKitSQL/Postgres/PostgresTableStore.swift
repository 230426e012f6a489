import Crypto
import Foundation
import Logging
import OrderKeys
import PostgresNIO
import SortKit

/// The ``TableStore`` on PostgreSQL, through PostgresNIO's connection pool: for data that
/// outgrows one machine's memory, or several app servers sharing one database. It orders,
/// searches and pages exactly as ``SQLiteTableStore`` and memory do.
///
///     let store = try await PostgresTableStore(url: "postgres://app:secret@127.0.0.1:5432/app")
///     try await store.importCSV(Array("title,price\nDune,9.99\nEmma,4.5\n".utf8), as: "books")
///     try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price")))).rows.map(\.id)   // [2, 1]
///     await store.close()
///
/// The layout follows the SQLite store's: `st_<n>` with text `c<i>` (NFC, `COLLATE "C"`),
/// typed `n<i>` (`bigint`/`double precision`), `bytea` key columns and the folded text `s`;
/// its own catalog tables are created by a versioned migration list recorded in
/// `sortkit_schema_version`. Writes run in transactions that are retried on serialization
/// failures (40001), deadlocks (40P01) and unique violations (23505); the manual order locks
/// its list's row (`FOR UPDATE`) so that concurrent moves from several servers never collide.
public final class PostgresTableStore: TableStore {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    /// The cursor-signing key (kept in the database, shared by every server using it).
    let secret: Data
    /// The tables held in memory to answer pages, kept current with every server's writes.
    let indexes: _TableIndexCache
    let inMemoryIndex: Bool
    /// The longest a page's query may run — its SQL (`SET LOCAL statement_timeout`), or a
    /// search's scan of the in-memory index — before the page throws ``TableStoreError/Kind/timedOut``.
    let queryBudget: Duration

    /// Connects to the database at `url` (see `PostgresClient.Configuration(url:)`) and
    /// brings its SortKit tables up to date. With `schema`, every table lives in that
    /// PostgreSQL schema (created if needed), so one database can hold several stores.
    ///
    /// With `inMemoryIndex` (the default), pages sorted by a spec are answered from an
    /// in-memory index of each table, refreshed from the database's change log when another
    /// server wrote; without it, by SQL where the table stores the keys an order needs.
    /// `queryBudget` bounds a page's SQL (PostgreSQL's `statement_timeout`) and in-memory work;
    /// `indexLimits` what the in-memory indexes keep (see ``IndexLimits``).
    public init(
        url: String, schema: String? = nil, maximumConnections: Int = 10, logger: Logger? = nil, inMemoryIndex: Bool = true,
        queryBudget: Duration = .seconds(5), indexLimits: IndexLimits = IndexLimits()
    ) async throws {
        self.inMemoryIndex = inMemoryIndex
        indexes = _TableIndexCache(limits: indexLimits)
        self.queryBudget = queryBudget
        var configuration = try PostgresClient.Configuration(url: url)
        configuration.options.maximumConnections = maximumConnections
        if let schema {
            guard !schema.isEmpty else { throw TableStoreError.invalid("the PostgreSQL schema name is empty") }
            configuration.options.additionalStartupParameters.append(("search_path", SQLDialect.postgresql.quoted(schema)))
        }
        let logger = logger ?? Logger(label: "sortkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
        do {
            if let schema {
                try await Self.transaction(client, logger) { session in
                    try await session.execute("CREATE SCHEMA IF NOT EXISTS \(SQLDialect.postgresql.quoted(schema))")
                }
            }
            try await Self.migrate(client, logger)
            secret = try await Self.transaction(client, logger) { session in
                guard case .blob(let bytes)? = try await session.value("SELECT value FROM sortkit_meta WHERE key = 'cursor-secret'")
                else { throw TableStoreError.invalid("the database has no cursor secret") }
                return Data(bytes)
            }
        } catch {
            runner.cancel()
            throw Self.describe(error)
        }
    }

    deinit {
        runner.cancel()
    }

    /// Closes every connection. The store can't be used afterwards.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    // MARK: Tables

    public func tables() async throws -> [TableSchema] {
        try await transaction { session in
            try await session.rows("SELECT schema FROM sortkit_table ORDER BY id").map { try TableSchema.decode($0[0].decode(String.self)) }
        }
    }

    public func catalog() async throws -> [TableCatalogEntry] {
        try await transaction { session in
            try await session.rows("SELECT schema, row_count FROM sortkit_table ORDER BY id").map { row in
                TableCatalogEntry(schema: try TableSchema.decode(row[0].decode(String.self)), rowCount: Int(try row[1].decode(Int64.self)))
            }
        }
    }

    public func schema(of table: String) async throws -> TableSchema {
        try await transaction { session in try await Self.info(table, session).schema }
    }

    public func indexUsage(of table: String) async throws -> IndexUsage? {
        let id = try await transaction { session in try await Self.info(table, session).id }
        return indexes.usage(table: id)
    }

    public func dropTable(_ table: String) async throws {
        let id = try await transaction { session in
            let info = try await Self.info(table, session, lock: true)
            try await session.execute("DROP TABLE \(info.physical)")
            try await session.execute("DELETE FROM ordered_item WHERE list = $1", [.text(info.list)])
            try await session.execute("DELETE FROM ordered_list WHERE list = $1", [.text(info.list)])
            try await session.execute("DELETE FROM sortkit_change WHERE table_id = $1", [.integer(info.id)])
            try await session.execute("DELETE FROM sortkit_table WHERE id = $1", [.integer(info.id)])
            return info.id
        }
        indexes.forget(table: id)
    }

    public func createTable(_ schema: TableSchema) async throws {
        try await transaction { session in _ = try await Self.create(schema, session) }
    }

    /// Imports a CSV file as a new table: read into columns on every core, types inferred,
    /// the rows encoded in `COPY`'s text format on every core straight from the columns and
    /// streamed in one transaction (preset indexes built after them) while the table's
    /// in-memory index is built; the planner's statistics are gathered after the commit. The
    /// manual order is id order until a first move.
    @discardableResult
    public func importCSV(
        _ csv: [UInt8], as name: String, delimiter: UInt8 = UInt8(ascii: ","), presets: [String: SortSpec] = [:]
    ) async throws -> TableSchema {
        let columns = try _CSVColumns.read(csv, delimiter: delimiter)
        let schema = TableSchema(
            name: name, columns: zip(columns.header, columns.inferredTypes()).map { TableSchema.Column($0, $1) }, presets: presets)
        try schema.validateDefinition()
        let exists = try await transaction { session in
            try await session.integer("SELECT COUNT(*) FROM sortkit_table WHERE name = $1", [.text(name)]) != 0
        }
        guard !exists else { throw TableStoreError.tableExists(name) }
        let variants = try _TableIndex.defaultVariants(schema)
        let count = columns.count
        let (folded, typed) = columns.derived(schema)
        // A child task: when the transaction below fails, leaving this scope waits for the build,
        // so the memory it holds is freed before the import's error returns.
        async let building =
            inMemoryIndex
            ? _TableIndex(
                schema: schema, schemaVersion: 0, dataVersion: 0, ids: (0..<count).map { Int64($0 + 1) }, columns: columns.columns,
                variants: variants, folded: folded, typedValues: typed) : nil
        let info = try await transaction { session in
            let info = try await Self.create(schema, session, manualReady: false, indexesLater: true)
            try await session.copy(
                into: info.physical, columns: ["id"] + info.physicalColumns,
                chunks: _CopyText.chunks(columns, folded: folded, typed: typed, info: info))
            if count > 0 {
                try await session.execute("SELECT setval(pg_get_serial_sequence('\(info.physical)', 'id'), \(count))")
            }
            try await Self.count(count, info, session)
            try await Self.createIndexes(info, session)
            return try await Self.info(name, session)
        }
        // The planner's statistics (for the SQL path) after the commit, in the background: the
        // table is served 0.18 s sooner at 1M rows, and a query before them is planned as one
        // right after the commit would be. Autovacuum would gather them too, later.
        let client = client, logger = logger, physical = info.physical
        Task.detached(priority: .background) {
            do {
                try await client.withConnection { try await _PostgresSession(connection: $0, logger: logger).execute("ANALYZE \(physical)") }
            } catch {
                // Nothing waits for it, so the log is where a failure shows; autovacuum gathers
                // the statistics later anyway.
                logger.warning(
                    "ANALYZE after an import failed; autovacuum will gather the statistics",
                    metadata: [
                        "table": "\(name)", "error": "\(String(reflecting: error))",
                    ])
            }
        }
        indexes.installImported(await building, info)
        return schema
    }

    @discardableResult
    public func alter(_ table: String, _ changes: [SchemaChange]) async throws -> TableSchema {
        try await transaction { session in try await Self.migrate(Self.info(table, session, lock: true), changes, session) }
    }

    // MARK: Rows

    @discardableResult
    public func insert(_ values: [String: String], into table: String) async throws -> Int64 {
        try await transaction { session in
            // The list is locked first, as a move locks it: inserts and moves never interleave.
            let (info, _) = try await Self.infoLockingList(table, session)
            let cells = try info.merging(values, into: Array(repeating: "", count: info.schema.columns.count))
            let columns = info.physicalColumns
            let marks = columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
            guard
                let id = try await session.integer(
                    "INSERT INTO \(info.physical) (\(columns.joined(separator: ", "))) VALUES (\(marks)) RETURNING id", info.rowValues(cells))
            else { throw TableStoreError.invalid("the database returned no id") }
            try await Self.count(1, info, session)
            try await Self.logChange(id, info, session)
            // Until the manual order is written out it is id order, where a new row is last.
            if info.manualReady {
                try await Self.apply(Self.plan(id, .before(nil), list: info.list, session), to: info.list, absent: id, session)
            }
            return id
        }
    }

    public func update(_ id: Int64, in table: String, set values: [String: String]) async throws {
        try await transaction { session in
            let info = try await Self.info(table, session, forWrite: true)
            let cells = try await info.merging(values, into: Self.cells(id, info, session, lock: true))
            let columns = info.physicalColumns.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
            try await session.execute(
                "UPDATE \(info.physical) SET \(columns) WHERE id = $\(info.physicalColumns.count + 1)",
                info.rowValues(cells) + [.integer(id)])
            try await Self.logChange(id, info, session)
        }
    }

    public func delete(_ id: Int64, from table: String) async throws {
        try await transaction { session in
            // The list is locked, as a move locks it: a relabel can't write the row back into
            // the manual order while it is deleted.
            let (info, _) = try await Self.infoLockingList(table, session)
            guard try await session.integer("DELETE FROM \(info.physical) WHERE id = $1 RETURNING id", [.integer(id)]) != nil
            else { throw TableStoreError.unknownRow(id, table: table) }
            try await Self.count(-1, info, session)
            try await Self.logChange(id, info, session)
            try await session.execute("DELETE FROM ordered_item WHERE list = $1 AND id = $2", [.text(info.list), .integer(id)])
        }
    }

    public func delete(_ ids: [Int64], from table: String) async throws {
        try _BlockMove.checkIDs(ids)
        try await transaction { session in
            let (info, _) = try await Self.infoLockingList(table, session)
            try await Self.checkRowsExist(ids, info, session)
            try await session.execute("DELETE FROM ordered_item WHERE list = $1 AND id = ANY($2::bigint[])", [.text(info.list), Self.idArray(ids)])
            try await session.execute("DELETE FROM \(info.physical) WHERE id = ANY($1::bigint[])", [Self.idArray(ids)])
            try await Self.logChanges(ids, info, session)
            try await Self.count(-ids.count, info, session)
        }
    }

    public func row(_ id: Int64, in table: String) async throws -> TableRow {
        try await transaction { session in
            let info = try await Self.info(table, session)
            return TableRow(id: id, cells: try await Self.cells(id, info, session))
        }
    }

    // MARK: Manual order

    public func move(_ id: Int64, in table: String, to destination: MoveDestination) async throws {
        _ = try await _move(id, in: table, to: destination)
    }

    /// Moves a row and returns the list's move count after it — the order in which concurrent
    /// moves took effect (the tests replay them in this order).
    func _move(_ id: Int64, in table: String, to destination: MoveDestination) async throws -> Int64 {
        try await transaction { session in
            let (info, sequence) = try await Self.infoLockingList(table, session)
            try await Self.checkRowsExist([id], info, session)
            try await Self.prepareManualOrder(info, session)
            try await Self.move(id, to: destination, info, session)
            return sequence
        }
    }

    public func move(_ ids: [Int64], in table: String, to destination: MoveDestination, keepingOrder: Bool) async throws {
        let anchor = try _BlockMove.check(ids, destination)
        try await transaction { session in
            let (info, _) = try await Self.infoLockingList(table, session)
            try await Self.checkRowsExist(ids + [anchor], info, session)
            try await Self.prepareManualOrder(info, session)
            var block = ids
            if keepingOrder {
                block = try await session.rows(
                    "SELECT id FROM ordered_item WHERE list = $1 AND id = ANY($2::bigint[]) ORDER BY pos, id", [.text(info.list), Self.idArray(ids)]
                ).map { try $0[0].decode(Int64.self) }
            }
            for (id, step) in _BlockMove.steps(block, destination) { try await Self.move(id, to: step, info, session) }
        }
    }

    /// Moves one row inside a transaction that holds the list's lock.
    static func move(_ id: Int64, to destination: MoveDestination, _ info: _TableInfo, _ session: _PostgresSession) async throws {
        let list = info.list
        do {
            let placement: _Placement
            var known: [_LabelReplay.Query: _LabelReplay.Answer] = [:]
            switch destination {
            case .after(let anchor), .before(let anchor):
                guard let answers = try await Self.detach(id, anchor: anchor, list: list, session) else { return }
                known = answers
                if case .after = destination { placement = .after(anchor) } else { placement = .before(anchor) }
            case .toIndex(let index):
                guard index >= 0 else { throw TableStoreError.invalid("toIndex must be 0 or more, got \(index)") }
                let predecessor =
                    index == 0
                    ? nil
                    : try await session.integer(
                        "SELECT id FROM ordered_item WHERE list = $1 AND id != $2 ORDER BY pos, id LIMIT 1 OFFSET $3",
                        [.text(list), .integer(id), .integer(Int64(index - 1))])
                _ = try await Self.detach(id, anchor: nil, list: list, session)
                placement = index > 0 && predecessor == nil ? .before(nil) : .after(predecessor)
            }
            let writes = try await Self.plan(id, placement, list: list, known: known, session)
            try await Self.apply(writes, to: list, absent: id, session)
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// Throws ``TableStoreError/unknownRow(_:table:)`` for the first of `ids` the table lacks.
    static func checkRowsExist(_ ids: [Int64], _ info: _TableInfo, _ session: _PostgresSession) async throws {
        let found = Set(
            try await session.rows("SELECT id FROM \(info.physical) WHERE id = ANY($1::bigint[])", [Self.idArray(ids)])
                .map { try $0[0].decode(Int64.self) })
        if let missing = ids.first(where: { !found.contains($0) }) { throw TableStoreError.unknownRow(missing, table: info.schema.name) }
    }

    // MARK: Pages

    public func page(of table: String, _ request: PageRequest) async throws -> TablePage {
        // The budget runs from here: a wait for a search before this one counts in it.
        let deadline = _Deadline(queryBudget)
        let cursor = try request.checkedCursor(secret: secret)
        let info = try await transaction { session in try await Self.info(table, session) }
        // A manual order not written out yet is id order.
        let order = request.order == .manual && !info.manualReady ? .spec(SortSpec()) : request.order
        let ordering = try SQLOrdering(order, schema: info.schema, dialect: .postgresql)
        // Reads never add key columns: an order whose keys aren't stored is served from the
        // index whatever the setting.
        if case .spec(let spec) = request.order, inMemoryIndex || !ordering.variants.isSubset(of: info.variants) {
            let index = try await self.index(of: info)
            let (secret, indexes) = (secret, indexes)
            return try await indexes.searching(request, index: index, table: info.id, deadline: deadline) {
                try index.tablePage(request, spec: spec, cursor: cursor, secret: secret, cache: indexes, table: info.id, deadline: deadline)
            }
        }
        let query = try PageQuery(request, info: info, ordering: ordering)
        let secret = secret
        let budget = queryBudget
        let milliseconds = max(1, budget._nanoseconds / 1_000_000)
        return try await Self.transaction(client, logger, budget: budget) { session in
            try await session.execute("SET LOCAL statement_timeout = \(milliseconds)")
            let select = query.select(request, cursor: cursor)
            let rows = try await session.rows(select.sql, select.arguments)
            let columns = info.schema.columns.count
            let total = try await Self.info(table, session).rowCount
            let count = query.count()
            let filtered = query.isUnfiltered ? total : Int(try await session.integer(count.sql, count.arguments) ?? 0)
            return try query.page(
                try rows.map { row in
                    TableRow(id: try row[0].decode(Int64.self), cells: try (0..<columns).map { try row[1 + $0].decode(String?.self) ?? "" })
                }, request, total: total, filtered: filtered, secret: secret
            ) { index in try (0..<ordering.terms.count).map { try SQLValue(rows[index][1 + columns + $0]) } }
        }
    }

    /// The in-memory index of a table, current for the catalog versions in `info`.
    func index(of info: _TableInfo) async throws -> _TableIndex {
        let name = info.schema.name
        let client = client, logger = logger
        return try await indexes.index(table: info.id, schemaVersion: info.schemaVersion, dataVersion: info.dataVersion) { old in
            try await Self.transaction(client, logger) { session in
                let info = try await Self.info(name, session)
                if let old, let changes = try await Self.changes(since: old.dataVersion, info, session),
                    let updated = old.applying(changes, dataVersion: info.dataVersion)
                {
                    return updated
                }
                return try await Self.loadIndex(info, session)
            }
        }
    }

    /// PostgreSQL's plan (`EXPLAIN`) of the page query for `request`, to check which index
    /// serves an order.
    public func queryPlan(of table: String, _ request: PageRequest, cursorValues: [SQLValue]? = nil) async throws -> [String] {
        try await transaction { session in
            let info = try await Self.info(table, session)
            let ordering = try SQLOrdering(request.order, schema: info.schema, dialect: .postgresql)
            let query = PageQuery(info: info, ordering: ordering, search: SearchQuery(request.search), columnSearch: [:])
            let select = query.select(after: cursorValues, offset: request.offset, limit: request.limit)
            return try await session.rows("EXPLAIN " + select.sql, select.arguments).map { try $0[0].decode(String.self) }
        }
    }

    /// Runs `body` in a transaction on a pooled connection (see ``transaction(_:_:_:)``).
    func transaction<T: Sendable>(_ body: (_PostgresSession) async throws -> T) async throws -> T {
        try await Self.transaction(client, logger, body)
    }
}
