import Foundation

/// A table of text cells with named columns — a CSV file in memory — that sorts by a
/// ``SortSpec``, reading each column by its inferred ``ColumnType`` unless a modifier says
/// otherwise.
///
///     let table = try TextTable(csv: Array("name,size\nb,10\na,9\nc,\n".utf8))
///     try table.sorted(by: SortSpec(parsing: "-size")).rows
///     // [["b", "10"], ["a", "9"], ["c", ""]]: numbers, not text; blank last
public struct TextTable: Sendable, Hashable {
    /// The column names.
    public var columns: [String]
    /// The rows; each has one cell per column.
    public var rows: [[String]]

    /// A table with the given columns and rows.
    ///
    /// - Precondition: Every row has `columns.count` cells.
    public init(columns: [String], rows: [[String]]) {
        precondition(rows.allSatisfy { $0.count == columns.count }, "every row needs one cell per column")
        self.columns = columns
        self.rows = rows
    }

    /// Reads a table from CSV.
    ///
    /// - Parameters:
    ///   - csv: UTF-8 CSV text.
    ///   - delimiter: The field separator.
    ///   - hasHeader: Whether the first record names the columns; without a header the
    ///     columns are named `1`, `2`, ….
    /// - Throws: ``CSVError`` for malformed CSV.
    public init(csv: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), hasHeader: Bool = true) throws {
        var records = try CSV.parse(csv, delimiter: delimiter)
        if hasHeader {
            let header = records.isEmpty ? [] : records.removeFirst()
            self.init(columns: header, rows: records)
        } else {
            let width = records.first?.count ?? 0
            self.init(columns: (1...max(width, 1)).prefix(width).map(String.init), rows: records)
        }
    }

    /// The CSV text of the table, header first.
    public func csv(delimiter: Character = ",", includeHeader: Bool = true) -> String {
        CSV.format(includeHeader ? [columns] + rows : rows, delimiter: delimiter)
    }

    /// The inferred type of each column.
    public func columnTypes() -> [ColumnType] {
        columns.indices.map { column in ColumnType.infer(rows.lazy.map { $0[column] }) }
    }

    /// The position of the column named `name`: an exact match, else the only match ignoring
    /// case.
    ///
    /// - Throws: ``SortSpecError`` naming the unknown column and listing the known ones.
    public func columnIndex(_ name: String) throws -> Int {
        if let index = columns.firstIndex(of: name) { return index }
        let matches = columns.indices.filter { Collation.caseInsensitive.areEquivalent(columns[$0], name) }
        if matches.count == 1 { return matches[0] }
        throw SortSpecError.unknownColumn(name, known: columns)
    }

    /// The sort keys over row positions that `spec` describes for this table.
    ///
    /// - Throws: ``SortSpecError`` for a column the table doesn't have.
    public func sortKeys(for spec: SortSpec) throws -> [SortKey<Int>] {
        var keys: [SortKey<Int>] = []
        for key in spec.keys {
            let column = try columnIndex(key.column)
            let cells = rows.map { $0[column] }
            let type = key.interpretation == .inferred && key.enumOrder == nil ? ColumnType.infer(cells) : .string
            let values = cells.map { key.sortValue(of: $0, columnType: type) }
            if key.enumOrder != nil {
                // Each distinct text ranked once.
                var cache: [String: SortValue] = [:]
                let ranks = values.map { value -> SortValue in
                    guard case .string(let text) = value else { return key.enumRank(of: value) ?? .null }
                    if let rank = cache[text] { return rank }
                    let rank = key.enumRank(of: value) ?? .null
                    cache[text] = rank
                    return rank
                }
                keys.append(SortKey(key.direction, nulls: key.nulls) { ranks[$0] })
            }
            keys.append(SortKey(key.direction, collation: key.collation, nulls: key.nulls) { values[$0] })
        }
        return keys
    }

    /// Row positions in the order `spec` describes. Stable.
    public func sortedRowIndices(by spec: SortSpec) throws -> [Int] {
        rows.indices.sortedIndices(by: try sortKeys(for: spec))
    }

    /// The table with its rows sorted by `spec`. Stable.
    ///
    /// - Throws: ``SortSpecError`` for a column the table doesn't have.
    public func sorted(by spec: SortSpec) throws -> TextTable {
        let order = try sortedRowIndices(by: spec)
        return TextTable(columns: columns, rows: order.map { rows[$0] })
    }
}
