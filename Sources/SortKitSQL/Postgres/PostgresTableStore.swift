import Crypto
import Foundation
import Logging
import NIOCore
import OrderKeys
import PostgresNIO
import SortKit
import Synchronization

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
public final class PostgresTableStore: _SQLTableStore {
    static let dialect = SQLDialect.postgresql
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
    /// The read replicas, and this store's last write position that reads on them wait for.
    let replicas: _PostgresReplicas
    /// The longest a transaction on the primary waits for a connection before it fails as
    /// unavailable (`nil`: as long as PostgresNIO's pool waits).
    let connectionWait: Duration?
    /// The one-query reads of downloads running now (``streamRows(_:columns:terms:csv:batchRows:_:)``)
    /// and how many may: each holds a connection while its client reads, so at most a quarter
    /// of the pool's; a download beyond them reads page by page.
    let streams: _StreamSlots
    /// How long a batch of a streamed read waits for the client to make room, and how long the
    /// whole read may last, before it stops (the client goes on page by page): a `DROP` or
    /// `ALTER` of the table waits at most so long for its lock.
    let streamWait: Duration = .seconds(1)
    /// Makes the indexes of tables served from the database after their import (``_IndexBuilder``).
    let builder = _IndexBuilder()
    /// What the builder learned of the indexes it made.
    let indexFacts = _IndexFacts()
    let streamLimit: Duration = .seconds(30)

    /// Connects to the database at `url` (see `PostgresClient.Configuration(url:)`) and
    /// brings its SortKit tables up to date. With `schema`, every table lives in that
    /// PostgreSQL schema (created if needed), so one database can hold several stores.
    ///
    /// With `inMemoryIndex` (the default), pages sorted by a spec are answered from an
    /// in-memory index of each table, refreshed from the database's change log when another
    /// server wrote; without it, by SQL where the table stores the keys an order needs.
    /// `queryBudget` bounds a page's SQL (PostgreSQL's `statement_timeout`) and in-memory work;
    /// `indexLimits` what the in-memory indexes keep (see ``IndexLimits``).
    ///
    /// `readReplicas` are streaming standbys of the same database (`pg_basebackup -R`): reads
    /// go to them in turn, writes to `url`. A read waits up to `replicaWait` for the replica to
    /// replay what this store wrote and read before, then reads from the primary, so a server
    /// always sees its own writes and never older data than it saw; a replica that gives no
    /// connection within 5 s (or `replicaWait`, if longer) is left out for 30 s.
    /// `connectionWait` bounds how long a transaction on the primary waits for a connection
    /// before it fails with
    /// ``TableStoreError/Kind/unavailable``: with a lost primary, reads go on from the replicas
    /// and writes fail after it (without it, PostgresNIO's pool keeps a request waiting while
    /// it retries a refusing server, about a minute).
    ///
    ///     let store = try await PostgresTableStore(
    ///         url: "postgres://app:secret@db1:5432/app", readReplicas: ["postgres://app:secret@db2:5432/app"],
    ///         connectionWait: .seconds(10))
    public init(
        url: String, schema: String? = nil, maximumConnections: Int = 10, logger: Logger? = nil, inMemoryIndex: Bool = true,
        queryBudget: Duration = .seconds(5), indexLimits: IndexLimits = IndexLimits(), readReplicas: [String] = [],
        replicaWait: Duration = .seconds(1), connectionWait: Duration? = nil
    ) async throws {
        self.inMemoryIndex = inMemoryIndex
        indexes = _TableIndexCache(limits: indexLimits)
        self.queryBudget = queryBudget
        self.connectionWait = connectionWait
        streams = _StreamSlots(maximum: max(1, maximumConnections / 4))
        var configuration = try PostgresClient.Configuration(url: url)
        configuration.options.maximumConnections = maximumConnections
        // Text arrives as UTF-8 whatever the role's or database's `client_encoding` (a download's
        // cells and their `octet_length`s are the same bytes).
        var startup: [(String, String)] = [("client_encoding", "UTF8")]
        if let schema {
            guard !schema.isEmpty else { throw TableStoreError.invalid("the PostgreSQL schema name is empty") }
            startup.append(("search_path", SQLDialect.postgresql.quoted(schema)))
        }
        configuration.options.additionalStartupParameters = startup
        let logger = logger ?? Logger(label: "sortkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let replicas = try _PostgresReplicas(
            urls: readReplicas, maximumConnections: maximumConnections, startup: startup, wait: replicaWait, logger: logger)
        self.client = client
        self.replicas = replicas
        self.logger = logger
        runner = Task {
            await withDiscardingTaskGroup { group in
                for client in [client] + replicas.clients { group.addTask { await client.run() } }
            }
        }
        do {
            if let schema {
                try await Self.transaction(client, logger, connectionWait: connectionWait) { session in
                    try await session.execute("CREATE SCHEMA IF NOT EXISTS \(SQLDialect.postgresql.quoted(schema))")
                }
            }
            try await Self.migrate(client, logger)
            // A write: the first reads on a replica wait for the migrations too.
            secret = try await Self.writeTransaction(client, replicas, logger, connectionWait: connectionWait) { session in
                guard case .blob(let bytes)? = try await session.value("SELECT value FROM sortkit_meta WHERE key = 'cursor-secret'")
                else { throw TableStoreError.invalid("the database has no cursor secret") }
                return Data(bytes)
            }
            try await resumeIndexBuilds()
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

    // MARK: Sessions

    /// Runs `body` in a write transaction on the primary (see ``writeTransaction(_:_:_:connectionWait:_:)``).
    func write<T: Sendable>(_ body: (_PostgresSession) async throws -> T) async throws -> T {
        try await Self.writeTransaction(client, replicas, logger, connectionWait: connectionWait, body)
    }

    /// Runs `body` on a read replica that has replayed this store's writes, or the primary
    /// (see ``readTransaction(budget:_:)``).
    func read<T: Sendable>(_ body: (_PostgresSession) async throws -> T) async throws -> T {
        try await readTransaction(body)
    }

    // MARK: What PostgreSQL does its own way

    /// The table's catalog entry, with its list's row locked for the rest of the transaction
    /// and its move count incremented — in one round trip.
    func infoLockingList(_ table: String, _ session: _PostgresSession) async throws -> (_TableInfo, Int64) {
        guard
            let row = try await session.select(
                """
                WITH t AS (SELECT \(Self.catalogColumns) FROM sortkit_table WHERE name = $1 FOR NO KEY UPDATE),
                     l AS (UPDATE ordered_list SET moves = moves + 1 WHERE list = (SELECT 'sortkit:st_' || id FROM t) RETURNING moves)
                SELECT t.*, (SELECT moves FROM l) FROM t
                """, [.text(table)]
            ).first
        else { throw TableStoreError.unknownTable(table) }
        guard let moves = row[9].integer else { throw TableStoreError.invalid("the manual order of '\(table)' is missing") }
        return (try Self.decodeInfo(row), moves)
    }

    /// The table's sequence gives the id as the row goes in.
    func newRowID(_ info: _TableInfo, _ session: _PostgresSession) async throws -> Int64? { nil }

    /// `COPY` (binary, as an import's) into a temporary table, then one `UPDATE`.
    func rewrite(_ info: _TableInfo, rows: [[SQLValue]], _ session: _PostgresSession) async throws {
        let table = info.physical, columns = info.physicalColumns
        try await session.execute(
            "CREATE TEMP TABLE sortkit_rewrite ON COMMIT DROP AS SELECT id, \(columns.joined(separator: ", ")) FROM \(table) WITH NO DATA")
        let buffers = try _CopyBinary.buffers(rows, info: info)
        try await session.copyBinary(into: "sortkit_rewrite", columns: ["id"] + columns, groups: 1) { _ in buffers }
        let set = columns.map { "\($0) = r.\($0)" }.joined(separator: ", ")
        try await session.execute("UPDATE \(table) AS t SET \(set) FROM sortkit_rewrite AS r WHERE t.id = r.id")
        try await session.execute("DROP TABLE sortkit_rewrite")
    }

    /// Never called: PostgreSQL deletes rows at once (a 1,000-row delete of a table served from
    /// the database took 21–23 ms).
    func rowsMarkedGone() {}

    /// The list's row, which moves lock and count.
    func created(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        try await session.execute("INSERT INTO ordered_list (list) VALUES ($1)", [.text(info.list)])
    }

    func dropping(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        try await session.execute("DELETE FROM ordered_list WHERE list = $1", [.text(info.list)])
    }

    /// The rows encoded in `COPY`'s binary format on every core straight from the columns and
    /// streamed in one transaction, into a table whose primary key and preset indexes are
    /// built after them; the planner's statistics are gathered after the commit.
    func load(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], as schema: TableSchema, databaseIndex: Collation?
    ) async throws -> _TableInfo {
        let count = cells.baseCount
        let info = try await write { session in
            let info = try await create(schema, session, manualReady: false, indexesLater: true, databaseIndex: databaseIndex)
            let (groups, group) = _CopyBinary.chunks(cells, folded: folded, typed: typed, info: info)
            // Made in this transaction: its rows go in frozen (see `copyBinary`).
            try await session.copyBinary(into: info.physical, columns: ["id"] + info.physicalColumns, groups: groups, freeze: true, group)
            if count > 0 {
                try await session.execute("SELECT setval(pg_get_serial_sequence('\(info.physical)', 'id'), \(count))")
            }
            try await Self.count(count, info, session)
            try await session.execute("ALTER TABLE \(info.physical) ADD PRIMARY KEY (id)")
            try await Self.createIndexes(info, session)
            return try await Self.info(schema.name, session)
        }
        // A table served from the database gets its column and search indexes after the
        // commit (``_IndexBuilder``).
        if databaseIndex != nil { databaseIndexesMissing() }
        // The planner's statistics (for the SQL path) after the commit, in the background: the
        // table is served 0.18 s sooner at 1M rows, and a query before them is planned as one
        // right after the commit would be. Autovacuum would gather them too, later.
        // Its rows went in frozen (all-visible): no vacuum needed for index-only scans.
        upkeep(info, vacuum: false)
        return info
    }

    /// Pokes the builder if a table is marked as having indexes to make (a server stopped
    /// before they were made).
    func resumeIndexBuilds() async throws {
        let pending = try await read { session in
            try await session.select(
                "SELECT 1 FROM sortkit_table WHERE db_index IS NOT NULL AND obj_description(to_regclass('st_' || id), 'pg_class') = $1 LIMIT 1",
                [.text(Self.indexesPendingMark)])
        }
        if !pending.isEmpty { databaseIndexesMissing() }
    }

    func servingFromDatabase(_ info: _TableInfo, rewritten: Bool) async throws {
        let physical = info.physical
        let rebuilt = try await write { session in
            // The catalog row locked: of two servers starting at once, one makes them again.
            _ = try await session.select("SELECT id FROM sortkit_table WHERE id = $1 FOR UPDATE", [.integer(info.id)])
            let mark = try await session.select("SELECT coalesce(obj_description('\(physical)'::regclass, 'pg_class'), '')")
            // Made, or being made by the builder (a server stopped before it was done: the
            // indexes it made are kept).
            guard mark.first?.first?.cell != Self.columnIndexesMark, mark.first?.first?.cell != Self.indexesPendingMark else { return false }
            try await Self.dropColumnIndexes(info, session)
            try await Self.createIndexes(info, session)
            return true
        }
        // Rows written without freezing (an import before, or the rewrite of a placement):
        // vacuumed once, for the visibility map that index-only scans read.
        if rebuilt || rewritten { upkeep(info, vacuum: true) }
    }

    /// In the background, the planner's statistics of `info`'s table (`ANALYZE`) and, with
    /// `vacuum`, its visibility map (`VACUUM`): a table served from the database is read by
    /// index-only scans, which read a heap page only where the map doesn't mark it
    /// all-visible — after a bulk load, none is until a vacuum. Autovacuum would do both,
    /// later; a failure is logged, as nothing waits for it.
    private func upkeep(_ info: _TableInfo, vacuum: Bool) {
        let client = client, logger = logger, physical = info.physical, name = info.schema.name
        let statement = vacuum ? "VACUUM (ANALYZE) \(physical)" : "ANALYZE \(physical)"
        Task.detached(priority: .background) {
            do {
                try await client.withConnection { try await _PostgresSession(connection: $0, logger: logger).execute(statement) }
            } catch {
                logger.warning(
                    "\(statement) failed; autovacuum will do it later",
                    metadata: ["table": "\(name)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// The page's statements in one transaction, bounded by `statement_timeout`. Its rows come
    /// as values (a download's later batches stream: ``streamRows(_:columns:terms:csv:batchRows:_:)``).
    func pageRows(
        select: (sql: String, arguments: [SQLValue]), count: (sql: String, arguments: [SQLValue])?, csv: _PageCSV?, budget: Duration?
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?) {
        let budget = budget ?? queryBudget
        let milliseconds = max(1, budget._nanoseconds / 1_000_000)
        return try await readTransaction(budget: budget) { session in
            try await session.execute("SET LOCAL statement_timeout = \(milliseconds)")
            let rows = try await session.select(select.sql, select.arguments)
            guard let count else { return (rows, nil, nil) }
            return (rows, nil, Int(try await session.integer(count.sql, count.arguments) ?? 0))
        }
    }

    /// `body`'s statements in one read transaction, one snapshot (`REPEATABLE READ`), each
    /// bounded by `statement_timeout` (the query budget).
    func inSnapshot<T: Sendable>(_ body: (_PostgresSession) async throws -> T) async throws -> T {
        let milliseconds = max(1, queryBudget._nanoseconds / 1_000_000)
        return try await readTransaction(budget: queryBudget) { session in
            try await session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            try await session.execute("SET LOCAL statement_timeout = \(milliseconds)")
            return try await body(session)
        }
    }

    /// The scan keyed into `order` in one snapshot (``inSnapshot(_:)``).
    func orderIDs(_ query: PageQuery, _ order: _WholeOrder) async throws -> [Int64]? {
        let computing = Set(order.computing.keys)
        return try await inSnapshot { session in
            var whole = order
            try await session.forEachScanned(query, computing: computing, budget: queryBudget) { whole.add($0) }
            return whole.sortedIDs()
        }
    }

    /// The scan, the selection and the chosen rows' cells in one snapshot (``inSnapshot(_:)``:
    /// a row the scan chose is still there to read); the scan's rows are selected as they arrive.
    func computedRows(_ query: PageQuery, into selection: _ComputedSelection, from offset: Int, reading: Int) async throws -> _ComputedRows? {
        let computing = Set(selection.computing.keys)
        return try await inSnapshot { session in
            // The versions the whole order is of: read in the scan's snapshot.
            let versions =
                selection.whole == nil
                ? nil
                : try await session.select("SELECT version, data_version, row_count FROM sortkit_table WHERE id = $1", [.integer(query.info.id)])
                    .first
            var selected = selection
            try await session.forEachScanned(query, computing: computing, budget: queryBudget) { selected.add($0) }
            let terms = Array(selected.sorted().dropFirst(offset))
            let rows = query.rows(inOrder: terms.prefix(reading).compactMap { $0.last?.integer })
            var result = _ComputedRows(
                terms: terms, count: selected.count, cells: terms.isEmpty || reading == 0 ? [] : try await session.select(rows.sql, rows.arguments))
            // Every row of that version (the catalog's count) was scanned.
            if let whole = selected.whole, let versions, let schema = versions[0].integer, let data = versions[1].integer,
                versions[2].integer == Int64(selected.count)
            {
                result.whole = (whole, schema, data)
            }
            return result
        }
    }

    /// One query in one read transaction (on a replica when there are any), read by a task of
    /// its own at most two batches ahead of `body` (the client). The transaction lasts only
    /// while the client keeps up, and at most ``streamLimit``: a batch that finds no room for
    /// ``streamWait`` stops the read, as does the limit, and the caller goes on page by page
    /// after the last row handed on (once the query's remaining rows are read and dropped). A
    /// read that fails after a batch went out stops the same way rather than run again (which
    /// would repeat rows). Text arrives as its UTF-8 bytes, which CSV records are written from.
    /// ``_StreamEnd/notStreamed`` when ``streams`` are all taken; a stream's slot is given back
    /// when its read ends.
    func streamRows(
        _ select: (sql: String, arguments: [SQLValue]), columns: Int, terms: Int, csv: CSVExport?, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd {
        try await streams.stream(body) { sink, ahead in
            try await self.readBatches(select, columns: columns, terms: terms, csv: csv, batchRows: batchRows, into: sink, ahead: ahead)
        }
    }

    /// The reading side of ``streamRows(_:columns:terms:csv:batchRows:_:)``: batches into `sink`,
    /// waiting up to ``streamWait`` for room while two are `ahead`.
    private func readBatches(
        _ select: (sql: String, arguments: [SQLValue]), columns: Int, terms: Int, csv: CSVExport?, batchRows: Int,
        into sink: AsyncThrowingStream<_StreamBatch, any Error>.Continuation, ahead: _StreamBatch.Ahead
    ) async throws -> _StreamEnd {
        /// The read stops: the client fell behind, or a retry would repeat rows.
        struct Stopped: Error {}
        var last: [SQLValue]? = nil
        let started = ContinuousClock.now
        do {
            try await readTransaction { session in
                guard last == nil else { throw Stopped() }
                var batch = _StreamBatch(), lastRow: PostgresRow? = nil
                func handOn() async throws {
                    let waiting = ContinuousClock.now
                    while ahead.count.load(ordering: .acquiring) >= 2 {
                        guard ContinuousClock.now - waiting < streamWait else { throw Stopped() }
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    guard ContinuousClock.now - started < streamLimit else { throw Stopped() }
                    let terms = try lastRow.map { row in
                        let cells = row.makeRandomAccess()
                        return try (0..<terms).map { try SQLValue(cells[1 + columns + $0]) }
                    }
                    ahead.count.add(1, ordering: .releasing)
                    // Not enqueued: the client's task is cancelled, and the batch would be lost.
                    guard case .enqueued = sink.yield(batch) else { throw CancellationError() }
                    last = terms
                    batch = _StreamBatch()
                }
                do {
                    // One query, not a cursor: PostgreSQL plans no parallel workers for a
                    // cursor, and sorts 1M rows in 1.8 s with two, 4.0 s without.
                    for try await row in try await session.stream(select.sql, select.arguments) {
                        try batch.append(row, columns: columns, csv: csv)
                        lastRow = row
                        if batch.count == batchRows { try await handOn() }
                    }
                    if batch.count > 0 { try await handOn() }
                } catch {
                    // Stopped part way: PostgresNIO reads the rest of the query's rows and drops
                    // them before the transaction's `ROLLBACK` (the query runs at the database's
                    // speed, no longer the client's). Closing the connection instead ended it at
                    // once, but the pool could hand the closed connection out again before it
                    // heard of the close, and a query written to it never completes. After a
                    // batch went out, a failure (a replica's too) only stops the read: the
                    // caller goes on page by page.
                    throw last != nil && !(error is CancellationError) ? Stopped() : error
                }
            }
            return .finished
        } catch is Stopped {
            return .stopped(after: last)
        }
    }

    /// Reads a table into a new index, streaming its rows' bytes into arenas.
    func loadIndex(_ info: _TableInfo, _ session: _PostgresSession) async throws -> _TableIndex {
        let width = info.schema.columns.count
        var ids: [Int64] = []
        ids.reserveCapacity(info.rowCount)
        var arenas = [_ByteArena](repeating: _ByteArena(), count: width)
        let columns = (0..<width).map { ", c\($0)" }.joined()
        try await session.forEachRow("SELECT id\(columns) FROM \(info.physical) ORDER BY id") { row in
            var cells = row.makeIterator()
            guard let id = cells.next() else { return }
            ids.append(try id.decode(Int64.self))
            for column in 0..<width {
                // Text arrives as its UTF-8 bytes.
                if let bytes = cells.next()?.bytes { arenas[column].bytes.append(contentsOf: bytes.readableBytesView) }
                arenas[column].close()
            }
        }
        return _TableIndex(
            schema: info.schema, schemaVersion: info.schemaVersion, dataVersion: info.dataVersion, ids: _RowIDs(ids), columns: arenas,
            variants: try _TableIndex.defaultVariants(info.schema, rows: ids.count, budget: indexes.limits.rankingBytesPerTable))
    }
}

extension _StreamBatch {
    /// Adds `row` (an id, then `columns` text cells): as CSV written from the cells' bytes, or
    /// as a row.
    mutating func append(_ row: PostgresRow, columns: Int, csv export: CSVExport?) throws {
        var cells = row.makeIterator()
        let id = cells.next()
        if let export {
            if csv == nil { csv = [] }
            for column in 0..<columns {
                let cell = cells.next()?.bytes ?? ByteBuffer()
                cell.withUnsafeReadableBytes { export.appendCell($0.assumingMemoryBound(to: UInt8.self), column: column, count: columns, to: &csv!) }
            }
            csv!.append(0x0A)
        } else {
            rows.append(
                TableRow(id: try id?.decode(Int64.self) ?? 0, cells: try (0..<columns).map { _ in try cells.next().map { try SQLValue($0) }?.cell ?? "" }))
        }
        count += 1
    }
}
