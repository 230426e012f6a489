import Foundation
import SortKit

/// A table's columns and presets: the whitelist every query is checked against.
///
/// Column names never reach SQL: a store names its physical columns by position (`c0`, `c1`,
/// …), so a name can be any text.
///
///     let schema = TableSchema(name: "books", columns: [
///         .init("title", .string), .init("price", .float), .init("published", .date),
///     ], presets: ["cheapest": try SortSpec(parsing: "price,title")])
public struct TableSchema: Sendable, Hashable, Codable {
    /// The table's name (for CSV imports, the file's stem).
    public var name: String
    /// The columns, in display order.
    public var columns: [Column]
    /// Named sort orders; a store keeps an index for each so that its first page needs no sort.
    public var presets: [String: SortSpec]

    /// A schema with the given columns and presets.
    public init(name: String, columns: [Column], presets: [String: SortSpec] = [:]) {
        self.name = name
        self.columns = columns
        self.presets = presets
    }

    /// One column: a name and the type its values must have.
    public struct Column: Sendable, Hashable, Codable {
        /// The column's name, as users write it in sort specs.
        public var name: String
        /// The type every non-blank value has (text that doesn't parse as it is rejected).
        public var type: ColumnType

        /// A column named `name` of type `type`.
        public init(_ name: String, _ type: ColumnType) {
            self.name = name
            self.type = type
        }
    }

    /// The position of the column named `name`: an exact match, else the only match ignoring
    /// case (as `TextTable.columnIndex(_:)` does).
    ///
    /// - Throws: ``TableStoreError/unknownColumn(_:table:known:)``.
    public func columnIndex(_ name: String) throws -> Int {
        if let index = columns.firstIndex(where: { $0.name == name }) { return index }
        let matches = columns.indices.filter { Collation.caseInsensitive.areEquivalent(columns[$0].name, name) }
        if matches.count == 1 { return matches[0] }
        throw TableStoreError.unknownColumn(name, table: self.name, known: columns.map(\.name))
    }

    /// The name every row's id has in a store's rows (`{"id": 7, …}`); no column may have it.
    /// A CSV column named `id` is imported as `csv_id` (`csv_id_2`, … if that is taken).
    public static let rowIDName = "id"

    /// Checks that every key of `spec` names a column of this table.
    public func validate(_ spec: SortSpec) throws {
        for key in spec.keys { _ = try columnIndex(key.column) }
    }
}

extension ColumnType {
    /// Whether `text` is a valid value of this type: blank (null) or a value that parses as it.
    func accepts(_ text: String) -> Bool {
        switch sortValue(text) {
        case .null: true
        case .string: self == .string
        default: true
        }
    }
}
