import Observation
import SortKit

/// A ``DataTable`` as an `@Observable` model that a SwiftUI view binds to directly: every
/// action — a header tap, a search keystroke, a page change, new data — changes the table in
/// place and publishes one change, so a view re-renders once per action.
///
///     @State var model = DataTableModel(DataTable(rows: books, columns: columns, pageSize: 25))
///
///     // SwiftUI:
///     // ForEach(model.table.pageRows) { book in … }
///     // Button(model.table.columns[0].header) { model.tapHeader(0) }
///     // .searchable(text: Binding(get: { model.table.searchText }, set: { model.setSearch($0) }))
///
/// The table stays a value: the model holds one and mutates it where it is stored (no copy of
/// the rows), and views read it through ``table``.
@MainActor
@Observable
public final class DataTableModel<Row: Identifiable> {
    /// The table; read its rows, page and sort state from here.
    public private(set) var table: DataTable<Row>

    /// A model over `table`.
    public init(_ table: DataTable<Row>) {
        self.table = table
    }

    /// Taps a header (see ``DataTable/tapHeader(_:additive:)``). Returns whether the sort
    /// changed.
    @discardableResult
    public func tapHeader(_ column: Int, additive: Bool = false) -> Bool {
        table.tapHeader(column, additive: additive)
    }

    /// Sets the sort (see ``DataTable/setSort(_:)``).
    public func setSort(_ spec: SortSpec) {
        table.setSort(spec)
    }

    /// Sets the search (see ``DataTable/setSearch(_:)``); the same text again publishes nothing.
    public func setSearch(_ text: String) {
        guard text != table.searchText else { return }
        table.setSearch(text)
    }

    /// Sets or clears one column's filter (see ``DataTable/setFilter(_:column:)``); the same
    /// filter again publishes nothing.
    public func setFilter(_ text: String, column: Int) {
        guard text != table.columnFilters[column, default: ""] else { return }
        table.setFilter(text, column: column)
    }

    /// Goes to a page (see ``DataTable/setPage(_:)``); the page shown publishes nothing.
    public func setPage(_ index: Int) {
        guard min(max(0, index), table.pageCount - 1) != table.pageIndex else { return }
        table.setPage(index)
    }

    /// Sets rows per page (see ``DataTable/setPageSize(_:)``); the same size publishes nothing.
    public func setPageSize(_ size: Int) {
        guard max(1, size) != table.pageSize else { return }
        table.setPageSize(size)
    }

    /// Replaces the data (see `DataTable.setData(_:)`); returns the diff to animate.
    @discardableResult
    public func setData(_ rows: [Row]) -> DataTableDiff<Row.ID> {
        table.setData(rows)
    }

    /// Edits a cell (see ``DataTable/edit(_:column:to:)``); the table is unchanged if it
    /// throws.
    @discardableResult
    public func edit(_ id: Row.ID, column: Int, to text: String) throws -> DataTableDiff<Row.ID> {
        // Checked on a copy of the row first, so an edit that throws publishes nothing.
        _ = try table._editedRow(id, column: column, to: text)
        return try table.edit(id, column: column, to: text)
    }

    /// Whether and how many rows can be selected (see ``DataTable/selectionMode``).
    public var selectionMode: DataTable<Row>.SelectionMode {
        get { table.selectionMode }
        set { table.selectionMode = newValue }
    }

    /// Called after each change of the selection (see ``DataTable/onSelectionChange``).
    public func onSelectionChange(_ handler: ((DataTable<Row>.SelectionChange) -> Void)?) {
        table.onSelectionChange = handler
    }

    /// Selects a row (see ``DataTable/select(_:)``).
    @discardableResult
    public func select(_ id: Row.ID) throws -> DataTable<Row>.SelectionChange {
        try selecting(id) { try $0.select(id) }
    }

    /// Deselects a row (see ``DataTable/deselect(_:)``).
    @discardableResult
    public func deselect(_ id: Row.ID) throws -> DataTable<Row>.SelectionChange {
        try selecting(id) { try $0.deselect(id) }
    }

    /// Selects or deselects a row (see ``DataTable/toggle(_:)``).
    @discardableResult
    public func toggle(_ id: Row.ID) throws -> DataTable<Row>.SelectionChange {
        try selecting(id) { try $0.toggle(id) }
    }

    /// Selects a range in the order shown (see ``DataTable/selectRange(to:)``).
    @discardableResult
    public func selectRange(to id: Row.ID) throws -> DataTable<Row>.SelectionChange {
        try selecting(id) { try $0.selectRange(to: id) }
    }

    /// A selection action on row `id`, checked first by reading the table, so that an unknown
    /// id publishes nothing.
    private func selecting(
        _ id: Row.ID, _ action: (inout DataTable<Row>) throws -> DataTable<Row>.SelectionChange
    ) throws -> DataTable<Row>.SelectionChange {
        try table._checkSelectable(id)
        return try action(&table)
    }

    /// Selects every matching row (see ``DataTable/selectAllMatching()``).
    @discardableResult
    public func selectAllMatching() -> DataTable<Row>.SelectionChange {
        table.selectAllMatching()
    }

    /// Deselects every row (see ``DataTable/clearSelection()``); nothing selected publishes
    /// nothing.
    @discardableResult
    public func clearSelection() -> DataTable<Row>.SelectionChange {
        guard !table.selection.isEmpty || table.selectionAnchor != nil else { return .init() }
        return table.clearSelection()
    }

    /// Ranks every sortable column now (see ``DataTable/prepareSorting()``).
    public func prepareSorting() {
        table.prepareSorting()
    }
}
