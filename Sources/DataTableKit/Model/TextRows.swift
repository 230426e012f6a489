import SortKit

/// A row of an untyped table (CSV, `[[String]]`): its position as id and its cells.
public struct TextRow: Identifiable, Sendable, Hashable {
    /// The row's position in the data (1-based, as CSV ids are).
    public var id: Int
    /// The cells.
    public var cells: [String]

    /// A row.
    public init(id: Int, cells: [String]) {
        self.id = id
        self.cells = cells
    }
}

extension DataTable where Row == TextRow {
    /// A table of text cells with headers, each column sorting by its inferred type (numbers as
    /// numbers, dates as dates, blank last) and editable as text.
    ///
    ///     let table = try DataTable(csv: TextTable(csv: Array(data)), pageSize: 20)
    public init(csv: TextTable, defaultSort: SortSpec = SortSpec(), pageSize: Int = 50) {
        let types = csv.columnTypes()
        let columns = csv.columns.enumerated().map { index, name in
            let type = types[index]
            var column = DataTableColumn<TextRow>(
                name, display: { $0.cells[index] }, value: { type.sortValue($0.cells[index]) },
                sortKey: SortKey(by: { (row: TextRow) in type.sortValue(row.cells[index]) }),
                isNumeric: type == .integer || type == .float)
            // Modifiers read the text as `TextTable.sortKeys(for:)` does.
            column.specSortKeys = { key in
                let read = key.interpretation == .inferred && key.enumOrder == nil ? type : .string
                return key.sortKeys(readingText: { (row: TextRow) in row.cells[index] }, columnType: read)
            }
            column.setter = { row, text in
                // Blank or a value of the column's type; text that doesn't parse stays out.
                if type != .string, type.sortValue(text).isString { throw DataTableError.invalidValue(text, column: name) }
                row.cells[index] = text
            }
            return column
        }
        self.init(
            rows: csv.rows.enumerated().map { TextRow(id: $0.offset + 1, cells: $0.element) },
            columns: columns, defaultSort: defaultSort, pageSize: pageSize)
    }

    /// A table of sort values with headers.
    public init(headers: [String], values: [[SortValue]], defaultSort: SortSpec = SortSpec(), pageSize: Int = 50) {
        let texts = values.map { $0.map(DataTableColumn<TextRow>.text) }
        let columns = headers.enumerated().map { index, name in
            DataTableColumn<TextRow>(
                name, display: { $0.cells[index] }, value: { _ in .null },
                sortKey: SortKey(by: { (row: TextRow) in values[row.id - 1][index] }),
                isNumeric: values.first.map { $0[index].isNumber } ?? false)
        }
        self.init(
            rows: texts.enumerated().map { TextRow(id: $0.offset + 1, cells: $0.element) },
            columns: columns, defaultSort: defaultSort, pageSize: pageSize)
    }
}

extension SortValue {
    var isNumber: Bool {
        switch self {
        case .integer, .largeInteger, .double: true
        default: false
        }
    }
}
