import Foundation
import OrderKeys
import SortKit

/// The catalog (`sortkit_table`), the change log (`sortkit_change`), the physical tables and
/// schema changes, for both stores.
extension _SQLTableStore {
    /// The catalog columns ``decodeInfo(_:)`` reads, in its order.
    /// The last, on SQLite, says whether the table's search index is made yet (an import's is
    /// made after its commit, by ``_IndexBuilder``); PostgreSQL makes it with the table's rows.
    static var catalogColumns: String {
        let searchIndexed =
            dialect == .sqlite ? "EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'st_' || sortkit_table.id || '_search')" : "1"
        return "id, schema, variants, row_count, version, data_version, manual_ready, db_index, \(searchIndexed)"
    }

    /// A table's catalog entry, held as `lock` says to the end of the transaction.
    static func info(_ table: String, _ session: Session, lock: _CatalogLock = .none) async throws -> _TableInfo {
        _CatalogReads.counter?.add()
        let sql = "SELECT \(catalogColumns) FROM sortkit_table WHERE name = $1" + dialect.locking(lock)
        guard let row = try await session.select(sql, [.text(table)]).first else { throw TableStoreError.unknownTable(table) }
        return try decodeInfo(row)
    }

    /// A catalog row (``catalogColumns``) as a table's info.
    static func decodeInfo(_ row: [SQLValue]) throws -> _TableInfo {
        let variants = try JSONDecoder().decode([KeyVariant].self, from: Data(row[2].cell.utf8))
        return _TableInfo(
            id: row[0].integer ?? 0, schema: try TableSchema.decode(row[1].cell), variants: Set(variants),
            rowCount: Int(row[3].integer ?? 0), schemaVersion: row[4].integer ?? 0, dataVersion: row[5].integer ?? 0,
            manualReady: row[6].integer != 0, databaseIndex: row[7] == .null ? nil : Collation(rawValue: row[7].cell),
            searchIndexed: row[8].integer != 0)
    }

    /// Creates the catalog entry and the physical table, with its default key columns; its
    /// preset indexes too unless `indexesLater` (an import builds them after its rows are in:
    /// a B-tree built from the rows is faster than one kept up to date row by row).
    func create(
        _ schema: TableSchema, _ session: Session, manualReady: Bool = true, indexesLater: Bool = false, databaseIndex: Collation? = nil
    ) async throws -> _TableInfo {
        try schema.validateDefinition()
        let dialect = Self.dialect
        guard
            let id = try await session.integer(
                """
                INSERT INTO sortkit_table (id, name, schema, manual_ready) VALUES (\(dialect.newTableID), $1, $2, \(dialect.boolean(manualReady)))
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, [.text(schema.name), .text(schema.json)])
        else { throw TableStoreError.tableExists(schema.name) }
        var info = _TableInfo(id: id, schema: schema, variants: try schema.requiredVariants(dialect, databaseIndex: databaseIndex))
        info.manualReady = manualReady
        info.databaseIndex = databaseIndex
        var columns = [dialect.idColumn(keyLater: indexesLater)]
        for (index, column) in schema.columns.enumerated() {
            columns.append("c\(index) \(dialect.textColumn)")
            if column.type != .string { columns.append("n\(index) \(dialect.typedColumn(column.type))") }
        }
        columns += info.variants.sorted().map { "\($0.columnName) \(dialect.blobColumn)" }
        columns.append("s TEXT NOT NULL DEFAULT ''")
        try await session.execute("CREATE TABLE \(info.physical) (\(columns.joined(separator: ", ")))")
        try await created(info, session)
        if !indexesLater { try await Self.createIndexes(info, session) }
        try await Self.saveCatalog(info, session)
        return info
    }

    /// The preset indexes; for a table served from the database (``_TableInfo/databaseIndex``)
    /// what it needs before its index per column and direction and its search index, which
    /// ``_IndexBuilder`` makes after the commit.
    static func createIndexes(_ info: _TableInfo, _ session: Session) async throws {
        let table = info.physical
        let presets = try info.schema.presetIndexes(dialect)
        for (number, columns) in presets.enumerated() {
            // IF NOT EXISTS: a table's column indexes are made again on their own (see
            // `PostgresTableStore.servingFromDatabase`), its presets' kept.
            try await session.execute("CREATE INDEX IF NOT EXISTS \(table)_preset\(number) ON \(table) (\(columns))", [], long: true)
        }
        guard info.databaseIndex != nil else { return }
        // Now: the marks of deleted rows on SQLite (a delete needs them), the trigram extension
        // on PostgreSQL (a role that can't create it fails the write that would serve the
        // table). The index per column and direction and the search index come after the
        // commit, one at a time (``_IndexBuilder``), the table served meanwhile by scans; on
        // PostgreSQL the table is marked pending, and the builder marks it done at the end.
        switch dialect {
        case .sqlite: try await _Tombstones.create(info, session)
        case .postgresql:
            _ = try await trigramSchema(info, session)
            try await session.execute("COMMENT ON TABLE \(table) IS '\(indexesPendingMark)'")
        }
    }

    /// Drops the index per column and direction of a table served from the database (see
    /// ``createIndexes(_:_:)``, which makes them again).
    static func dropColumnIndexes(_ info: _TableInfo, _ session: Session) async throws {
        for (_, suffix, _, _) in try info.schema.columnIndexes(dialect, info.databaseIndex) {
            try await session.execute("DROP INDEX IF EXISTS \(info.physical)_\(suffix)", [], long: true)
        }
    }

    /// What a PostgreSQL table served from the database is marked with (its comment) once its
    /// column indexes include their key columns.
    static var columnIndexesMark: String { "sortkit: column indexes include their keys" }

    /// What a PostgreSQL table served from the database is marked with while ``_IndexBuilder``
    /// makes its indexes (its comment): the builder works on such tables only (a table
    /// indexed before the indexes included key columns has no comment, and its indexes are
    /// made again when it is placed).
    static var indexesPendingMark: String { "sortkit: indexes being made" }

    /// The schema of PostgreSQL's `pg_trgm` extension, created (in `public`) if it's missing.
    static func trigramSchema(_ info: _TableInfo, _ session: Session) async throws -> String {
        // The extension goes in `public` (a store's own schema may be dropped with its
        // tables); its operator class is named with the schema it is in.
        let find = "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'"
        var extensionSchema = try await session.select(find).first?.first?.cell ?? ""
        if extensionSchema.isEmpty {
            // In a savepoint: two sessions creating it at once, one fails on the catalog's
            // unique name (`IF NOT EXISTS` doesn't cover a creation not yet committed); it
            // then finds the other's, with its transaction still usable.
            try await session.execute("SAVEPOINT sortkit_pg_trgm")
            do {
                try await session.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
                try await session.execute("RELEASE SAVEPOINT sortkit_pg_trgm")
            } catch {
                try await session.execute("ROLLBACK TO SAVEPOINT sortkit_pg_trgm")
            }
            // Made here or by the other session; else this role can't make it.
            extensionSchema = try await session.select(find).first?.first?.cell ?? ""
            guard !extensionSchema.isEmpty else {
                throw TableStoreError.invalid(
                    "serving '\(info.schema.name)' from the database needs PostgreSQL's pg_trgm extension for its search index, and this role can't create it; create it once as a superuser (CREATE EXTENSION pg_trgm SCHEMA public) or raise --index-memory"
                )
            }
        }
        return extensionSchema
    }

    static func saveCatalog(_ info: _TableInfo, _ session: Session) async throws {
        let variants = String(decoding: try JSONEncoder().encode(info.variants.sorted()), as: UTF8.self)
        try await session.execute(
            "UPDATE sortkit_table SET schema = $1, variants = $2, db_index = $3, version = version + 1 WHERE id = $4",
            [.text(info.schema.json), .text(variants), info.databaseIndex.map { .text($0.rawValue) } ?? .null, .integer(info.id)])
    }

    /// Adds `delta` to the table's row count.
    static func count(_ delta: Int, _ info: _TableInfo, _ session: Session) async throws {
        try await session.execute("UPDATE sortkit_table SET row_count = row_count + $1 WHERE id = $2", [.integer(Int64(delta)), .integer(info.id)])
    }

    // MARK: Change log

    /// Raises the table's data version by one per row and logs the rows as written
    /// (inserted, updated or deleted) at those versions, in the write's transaction, in a
    /// few statements whatever their number; every 4,096 versions, log entries more than
    /// 65,536 versions old go (an index that far behind reads the table again).
    static func logChanges(_ ids: [Int64], _ info: _TableInfo, _ session: Session) async throws {
        guard !ids.isEmpty else { return }
        let last =
            try await session.integer(
                "UPDATE sortkit_table SET data_version = data_version + $1 WHERE id = $2 RETURNING data_version",
                [.integer(Int64(ids.count)), .integer(info.id)]) ?? 0
        let first = last - Int64(ids.count) + 1
        // The versions follow the ids' order.
        try await session.execute(
            "INSERT INTO sortkit_change (table_id, version, row_id) SELECT $1, $2 + n, row_id FROM \(dialect.numberedIDs(3))",
            [.integer(info.id), .integer(first), dialect.ids(ids)])
        if (first - 1) / 4_096 != last / 4_096 {
            try await session.execute(
                "DELETE FROM sortkit_change WHERE table_id = $1 AND version <= $2", [.integer(info.id), .integer(last - 65_536)])
        }
    }

    /// The rows written since data version `version`, as they are now; `nil` when the change
    /// log no longer reaches back that far.
    static func changes(since version: Int64, _ info: _TableInfo, _ session: Session) async throws -> [_RowChange]? {
        guard info.dataVersion > version else { return [] }
        guard let oldest = try await session.integer("SELECT MIN(version) FROM sortkit_change WHERE table_id = $1", [.integer(info.id)]),
            oldest <= version + 1
        else { return nil }
        let ids = try await session.integers(
            "SELECT DISTINCT row_id FROM sortkit_change WHERE table_id = $1 AND version > $2 ORDER BY row_id",
            [.integer(info.id), .integer(version)])
        // A write that pruned the log between the two reads (each sees what was committed when
        // it ran) took entries this one needed: read the table again instead.
        guard let still = try await session.integer("SELECT MIN(version) FROM sortkit_change WHERE table_id = $1", [.integer(info.id)]),
            still <= version + 1
        else { return nil }
        var found: [Int64: [String]] = [:]
        let columns = info.schema.columns.indices.map { ", c\($0)" }.joined()
        for row in try await session.select("SELECT id\(columns) FROM \(info.rows(dialect)) WHERE id \(dialect.inIDs(1))", [dialect.ids(ids)]) {
            found[row[0].integer ?? 0] = row.dropFirst().map(\.cell)
        }
        return ids.map { _RowChange(id: $0, cells: found[$0]) }
    }

    // MARK: Rows

    static func cells(_ id: Int64, _ info: _TableInfo, _ session: Session, lock: _CatalogLock = .none) async throws -> [String] {
        let columns = info.schema.columns.indices.map { "c\($0)" }.joined(separator: ", ")
        guard let row = try await session.select("SELECT \(columns) FROM \(info.rows(dialect)) WHERE id = $1" + dialect.locking(lock), [.integer(id)]).first
        else { throw TableStoreError.unknownRow(id, table: info.schema.name) }
        return row.map(\.cell)
    }

    /// Every row's cells, in id order: of the table itself (a schema change removes the rows
    /// marked gone first).
    static func allCells(_ info: _TableInfo, _ session: Session) async throws -> [(id: Int64, cells: [String])] {
        let columns = info.schema.columns.indices.map { ", c\($0)" }.joined()
        return try await session.select("SELECT id\(columns) FROM \(info.physical) ORDER BY id", [], long: true).map { row in
            (row[0].integer ?? 0, row.dropFirst().map(\.cell))
        }
    }

    /// Throws ``TableStoreError/unknownRow(_:table:)`` for the first of `ids` the table lacks.
    static func checkRowsExist(_ ids: [Int64], _ info: _TableInfo, _ session: Session) async throws {
        let found = Set(try await session.integers("SELECT id FROM \(info.rows(dialect)) WHERE id \(dialect.inIDs(1))", [dialect.ids(ids)]))
        if let missing = ids.first(where: { !found.contains($0) }) { throw TableStoreError.unknownRow(missing, table: info.schema.name) }
    }

    // MARK: Schema changes

    /// Applies a schema change: checks every row against the new types, changes the physical
    /// columns, rewrites every row's derived columns and rebuilds the preset indexes.
    func migrate(
        _ info: _TableInfo, _ changes: [SchemaChange], _ session: Session, databaseIndex: Collation?? = nil
    ) async throws -> TableSchema {
        let dialect = Self.dialect
        let migration = try _PhysicalMigration(info, changes, dialect: dialect, databaseIndex: databaseIndex ?? info.databaseIndex)
        let padding = Array(repeating: "", count: migration.added.count)
        // Rows marked gone go first: they mustn't fail the new types. The view is made again
        // with the indexes, over the new columns.
        if info.tombstoned(dialect) {
            try await _Tombstones.purge(info, session)
            try await _Tombstones.drop(info, session)
        }
        let rows = try await Self.allCells(info, session)
        try migration.validate(rows.map { ($0.id, $0.cells + padding) })
        let table = info.physical
        for number in 0..<info.schema.presets.count { try await session.execute("DROP INDEX IF EXISTS \(table)_preset\(number)", [], long: true) }
        try await Self.dropColumnIndexes(info, session)
        var alterations = migration.droppedVariants.map { "DROP COLUMN \($0.columnName)" }
        alterations += migration.droppedTypedColumns.map { "DROP COLUMN n\($0)" }
        alterations += migration.added.map { "ADD COLUMN c\($0) \(dialect.textColumn)" }
        alterations += migration.addedTypedColumns.map { "ADD COLUMN n\($0) \(dialect.typedColumn(migration.new.schema.columns[$0].type))" }
        alterations += migration.addedVariants.map { "ADD COLUMN \($0.columnName) \(dialect.blobColumn)" }
        for alteration in alterations { try await session.execute("ALTER TABLE \(table) \(alteration)", [], long: true) }
        try await rewrite(migration.new, rows: rows.map { [.integer($0.id)] + migration.new.rowValues($0.cells + padding) }, session)
        try await Self.createIndexes(migration.new, session)
        try await Self.saveCatalog(migration.new, session)
        return migration.new.schema
    }
}
