import Crypto
import Foundation
import Logging
import OrderKeys
import PostgresNIO
import SortKit

extension PostgresTableStore {
    /// The store's own tables, as a versioned list: a database at version `n` gets the
    /// migrations after `n`, each recorded in `sortkit_schema_version`, in one transaction.
    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (
            1, "ordered lists and the table catalog",
            [
                "CREATE TABLE ordered_list (list text PRIMARY KEY, moves bigint NOT NULL DEFAULT 0)",
                """
                CREATE TABLE ordered_item (
                  list text NOT NULL, id bigint NOT NULL, pos bigint NOT NULL,
                  PRIMARY KEY (list, id), UNIQUE (list, pos))
                """,
                """
                CREATE TABLE sortkit_table (
                  id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, schema text NOT NULL,
                  variants text NOT NULL DEFAULT '[]', version integer NOT NULL DEFAULT 0,
                  row_count bigint NOT NULL DEFAULT 0)
                """,
                "CREATE TABLE sortkit_meta (key text PRIMARY KEY, value bytea NOT NULL)",
            ]
        ),
        // Data versions and a change log keep every server's in-memory indexes current; a manual
        // order is written out at its first move (until then it is id order).
        (
            2, "data versions, change log, lazy manual order",
            [
                "ALTER TABLE sortkit_table ADD COLUMN data_version bigint NOT NULL DEFAULT 0, ADD COLUMN manual_ready boolean NOT NULL DEFAULT true",
                "CREATE TABLE sortkit_change (table_id bigint NOT NULL, version bigint NOT NULL, row_id bigint NOT NULL)",
                "CREATE INDEX sortkit_change_version ON sortkit_change (table_id, version)",
            ]
        ),
    ]

    /// Applies the migrations the database lacks. Two servers starting at once serialize on
    /// the version table's lock.
    static func migrate(_ client: PostgresClient, _ logger: Logger) async throws {
        try await transaction(client, logger) { session in
            try await session.execute(
                """
                CREATE TABLE IF NOT EXISTS sortkit_schema_version (
                  version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
        }
        try await transaction(client, logger) { session in
            try await session.execute("LOCK TABLE sortkit_schema_version IN EXCLUSIVE MODE")
            let current = try await session.integer("SELECT coalesce(max(version), 0) FROM sortkit_schema_version") ?? 0
            for migration in migrations where migration.version > current {
                for statement in migration.statements { try await session.execute(statement) }
                try await session.execute(
                    "INSERT INTO sortkit_schema_version (version, name) VALUES ($1, $2)",
                    [.integer(Int64(migration.version)), .text(migration.name)])
            }
            let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            try await session.execute(
                "INSERT INTO sortkit_meta (key, value) VALUES ('cursor-secret', $1) ON CONFLICT (key) DO NOTHING", [.blob(secret)])
        }
    }

    // MARK: Transactions

    /// Runs `body` between `BEGIN` and `COMMIT` (`ROLLBACK` if it throws), retrying the whole
    /// transaction with a short random back-off when PostgreSQL reports a serialization
    /// failure, a deadlock or a unique violation that a concurrent writer caused.
    static func transaction<T: Sendable>(
        _ client: PostgresClient, _ logger: Logger, budget: Duration? = nil, _ body: (_PostgresSession) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.withConnection { connection in
                    let session = _PostgresSession(connection: connection, logger: logger)
                    try await session.execute("BEGIN")
                    do {
                        let value = try await body(session)
                        try await session.execute("COMMIT")
                        return value
                    } catch {
                        try? await session.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as PSQLError where attempt < 50 && isRetryable(error) {
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(200 * min(attempt, 20)))))
            } catch {
                throw describe(error, budget: budget)
            }
        }
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        ["40001", "40P01", "23505"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// A PostgreSQL error as a store error of the kind a client can act on. PostgresNIO hides
    /// the server's message from `description` (it may hold data); the store error keeps it
    /// for the log, with its SQLSTATE. Class 08 (connection), 53 (resources), 57P0x (shutdown)
    /// and a closed connection are `unavailable`; 57014 (`statement_timeout`) `timedOut`; 22
    /// (data) and 23 (integrity) the client's `invalid` input; anything else `internal`.
    static func describe(_ error: any Error, budget: Duration? = nil) -> any Error {
        guard let error = error as? PSQLError else {
            // The pool's own errors (shut down, no connection in time) come from a module
            // PostgresNIO doesn't export; they are known by their type's name.
            if String(reflecting: type(of: error)).contains("ConnectionPoolError") {
                return TableStoreError(.unavailable, "the PostgreSQL server can't be reached (\(error)); try again")
            }
            return error
        }
        guard let state = error.serverInfo?[.sqlState] else {
            let connection: [PSQLError.Code] = [
                .clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown,
                .poolClosed, .sslUnsupported, .failedToAddSSLHandler, .queryCancelled,
            ]
            if connection.contains(error.code) {
                return TableStoreError(.unavailable, "the PostgreSQL server can't be reached (\(error.code.description)); try again")
            }
            return TableStoreError(.internal, "PostgreSQL: \(error.code.description)")
        }
        let message = "PostgreSQL: \(error.serverInfo?[.message] ?? "?") (SQLSTATE \(state))"
        if state == "57014", let budget { return TableStoreError.timedOut(budget) }
        switch state.prefix(2) {
        case "08", "53", "57": return TableStoreError(.unavailable, "the PostgreSQL server is unavailable (SQLSTATE \(state)); try again")
        // Data (22) and integrity (23) errors are the client's input, named without the
        // server's text (which can hold SQL, constraint names and data); anything else is a bug.
        case "22": return TableStoreError.invalid("the database can't store a value: \(dataProblems[state] ?? "invalid data") (SQLSTATE \(state))")
        case "23": return TableStoreError(.conflict, "the change conflicts with another row or write (SQLSTATE \(state)); try again")
        default: return TableStoreError(.internal, message)
        }
    }

    /// Client-safe descriptions of the data errors (SQLSTATE class 22) input can cause.
    static let dataProblems = [
        "22001": "text too long", "22003": "a number out of range", "22007": "an invalid date or time",
        "22008": "a date or time out of range", "22021": "text that isn't valid UTF-8 or holds a NUL character",
        "22P02": "text that isn't a valid number", "22P05": "text the database's encoding can't hold",
    ]

    // MARK: Catalog

    /// A table's catalog entry. A writer reads it `forWrite` (`FOR SHARE`: a schema change,
    /// which locks it `FOR UPDATE`, can't change the table under the write); a schema change
    /// reads it with `lock`.
    static func info(_ table: String, _ session: _PostgresSession, lock: Bool = false, forWrite: Bool = false) async throws -> _TableInfo {
        let sql = "SELECT \(catalogColumns) FROM sortkit_table WHERE name = $1" + (lock ? " FOR UPDATE" : forWrite ? " FOR SHARE" : "")
        guard let row = try await session.rows(sql, [.text(table)]).first else { throw TableStoreError.unknownTable(table) }
        return try decodeInfo(row)
    }

    /// The catalog columns ``decodeInfo(_:)`` reads, in its order.
    static let catalogColumns = "id, schema, variants, row_count, version, data_version, manual_ready"

    /// A catalog row (``catalogColumns``) as a table's info.
    static func decodeInfo(_ row: PostgresRandomAccessRow) throws -> _TableInfo {
        let variants = try JSONDecoder().decode([KeyVariant].self, from: Data(row[2].decode(String.self).utf8))
        return _TableInfo(
            id: try row[0].decode(Int64.self), schema: try TableSchema.decode(row[1].decode(String.self)), variants: Set(variants),
            rowCount: Int(try row[3].decode(Int64.self)), schemaVersion: Int64(try row[4].decode(Int32.self)),
            dataVersion: try row[5].decode(Int64.self), manualReady: try row[6].decode(Bool.self))
    }

    /// Raises the table's data version and logs row `id` as written at it, in the write's
    /// transaction (see ``SQLiteTableStore``'s `logChange`, which this mirrors).
    /// Row ids as one statement argument, an array literal that `$n::bigint[]` reads: no list
    /// of placeholders to build, and no limit on its length.
    static func idArray(_ ids: [Int64]) -> SQLValue {
        .text("{" + ids.map(String.init).joined(separator: ",") + "}")
    }

    static func logChange(_ id: Int64, _ info: _TableInfo, _ session: _PostgresSession) async throws {
        try await logChanges([id], info, session)
    }

    /// ``logChange(_:_:_:)`` for many rows at once: one version each, written in a few
    /// statements (a bulk delete of thousands of rows).
    static func logChanges(_ ids: [Int64], _ info: _TableInfo, _ session: _PostgresSession) async throws {
        guard !ids.isEmpty else { return }
        let last =
            try await session.integer(
                "UPDATE sortkit_table SET data_version = data_version + $1 WHERE id = $2 RETURNING data_version",
                [.integer(Int64(ids.count)), .integer(info.id)]) ?? 0
        let first = last - Int64(ids.count) + 1
        try await session.execute(
            "INSERT INTO sortkit_change (table_id, version, row_id) SELECT $1, $2 + n - 1, row_id FROM unnest($3::bigint[]) WITH ORDINALITY AS u(row_id, n)",
            [.integer(info.id), .integer(first), idArray(ids)])
        if (first - 1) / 4_096 != last / 4_096 {
            try await session.execute(
                "DELETE FROM sortkit_change WHERE table_id = $1 AND version <= $2", [.integer(info.id), .integer(last - 65_536)])
        }
    }

    /// Writes out the manual order (id order until now) before its first move.
    static func prepareManualOrder(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        guard !info.manualReady else { return }
        let count = try await session.integer("SELECT COUNT(*) FROM \(info.physical)") ?? 0
        let step = min(OrderLabels.step, (OrderLabels.limit - OrderLabels.first) / UInt64(count + 1))
        try await session.execute(
            """
            INSERT INTO ordered_item (list, id, pos)
            SELECT $1, id, $2 + (ROW_NUMBER() OVER (ORDER BY id) - 1) * $3 FROM \(info.physical)
            """,
            [.text(info.list), .integer(Int64(OrderLabels.first)), .integer(Int64(step))])
        try await session.execute("UPDATE sortkit_table SET manual_ready = true WHERE id = $1", [.integer(info.id)])
    }

    /// Adds `delta` to the table's row count.
    static func count(_ delta: Int, _ info: _TableInfo, _ session: _PostgresSession) async throws {
        try await session.execute("UPDATE sortkit_table SET row_count = row_count + $1 WHERE id = $2", [.integer(Int64(delta)), .integer(info.id)])
    }

    /// Creates the catalog entry and the physical table; its primary key and the preset
    /// indexes too unless `indexesLater` (an import builds them after its rows are in, with
    /// ``createIndexes(_:_:)``: a B-tree built from the rows is faster than one kept up to
    /// date row by row through `COPY`).
    static func create(
        _ schema: TableSchema, _ session: _PostgresSession, manualReady: Bool = true, indexesLater: Bool = false
    ) async throws -> _TableInfo {
        try schema.validateDefinition()
        guard
            try await session.integer(
                "INSERT INTO sortkit_table (name, schema, manual_ready) VALUES ($1, $2, $3 <> 0) ON CONFLICT (name) DO NOTHING RETURNING id",
                [.text(schema.name), .text(schema.json), .integer(manualReady ? 1 : 0)]) != nil
        else { throw TableStoreError.tableExists(schema.name) }
        let id = try await session.integer("SELECT id FROM sortkit_table WHERE name = $1", [.text(schema.name)]) ?? 0
        var info = _TableInfo(id: id, schema: schema, variants: try schema.requiredVariants(.postgresql))
        info.manualReady = manualReady
        var columns = [indexesLater ? "id bigserial NOT NULL" : "id bigserial PRIMARY KEY"]
        for (index, column) in schema.columns.enumerated() {
            columns.append("c\(index) text COLLATE \"C\"")
            if column.type != .string { columns.append("n\(index) \(typedColumn(column.type))") }
        }
        columns += info.variants.sorted().map { "\($0.columnName) bytea" }
        columns.append("s text NOT NULL DEFAULT ''")
        try await session.execute("CREATE TABLE \(info.physical) (\(columns.joined(separator: ", ")))")
        try await session.execute("INSERT INTO ordered_list (list) VALUES ($1)", [.text(info.list)])
        if !indexesLater { try await createPresetIndexes(info, session) }
        try await saveCatalog(info, session)
        return info
    }

    static func typedColumn(_ type: ColumnType) -> String {
        type == .integer || type == .bool ? "bigint" : "double precision"
    }

    /// The primary key and the preset indexes of a table created with `indexesLater`.
    static func createIndexes(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        try await session.execute("ALTER TABLE \(info.physical) ADD PRIMARY KEY (id)")
        try await createPresetIndexes(info, session)
    }

    static func createPresetIndexes(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        for (number, columns) in try info.schema.presetIndexes(.postgresql).enumerated() {
            try await session.execute("CREATE INDEX \(info.physical)_preset\(number) ON \(info.physical) (\(columns))")
        }
    }

    static func saveCatalog(_ info: _TableInfo, _ session: _PostgresSession) async throws {
        let variants = String(decoding: try JSONEncoder().encode(info.variants.sorted()), as: UTF8.self)
        try await session.execute(
            "UPDATE sortkit_table SET schema = $1, variants = $2, version = version + 1 WHERE id = $3",
            [.text(info.schema.json), .text(variants), .integer(info.id)])
    }

    /// Adds and fills the key columns in `variants` that the table lacks (`info` read with its
    /// catalog row locked, so two requests never add the same column).
    static func addVariants(_ variants: Set<KeyVariant>, to info: _TableInfo, _ session: _PostgresSession) async throws -> _TableInfo {
        let missing = variants.subtracting(info.variants).sorted()
        guard !missing.isEmpty else { return info }
        for variant in missing {
            try await session.execute("ALTER TABLE \(info.physical) ADD COLUMN \(variant.columnName) bytea")
        }
        let rows = try await allCells(info, session)
        try await rewrite(
            info.physical, columns: missing.map(\.columnName),
            rows: rows.lazy.map { row in
                [.integer(row.id)]
                    + missing.map { variant in
                        variant.key(of: row.cells[variant.column], type: info.schema.columns[variant.column].type).map { .blob($0) } ?? .null
                    }
            }, session)
        var new = info
        new.variants.formUnion(missing)
        try await saveCatalog(new, session)
        return new
    }

    /// Sets `columns` of many rows at once: `COPY` into a temporary table, then one `UPDATE`.
    static func rewrite(
        _ table: String, columns: [String], rows: some Sequence<[SQLValue]>, _ session: _PostgresSession
    ) async throws {
        try await session.execute(
            "CREATE TEMP TABLE sortkit_rewrite ON COMMIT DROP AS SELECT id, \(columns.joined(separator: ", ")) FROM \(table) WITH NO DATA")
        try await session.copy(into: "sortkit_rewrite", columns: ["id"] + columns, rows: rows)
        let set = columns.map { "\($0) = r.\($0)" }.joined(separator: ", ")
        try await session.execute("UPDATE \(table) AS t SET \(set) FROM sortkit_rewrite AS r WHERE t.id = r.id")
        try await session.execute("DROP TABLE sortkit_rewrite")
    }

    /// Applies a schema change as the SQLite store does: check every row, change the physical
    /// columns, rewrite the derived columns, rebuild the preset indexes.
    static func migrate(_ info: _TableInfo, _ changes: [SchemaChange], _ session: _PostgresSession) async throws -> TableSchema {
        let migration = try _PhysicalMigration(info, changes, dialect: .postgresql)
        let padding = Array(repeating: "", count: migration.added.count)
        let rows = try await allCells(info, session)
        try migration.validate(rows.map { ($0.id, $0.cells + padding) })
        let table = info.physical
        for number in 0..<info.schema.presets.count { try await session.execute("DROP INDEX IF EXISTS \(table)_preset\(number)") }
        var alterations = migration.droppedVariants.map { "DROP COLUMN \($0.columnName)" }
        alterations += migration.droppedTypedColumns.map { "DROP COLUMN n\($0)" }
        alterations += migration.added.map { "ADD COLUMN c\($0) text COLLATE \"C\"" }
        alterations += migration.addedTypedColumns.map { "ADD COLUMN n\($0) \(typedColumn(migration.new.schema.columns[$0].type))" }
        alterations += migration.addedVariants.map { "ADD COLUMN \($0.columnName) bytea" }
        if !alterations.isEmpty { try await session.execute("ALTER TABLE \(table) \(alterations.joined(separator: ", "))") }
        try await rewrite(
            table, columns: migration.new.physicalColumns,
            rows: rows.lazy.map { [.integer($0.id)] + migration.new.rowValues($0.cells + padding) }, session)
        try await createPresetIndexes(migration.new, session)
        try await saveCatalog(migration.new, session)
        return migration.new.schema
    }

    static func cells(_ id: Int64, _ info: _TableInfo, _ session: _PostgresSession, lock: Bool = false) async throws -> [String] {
        let columns = info.schema.columns.indices.map { "c\($0)" }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \(info.physical) WHERE id = $1" + (lock ? " FOR UPDATE" : "")
        guard let row = try await session.rows(sql, [.integer(id)]).first
        else { throw TableStoreError.unknownRow(id, table: info.schema.name) }
        return try info.schema.columns.indices.map { try row[$0].decode(String?.self) ?? "" }
    }

    static func allCells(_ info: _TableInfo, _ session: _PostgresSession) async throws -> [(id: Int64, cells: [String])] {
        let columns = info.schema.columns.indices.map { ", c\($0)" }.joined()
        return try await session.rows("SELECT id\(columns) FROM \(info.physical) ORDER BY id").map { row in
            (try row[0].decode(Int64.self), try info.schema.columns.indices.map { try row[1 + $0].decode(String?.self) ?? "" })
        }
    }

    // MARK: Manual order

    /// The table's catalog entry, with its list's row locked for the rest of the transaction
    /// and its move count incremented — in one round trip.
    static func infoLockingList(_ table: String, _ session: _PostgresSession) async throws -> (_TableInfo, Int64) {
        guard
            let row = try await session.rows(
                """
                WITH t AS (SELECT \(catalogColumns) FROM sortkit_table WHERE name = $1 FOR SHARE),
                     l AS (UPDATE ordered_list SET moves = moves + 1 WHERE list = (SELECT 'sortkit:st_' || id FROM t) RETURNING moves)
                SELECT t.id, t.schema, t.variants, t.row_count, t.version, t.data_version, t.manual_ready, (SELECT moves FROM l) FROM t
                """, [.text(table)]
            ).first
        else { throw TableStoreError.unknownTable(table) }
        let info = try decodeInfo(row)
        guard let moves = try row[7].decode(Int64?.self) else { throw TableStoreError.invalid("the manual order of '\(table)' is missing") }
        return (info, moves)
    }

    /// Takes `id` out of the list and reads `anchor`'s label, in one round trip; returns the
    /// anchor's label as a planner answer, or `nil` when the move is a no-op (`id` is its own
    /// anchor). An unknown id or anchor throws, and the transaction's rollback undoes the delete.
    static func detach(
        _ id: Int64, anchor: Int64?, list: String, _ session: _PostgresSession
    ) async throws -> [_LabelReplay.Query: _LabelReplay.Answer]? {
        let values: [SQLValue] = [.text(list), .integer(id)]
        guard let anchor else {
            guard try await session.integer("DELETE FROM ordered_item WHERE list = $1 AND id = $2 RETURNING pos", values) != nil
            else { throw OrderKeyError.unknownID(id) }
            return [:]
        }
        if anchor == id {
            guard try await session.integer("SELECT pos FROM ordered_item WHERE list = $1 AND id = $2", values) != nil
            else { throw OrderKeyError.unknownID(id) }
            return nil
        }
        let row = try await session.rows(
            """
            WITH d AS (DELETE FROM ordered_item WHERE list = $1 AND id = $2 RETURNING pos)
            SELECT (SELECT pos FROM d), (SELECT pos FROM ordered_item WHERE list = $1 AND id = $3)
            """, values + [.integer(anchor)])[0]
        guard try row[0].decode(Int64?.self) != nil else { throw OrderKeyError.unknownID(id) }
        guard let label = try row[1].decode(Int64?.self) else { throw OrderKeyError.unknownID(anchor) }
        return [.label(anchor): .label(UInt64(label))]
    }

    /// The label writes that place `id` (already detached) in the list.
    static func plan(
        _ id: Int64, _ placement: _Placement, list: String, known: [_LabelReplay.Query: _LabelReplay.Answer] = [:],
        _ session: _PostgresSession
    ) async throws -> [LabelWrite<Int64>] {
        try await _LabelReplay.run(
            known: known,
            { reader in
                var random = SystemRandomNumberGenerator()
                switch placement {
                case .after(let predecessor): return try LabelPlanner.insert(id, after: predecessor, in: reader, using: &random)
                case .before(let successor): return try LabelPlanner.insert(id, before: successor, in: reader, using: &random)
                }
            }, fetch: { try await answer($0, list: list, session) })
    }

    /// One planner read, answered from `ordered_item`.
    static func answer(_ query: _LabelReplay.Query, list: String, _ session: _PostgresSession) async throws -> _LabelReplay.Answer {
        let list = SQLValue.text(list)
        switch query {
        case .label(let id):
            return .label(
                try await session.integer(
                    "SELECT pos FROM ordered_item WHERE list = $1 AND id = $2", [list, .integer(id)]
                ).map(UInt64.init))
        case .after(let value):
            return .label(
                try await session.integer(
                    "SELECT min(pos) FROM ordered_item WHERE list = $1 AND pos > $2", [list, .integer(Int64(value))]
                ).map(UInt64.init))
        case .before(let value):
            return .label(
                try await session.integer(
                    "SELECT max(pos) FROM ordered_item WHERE list = $1 AND pos < $2", [list, .integer(Int64(value))]
                ).map(UInt64.init))
        case .first:
            return .label(try await session.integer("SELECT min(pos) FROM ordered_item WHERE list = $1", [list]).map(UInt64.init))
        case .last:
            return .label(try await session.integer("SELECT max(pos) FROM ordered_item WHERE list = $1", [list]).map(UInt64.init))
        case .count(let range):
            return .count(
                Int(
                    try await session.integer(
                        "SELECT count(*) FROM ordered_item WHERE list = $1 AND pos BETWEEN $2 AND $3",
                        [list, .integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]) ?? 0))
        case .items(let range):
            return .items(
                try await session.rows(
                    "SELECT id, pos FROM ordered_item WHERE list = $1 AND pos BETWEEN $2 AND $3 ORDER BY pos",
                    [list, .integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]
                ).map { (try $0[0].decode(Int64.self), UInt64(try $0[1].decode(Int64.self))) })
        }
    }

    /// Writes labels. One write of the row being placed (`absent`: not in the list) at a
    /// free label is a plain insert; otherwise two phases, as the SQLite store does: park every
    /// written row at a unique negative label, then flip them all, so the `UNIQUE (list, pos)`
    /// constraint never sees two rows at one label mid-way.
    static func apply(_ writes: [LabelWrite<Int64>], to list: String, absent: Int64, _ session: _PostgresSession) async throws {
        guard !writes.isEmpty else { return }
        if writes.count == 1 && writes[0].id == absent {
            try await session.execute(
                "INSERT INTO ordered_item (list, id, pos) VALUES ($1, $2, $3)",
                [.text(list), .integer(absent), .integer(Int64(writes[0].label))])
            return
        }
        var bindings = PostgresBindings()
        bindings.append(list)
        bindings.append(writes.map(\.id))
        bindings.append(writes.map { -Int64($0.label) - 1 })
        try await session.connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO ordered_item (list, id, pos) SELECT $1, unnest($2::bigint[]), unnest($3::bigint[])
                    ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos
                    """, binds: bindings), logger: session.logger)
        try await session.execute("UPDATE ordered_item SET pos = -pos - 1 WHERE list = $1 AND pos < 0", [.text(list)])
    }
}

/// Where a row goes in a manual order: right after a row (or first), or right before one (or last).
enum _Placement {
    case after(Int64?)
    case before(Int64?)
}

extension PostgresTableStore {
    /// The rows written since data version `version`, as they are now; `nil` when the change
    /// log no longer reaches back that far.
    static func changes(since version: Int64, _ info: _TableInfo, _ session: _PostgresSession) async throws -> [_RowChange]? {
        guard info.dataVersion > version else { return [] }
        guard let oldest = try await session.integer("SELECT MIN(version) FROM sortkit_change WHERE table_id = $1", [.integer(info.id)]),
            oldest <= version + 1
        else { return nil }
        let ids = try await session.rows(
            "SELECT DISTINCT row_id FROM sortkit_change WHERE table_id = $1 AND version > $2 ORDER BY row_id",
            [.integer(info.id), .integer(version)]
        ).map { try $0[0].decode(Int64.self) }
        var found: [Int64: [String]] = [:]
        let columns = info.schema.columns.indices.map { ", c\($0)" }.joined()
        for row in try await session.rows("SELECT id\(columns) FROM \(info.physical) WHERE id = ANY($1::bigint[])", [idArray(ids)]) {
            found[try row[0].decode(Int64.self)] = try info.schema.columns.indices.map { try row[1 + $0].decode(String?.self) ?? "" }
        }
        return ids.map { _RowChange(id: $0, cells: found[$0]) }
    }

    /// Reads a table into a new index, streaming its rows' bytes into arenas.
    static func loadIndex(_ info: _TableInfo, _ session: _PostgresSession) async throws -> _TableIndex {
        let width = info.schema.columns.count
        var ids: [Int64] = []
        ids.reserveCapacity(info.rowCount)
        var arenas = [_ByteArena](repeating: _ByteArena(), count: width)
        let columns = (0..<width).map { ", c\($0)" }.joined()
        try await session.forEachRow("SELECT id\(columns) FROM \(info.physical) ORDER BY id") { row in
            ids.append(try row[0].decode(Int64.self))
            for column in 0..<width {
                // Text arrives as its UTF-8 bytes.
                if let bytes = row[1 + column].bytes { arenas[column].bytes.append(contentsOf: bytes.readableBytesView) }
                arenas[column].close()
            }
        }
        return _TableIndex(
            schema: info.schema, schemaVersion: info.schemaVersion, dataVersion: info.dataVersion, ids: ids, columns: arenas,
            variants: try _TableIndex.defaultVariants(info.schema))
    }
}
