import Foundation
import SortKit

/// A headless data table: rows, columns, sort state, search, paging, diffs and edits — the
/// whole behaviour of a table view, with no view. Renderers (``TextTableRenderer``,
/// ``HTMLTableRenderer``), the CLI viewer and the server draw it; an iOS app can put its own
/// view on it.
///
///     var table = DataTable(rows: people, columns: [
///         DataTableColumn("Name", sortedBy: \.lastName) { "\($0.firstName) \($0.lastName)" },
///         DataTableColumn("Salary", \.salary) { "$\($0)" },
///     ], pageSize: 20)
///     table.tapHeader(1)                       // salary ascending
///     table.tapHeader(0, additive: true)       // then by last name
///     table.setSearch("ann")                   // sort kept
///     table.pageRows                           // the first 20 matches, in order
///
/// Unlike the reference (SwiftDataTables): sorts are multi-column and stable, mixed types
/// compare transitively, search keeps the sort, paging is real, diffs report moves, the
/// default order uses typed keys, and a tap on a non-sortable column changes nothing.
public struct DataTable<Row: Identifiable> {
    /// What a header tap did; sent to ``onHeaderTap`` for every tap, sortable or not.
    public struct HeaderTap {
        /// The tapped column.
        public var column: Int
        /// Whether the tap was additive (shift).
        public var additive: Bool
        /// Whether the column was sortable at tap time.
        public var isSortable: Bool
        /// The sort after the tap.
        public var spec: SortSpec
    }

    /// What the column header shows.
    public enum SortIndicator: Sendable, Hashable {
        case ascending, descending, none, hidden
    }

    /// Where an edited row goes.
    public enum EditPolicy: Sendable, Hashable {
        /// Re-sort at once: the row moves to where its new value sorts.
        case immediate
        /// The row stays where the user is looking until the next sort, search or data change.
        case keepPositionUntilNextSort
    }

    /// Every row, in data order.
    public private(set) var rows: [Row]
    /// The columns.
    public let columns: [DataTableColumn<Row>]
    /// The sort: header names with directions (a tap cycle per ``HeaderSortState``).
    public private(set) var sortState: HeaderSortState
    /// The user's sortability override per column, asked at each tap (state may change
    /// between taps); `nil` defers to the column definition.
    public var isColumnSortable: ((Int) -> Bool?)?
    /// Whether headers show sort indicators at all.
    public var shouldShowSortIndicator = true
    /// Called for every header tap.
    public var onHeaderTap: ((HeaderTap) -> Void)?
    /// The global search text.
    public private(set) var searchText = ""
    /// Per-column filters (column → text).
    public private(set) var columnFilters: [Int: String] = [:]
    /// Rows per page (at least 1).
    public private(set) var pageSize: Int
    /// The current page, from 0, always in range.
    public private(set) var pageIndex = 0
    /// What an edit does to the order.
    public var editPolicy: EditPolicy = .immediate

    /// Positions in ``rows`` of the displayed rows (filtered, sorted).
    public private(set) var displayedPositions: [Int] = []
    private var folded: [String] = []
    private var positionOfID: [Row.ID: Int] = [:]

    /// A table over `rows`, sorted at once by `defaultSort` (header names; typed keys apply).
    public init(rows: [Row], columns: [DataTableColumn<Row>], defaultSort: SortSpec = SortSpec(), pageSize: Int = 50) {
        self.rows = rows
        self.columns = columns
        self.sortState = HeaderSortState(SortSpec(defaultSort.keys.filter { key in
            columns.contains { $0.header == key.column && $0.sortKey != nil }
        }))
        self.pageSize = max(1, pageSize)
        reindex()
        refresh()
    }

    // MARK: Derived state

    /// The sort as a spec of header names.
    public var sortSpec: SortSpec { sortState.spec }
    /// Rows in the table.
    public var totalCount: Int { rows.count }
    /// Rows matching the search and filters.
    public var filteredCount: Int { displayedPositions.count }
    /// Pages (at least 1).
    public var pageCount: Int { max(1, (displayedPositions.count + pageSize - 1) / pageSize) }
    /// The displayed rows on the current page.
    public var pageRows: [Row] { pagePositions.map { rows[$0] } }
    /// Positions in ``rows`` of the current page's rows.
    public var pagePositions: ArraySlice<Int> {
        let start = min(pageIndex * pageSize, displayedPositions.count)
        return displayedPositions[start..<min(start + pageSize, displayedPositions.count)]
    }
    /// The ids of all displayed rows, in order.
    public var displayedIDs: [Row.ID] { displayedPositions.map { rows[$0].id } }

    /// Whether `column` is sortable now: the override, else the definition, else sortable.
    public func isSortable(_ column: Int) -> Bool {
        HeaderSortState.isSortable(userOverride: isColumnSortable?(column), columnDefinition: columns[column].sortKey != nil)
    }

    /// What `column`'s header shows.
    public func sortIndicator(for column: Int) -> SortIndicator {
        guard shouldShowSortIndicator, isSortable(column) else { return .hidden }
        switch sortState.direction(of: columns[column].header) {
        case .ascending?: return .ascending
        case .descending?: return .descending
        case nil: return .none
        }
    }

    /// The cell text of `row` in `column`.
    public func text(_ row: Row, column: Int) -> String { columns[column].display(row) }

    // MARK: Operations

    /// A header tap: cycles `column`'s sort (as the primary key, or as an added key when
    /// `additive`). On a non-sortable column nothing changes — order and indicators — but the
    /// event still fires. Returns whether the sort changed.
    @discardableResult
    public mutating func tapHeader(_ column: Int, additive: Bool = false) -> Bool {
        precondition(columns.indices.contains(column), "column \(column) out of range")
        let sortable = isSortable(column)
        let changed = sortState.tap(columns[column].header, additive: additive, isSortable: sortable)
        if changed {
            pageIndex = 0
            refresh()
        }
        onHeaderTap?(HeaderTap(column: column, additive: additive, isSortable: sortable, spec: sortState.spec))
        return changed
    }

    /// Sets the sort directly (header names; unknown or non-sortable columns are dropped).
    public mutating func setSort(_ spec: SortSpec) {
        sortState = HeaderSortState(SortSpec(spec.keys.filter { key in
            columns.indices.contains { columns[$0].header == key.column && isSortable($0) }
        }), allowsUnsorted: sortState.allowsUnsorted)
        pageIndex = 0
        refresh()
    }

    /// Sets the global search (multi-term, case- and diacritic-insensitive, on display text
    /// and typed values). The sort is kept; the first page shows.
    public mutating func setSearch(_ text: String) {
        searchText = text
        pageIndex = 0
        refresh()
    }

    /// Sets or clears (blank text) a filter on one column.
    public mutating func setFilter(_ text: String, column: Int) {
        columnFilters[column] = SearchQuery(text).isBlank ? nil : text
        pageIndex = 0
        refresh()
    }

    /// Goes to page `index`, clamped to the pages there are.
    public mutating func setPage(_ index: Int) {
        pageIndex = min(max(0, index), pageCount - 1)
    }

    /// Sets rows per page, keeping the first visible row on screen.
    public mutating func setPageSize(_ size: Int) {
        let first = pageIndex * pageSize
        pageSize = max(1, size)
        setPage(first / pageSize)
    }

    /// Replaces the data. Returns the change of the displayed rows by identity — inserts,
    /// removes, moves and content updates — for a UI to animate. Sort and filters are kept,
    /// and the page follows the first row of the current page when it is still shown.
    @discardableResult
    public mutating func setData(_ newRows: [Row]) -> DataTableDiff<Row.ID> {
        let anchor = pagePositions.first.map { rows[$0].id }
        let before = displayedIDs
        // Old rows by id: an Equatable row equal to its old version keeps its folded text and
        // isn't an update; other rows compare by their display text.
        let equatable = (rows.first ?? newRows.first).map { $0 is any Equatable } ?? false
        var old: [Row.ID: Int] = [:]
        old.reserveCapacity(rows.count)
        for (position, row) in rows.enumerated() { old[row.id] = position }
        let oldRows = rows, oldFolded = folded
        var changed: Set<Row.ID> = []
        rows = newRows
        folded = rows.map { row in
            guard let position = old[row.id] else { return fold(row) }
            let same = equatable ? _equal(oldRows[position], row)
                : columns.allSatisfy { $0.display(oldRows[position]) == $0.display(row) }
            if same { return oldFolded[position] }
            changed.insert(row.id)
            return fold(row)
        }
        positionOfID = Dictionary(rows.indices.map { (rows[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        refresh()
        let after = displayedIDs
        if let anchor, let index = after.firstIndex(of: anchor) { pageIndex = index / pageSize } else { setPage(pageIndex) }
        return DataTableDiff(from: before, to: after, updated: after.filter { changed.contains($0) })
    }

    /// Sets `column` of the row with `id` from `text` through the column's setter, then places
    /// the row per ``editPolicy``. Returns the diff of displayed rows.
    ///
    /// - Throws: ``DataTableError`` for an unknown row, a column without a setter, or text the
    ///   column rejects; nothing changes then.
    @discardableResult
    public mutating func edit(_ id: Row.ID, column: Int, to text: String) throws -> DataTableDiff<Row.ID> {
        guard let position = positionOfID[id] else { throw DataTableError.unknownRow("\(id)") }
        guard columns.indices.contains(column) else { throw DataTableError.unknownColumn("\(column)") }
        guard let setter = columns[column].setter else { throw DataTableError.notEditable(columns[column].header) }
        var row = rows[position]
        try setter(&row, text)
        let before = displayedIDs
        rows[position] = row
        folded[position] = fold(row)
        if editPolicy == .immediate { refresh() }
        return DataTableDiff(from: before, to: displayedIDs, updated: displayedIDs.contains(id) ? [id] : [])
    }

    // MARK: Internals

    private mutating func reindex() {
        folded = rows.map(fold)
        positionOfID = Dictionary(rows.indices.map { (rows[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func fold(_ row: Row) -> String {
        var fields: [String] = []
        for column in columns {
            let text = column.display(row)
            fields.append(text)
            if let value = column.value?(row) {
                let valueText = DataTableColumn<Row>.text(value)
                if valueText != text { fields.append(valueText) }
            }
        }
        return SearchQuery.foldedFields(fields)
    }

    /// Recomputes the displayed rows: filter, then a stable sort by typed keys.
    private mutating func refresh() {
        let query = SearchQuery(searchText)
        let filters = columnFilters.map { (column: $0.key, query: SearchQuery($0.value)) }
        var positions = Array(rows.indices)
        if !query.isBlank || !filters.isEmpty {
            positions = positions.filter { position in
                (query.isBlank || query.matches(folded: folded[position]))
                    && filters.allSatisfy { $0.query.matches([columns[$0.column].display(rows[position])]) }
            }
        }
        let keys: [SortKey<Row>] = sortState.keys.flatMap { key -> [SortKey<Row>] in
            guard let column = columns.first(where: { $0.header == key.column }) else { return [] }
            if let specKeys = column.specSortKeys { return specKeys(key) }
            guard var sortKey = column.sortKey else { return [] }
            if key.direction == .descending { sortKey = sortKey.reversed }
            return [sortKey]
        }
        if !keys.isEmpty {
            let subset = positions.count == rows.count ? rows : positions.map { rows[$0] }
            let order = subset.sortedIndices(by: keys)
            positions = order.map { positions[$0] }
        }
        displayedPositions = positions
        pageIndex = min(pageIndex, pageCount - 1)
    }
}

/// Whether two values are equal, when their type is Equatable (else `false`).
private func _equal<T>(_ a: T, _ b: T) -> Bool {
    guard let a = a as? any Equatable else { return false }
    return _equalOpened(a, b)
}

private func _equalOpened<E: Equatable>(_ a: E, _ b: Any) -> Bool {
    (b as? E) == a
}
