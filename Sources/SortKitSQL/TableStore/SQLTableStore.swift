import Foundation
import OrderKeys
import SortKit

/// The table-store core: what ``SQLiteTableStore`` and ``PostgresTableStore`` do alike —
/// the catalog, row writes and their change log, schema changes, the manual order, the
/// in-memory index's refresh and the page's dispatch — written once over a driver, as GRDB
/// shares its queue's and pool's behaviour through protocol extensions. A store gives the
/// sessions (``write(_:)``, ``read(_:)``) and the few features that differ by database; the
/// SQL's spellings that differ are ``SQLDialect``'s (see docs/ARCHITECTURE.md, §4).
protocol _SQLTableStore: TableStore, AnyObject {
    associatedtype Session: _SQLSession

    static var dialect: SQLDialect { get }
    /// The cursor-signing key, kept in the database.
    var secret: Data { get }
    /// The tables held in memory to answer pages.
    var indexes: _TableIndexCache { get }
    /// Whether pages sorted by a spec are answered from the in-memory index.
    var inMemoryIndex: Bool { get }
    /// The longest a page's SQL or in-memory work may take.
    var queryBudget: Duration { get }

    /// Runs `body` in one write transaction: all of its writes or none.
    func write<T: Sendable>(_ body: (Session) async throws -> T) async throws -> T
    /// Runs `body`'s reads; each statement sees what was committed when it ran.
    func read<T: Sendable>(_ body: (Session) async throws -> T) async throws -> T

    /// The catalog entry of `table` for a write to its rows or manual order, with the order
    /// held to the end of the transaction, and the order's move count after this write (0
    /// where it isn't kept).
    func infoLockingList(_ table: String, _ session: Session) async throws -> (_TableInfo, Int64)
    /// The id for a new row of `info`'s table, or `nil` where the database gives it as the
    /// row goes in (a sequence).
    func newRowID(_ info: _TableInfo, _ session: Session) async throws -> Int64?
    /// Sets every column of many rows of table `info` at once; each row is its id, then the
    /// values of ``_TableInfo/physicalColumns``.
    func rewrite(_ info: _TableInfo, rows: [[SQLValue]], _ session: Session) async throws
    /// The database's own bookkeeping for a table just created, or about to be dropped.
    func created(_ info: _TableInfo, _ session: Session) async throws
    func dropping(_ info: _TableInfo, _ session: Session) async throws
    /// The database's upkeep for a stored table served from its indexes, at placement
    /// (``placeIndexes()``): PostgreSQL drops the column indexes of a table indexed before
    /// they included their key columns (``_IndexBuilder`` makes them again) and then, or when
    /// placing the table rewrote its rows (`rewritten`), vacuums it in the background.
    func servingFromDatabase(_ info: _TableInfo, rewritten: Bool) async throws
    /// Creates table `schema` and writes every record of `columns` into it, in one
    /// transaction; returns its catalog entry.
    /// A table served from the database (`databaseIndex`) gets its column and search indexes
    /// after the commit, from ``_IndexBuilder``.
    func load(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], as schema: TableSchema, databaseIndex: Collation?
    ) async throws -> _TableInfo
    /// A page's rows (`select`) and — with `count` — the filtered count, read in one snapshot
    /// within `budget` (``queryBudget`` when `nil`). With `csv`, a store may write the page's
    /// cells as CSV records from their bytes instead (those cells then come back `.null`);
    /// `nil` if it didn't.
    func pageRows(
        select: (sql: String, arguments: [SQLValue]), count: (sql: String, arguments: [SQLValue])?, csv: _PageCSV?, budget: Duration?
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)
    /// The ids of every row `query` keeps, in its order, read in one snapshot within
    /// ``queryBudget``: SQLite's query (it computes keys the table doesn't store), or
    /// PostgreSQL's scan keyed by SortKit into `order`; `nil` if `order` can't sort them.
    func orderIDs(_ query: PageQuery, _ order: _WholeOrder) async throws -> [Int64]?
    /// The rows of an order SortKit computes (``_ComputedSelection``), in one snapshot within
    /// ``queryBudget``: `query`'s scan added to `selection`, then, of its sorted rows from
    /// `offset` on, the chosen rows' terms and the cells of the first `reading` (an id, then the
    /// cells, in order), with the count of rows scanned. `nil` where the database computes
    /// every key itself (SQLite).
    func computedRows(_ query: PageQuery, into selection: _ComputedSelection, from offset: Int, reading: Int) async throws -> _ComputedRows?
    /// A download of the rows of a view, whose ids come from a query in the view's order or
    /// from an order SortKit computed (``_ViewIDs``), read in row order and put in order in
    /// memory (``_RecordsInOrder``); `nil`, having handed on nothing, where the view is too big
    /// or its ids too sparse.
    func streamInRowOrder(
        ids select: _ViewIDs, table: _TableInfo, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd?
    /// Called after a delete that only marked its rows gone (``_TableInfo/tombstoned(_:)``)
    /// committed: the store removes them in the background.
    func rowsMarkedGone()
    /// Makes the indexes of tables served from the database after the writes that need them
    /// (an import, a schema change), in the background: see ``databaseIndexesMissing()``.
    var builder: _IndexBuilder { get }
    /// ``_IndexBuilder``'s step: makes one index that a table served from the database lacks;
    /// returns whether it made one (`false`: none is missing). It mustn't hold the store: a
    /// store whose last reference goes during a step is freed (its connections closed).
    var indexStepper: _IndexBuilder.Step { get }
    /// Reads `info`'s table into a new index.
    func loadIndex(_ info: _TableInfo, _ session: Session) async throws -> _TableIndex
    /// Calls `body` with the rows of `select` (an id, `columns` text cells, then `terms` order
    /// values) in batches of `batchRows`, read by one query in one snapshot as they arrive: as
    /// rows, or — given `csv` — as CSV records written from the cells' bytes (with the batch's
    /// row count). Returns how the read ended: ``_StreamEnd/notStreamed``, having read nothing,
    /// where the store reads a view page by page instead (see ``streamPages(of:_:_:)``).
    func streamRows(
        _ select: (sql: String, arguments: [SQLValue]), columns: Int, terms: Int, csv: CSVExport?, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd
}

extension _SQLTableStore {
    /// ``pageRows(select:count:csv:budget:)`` within ``queryBudget``.
    func pageRows(
        select: (sql: String, arguments: [SQLValue]), count: (sql: String, arguments: [SQLValue])?, csv: _PageCSV?
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?) {
        try await pageRows(select: select, count: count, csv: csv, budget: nil)
    }

    // MARK: Tables

    public func tables() async throws -> [TableSchema] {
        try await read { session in
            try await session.select("SELECT schema FROM sortkit_table ORDER BY id").map { try TableSchema.decode($0[0].cell) }
        }
    }

    public func catalog() async throws -> [TableCatalogEntry] {
        try await read { session in
            try await session.select("SELECT schema, row_count FROM sortkit_table ORDER BY id").map { row in
                TableCatalogEntry(schema: try TableSchema.decode(row[0].cell), rowCount: Int(row[1].integer ?? 0))
            }
        }
    }

    public func schema(of table: String) async throws -> TableSchema {
        try await read { session in try await Self.info(table, session).schema }
    }

    public func indexUsage(of table: String) async throws -> IndexUsage? {
        let id = try await read { session in try await Self.info(table, session).id }
        return indexes.usage(table: id)
    }

    public func indexPlacement(of table: String) async throws -> IndexPlacement {
        let info = try await read { session in try await Self.info(table, session) }
        return indexes.servesFromDatabase(info) ? .database : .memory
    }

    @discardableResult
    public func placeIndexes() async throws -> [String: IndexPlacement] {
        let names = try await read { session in try await session.select("SELECT name FROM sortkit_table ORDER BY id").map { $0[0].cell } }
        guard inMemoryIndex, indexes.limits.indexBytes != nil else { return Dictionary(uniqueKeysWithValues: names.map { ($0, .memory) }) }
        var placements: [String: IndexPlacement] = [:]
        let collation = indexes.limits.databaseCollation
        let octets = Self.dialect == .sqlite ? "length(CAST(s AS BLOB))" : "octet_length(s)"
        for name in names {
            let info = try await read { session in try await Self.info(name, session) }
            if let placed = indexes.placement(info.id) {
                placements[name] = placed
                continue
            }
            // The text's size from up to 10,000 rows, scaled to the table.
            let sample = try await read { session in
                try await session.select("SELECT count(*), coalesce(sum(\(octets)), 0) FROM (SELECT s FROM \(info.physical) LIMIT 10000) AS x").first
            }
            let sampled = max(1, Int(sample?[0].integer ?? 0))
            let textBytes = Int(sample?[1].integer ?? 0) * info.rowCount / sampled
            let bytes = IndexPlacement.estimatedBytes(rows: info.rowCount, textBytes: textBytes, columns: info.schema.columns.count)
            let inMemory = indexes.claim(bytes)
            if !inMemory {
                let rewritten = info.databaseIndex != collation
                try await apartFromIndexBuilds {
                    if rewritten {
                        try await write { session in
                            _ = try await migrate(Self.info(name, session, lock: .update), [], session, databaseIndex: .some(collation))
                        }
                    }
                    try await servingFromDatabase(read { session in try await Self.info(name, session) }, rewritten: rewritten)
                }
                databaseIndexesMissing()
            }
            indexes.place(info.id, bytes: bytes, inMemory: inMemory)
            placements[name] = inMemory ? .memory : .database
        }
        return placements
    }

    public func createTable(_ schema: TableSchema) async throws {
        try await write { session in _ = try await create(schema, session) }
    }

    public func dropTable(_ table: String) async throws {
        let id = try await apartFromIndexBuilds {
            try await write { session in
                let info = try await Self.info(table, session, lock: .update)
                try await dropping(info, session)
                if info.tombstoned(Self.dialect) { try await _Tombstones.drop(info, session) }
                try await session.execute("DROP TABLE \(info.physical)", [], long: true)
                if Self.dialect == .sqlite { try await session.execute("DROP TABLE IF EXISTS \(info.searchIndex)", [], long: true) }
                try await session.execute("DELETE FROM ordered_item WHERE list = $1", [.text(info.list)])
                try await session.execute("DELETE FROM sortkit_change WHERE table_id = $1", [.integer(info.id)])
                try await session.execute("DELETE FROM sortkit_table WHERE id = $1", [.integer(info.id)])
                return info.id
            }
        }
        indexes.forget(table: id)
    }

    /// Imports a CSV file as a new table: read into columns on every core, types inferred,
    /// the rows written in one transaction (by the store's `load`) while the table's
    /// in-memory index is built on the other cores; the manual order is id order, computed
    /// from the ids, and a move writes only the rows it places.
    @discardableResult
    public func importCSV(
        _ csv: consuming [UInt8], as name: String, delimiter: UInt8 = UInt8(ascii: ","), presets: [String: SortSpec] = [:]
    ) async throws -> TableSchema {
        // The columns, folded text and typed values are freed when the import returns; the
        // malloc arenas of the cores that made them give the memory back (about 300 MB after
        // a 1M-row import, which the resident size would otherwise keep).
        defer { _returnFreedMemoryToSystemSoon() }
        return try await importColumns(consume csv, as: name, delimiter: delimiter, presets: presets)
    }

    private func importColumns(_ csv: consuming [UInt8], as name: String, delimiter: UInt8, presets: [String: SortSpec]) async throws -> TableSchema {
        // The columns hold copies of the cells: the file's bytes go (when the caller passed
        // its last reference) once scanned, before the columns are joined.
        var columns = try _CSVColumns.read(consume csv, delimiter: delimiter)
        columns.number()
        let schema = TableSchema(
            name: name, columns: zip(columns.header, columns.inferredTypes()).map { TableSchema.Column($0, $1) }, presets: presets)
        try schema.validateDefinition()
        let exists = try await read { session in
            try await session.integer("SELECT COUNT(*) FROM sortkit_table WHERE name = $1", [.text(name)]) != 0
        }
        guard !exists else { throw TableStoreError.tableExists(name) }
        let variants = try _TableIndex.defaultVariants(schema, rows: columns.count, budget: indexes.limits.rankingBytesPerTable)
        let count = columns.count
        let (cells, folded, typed) = columns.derived(schema)
        // The columns read from the file go: the cells keep a repeating column's distinct
        // cells (what the load reads too) and share the others' (80 MB less at the peak of
        // 1M multilingual books).
        _ = consume columns
        // Under an index budget, a table whose index doesn't fit beside those held is served
        // from the database's own indexes, built after its rows.
        let bytes = IndexPlacement.estimatedBytes(rows: count, textBytes: folded.wholeByteCount, columns: schema.columns.count)
        let inMemory = indexes.claim(bytes)
        // A child task: when the load fails, leaving this scope waits for the build, so the
        // memory it holds is freed before the import's error returns.
        async let building =
            inMemoryIndex && inMemory
            ? _TableIndex(
                schema: schema, schemaVersion: 0, dataVersion: 0, ids: _RowIDs(first: 1, count: count),
                cells: cells, folded: folded, variants: variants, typedValues: typed) : nil
        let info: _TableInfo
        do {
            info = try await load(
                cells, folded: folded, typed: typed, as: schema, databaseIndex: inMemory ? nil : indexes.limits.databaseCollation)
        } catch {
            if inMemory { indexes.release(bytes) }
            throw error
        }
        indexes.place(info.id, bytes: bytes, inMemory: inMemory)
        indexes.installImported(await building, info)
        return schema
    }

    @discardableResult
    public func alter(_ table: String, _ changes: [SchemaChange]) async throws -> TableSchema {
        let schema = try await apartFromIndexBuilds {
            try await write { session in try await migrate(Self.info(table, session, lock: .update), changes, session) }
        }
        databaseIndexesMissing()
        return schema
    }

    // MARK: Rows

    @discardableResult
    public func insert(_ values: [String: String], into table: String) async throws -> Int64 {
        try await write { session in
            // The list is held first, as a move holds it: inserts and moves never interleave.
            let (info, _) = try await infoLockingList(table, session)
            let cells = try info.merging(values, into: Array(repeating: "", count: info.schema.columns.count))
            let given = try await newRowID(info, session)
            let columns = (given == nil ? [] : ["id"]) + info.physicalColumns
            let values = (given.map { [SQLValue.integer($0)] } ?? []) + info.rowValues(cells)
            let marks = values.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
            guard
                let id = try await session.integer(
                    "INSERT INTO \(info.physical) (\(columns.joined(separator: ", "))) VALUES (\(marks)) RETURNING id", values)
            else { throw TableStoreError.invalid("the database returned no id") }
            try await Self.count(1, info, session)
            try await Self.logChanges([id], info, session)
            // A new row goes last in the manual order.
            if info.manualReady {
                try await Self.apply(Self.plan(id, .before(nil), info, session), to: info.list, absent: id, session)
            } else {
                try await Self.placeInserted(id, info, session)
            }
            return id
        }
    }

    public func update(_ id: Int64, in table: String, set values: [String: String]) async throws {
        try await write { session in
            let info = try await Self.info(table, session, lock: .rows)
            let cells = try await info.merging(values, into: Self.cells(id, info, session, lock: .update))
            let columns = info.physicalColumns.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
            try await session.execute(
                "UPDATE \(info.physical) SET \(columns) WHERE id = $\(info.physicalColumns.count + 1)", info.rowValues(cells) + [.integer(id)])
            try await Self.logChanges([id], info, session)
        }
    }

    public func delete(_ id: Int64, from table: String) async throws {
        try await delete([id], table)
    }

    public func delete(_ ids: [Int64], from table: String) async throws {
        try _BlockMove.checkIDs(ids)
        try await delete(ids, table)
    }

    /// Deletes rows `ids` of `table` in one transaction, or throws ``TableStoreError`` for the
    /// first it lacks. On SQLite, a table served from the database only marks them gone (see
    /// ``_TableInfo/tombstoned(_:)``); the compactor removes them after the commit.
    private func delete(_ ids: [Int64], _ table: String) async throws {
        let tombstoned = try await write { session in
            // The list is held, as a move holds it: a relabel can't write the rows back into
            // the manual order while they are deleted.
            let (info, _) = try await infoLockingList(table, session)
            try await Self.checkRowsExist(ids, info, session)
            let dialect = Self.dialect, list = dialect.ids(ids), marks = info.tombstoned(dialect)
            try await session.execute("DELETE FROM ordered_item WHERE list = $1 AND id \(dialect.inIDs(2))", [.text(info.list), list])
            if marks {
                try await session.execute("INSERT INTO \(info.gone) (id) SELECT value FROM json_each($1)", [list])
            } else {
                try await session.execute("DELETE FROM \(info.physical) WHERE id \(dialect.inIDs(1))", [list])
            }
            try await Self.logChanges(ids, info, session)
            try await Self.count(-ids.count, info, session)
            return marks
        }
        if tombstoned { rowsMarkedGone() }
    }

    public func row(_ id: Int64, in table: String) async throws -> TableRow {
        try await row(id, in: self.table(table))
    }

    public func row(_ id: Int64, in table: StoredTable) async throws -> TableRow {
        let info = try await info(of: table)
        return TableRow(id: id, cells: try await read { session in try await Self.cells(id, info, session) })
    }

    // MARK: Manual order

    public func move(_ id: Int64, in table: String, to destination: MoveDestination) async throws {
        _ = try await _move(id, in: table, to: destination)
    }

    /// Moves a row and returns the list's move count after it — the order in which concurrent
    /// moves took effect (the tests replay them in this order; 0 where it isn't kept).
    func _move(_ id: Int64, in table: String, to destination: MoveDestination) async throws -> Int64 {
        try await write { session in
            let (info, sequence) = try await infoLockingList(table, session)
            try await Self.checkRowsExist([id], info, session)
            try await Self.move(id, to: destination, Self.prepareManualOrder(info, session), session)
            return sequence
        }
    }

    public func move(_ ids: [Int64], in table: String, to destination: MoveDestination, keepingOrder: Bool) async throws {
        let anchor = try _BlockMove.check(ids, destination)
        try await write { session in
            let (stored, _) = try await infoLockingList(table, session)
            try await Self.checkRowsExist(ids + [anchor], stored, session)
            let info = try await Self.prepareManualOrder(stored, session)
            var block = ids
            if keepingOrder {
                let labels = try await Self.manualLabels(of: ids, info, session)
                block = ids.sorted { (labels[$0] ?? .max, $0) < (labels[$1] ?? .max, $1) }
            }
            try await Self.moveBlock(block, to: destination, info, session)
        }
    }

    // MARK: Pages

    public func table(_ name: String) async throws -> StoredTable {
        StoredTable(try await read { session in try await Self.info(name, session) })
    }

    /// `table`'s catalog entry as read with it (read now for a table known by its schema).
    func info(of table: StoredTable) async throws -> _TableInfo {
        if let info = table.info { return info }
        return try await read { session in try await Self.info(table.schema.name, session) }
    }

    public func page(of table: String, _ request: PageRequest) async throws -> TablePage {
        try await page(of: self.table(table), request)
    }

    public func page(of table: StoredTable, _ request: PageRequest) async throws -> TablePage {
        // The budget runs from here: a wait for a search before this one counts in it.
        let deadline = _Deadline(queryBudget)
        let cursor = try request.checkedCursor(secret: secret)
        let info = try await info(of: table)
        let (secret, indexes) = (secret, indexes)
        func fromIndex(_ spec: SortSpec) async throws -> TablePage {
            let index = try await self.index(of: info)
            return try await indexes.searching(request, index: index, table: info.id, deadline: deadline) {
                try index.tablePage(request, spec: spec, cursor: cursor, secret: secret, cache: indexes, table: info.id, deadline: deadline)
            }
        }
        let fromDatabase = indexes.servesFromDatabase(info)
        if inMemoryIndex, !fromDatabase, case .spec(let spec) = request.order { return try await fromIndex(spec) }
        // A table stored before computed labels whose ids outrun them has never moved: its
        // manual order is id order until the first move writes it out.
        var order = request.order
        if order == .manual, !info.manualReady, try await !read({ try await Self.everyRowPlaced(info, $0) }) { order = .spec(SortSpec()) }
        let ordering = try Self.ordering(order, info)
        // Reads never add key columns: an order whose keys aren't stored (and that SQL can't
        // compute: PostgreSQL) is served from the index whatever the setting.
        if case .spec(let spec) = request.order, !ordering.variants.isSubset(of: info.variants), !fromDatabase {
            return try await fromIndex(spec)
        }
        // Served from the database, an order with a key the table doesn't store is a scan: its
        // whole order is kept once a scan in the background has made it (``_KeptOrders``).
        // A search or a filter always scans.
        let keeps = try fromDatabase && Self.computesKeys(order, info) && PageQuery(request, info: info, ordering: ordering).isUnfiltered
        if keeps, let page = try await keptOrderPage(request, cursor: cursor, info, ordering) { return page }
        let page = try await scannedPage(request, cursor: cursor, info, ordering)
        if keeps { keepOrderInBackground(info, order) }
        return page
    }

    /// Rows read with their cells after the id (`columns` of them) and the order's terms after
    /// the cells, as table rows and their terms.
    static func rowsAndTerms(_ rows: [[SQLValue]], columns: Int, terms: Int) -> (rows: [TableRow], terms: [[SQLValue]]) {
        (
            rows.map { row in TableRow(id: row[0].integer ?? 0, cells: (0..<columns).map { row[1 + $0].cell }) },
            rows.map { Array($0[(1 + columns)...].prefix(terms)) }
        )
    }

    /// A page by SQL (and, for PostgreSQL's keys the table doesn't store, SortKit's keys as the
    /// database scans).
    func scannedPage(_ request: PageRequest, cursor: KeysetCursor?, _ info: _TableInfo, _ ordering: SQLOrdering) async throws -> TablePage {
        // Served from the database under the index budget: the in-memory index is what
        // doesn't fit, so PostgreSQL scans the rows and SortKit computes the keys.
        if !ordering.variants.isSubset(of: info.variants) { return try await computedPage(request, cursor: cursor, info, ordering) }
        let query = try PageQuery(request, info: info, ordering: ordering)
        if cursor == nil, let page = try await pageInHalves(request, info, ordering, query) { return page }
        let columns = info.schema.columns.count
        let csv = request.csv.map { _PageCSV(export: $0, columns: columns, records: request.limit) }
        let result =
            if let beside = try await pageBesideCount(query, request, cursor: cursor, csv: csv, info) {
                beside
            } else {
                try await pageRows(select: query.select(request, cursor: cursor), count: query.isUnfiltered ? nil : query.count(), csv: csv)
            }
        let (rows, terms) = Self.rowsAndTerms(result.rows, columns: columns, terms: ordering.terms.count)
        var page = try query.page(rows, request, total: info.rowCount, filtered: result.filtered ?? info.rowCount, secret: secret) { terms[$0] }
        if let csv = result.csv { (page.rows, page.csv) = ([], csv) }
        return page
    }

    /// A view of a table served from the database (or by a store without an in-memory index),
    /// sorted by a spec, read by one query: `request`'s rows from its cursor or offset to the
    /// end, `request.limit` rows a batch. Read page by page, each page sought by its cursor
    /// through an index, PostgreSQL fetched each row's heap page at random (10 s for 1M rows);
    /// one query lets it scan and sort (see docs/ServingBigTables).
    public func streamPages(
        of table: StoredTable, _ request: PageRequest, _ body: (TablePage) async throws -> Void
    ) async throws -> StreamedPages {
        let info = try await info(of: table)
        guard case .spec = request.order, !inMemoryIndex || indexes.servesFromDatabase(info) else { return .notStreamed }
        let ordering = try Self.ordering(request.order, info)
        // An order without stored keys: SortKit computes them (PostgreSQL), or the page path
        // serves it from the index.
        guard ordering.variants.isSubset(of: info.variants) else { return try await streamComputed(request, info, ordering, body) }
        let cursor = try request.checkedCursor(secret: secret)
        let query = try PageQuery(request, info: info, ordering: ordering)
        let offset = cursor == nil ? request.offset : 0
        var given = 0
        // A download of every row by one key (its ids read off the key's index alone): read in
        // row order and put in order (``_RecordsInOrder``). By
        // several keys, the ids take SQLite the index walk's time (-price,title at 1M rows:
        // 2.9-3.1 s either way).
        if query.isUnfiltered, !ordering.isManual, ordering.terms.count == 2, let export = request.csv,
            let end = try await streamInRowOrder(
                ids: .query(query.ids(after: cursor?.values, offset: offset)), table: info, columns: info.schema.columns.count, csv: export,
                batchRows: max(1, request.limit),
                { rows, csv, count in
                    given += count
                    try await body(TablePage(rows: rows, csv: csv, total: info.rowCount, filtered: given, next: nil))
                })
        {
            // Nothing is read from the database once a batch is handed on: it ends finished.
            return end == .finished ? .finished : .notStreamed
        }
        let select = query.select(after: cursor?.values, offset: offset, limit: Int(Int64.max))
        let end = try await streamRows(
            select, columns: info.schema.columns.count, terms: ordering.terms.count, csv: request.csv, batchRows: max(1, request.limit)
        ) { rows, csv, count in
            given += count
            try await body(TablePage(rows: rows, csv: csv, total: info.rowCount, filtered: given, next: nil))
        }
        switch end {
        case .notStreamed: return .notStreamed
        case .finished: return .finished
        case .stopped(let terms):
            // Nothing handed on: as if not streamed. Otherwise the cursor a page ending on the
            // last row handed on would give.
            guard let terms else { return .notStreamed }
            return .continues(after: try KeysetCursor(order: request.order.description, search: request.cursorScope, values: terms).encoded(secret: secret))
        }
    }

    /// The database's plan of the page query for `request` (SQLite's `EXPLAIN QUERY PLAN`
    /// details, PostgreSQL's `EXPLAIN` lines), to check which index serves an order.
    public func queryPlan(of table: String, _ request: PageRequest, cursorValues: [SQLValue]? = nil) async throws -> [String] {
        try await read { session in
            let info = try await Self.info(table, session)
            let ordering = try Self.ordering(request.order, info)
            let query = PageQuery(info: info, ordering: ordering, search: SearchQuery(request.search), columnSearch: [:])
            let select = query.select(after: cursorValues, offset: request.offset, limit: request.limit)
            let explain = Self.dialect == .sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN "
            return try await session.select(explain + select.sql, select.arguments).map { $0.last?.cell ?? "" }
        }
    }

    /// `order` as the table's SQL orders by it: on SQLite a key the table doesn't store is
    /// computed in the query; PostgreSQL reads stored key columns only.
    static func ordering(_ order: TableOrder, _ info: _TableInfo) throws -> SQLOrdering {
        try SQLOrdering(order, schema: info.schema, dialect: dialect, stored: dialect == .sqlite ? info.variants : nil)
    }

    /// The in-memory index of a table, current for the catalog versions in `info`: the one
    /// held, brought up to date from the change log, or the table read again.
    func index(of requested: _TableInfo) async throws -> _TableIndex {
        let name = requested.schema.name
        return try await indexes.index(table: requested.id, schemaVersion: requested.schemaVersion, dataVersion: requested.dataVersion) { old in
            // The versions are read before the changes and rows: an index holds at least the
            // writes of the version it claims (a later one's too, which applying it again
            // leaves as they are).
            try await self.read { session in
                let info = try await Self.info(name, session)
                // A table dropped and made again under its name is another table.
                guard info.id == requested.id else { throw TableStoreError.unknownTable(name) }
                if let old, let changes = try await Self.changes(since: old.dataVersion, info, session),
                    let updated = old.applying(changes, dataVersion: info.dataVersion)
                {
                    return updated
                }
                return try await self.loadIndex(info, session)
            }
        }
    }
}

/// A page read for a download (``PageRequest/csv``): cells 1...`columns` of its first `records`
/// rows are written as CSV records from their bytes, not read as values.
struct _PageCSV {
    let export: CSVExport
    let columns: Int
    let records: Int
}

/// How a store's one-query read of a view ended (``_SQLTableStore/streamRows(_:columns:terms:csv:batchRows:_:)``).
enum _StreamEnd: Sendable, Equatable {
    /// The store reads views page by page; nothing was read.
    case notStreamed
    case finished
    /// Stopped part way; the order values of the last row handed on (`nil`: none was).
    case stopped(after: [SQLValue]?)
}
