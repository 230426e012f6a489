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
    /// The sort: header names with directions (a tap cycle per `HeaderSortState`).
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

    /// Whether rows can be selected, one or many; ``SelectionMode/none`` by default.
    /// Narrowing the mode deselects what it no longer allows.
    public var selectionMode: SelectionMode = .none {
        didSet { _narrowSelection() }
    }
    /// The selected rows, by id: a selection survives sorting, searching, paging and edits,
    /// and loses only rows that `setData` removes.
    public internal(set) var selection: Set<Row.ID> = []
    /// Where a range selection starts: the row last selected, deselected or toggled by itself.
    public internal(set) var selectionAnchor: Row.ID?
    /// Called after each change of the selection, with what changed.
    public var onSelectionChange: ((SelectionChange) -> Void)?
    private var folded: [String] = []
    /// Each cell's display width in terminal cells, row-major (measured with the folding, so
    /// width strategies read numbers instead of formatting every cell again).
    private(set) var cellWidths: [UInt16] = []
    @usableFromInline var positionOfID: [Row.ID: Int] = [:]
    /// Each position's row id: read without copying the row (generic code copies a whole row
    /// to read its `id`), for selections and display ids.
    var idAtPosition: [Row.ID] = []
    /// Every row position in the current sort, before search and filters; `nil` after a
    /// change that needs a new sort.
    private var sortedAll: [Int]?
    /// Per sort key used so far (or prepared): its order over the rows, kept up to date.
    private var rankings: [String: _ColumnRanking<Row>] = [:]
    /// The rankings ``sortedAll`` was made from.
    private var sortedBy: Set<String> = []
    /// Row counts from which `setData` updates the rankings in the background, while it folds
    /// the changed rows; below it the hand-off costs more than it saves. Tests lower it.
    var backgroundUpdateThreshold = 20_000
    /// Whether key closures may read rows on other threads: only when `Row` is `Sendable` (the
    /// initializer for `Sendable` rows sets it). Rows that are not — classes with mutable or
    /// lazy state — are read on the calling thread only, as SortKit's sorts read them.
    let readsRowsOnOtherThreads: Bool

    /// A table over `rows`, sorted at once by `defaultSort` (header names; typed keys apply).
    ///
    /// Key closures read the rows on the calling thread. With `Sendable` rows the overload in
    /// the extension below is chosen, and `setData` on large tables also updates its kept sort
    /// orders on other threads.
    public init(rows: [Row], columns: [DataTableColumn<Row>], defaultSort: SortSpec = SortSpec(), pageSize: Int = 50) {
        self.init(rows: rows, columns: columns, defaultSort: defaultSort, pageSize: pageSize, readsRowsOnOtherThreads: false)
    }

    init(rows: [Row], columns: [DataTableColumn<Row>], defaultSort: SortSpec, pageSize: Int, readsRowsOnOtherThreads: Bool) {
        self.readsRowsOnOtherThreads = readsRowsOnOtherThreads
        self.rows = rows
        self.columns = columns
        self.sortState = HeaderSortState(
            SortSpec(
                defaultSort.keys.filter { key in
                    columns.contains { $0.header == key.column && $0.sortKey != nil }
                }), cycles: Dictionary(columns.compactMap { column in column.sortCycle.map { (column.header, $0) } }, uniquingKeysWith: { first, _ in first }))
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
    public var pageCount: Int { _pageCount(displayedPositions.count, pageSize: pageSize) }
    /// The displayed rows on the current page.
    public var pageRows: [Row] { pagePositions.map { rows[$0] } }
    /// Positions in ``rows`` of the current page's rows.
    public var pagePositions: ArraySlice<Int> {
        return displayedPositions[_pageRange(pageIndex, pageSize: pageSize, count: displayedPositions.count)]
    }
    /// The ids of all displayed rows, in order.
    public var displayedIDs: [Row.ID] { displayedPositions.map { idAtPosition[$0] } }

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
    /// The text renderer's cell: the column's ``DataTableColumn/textCell``, else its display.
    public func text(_ row: Row, column: Int) -> String { columns[column].textCell?(row) ?? columns[column].display(row) }

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
            sortedAll = nil
            refresh()
        }
        onHeaderTap?(HeaderTap(column: column, additive: additive, isSortable: sortable, spec: sortState.spec))
        return changed
    }

    /// Keys the table sorts by around the picked ones, and columns that sort by others (see
    /// `SortRules`): the header indicators show what was picked, the rows follow the rules.
    ///
    ///     table.sortRules = SortRules(before: try SortSpec(parsing: "Level"))   // grouped by level first
    public var sortRules = SortRules() {
        didSet {
            guard sortRules != oldValue else { return }
            sortedAll = nil
            refresh()
        }
    }

    /// Rows pinned to the top, in this order, under every sort and every search they match
    /// (a "featured" row); ids the table doesn't have are ignored.
    ///
    ///     table.pinnedIDs = [42]      // row 42 first, whatever the sort
    public var pinnedIDs: [Row.ID] = [] {
        didSet {
            guard pinnedIDs != oldValue else { return }
            refresh()
        }
    }

    /// Sets the sort directly (header names; unknown or non-sortable columns are dropped; keys
    /// past ``maxSortKeys`` too).
    public mutating func setSort(_ spec: SortSpec) {
        sortState = HeaderSortState(
            SortSpec(
                spec.keys.filter { key in
                    columns.indices.contains { columns[$0].header == key.column && isSortable($0) }
                }), allowsUnsorted: sortState.allowsUnsorted, cycles: sortState.cycles, maxKeys: sortState.maxKeys)
        pageIndex = 0
        sortedAll = nil
        refresh()
    }

    /// The most keys a multi-column sort keeps (`HeaderSortState.maxKeys`); `nil` for no
    /// cap. Lowering it drops the least significant keys now.
    ///
    ///     table.maxSortKeys = 2      // a third shift-click drops the oldest added key
    public var maxSortKeys: Int? {
        get { sortState.maxKeys }
        set { setSortState(HeaderSortState(sortState.spec, allowsUnsorted: sortState.allowsUnsorted, cycles: sortState.cycles, maxKeys: newValue)) }
    }

    /// Whether a third tap returns a column to unsorted, for columns without their own
    /// ``DataTableColumn/sortCycle``.
    public var allowsUnsorted: Bool {
        get { sortState.allowsUnsorted }
        set { sortState.allowsUnsorted = newValue }
    }

    /// Removes `column`'s key from the sort (the "×" on a multi-sort badge); the other keys keep
    /// their order. Returns whether the sort changed.
    @discardableResult
    public mutating func removeSortKey(_ column: Int) -> Bool {
        precondition(columns.indices.contains(column), "column \(column) out of range")
        var state = sortState
        guard state.remove(columns[column].header) else { return false }
        setSortState(state)
        return true
    }

    private mutating func setSortState(_ state: HeaderSortState) {
        guard state != sortState else { return }
        let changed = state.keys != sortState.keys
        sortState = state
        guard changed else { return }
        pageIndex = 0
        sortedAll = nil
        refresh()
    }

    /// Sets the global search (multi-term, case- and diacritic-insensitive, on display text
    /// and typed values). The sort is kept; the first page shows.
    public mutating func setSearch(_ text: String) {
        // A query that only adds to the old one (each old term inside a new term: "ga" →
        // "gar") matches a subset of the shown rows, so only those are searched again.
        let old = SearchQuery(searchText), new = SearchQuery(text)
        let narrows = !old.isBlank && old.terms.allSatisfy { term in new.terms.contains { $0.contains(term) } }
        searchText = text
        pageIndex = 0
        refresh(narrowing: narrows)
    }

    /// Ranks the rows by every sortable column now, so that the first tap on any column is as
    /// fast as later ones: a table keeps each sort key's order (a rank per row) once it has
    /// sorted by it, and sorts by ranked keys with an integer radix sort. Call it after loading
    /// when taps must be instant; otherwise a key is ranked at its first sort.
    ///
    ///     var table = DataTable(rows: books, columns: columns)
    ///     table.prepareSorting()        // ~the time of one sort per column
    ///     table.tapHeader(2)            // an integer sort
    public mutating func prepareSorting() {
        for index in columns.indices where columns[index].sortKey != nil {
            for (id, key) in plan(SortSpec.Key(columns[index].header), column: index) { _ = ranking(id, key) }
        }
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
        let first = _pageRange(pageIndex, pageSize: pageSize, count: displayedPositions.count).lowerBound
        pageSize = max(1, size)
        setPage(first / pageSize)
    }

    /// Replaces the data. Returns the change of the displayed rows by identity — inserts,
    /// removes, moves and content updates — for a UI to animate. Sort and filters are kept,
    /// and the page follows the first row of the current page when it is still shown.
    ///
    /// Rows are matched by id. A row counts as updated when it differs from its old version:
    /// by `==` for `Equatable` rows, else by its display text in some column. Only updated and
    /// new rows are folded for search and merged into the kept sort orders, so replacing a
    /// large table where few rows changed costs little more than a pass over it.
    ///
    /// Inlined so that rows are matched in the caller's specialized code (see `_RowMatch`).
    @inlinable @discardableResult
    public mutating func setData(_ newRows: [Row]) -> DataTableDiff<Row.ID> {
        let columns = columns
        let same = _equality(Row.self) ?? { old, new in columns.allSatisfy { $0.display(old) == $0.display(new) } }
        return _replaceRows(newRows, _RowMatch(old: rows, new: newRows, positionOfID: positionOfID, same: same))
    }

    /// The work of `setData`, once the new rows are matched to the old ones.
    @usableFromInline
    mutating func _replaceRows(_ newRows: [Row], _ match: _RowMatch<Row.ID>) -> DataTableDiff<Row.ID> {
        let anchor = pagePositions.first.map { idAtPosition[$0] }
        let oldRows = rows, oldDisplayed = displayedPositions, oldIDs = idAtPosition
        let (newPosition, changed, kept, identity) = (match.newPosition, match.changed, match.kept, match.identity)
        rows = newRows
        // The kept sort orders are updated in the background while the changed rows are
        // folded here.
        let rankingUpdate = startFollowingChange(
            from: oldRows, newPosition: newPosition, changed: changed, identity: identity,
            inBackground: readsRowsOnOtherThreads && newRows.count >= backgroundUpdateThreshold)
        // Unchanged rows keep their folded search text; in place when no row moved.
        if identity {
            for q in newRows.indices where kept[q] < 0 { index(newRows[q], at: q) }
        } else {
            let oldFolded = folded, oldWidths = cellWidths, width = columns.count
            folded = kept.map { $0 < 0 ? "" : oldFolded[$0] }
            cellWidths = [UInt16](unsafeUninitializedCapacity: newRows.count * width) { widths, count in
                oldWidths.withUnsafeBufferPointer { old in
                    for (q, p) in kept.enumerated() {
                        let row = UnsafeMutableBufferPointer(rebasing: widths[q * width..<(q + 1) * width])
                        if p < 0 { row.initialize(repeating: 0) } else { _ = row.initialize(from: old[p * width..<(p + 1) * width]) }
                    }
                }
                count = newRows.count * width
            }
            for q in kept.indices where kept[q] < 0 { index(newRows[q], at: q) }
        }
        if let ids = match.ids { (idAtPosition, positionOfID) = ids }
        finishFollowingChange(rankingUpdate, identity: identity)
        refresh()
        if let anchor, let position = positionOfID[anchor], let index = displayedPositions.firstIndex(of: position) {
            pageIndex = index / pageSize
        } else {
            setPage(pageIndex)
        }
        var diff = DataTableDiff(
            oldDisplayed: oldDisplayed, newDisplayed: displayedPositions, newPosition: newPosition,
            newCount: newRows.count, changed: { match.changedNew[$0] },
            oldID: { oldIDs[$0] }, newID: { [idAtPosition] in idAtPosition[$0] })
        diff.deselected = _dropVanishedFromSelection()
        return diff
    }

    /// Sets `column` of the row with `id` from `text` through the column's setter, then places
    /// the row per ``editPolicy``. Returns the diff of displayed rows.
    ///
    /// - Throws: ``DataTableError`` for an unknown row, a column without a setter, or text the
    ///   column rejects; nothing changes then.
    @discardableResult
    public mutating func edit(_ id: Row.ID, column: Int, to text: String) throws -> DataTableDiff<Row.ID> {
        let (position, row) = try _editedRow(id, column: column, to: text)
        if row.id != id {
            // A setter that changed the id: the row is known by its new one, selection included.
            positionOfID[id] = nil
            positionOfID[row.id] = position
            idAtPosition[position] = row.id
            if selection.remove(id) != nil { selection.insert(row.id) }
            if selectionAnchor == id { selectionAnchor = row.id }
        }
        let oldRows = rows, oldDisplayed = displayedPositions
        rows[position] = row
        index(row, at: position)
        var changed = [Bool](repeating: false, count: rows.count)
        changed[position] = true
        let identity = Array(rows.indices)
        finishFollowingChange(
            startFollowingChange(
                from: oldRows, newPosition: identity, changed: changed, identity: true,
                inBackground: false), identity: true)
        if editPolicy == .immediate { refresh() }
        let rows = rows
        return DataTableDiff(
            oldDisplayed: oldDisplayed, newDisplayed: displayedPositions, newPosition: identity,
            newCount: rows.count, changed: { $0 == position },
            oldID: { oldRows[$0].id }, newID: { rows[$0].id })
    }

    /// The row `edit` would store, and its position; throws what `edit` throws. Changes nothing.
    func _editedRow(_ id: Row.ID, column: Int, to text: String) throws -> (position: Int, row: Row) {
        guard let position = positionOfID[id] else { throw DataTableError.unknownRow("\(id)") }
        guard columns.indices.contains(column) else { throw DataTableError.unknownColumn("\(column)") }
        guard let setter = columns[column].setter else { throw DataTableError.notEditable(columns[column].header) }
        var row = rows[position]
        try setter(&row, text)
        return (position, row)
    }

    // MARK: Internals

    /// Starts bringing every kept ranking up to date after ``rows`` changed from `oldRows` (see
    /// ``_ColumnRanking/update(old:new:newPosition:changed:identity:)``); ``finishFollowingChange(_:identity:)``
    /// takes the result.
    private func startFollowingChange(
        from oldRows: [Row], newPosition: [Int], changed: [Bool], identity: Bool, inBackground: Bool
    ) -> _RankingUpdate<Row> {
        _RankingUpdate(
            rankings, old: oldRows, new: rows, newPosition: newPosition, changed: changed, identity: identity,
            inBackground: inBackground)
    }

    /// Keeps the updated rankings, and drops the sort of all rows unless every row kept its
    /// place and no key that sort uses changed.
    private mutating func finishFollowingChange(_ update: _RankingUpdate<Row>, identity: Bool) {
        let (updatedRankings, updated) = update.wait()
        rankings = updatedRankings
        if !identity || !updated.isDisjoint(with: sortedBy) { sortedAll = nil }
    }

    /// The kept ranking named `id`, made from `key` the first time it is asked for.
    private mutating func ranking(_ id: String, _ key: SortKey<Row>) -> _ColumnRanking<Row> {
        if let ranking = rankings[id] { return ranking }
        let ranking = _ColumnRanking(key, rows: rows)
        rankings[id] = ranking
        return ranking
    }

    private mutating func reindex() {
        folded = [String](repeating: "", count: rows.count)
        cellWidths = [UInt16](repeating: 0, count: rows.count * columns.count)
        for (position, row) in rows.enumerated() { index(row, at: position) }
        idAtPosition = rows.map(\.id)
        positionOfID = Dictionary(idAtPosition.indices.map { (idAtPosition[$0], $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Folds `row`'s display and value texts for search and measures its cells, into slot
    /// `position` of ``folded`` and ``cellWidths``.
    private mutating func index(_ row: Row, at position: Int) {
        var fields: [String] = []
        fields.reserveCapacity(2 * columns.count)
        // Columns read in place: copying a column (its closures) per cell costs reference counting.
        for index in columns.indices {
            let text = columns[index].display(row)
            let shown = columns[index].textCell?(row) ?? text
            cellWidths[position * columns.count + index] = UInt16(clamping: TerminalWidth.of(shown))
            fields.append(text)
            if let value = columns[index].value?(row) {
                let valueText = DataTableColumn<Row>.text(value)
                if valueText != text { fields.append(valueText) }
            }
        }
        folded[position] = SearchQuery.foldedFields(fields)
    }

    /// Recomputes the displayed rows: the current sort of all rows (kept until the sort or the
    /// data changes), filtered — or, when `narrowing`, the shown rows filtered again.
    private mutating func refresh(narrowing: Bool = false) {
        let narrow = narrowing && sortedAll != nil
        if sortedAll == nil { sortedAll = sortedPositions() }
        let query = SearchQuery(searchText)
        let filters = columnFilters.map { (column: $0.key, query: SearchQuery($0.value)) }
        var positions = narrow ? displayedPositions : sortedAll ?? []
        if !query.isBlank || !filters.isEmpty {
            positions = positions.filter { position in
                (query.isBlank || query.matches(folded: folded[position]))
                    && filters.allSatisfy { $0.query.matches([columns[$0.column].display(rows[position])]) }
            }
        }
        if !pinnedIDs.isEmpty {
            // Pinned rows that are shown move to the top in pinned order; the rest keep theirs.
            var seen = Set<Int>()
            let pinned = pinnedIDs.compactMap { positionOfID[$0] }.filter { seen.insert($0).inserted }
            let shown = Set(positions)
            let top = pinned.filter { shown.contains($0) }
            if !top.isEmpty {
                let moved = Set(top)
                positions = top + positions.filter { !moved.contains($0) }
            }
        }
        displayedPositions = positions
        pageIndex = min(pageIndex, pageCount - 1)
    }

    /// All row positions in the current sort: every key ranked (once, then kept), the ranks
    /// radix-sorted. Stable: rows that tie on every key keep their data order.
    private mutating func sortedPositions() -> [Int] {
        let keys = sortRules.applied(to: sortState.spec).keys.flatMap { key in
            columns.firstIndex { $0.header == key.column }.map { plan(key, column: $0) } ?? []
        }
        sortedBy = Set(keys.map(\.id))
        guard !keys.isEmpty else { return Array(rows.indices) }
        let words = keys.map { id, key in ranking(id, key).sortWords(direction: key.direction, nulls: key.nulls) }
        return _sortedPositions(words, count: rows.count)
    }

    /// The typed keys for one spec key on `column`, each with the name its ranking is kept
    /// under (direction left out: one ranking serves both directions).
    private func plan(_ key: SortSpec.Key, column index: Int) -> [(id: String, key: SortKey<Row>)] {
        let column = columns[index]
        if let specKeys = column.specSortKeys {
            var ascending = key
            ascending.direction = .ascending
            return specKeys(key).enumerated().map { ("\(index) \(SortSpec([ascending])) \($0.offset)", $0.element) }
        }
        guard var sortKey = column.sortKey else { return [] }
        if key.direction == .descending { sortKey = sortKey.reversed }
        return [("\(index)", sortKey)]
    }
}

extension DataTable where Row: Equatable {
    /// Replaces the data; see `setData(_:)`. Rows are compared with `==` to find updates.
    ///
    ///     let diff = table.setData(reloaded)   // diff.updated: rows whose value changed
    ///
    /// Inlined so that rows are matched and compared in the caller's specialized code: generic
    /// code copies each row to compare it.
    @inlinable @discardableResult
    public mutating func setData(_ newRows: [Row]) -> DataTableDiff<Row.ID> {
        _replaceRows(newRows, _RowMatch(old: rows, new: newRows, positionOfID: positionOfID, same: ==))
    }
}

/// `==` for `Row` when it is `Equatable` (the check made once, not per row), else `nil`.
@usableFromInline func _equality<Row>(_: Row.Type) -> ((Row, Row) -> Bool)? {
    guard let type = Row.self as? any Equatable.Type else { return nil }
    return type._equality()
}

extension Equatable {
    fileprivate static func _equality<Row>() -> (Row, Row) -> Bool {
        { a, b in (a as? Self) == (b as? Self) }
    }
}

extension DataTable where Row: Sendable {
    /// A table over `Sendable` rows, sorted at once by `defaultSort`: as
    /// ``init(rows:columns:defaultSort:pageSize:)``, and `setData` on a large table updates its
    /// kept sort orders on other threads while it folds the changed rows for search.
    ///
    ///     struct Person: Identifiable, Sendable { let id: Int; var name: String }
    ///     var table = DataTable(rows: people, columns: [DataTableColumn("Name", \.name) { $0 }])
    public init(rows: [Row], columns: [DataTableColumn<Row>], defaultSort: SortSpec = SortSpec(), pageSize: Int = 50) {
        self.init(rows: rows, columns: columns, defaultSort: defaultSort, pageSize: pageSize, readsRowsOnOtherThreads: true)
    }
}
