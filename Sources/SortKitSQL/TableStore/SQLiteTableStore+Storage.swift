import Foundation
import GRDB
import OrderKeys
import SortKit

extension SQLiteTableStore {
    static func info(_ table: String, _ db: Database) throws -> _TableInfo {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT id, schema, variants, row_count, version, data_version, manual_ready FROM sortkit_table WHERE name = ?",
                arguments: [table])
        else { throw TableStoreError.unknownTable(table) }
        let variants = try JSONDecoder().decode([KeyVariant].self, from: Data((row["variants"] as String).utf8))
        return _TableInfo(
            id: row["id"], schema: try TableSchema.decode(row["schema"]), variants: Set(variants), rowCount: row["row_count"],
            schemaVersion: row["version"], dataVersion: row["data_version"], manualReady: row["manual_ready"])
    }

    /// Raises the table's data version and logs row `id` as written (inserted, updated or
    /// deleted) at it, in the write's transaction; every 4,096 versions, log entries more than
    /// 65,536 versions old go (an index that far behind reads the table again).
    /// Row ids as one statement argument, a JSON array that `json_each(?)` reads: no list of
    /// placeholders to build, and no limit on its length.
    static func idList(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    static func logChange(_ id: Int64, _ info: _TableInfo, _ db: Database) throws {
        try logChanges([id], info, db)
    }

    /// ``logChange(_:_:_:)`` for many rows at once: one version each, written in a few
    /// statements (a bulk delete of thousands of rows).
    static func logChanges(_ ids: [Int64], _ info: _TableInfo, _ db: Database) throws {
        guard !ids.isEmpty else { return }
        let last =
            try Int64.fetchOne(
                db, sql: "UPDATE sortkit_table SET data_version = data_version + ? WHERE id = ? RETURNING data_version",
                arguments: [ids.count, info.id]) ?? 0
        let first = last - Int64(ids.count) + 1
        // json_each's key is the array index: the versions follow the ids' order.
        try db.execute(
            sql: "INSERT INTO sortkit_change (table_id, version, row_id) SELECT ?, ? + key, value FROM json_each(?)",
            arguments: [info.id, first, idList(ids)])
        if (first - 1) / 4_096 != last / 4_096 {
            try db.execute(sql: "DELETE FROM sortkit_change WHERE table_id = ? AND version <= ?", arguments: [info.id, last - 65_536])
        }
    }

    /// Writes out the manual order (id order until now) before its first move: one label per
    /// row, evenly spaced, in one statement.
    static func prepareManualOrder(_ info: _TableInfo, _ db: Database) throws {
        guard !info.manualReady else { return }
        let count = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(info.physical)") ?? 0
        let step = min(OrderLabels.step, (OrderLabels.limit - OrderLabels.first) / UInt64(count + 1))
        try db.execute(
            sql: """
                INSERT INTO ordered_item (list, id, pos)
                SELECT ?, id, ? + (ROW_NUMBER() OVER (ORDER BY id) - 1) * ? FROM \(info.physical)
                """,
            arguments: [info.list, Int64(OrderLabels.first), Int64(step)])
        try db.execute(sql: "UPDATE sortkit_table SET manual_ready = 1 WHERE id = ?", arguments: [info.id])
    }

    /// Creates the catalog entry, the physical table, the default key columns and the preset
    /// indexes.
    static func create(_ schema: TableSchema, _ db: Database, manualReady: Bool = true) throws -> _TableInfo {
        try schema.validateDefinition()
        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sortkit_table WHERE name = ?", arguments: [schema.name]) == 0
        else { throw TableStoreError.tableExists(schema.name) }
        // Above every id given before, dropped tables' included (see dropTable).
        try db.execute(
            sql: """
                INSERT INTO sortkit_table (id, name, schema, manual_ready) VALUES (max(
                  (SELECT coalesce(max(id), 0) FROM sortkit_table),
                  (SELECT coalesce(max(CAST(value AS INTEGER)), 0) FROM sortkit_meta WHERE key = 'last-table-id')) + 1, ?, ?, ?)
                """,
            arguments: [schema.name, schema.json, manualReady])
        var info = _TableInfo(id: db.lastInsertedRowID, schema: schema, variants: try schema.requiredVariants(.sqlite))
        info.manualReady = manualReady
        var columns = ["id INTEGER PRIMARY KEY"]
        for (index, column) in schema.columns.enumerated() {
            columns.append("c\(index) TEXT")
            if column.type != .string { columns.append("n\(index) \(typedColumn(column.type))") }
        }
        columns += info.variants.sorted().map { "\($0.columnName) BLOB" }
        columns.append("s TEXT NOT NULL DEFAULT ''")
        try db.execute(sql: "CREATE TABLE \(info.physical) (\(columns.joined(separator: ", ")))")
        try createPresetIndexes(info, db)
        try saveCatalog(info, db)
        return info
    }

    /// The id for a new row: above every id the table ever gave (the catalog's `next_id`), so
    /// a deleted row's id is never given again — as PostgreSQL's sequences never do — and
    /// clients' ids and cursors never point at another row. (`AUTOINCREMENT` would do it too,
    /// at the cost of a write per inserted row, which halves a bulk import's speed.)
    static func nextID(_ info: _TableInfo, _ db: Database) throws -> Int64 {
        let id =
            try Int64.fetchOne(
                db, sql: "SELECT max(next_id, (SELECT coalesce(max(id), 0) + 1 FROM \(info.physical))) FROM sortkit_table WHERE id = ?",
                arguments: [info.id]) ?? 1
        try db.execute(sql: "UPDATE sortkit_table SET next_id = ? WHERE id = ?", arguments: [id + 1, info.id])
        return id
    }

    /// Adds `delta` to the table's row count.
    static func count(_ delta: Int, _ info: _TableInfo, _ db: Database) throws {
        try db.execute(sql: "UPDATE sortkit_table SET row_count = row_count + ? WHERE id = ?", arguments: [delta, info.id])
    }

    /// A typed value's column: NUMERIC for floats, which keeps an integral value as an
    /// INTEGER (exact beyond 2^53, and SQLite compares INTEGER with REAL exactly) and a
    /// fractional one as a REAL. (Tables made before kept REAL columns: their integers beyond
    /// 2^53 are rounded where SQL orders by them; the in-memory index is exact.)
    static func typedColumn(_ type: ColumnType) -> String {
        switch type {
        case .integer, .bool: "INTEGER"
        case .float: "NUMERIC"
        default: "REAL"
        }
    }

    static func createPresetIndexes(_ info: _TableInfo, _ db: Database) throws {
        for (number, columns) in try info.schema.presetIndexes(.sqlite).enumerated() {
            try db.execute(sql: "CREATE INDEX \(info.physical)_preset\(number) ON \(info.physical) (\(columns))")
        }
    }

    static func saveCatalog(_ info: _TableInfo, _ db: Database) throws {
        let variants = String(decoding: try JSONEncoder().encode(info.variants.sorted()), as: UTF8.self)
        try db.execute(
            sql: "UPDATE sortkit_table SET schema = ?, variants = ?, version = version + 1 WHERE id = ?",
            arguments: [info.schema.json, variants, info.id])
    }

    /// Adds and fills the key columns in `variants` that the table lacks.
    static func addVariants(_ variants: Set<KeyVariant>, to info: _TableInfo, _ db: Database) throws {
        let missing = variants.subtracting(info.variants).sorted()
        guard !missing.isEmpty else { return }
        for variant in missing {
            try db.execute(sql: "ALTER TABLE \(info.physical) ADD COLUMN \(variant.columnName) BLOB")
            let type = info.schema.columns[variant.column].type
            let rows = try Row.fetchAll(db, sql: "SELECT id, c\(variant.column) AS c FROM \(info.physical)")
            let update = try db.makeStatement(sql: "UPDATE \(info.physical) SET \(variant.columnName) = ? WHERE id = ?")
            for row in rows {
                let key = variant.key(of: row["c"] ?? "", type: type).map { Data($0) }
                try update.execute(arguments: [key, row["id"] as Int64])
            }
        }
        var new = info
        new.variants.formUnion(missing)
        try saveCatalog(new, db)
    }

    /// Applies a schema change: checks every row against the new types, changes the physical
    /// columns, rewrites every row's derived columns and rebuilds the preset indexes.
    static func migrate(_ info: _TableInfo, _ changes: [SchemaChange], _ db: Database) throws -> TableSchema {
        let migration = try _PhysicalMigration(info, changes, dialect: .sqlite)
        let rows = try allCells(info, db)
        try migration.validate(rows.map { ($0.id, $0.cells + Array(repeating: "", count: migration.added.count)) })
        let table = info.physical
        for number in 0..<info.schema.presets.count {
            try db.execute(sql: "DROP INDEX IF EXISTS \(table)_preset\(number)")
        }
        for variant in migration.droppedVariants { try db.execute(sql: "ALTER TABLE \(table) DROP COLUMN \(variant.columnName)") }
        for column in migration.droppedTypedColumns { try db.execute(sql: "ALTER TABLE \(table) DROP COLUMN n\(column)") }
        for column in migration.added { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN c\(column) TEXT") }
        for column in migration.addedTypedColumns {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN n\(column) \(typedColumn(migration.new.schema.columns[column].type))")
        }
        for variant in migration.addedVariants { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(variant.columnName) BLOB") }
        let columns = migration.new.physicalColumns.map { "\($0) = ?" }.joined(separator: ", ")
        let update = try db.makeStatement(sql: "UPDATE \(table) SET \(columns) WHERE id = ?")
        for row in rows {
            let cells = row.cells + Array(repeating: "", count: migration.added.count)
            try update.execute(arguments: StatementArguments(migration.new.rowValues(cells).map(\.databaseValue) + [row.id]))
        }
        try createPresetIndexes(migration.new, db)
        try saveCatalog(migration.new, db)
        return migration.new.schema
    }

    static func insertStatement(_ info: _TableInfo, _ db: Database, withID: Bool = false) throws -> Statement {
        let columns = (withID ? ["id"] : []) + info.physicalColumns
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return try db.makeStatement(sql: "INSERT INTO \(info.physical) (\(columns.joined(separator: ", "))) VALUES (\(marks))")
    }

    static func rowArguments(_ cells: [String], _ info: _TableInfo) -> StatementArguments {
        StatementArguments(info.rowValues(cells).map(\.databaseValue))
    }

    static func cells(_ id: Int64, _ info: _TableInfo, _ db: Database) throws -> [String] {
        let columns = info.schema.columns.indices.map { "c\($0)" }.joined(separator: ", ")
        guard let row = try Row.fetchOne(db, sql: "SELECT \(columns) FROM \(info.physical) WHERE id = ?", arguments: [id])
        else { throw TableStoreError.unknownRow(id, table: info.schema.name) }
        return info.schema.columns.indices.map { row[$0] ?? "" }
    }

    static func allCells(_ info: _TableInfo, _ db: Database) throws -> [(id: Int64, cells: [String])] {
        let columns = info.schema.columns.indices.map { ", c\($0)" }.joined()
        return try Row.fetchAll(db, sql: "SELECT id\(columns) FROM \(info.physical) ORDER BY id").map { row in
            (row[0], info.schema.columns.indices.map { row[1 + $0] ?? "" })
        }
    }
}

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .double(let double): double.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}

/// GRDB's and PostgresNIO's errors as store errors (see ``TableStoreError/classifying(_:)``).
func _classifyDatabaseError(_ error: any Error) -> TableStoreError? {
    if let error = error as? DatabaseError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_NOMEM, .SQLITE_PROTOCOL:
            return TableStoreError(.unavailable, "the SQLite database is unavailable (\(error.resultCode)); try again")
        case .SQLITE_INTERRUPT:
            return TableStoreError(.timedOut, "the query was interrupted; try again")
        default:
            return TableStoreError(.internal, "SQLite: \(error)")
        }
    }
    if let mapped = PostgresTableStore.describe(error) as? TableStoreError { return mapped }
    return nil
}
