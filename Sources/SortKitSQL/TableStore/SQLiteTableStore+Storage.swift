import Foundation
import GRDB
import OrderKeys
import SortKit

/// A table's catalog entry: its schema, physical name and stored key columns.
struct _TableInfo {
    var id: Int64
    var schema: TableSchema
    var variants: Set<KeyVariant>

    /// The physical table: named by its catalog id, never by user text.
    var physical: String { "st_\(id)" }
    /// The manual order's list in `ordered_item`.
    var list: String { "sortkit:st_\(id)" }
}

extension SQLiteTableStore {
    static func decodeSchema(_ json: String) throws -> TableSchema {
        try JSONDecoder().decode(TableSchema.self, from: Data(json.utf8))
    }

    static func info(_ table: String, _ db: Database) throws -> _TableInfo {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, schema, variants FROM sortkit_table WHERE name = ?", arguments: [table])
        else { throw TableStoreError.unknownTable(table) }
        let variants = try JSONDecoder().decode([KeyVariant].self, from: Data((row["variants"] as String).utf8))
        return _TableInfo(id: row["id"], schema: try decodeSchema(row["schema"]), variants: Set(variants))
    }

    /// Creates the catalog entry, the physical table, the default key columns and the preset
    /// indexes.
    static func create(_ schema: TableSchema, _ db: Database) throws -> _TableInfo {
        guard !schema.name.isEmpty else { throw TableStoreError.invalid("a table needs a name") }
        guard !schema.columns.isEmpty else { throw TableStoreError.invalid("table '\(schema.name)' needs at least one column") }
        var seen: Set<String> = []
        for column in schema.columns {
            guard !column.name.isEmpty else { throw TableStoreError.invalid("line 1: a column of '\(schema.name)' has no name") }
            guard seen.insert(column.name).inserted else {
                throw TableStoreError.invalid("line 1: table '\(schema.name)' names column '\(column.name)' twice")
            }
        }
        for spec in schema.presets.values { try schema.validate(spec) }
        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sortkit_table WHERE name = ?", arguments: [schema.name]) == 0
        else { throw TableStoreError.tableExists(schema.name) }
        let json = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
        try db.execute(sql: "INSERT INTO sortkit_table (name, schema) VALUES (?, ?)", arguments: [schema.name, json])
        var info = _TableInfo(id: db.lastInsertedRowID, schema: schema, variants: [])
        var columns = ["id INTEGER PRIMARY KEY"]
        for (index, column) in schema.columns.enumerated() {
            columns.append("c\(index) TEXT")
            if column.type != .string { columns.append("n\(index) \(column.type == .integer || column.type == .bool ? "INTEGER" : "REAL")") }
        }
        columns.append("s TEXT NOT NULL DEFAULT ''")
        try db.execute(sql: "CREATE TABLE \(info.physical) (\(columns.joined(separator: ", ")))")
        let natural = schema.columns.indices.filter { schema.columns[$0].type == .string }
            .map { KeyVariant(column: $0, interpretation: .text, collation: .natural) }
        try addVariants(Set(natural), to: info, db)
        info.variants.formUnion(natural)
        for (number, name) in schema.presets.keys.sorted().enumerated() {
            let ordering = try SQLOrdering(.spec(schema.presets[name]!), schema: schema, dialect: .sqlite)
            try addVariants(ordering.variants, to: info, db)
            info.variants.formUnion(ordering.variants)
            let columns = ordering.indexColumns.render(.sqlite)
            precondition(columns.arguments.isEmpty, "order expressions are literal")
            try db.execute(sql: "CREATE INDEX \(info.physical)_preset\(number) ON \(info.physical) (\(columns.sql))")
        }
        return try self.info(schema.name, db)
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
        let all = info.variants.union(missing).sorted()
        let json = String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
        try db.execute(sql: "UPDATE sortkit_table SET variants = ? WHERE id = ?", arguments: [json, info.id])
    }

    /// The columns a row write sets, in ``rowArguments(_:_:)``'s order.
    static func physicalColumns(_ info: _TableInfo) -> [String] {
        var names: [String] = []
        for (index, column) in info.schema.columns.enumerated() {
            names.append("c\(index)")
            if column.type != .string { names.append("n\(index)") }
        }
        return names + info.variants.sorted().map(\.columnName) + ["s"]
    }

    static func insertStatement(_ info: _TableInfo, _ db: Database) throws -> Statement {
        let columns = physicalColumns(info)
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return try db.makeStatement(sql: "INSERT INTO \(info.physical) (\(columns.joined(separator: ", "))) VALUES (\(marks))")
    }

    /// The values of ``physicalColumns(_:)`` for a row's cells: text in NFC (so "C"/BINARY
    /// order is code point order of NFC, as in memory), typed values, key bytes, folded text.
    static func rowArguments(_ cells: [String], _ info: _TableInfo) throws -> [(any DatabaseValueConvertible)?] {
        var arguments: [(any DatabaseValueConvertible)?] = []
        for (index, column) in info.schema.columns.enumerated() {
            // Blank (whitespace only) is null, as in memory.
            let text = cells[index].precomposedStringWithCanonicalMapping
            arguments.append(text.allSatisfy(\.isWhitespace) ? nil : text)
            if column.type != .string { arguments.append(SQLValue(column.type.sortValue(text)).databaseValue) }
        }
        for variant in info.variants.sorted() {
            arguments.append(variant.key(of: cells[variant.column], type: info.schema.columns[variant.column].type).map { Data($0) })
        }
        arguments.append(SearchQuery.foldedFields(cells))
        return arguments
    }

    static func validate(_ cells: [String], _ schema: TableSchema) throws {
        for (column, text) in zip(schema.columns, cells) where !column.type.accepts(text) {
            throw TableStoreError.invalidValue(text, column: column.name, type: column.type)
        }
    }

    static func cells(_ id: Int64, _ info: _TableInfo, _ db: Database) throws -> [String] {
        let columns = info.schema.columns.indices.map { "c\($0)" }.joined(separator: ", ")
        guard let row = try Row.fetchOne(db, sql: "SELECT \(columns) FROM \(info.physical) WHERE id = ?", arguments: [id])
        else { throw TableStoreError.unknownRow(id, table: info.schema.name) }
        return info.schema.columns.indices.map { row[$0] ?? "" }
    }
}

/// The page and count queries of one request.
struct PageQuery {
    let info: _TableInfo
    let ordering: SQLOrdering
    let search: SearchQuery
    let columnSearch: [Int: SearchQuery]

    var isUnfiltered: Bool { search.isBlank && columnSearch.isEmpty }

    private var from: SQLFragment {
        var fragment = SQLFragment(" FROM \(info.physical) AS t")
        if ordering.isManual {
            fragment.append(" JOIN ordered_item AS o ON o.list = ")
            fragment.bind(.text(info.list))
            fragment.append(" AND o.id = t.id")
        }
        return fragment
    }

    private var conditions: [SQLFragment] {
        let find = ordering.dialect == .sqlite ? "instr(" : "strpos("
        var conditions = search.terms.map { term in
            var fragment = SQLFragment(find + "t.s, ")
            fragment.bind(.text(term))
            fragment.append(") > 0")
            return fragment
        }
        for (column, query) in columnSearch.sorted(by: { $0.key < $1.key }) {
            for term in query.terms {
                var fragment = SQLFragment(find + "sortkit_fold(t.c\(column)), ")
                fragment.bind(.text(term))
                fragment.append(") > 0")
                conditions.append(fragment)
            }
        }
        return conditions
    }

    func select(after values: [SQLValue]?, offset: Int, limit: Int) -> (sql: String, arguments: [SQLValue]) {
        let columns = info.schema.columns.indices.map { ", t.c\($0)" }.joined()
        var fragment = SQLFragment("SELECT t.id\(columns)")
        for (index, term) in ordering.terms.enumerated() {
            fragment.append(", ")
            fragment.append(term.expression)
            fragment.append(" AS e\(index)")
        }
        fragment.append(from)
        var conditions = conditions
        if let values, let seek = try? ordering.after(values) { conditions.append(seek) }
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(conditions, separator: " AND "))
        }
        fragment.append(" ORDER BY ")
        fragment.append(ordering.orderBy)
        fragment.append(" LIMIT ")
        fragment.bind(.integer(Int64(limit)))
        fragment.append(" OFFSET ")
        fragment.bind(.integer(Int64(offset)))
        return fragment.render(ordering.dialect)
    }

    func count() -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT COUNT(*)")
        fragment.append(SQLFragment(" FROM \(info.physical) AS t"))
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(conditions, separator: " AND "))
        }
        return fragment.render(ordering.dialect)
    }
}

extension SQLValue {
    /// A typed value as stored in a `n<i>` column: dates as seconds since the reference date,
    /// booleans as 0 or 1.
    init(_ value: SortValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .integer(flag ? 1 : 0)
        case .integer(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .date(let date): self = .double(date.timeIntervalSinceReferenceDate)
        case .string(let text): self = .text(text)
        }
    }

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
