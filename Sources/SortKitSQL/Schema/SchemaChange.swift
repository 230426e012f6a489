import Foundation
import SortKit

/// One change to a stored table's schema. A store applies a list of them in one transaction
/// that keeps every row (``TableStore/alter(_:_:)``): all of them or, on any error, none.
///
///     try await store.alter("books", [
///         .addColumn("isbn", .string),
///         .renameColumn("price", to: "cost"),
///         .changeType("year", to: .integer),
///         .addPreset("Oldest", try SortSpec(parsing: "year,title")),
///     ])
public enum SchemaChange: Sendable, Hashable, Codable {
    /// Appends a column; existing rows get a blank (null) cell.
    case addColumn(String, ColumnType)
    /// Renames a column; presets that read it follow.
    case renameColumn(String, to: String)
    /// Changes a column's type. Every stored value must parse as the new type, else the change
    /// fails naming the rows that don't. (Text is kept as written, so changing back is lossless.)
    case changeType(String, to: ColumnType)
    /// Adds a named sort preset and the index that serves it.
    case addPreset(String, SortSpec)
    /// Removes a preset and its index.
    case removePreset(String)
}

extension TableSchema {
    /// The schema after `changes`, checked: names unique and not empty, presets naming known
    /// columns.
    ///
    /// - Throws: ``TableStoreError`` naming the column or preset a change can't apply to.
    public func applying(_ changes: [SchemaChange]) throws -> TableSchema {
        var schema = self
        for change in changes {
            switch change {
            case .addColumn(let name, let type):
                guard !schema.columns.contains(where: { $0.name == name }) else {
                    throw TableStoreError(.conflict, "table '\(self.name)' has a column '\(name)' already")
                }
                schema.columns.append(Column(name, type))
            case .renameColumn(let old, let new):
                let index = try schema.columnIndex(old)
                let before = schema
                guard !schema.columns.contains(where: { $0.name == new }) else {
                    throw TableStoreError(.conflict, "table '\(self.name)' has a column '\(new)' already")
                }
                schema.columns[index].name = new
                for (preset, spec) in schema.presets {
                    schema.presets[preset] = SortSpec(
                        spec.keys.map { key in
                            var key = key
                            if (try? before.columnIndex(key.column)) == index { key.column = new }
                            return key
                        })
                }
            case .changeType(let name, let type):
                schema.columns[try schema.columnIndex(name)].type = type
            case .addPreset(let name, let spec):
                guard schema.presets[name] == nil else {
                    throw TableStoreError(.conflict, "table '\(self.name)' has a preset '\(name)' already")
                }
                schema.presets[name] = spec
            case .removePreset(let name):
                guard schema.presets.removeValue(forKey: name) != nil else {
                    throw TableStoreError(.notFound, "table '\(self.name)' has no preset '\(name)'")
                }
            }
        }
        try schema.validateDefinition()
        return schema
    }
}

/// What a schema change does to a table's physical columns; both stores follow it.
struct _PhysicalMigration {
    let old: _TableInfo
    let new: _TableInfo
    /// Columns appended by the change.
    let added: Range<Int>
    /// Existing columns whose type changed.
    let retyped: [Int]
    /// Key columns to drop (their column's type changed) and to add.
    let droppedVariants: [KeyVariant]
    let addedVariants: [KeyVariant]

    init(_ info: _TableInfo, _ changes: [SchemaChange], dialect: SQLDialect, databaseIndex: Collation?) throws {
        old = info
        let schema = try info.schema.applying(changes)
        added = info.schema.columns.count..<schema.columns.count
        let retyped = info.schema.columns.indices.filter { info.schema.columns[$0].type != schema.columns[$0].type }
        self.retyped = retyped
        let kept = info.variants.filter { !retyped.contains($0.column) }
        let variants = kept.union(try schema.requiredVariants(dialect, databaseIndex: databaseIndex))
        try KeyVariant.checkDistinctColumns(variants)
        droppedVariants = info.variants.subtracting(kept).sorted()
        addedVariants = variants.subtracting(kept).sorted()
        var new = _TableInfo(id: info.id, schema: schema, variants: variants, rowCount: info.rowCount)
        new.manualReady = info.manualReady
        new.databaseIndex = databaseIndex
        self.new = new
    }

    /// Typed columns to drop: the old `n<i>` of retyped columns that had one.
    var droppedTypedColumns: [Int] { retyped.filter { old.schema.columns[$0].type != .string } }
    /// Typed columns to add: those of added or retyped columns that need one.
    var addedTypedColumns: [Int] { (retyped + added).filter { new.schema.columns[$0].type != .string } }

    /// Checks every stored row against the new types; the error names up to five bad rows.
    func validate(_ rows: [(id: Int64, cells: [String])]) throws {
        var bad: [Int: [(Int64, String)]] = [:]
        for row in rows {
            for column in retyped where !new.schema.columns[column].type.accepts(row.cells[column]) {
                bad[column, default: []].append((row.id, row.cells[column]))
            }
        }
        guard let (column, rows) = bad.min(by: { $0.key < $1.key }) else { return }
        let type = new.schema.columns[column].type
        let listed = rows.prefix(5).map { "row \($0.0) ('\($0.1)')" }.joined(separator: ", ")
        let more = rows.count > 5 ? " and \(rows.count - 5) more" : ""
        throw TableStoreError.invalid(
            "column '\(new.schema.columns[column].name)' can't become \(type.rawValue): \(listed)\(more) don't parse as \(type.rawValue); nothing was changed")
    }
}
