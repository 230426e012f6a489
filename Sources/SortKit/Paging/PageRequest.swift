import Foundation

/// What a query orders by: a sort spec or the table's manual order.
public enum TableOrder: Sendable, Hashable {
    /// A sort spec; an empty spec is id order (file order for imports).
    case spec(SortSpec)
    /// The manual order ("My order"), kept by move requests.
    case manual

    /// The spec, or `nil` for the manual order.
    ///
    ///     TableOrder.spec(SortSpec(parsing: "-price")).spec?.description   // "-price"
    public var spec: SortSpec? {
        if case .spec(let spec) = self { return spec }
        return nil
    }

    /// The text form: `manual`, or the spec's text.
    public var description: String {
        switch self {
        case .spec(let spec): spec.description
        case .manual: "manual"
        }
    }
}

/// What to read: order, search, and where the page starts — what a table store
/// (SortKitSQL's `TableStore.page(of:_:)`) and a lazy data table's source (DataTableKit's
/// `DataTableSource`) are asked for.
///
///     let request = PageRequest(order: .spec(SortSpec(parsing: "-price")), search: "tolkien", limit: 20)
///     request.order.spec?.description   // "-price"
public struct PageRequest: Sendable, Hashable {
    /// The order.
    public var order: TableOrder
    /// A multi-term search (`SearchQuery`); blank for none.
    public var search: String
    /// Per-column searches (column name → multi-term text), each matched against that
    /// column's folded text only; blank values are ignored.
    public var columnSearch: [String: String]
    /// Rows to skip (ignored with a cursor).
    public var offset: Int
    /// At most this many rows.
    public var limit: Int
    /// A cursor from a previous page's `TablePage.next`: the page starts after its row.
    public var after: String?
    /// Rows left out of the page and of `TablePage.filtered`: rows pinned to the top, which
    /// a caller shows apart (see SortKitSQL's `PinnedRows`).
    public var excluding: [Int64]
    /// Set for a download: a store that serves the page from its in-memory index writes the
    /// rows as CSV records into `TablePage.csv` (and leaves `TablePage.rows` empty),
    /// straight from the index's bytes; others answer with rows as always.
    public var csv: CSVExport?

    /// A request; by default the first 50 rows in id order.
    public init(
        order: TableOrder = .spec(SortSpec()), search: String = "", columnSearch: [String: String] = [:],
        offset: Int = 0, limit: Int = 50, after: String? = nil, excluding: [Int64] = []
    ) {
        self.excluding = excluding
        self.order = order
        self.search = search
        self.columnSearch = columnSearch
        self.offset = offset
        self.limit = limit
        self.after = after
    }
}
