import Foundation
import SortKit

/// One column of a ``DataTable``: a header, how a row displays in it, and how it sorts.
///
/// Every initializer style of SwiftDataTables, typed:
///
///     DataTableColumn<Person>("Notes")                                   // header only: not sortable
///     DataTableColumn("Age", \.age)                                      // sort and show the value
///     DataTableColumn("Salary", \.salary) { "$" + String(format: "%.2f", $0) }  // show formatted, sort by value
///     DataTableColumn("Name", sortedBy: \.lastName) { "\($0.firstName) \($0.lastName)" }
///     DataTableColumn("Total", sortedBy: { $0.price * Double($0.quantity) }) { String($0.price * Double($0.quantity)) }
///     DataTableColumn("Due", sortedByComparator: { $0.due.compare($1.due) }) { $0.due.description }
///
/// `collation`, `nulls` and enum orders come from SortKit's `SortKey` options.
public struct DataTableColumn<Row> {
    /// The header text; also the column's name in sort specs.
    public var header: String
    /// The column's text for a row.
    public var display: (Row) -> String
    /// The typed value a row has in this column, when it has one (searched as text too).
    public var value: ((Row) -> SortValue)?
    /// The sort key (ascending); `nil` for a header-only column, which isn't sortable.
    public var sortKey: SortKey<Row>?
    /// The keys for a sort-spec key with modifiers (`num`, `nocase`, `enum=…`), for columns
    /// that read text as SortKit's specs do; `nil` uses ``sortKey`` with the key's direction.
    public var specSortKeys: ((SortSpec.Key) -> [SortKey<Row>])?
    /// Sets a row's value from text, for editable columns; throws a message for bad text.
    public var setter: ((inout Row, String) throws -> Void)?
    /// Right-aligned (numbers).
    public var isNumeric: Bool
    /// A fixed width in terminal cells for this column, overriding the table's strategy.
    public var width: Int?
    /// The directions a tap on this header cycles through (`SortCycle.descendingFirst` for
    /// prices and dates, say); `nil` for the table's default, ascending first.
    ///
    ///     var price = DataTableColumn<Book>("Price", \.price)
    ///     price.sortCycle = .descendingFirst     // first tap: most expensive first
    public var sortCycle: SortCycle?
    /// How the text renderer shows a cell, where it differs from ``display`` (which search
    /// and the HTML fallback read): a status as "✔ done", a price with its currency. The sort
    /// value is unaffected.
    ///
    ///     status.textCell = { $0.status == .done ? "✔ done" : "\($0.status)" }
    public var textCell: ((Row) -> String)?
    /// How the HTML renderer shows a cell: an ``HTMLFragment``, escaped by construction (a
    /// badge, a link, a price with its currency). `nil` shows ``display`` escaped.
    ///
    ///     status.htmlCell = { .element(.span, [.class: "badge \($0.status)"], .text("\($0.status)")) }
    public var htmlCell: ((Row) -> HTMLFragment)?
    /// The cell's alignment in both renderers; `nil`: numbers right, the rest leading.
    public var alignment: CellAlignment?

    /// The designated initializer: any display, value and key.
    public init(
        _ header: String, display: @escaping (Row) -> String, value: ((Row) -> SortValue)? = nil,
        sortKey: SortKey<Row>?, isNumeric: Bool = false
    ) {
        self.header = header
        self.display = display
        self.value = value
        self.sortKey = sortKey
        self.isNumeric = isNumeric
    }

    /// A header-only column: shows nothing, not sortable.
    public init(_ header: String) {
        self.init(header, display: { _ in "" }, sortKey: nil)
    }

    /// Sorts by and shows the value at `keyPath`.
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ header: String, _ keyPath: any KeyPath<Row, Value> & Sendable,
        collation: Collation = .default, nulls: NullPlacement = .last
    ) {
        self.init(header, keyPath, collation: collation, nulls: nulls) { value in Self.text(value.sortValue) }
    }

    /// Sorts by the value at `keyPath`, shows it formatted: "$1,234.56" sorts as 1234.56.
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ header: String, _ keyPath: any KeyPath<Row, Value> & Sendable,
        collation: Collation = .default, nulls: NullPlacement = .last, format: @escaping (Value) -> String
    ) {
        self.init(
            header, display: { format($0[keyPath: keyPath]) }, value: { $0[keyPath: keyPath].sortValue },
            sortKey: SortKey(keyPath, collation: collation, nulls: nulls),
            isNumeric: Self.isNumber(Value.self))
    }

    /// Sorts by the value at `keyPath`, shows something else ("Alice Smith" sorted by last name).
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ header: String, sortedBy keyPath: any KeyPath<Row, Value> & Sendable,
        collation: Collation = .default, nulls: NullPlacement = .last, display: @escaping (Row) -> String
    ) {
        self.init(
            header, display: display, value: { $0[keyPath: keyPath].sortValue },
            sortKey: SortKey(keyPath, collation: collation, nulls: nulls), isNumeric: Self.isNumber(Value.self))
    }

    /// Sorts by a computed value, shows `display`.
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ header: String, sortedBy extract: @escaping @Sendable (Row) -> Value,
        collation: Collation = .default, nulls: NullPlacement = .last, display: @escaping (Row) -> String
    ) {
        self.init(
            header, display: display, value: { extract($0).sortValue },
            sortKey: SortKey(collation: collation, nulls: nulls, by: extract), isNumeric: Self.isNumber(Value.self))
    }

    /// Sorts with a comparator (full control), shows `display`.
    public init(
        _ header: String, sortedByComparator compare: @escaping @Sendable (Row, Row) -> ComparisonResult,
        display: @escaping (Row) -> String
    ) {
        self.init(header, display: display, sortKey: SortKey(comparing: compare))
    }

    /// Sorts by the declared order of an enum (`CaseIterable`), shows `display`.
    public init<Value: CaseIterable & Equatable & SendableMetatype>(
        _ header: String, declaredOrderOf keyPath: any KeyPath<Row, Value> & Sendable, display: @escaping (Value) -> String
    ) where Value.AllCases: Sendable {
        self.init(
            header, display: { display($0[keyPath: keyPath]) }, value: { .string(display($0[keyPath: keyPath])) },
            sortKey: SortKey(declaredOrderOf: keyPath))
    }

    /// This column, editable through `keyPath`: text is parsed by `parse`, which returns `nil`
    /// for text it rejects.
    public func editable<Value>(
        _ keyPath: WritableKeyPath<Row, Value>, parse: @escaping (String) -> Value?
    ) -> DataTableColumn {
        var column = self
        let header = self.header
        column.setter = { row, text in
            guard let value = parse(text) else { throw DataTableError.invalidValue(text, column: header) }
            row[keyPath: keyPath] = value
        }
        return column
    }

    /// This column with a fixed width in terminal cells.
    public func width(_ cells: Int) -> DataTableColumn {
        var column = self
        column.width = cells
        return column
    }

    static func text(_ value: SortValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case .date(let date): ISODate.format(date)
        default: value.description
        }
    }

    static func isNumber(_ type: Any.Type) -> Bool {
        [Int.self, Int64.self, Int32.self, Double.self, Float.self, Int?.self, Int64?.self, Double?.self, Decimal.self]
            .contains { $0 == type }
    }
}

/// A data table failure with a message that names the column or row.
public struct DataTableError: Error, Hashable, CustomStringConvertible {
    /// The message.
    public let description: String

    /// Text a column's parser rejected.
    public static func invalidValue(_ text: String, column: String) -> DataTableError {
        DataTableError(description: "column '\(column)' can't hold '\(text)'")
    }

    /// A column that can't be edited.
    public static func notEditable(_ column: String) -> DataTableError {
        DataTableError(description: "column '\(column)' is not editable")
    }

    /// An id that isn't in the table.
    public static func unknownRow(_ id: String) -> DataTableError {
        DataTableError(description: "no row with id \(id)")
    }

    /// A column index or name that isn't in the table.
    public static func unknownColumn(_ column: String) -> DataTableError {
        DataTableError(description: "no column '\(column)'")
    }
}

/// Where a cell's content sits.
public enum CellAlignment: String, Sendable, CaseIterable {
    /// Left in left-to-right layouts, right in right-to-left ones.
    case leading
    /// Centered.
    case center
    /// Right in left-to-right layouts (numbers), left in right-to-left ones.
    case trailing
}

extension DataTableColumn {
    /// The column's alignment: the one set, else trailing for numbers.
    public var effectiveAlignment: CellAlignment { alignment ?? (isNumeric ? .trailing : .leading) }
}
