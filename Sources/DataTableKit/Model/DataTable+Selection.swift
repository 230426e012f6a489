/// Row selection by identity. A selection is a set of row ids, never of positions, so it means
/// the same rows after a sort, a search, a page change or an edit — the classic data-grid bug
/// where a selection made before a sort points at other rows afterwards can't happen.
///
///     var table = DataTable(rows: people, columns: columns)
///     table.selectionMode = .multiple
///     table.onSelectionChange = { change in print(change) }
///     try table.select(3)                  // click
///     try table.selectRange(to: 7)         // shift-click: 3 through 7 in the order shown
///     table.tapHeader(1)                   // sorted: the same rows stay selected
///     table.selectAllMatching()            // every row the search and filters show
extension DataTable {
    /// Whether and how many rows can be selected.
    public enum SelectionMode: Sendable, Hashable {
        /// No selection; selecting is a programming error.
        case none
        /// At most one row: selecting a row deselects the other.
        case single
        /// Any number of rows, ranges and "all matching" included.
        case multiple
    }

    /// What one selection action changed: the rows selected and deselected, each with its
    /// position in the current display order (`nil` when the row isn't shown — filtered out,
    /// or gone).
    public struct SelectionChange: CustomStringConvertible {
        /// Rows that joined the selection.
        public var selected: [(id: Row.ID, position: Int?)] = []
        /// Rows that left it.
        public var deselected: [(id: Row.ID, position: Int?)] = []

        /// Whether nothing changed.
        public var isEmpty: Bool { selected.isEmpty && deselected.isEmpty }

        /// A change; by default none.
        public init(selected: [(id: Row.ID, position: Int?)] = [], deselected: [(id: Row.ID, position: Int?)] = []) {
            self.selected = selected
            self.deselected = deselected
        }

        public var description: String {
            "selected \(selected.map { "\($0.id)@\($0.position.map(String.init) ?? "-")" }), "
                + "deselected \(deselected.map { "\($0.id)@\($0.position.map(String.init) ?? "-")" })"
        }
    }

    /// Whether the row with `id` is selected.
    public func isSelected(_ id: Row.ID) -> Bool { selection.contains(id) }

    /// The selected rows' ids in the current display order; selected rows that the search or
    /// filters hide come after, in data order.
    public var selectedIDs: [Row.ID] {
        guard !selection.isEmpty else { return [] }
        let shown = displayedPositions.lazy.map { idAtPosition[$0] }.filter { selection.contains($0) }
        let shownSet = Set(shown)
        return shown + idAtPosition.lazy.filter { selection.contains($0) && !shownSet.contains($0) }
    }

    /// Selects a row (a click). In ``SelectionMode/single`` mode the other row is deselected.
    /// The row becomes the anchor of the next range.
    ///
    /// - Throws: ``DataTableError`` for an id the table doesn't have.
    @discardableResult
    public mutating func select(_ id: Row.ID) throws -> SelectionChange {
        try _checkSelectable(id)
        let others = selectionMode == .single ? selection.subtracting([id]) : []
        selectionAnchor = id
        return _changeSelection(adding: [id], removing: others)
    }

    /// Deselects a row; it becomes the anchor of the next range.
    ///
    /// - Throws: ``DataTableError`` for an id the table doesn't have.
    @discardableResult
    public mutating func deselect(_ id: Row.ID) throws -> SelectionChange {
        try _checkSelectable(id)
        selectionAnchor = id
        return _changeSelection(adding: [], removing: [id])
    }

    /// Selects a row if it isn't, else deselects it (a checkbox, ctrl-click, Space).
    ///
    /// - Throws: ``DataTableError`` for an id the table doesn't have.
    @discardableResult
    public mutating func toggle(_ id: Row.ID) throws -> SelectionChange {
        selection.contains(id) ? try deselect(id) : try select(id)
    }

    /// Selects every row from the anchor to `id` in the order shown now (a shift-click), both
    /// ends included, adding to the selection. Without an anchor on display — none yet, or
    /// hidden by the search — it selects `id` alone. The anchor stays, so a second shift-click
    /// extends from the same row. In ``SelectionMode/single`` mode it selects `id` alone.
    ///
    /// - Throws: ``DataTableError`` for an id the table doesn't have or doesn't show.
    @discardableResult
    public mutating func selectRange(to id: Row.ID) throws -> SelectionChange {
        try _checkSelectable(id)
        guard let end = _shownIndex(of: id) else { throw DataTableError.unknownRow("\(id) (not shown)") }
        guard selectionMode == .multiple else { return try select(id) }
        guard let anchor = selectionAnchor, let start = _shownIndex(of: anchor) else {
            selectionAnchor = id
            return _changeSelection(adding: [id], removing: [])
        }
        return _changeSelection(adding: displayedPositions[min(start, end)...max(start, end)].map { idAtPosition[$0] }, removing: [])
    }

    /// Selects every row the current search and filters show, on every page ("select all
    /// matching"). In ``SelectionMode/single`` mode it does nothing.
    @discardableResult
    public mutating func selectAllMatching() -> SelectionChange {
        precondition(selectionMode != .none, "DataTable: set selectionMode before selecting rows")
        guard selectionMode == .multiple else { return SelectionChange() }
        return _changeSelection(adding: displayedPositions.map { idAtPosition[$0] }, removing: [])
    }

    /// Deselects every row.
    @discardableResult
    public mutating func clearSelection() -> SelectionChange {
        selectionAnchor = nil
        return _changeSelection(adding: [], removing: Array(selection))
    }

    // MARK: Internals

    /// Where the row with `id` is in the display order, if shown.
    private func _shownIndex(of id: Row.ID) -> Int? {
        positionOfID[id].flatMap { displayedPositions.firstIndex(of: $0) }
    }

    func _checkSelectable(_ id: Row.ID) throws {
        precondition(selectionMode != .none, "DataTable: set selectionMode before selecting rows")
        guard positionOfID[id] != nil || selection.contains(id) else {
            throw DataTableError.unknownRow("\(id)")
        }
    }

    /// Applies a change, reports it with display positions and fires the event.
    private mutating func _changeSelection(adding: [Row.ID], removing: some Collection<Row.ID>) -> SelectionChange {
        let added = adding.filter { !selection.contains($0) }
        let kept = removing.isEmpty ? [] : Set(adding)
        let removed = removing.filter { selection.contains($0) && !kept.contains($0) }
        guard !added.isEmpty || !removed.isEmpty else { return SelectionChange() }
        selection.formUnion(added)
        selection.subtract(removed)
        let change = _selectionChange(selected: added, deselected: Array(removed))
        onSelectionChange?(change)
        return change
    }

    private func _selectionChange(selected: [Row.ID], deselected: [Row.ID]) -> SelectionChange {
        // A few rows (a click): find each among the shown positions; many (a range, all):
        // invert the display order once.
        let shownAt: (Row.ID) -> Int?
        if selected.count + deselected.count <= 8 {
            shownAt = { id in positionOfID[id].flatMap { displayedPositions.firstIndex(of: $0) } }
        } else {
            var index = [Int](repeating: -1, count: rows.count)
            for (shown, position) in displayedPositions.enumerated() { index[position] = shown }
            shownAt = { id in positionOfID[id].flatMap { index[$0] >= 0 ? index[$0] : nil } }
        }
        return SelectionChange(selected: selected.map { ($0, shownAt($0)) }, deselected: deselected.map { ($0, shownAt($0)) })
    }

    /// After `setData`: drops selected rows that left the data, fires the event, and returns
    /// their ids.
    mutating func _dropVanishedFromSelection() -> [Row.ID] {
        guard !selection.isEmpty else { return [] }
        let gone = selection.filter { positionOfID[$0] == nil }
        if let anchor = selectionAnchor, positionOfID[anchor] == nil { selectionAnchor = nil }
        guard !gone.isEmpty else { return [] }
        selection.subtract(gone)
        let change = SelectionChange(selected: [], deselected: Array(gone).map { ($0, nil) })
        onSelectionChange?(change)
        return Array(gone)
    }

    /// After `selectionMode` narrowed: none keeps nothing; single keeps the anchor, if
    /// selected, else one row.
    mutating func _narrowSelection() {
        switch selectionMode {
        case .multiple: return
        case .none: _ = clearSelection()
        case .single:
            guard selection.count > 1 else { return }
            let keep = selectionAnchor.flatMap { selection.contains($0) ? $0 : nil } ?? selectedIDs[0]
            _ = _changeSelection(adding: [], removing: Array(selection.subtracting([keep])))
        }
    }
}
