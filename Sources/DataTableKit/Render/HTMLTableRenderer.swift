import SortKit

/// Draws a ``DataTable``'s current page as a semantic HTML `<table>`: `<th scope="col"
/// aria-sort="ascending|descending|none">` with a sort link (`?sort=SPEC`, the spec a tap
/// would give, so sorting works without JavaScript), every cell HTML-escaped or built by the
/// column's ``DataTableColumn/htmlCell`` (an ``HTMLFragment``, escaped by construction), cells
/// aligned per column, and frozen columns `position: sticky`. With a selection mode, the table
/// is a `grid` and each row carries `aria-selected` (and class `selected` when it is).
///
/// Presentation options: a sticky header row, the sorted columns' cells marked
/// (`sorted sorted-1`, `sorted-2`… by priority, as DataTables' `orderClasses`), alternating
/// row classes (`odd`/`even`), and a right-to-left layout (`dir="rtl"`, frozen columns stuck
/// to the right).
///
///     var renderer = HTMLTableRenderer(fixedColumns: 1)
///     renderer.stickyHeader = true
///     renderer.stripes = true
///     renderer.render(table) { "?sort=" + $0.description }
public struct HTMLTableRenderer: Sendable {
    /// Columns frozen at the leading edge when the table scrolls sideways.
    public var fixedColumns: Int
    /// Whether the header row stays in view when the table scrolls down.
    public var stickyHeader: Bool
    /// Whether the sorted columns' cells carry `sorted` and `sorted-N` classes.
    public var highlightSortedColumns: Bool
    /// Whether rows alternate `odd` and `even` classes (first row odd).
    public var stripes: Bool
    /// The layout direction.
    public var direction: LayoutDirection

    /// Left to right, or right to left (Arabic, Hebrew, Persian).
    public enum LayoutDirection: String, Sendable, CaseIterable {
        case leftToRight = "ltr"
        case rightToLeft = "rtl"
    }

    /// A renderer.
    public init(
        fixedColumns: Int = 0, stickyHeader: Bool = false, highlightSortedColumns: Bool = false, stripes: Bool = false,
        direction: LayoutDirection = .leftToRight
    ) {
        self.fixedColumns = fixedColumns
        self.stickyHeader = stickyHeader
        self.highlightSortedColumns = highlightSortedColumns
        self.stripes = stripes
        self.direction = direction
    }

    /// The table's current page; `link` makes a header's `href` from the spec a tap on it
    /// would give (its text is escaped here).
    public func render<Row>(_ table: DataTable<Row>, link: (SortSpec) -> String = { "?sort=" + $0.description }) -> String {
        // With a selection mode the table is a grid whose rows say whether they are selected.
        let selectable = table.selectionMode != .none
        let grid = selectable ? " role=\"grid\"" + (table.selectionMode == .multiple ? " aria-multiselectable=\"true\"" : "") : ""
        let tableClasses = ["data-table", stickyHeader ? "sticky-header" : nil, stripes ? "striped" : nil].compactMap { $0 }.joined(separator: " ")
        let dir = direction == .rightToLeft ? " dir=\"rtl\"" : ""
        let edge = direction == .rightToLeft ? "right" : "left"
        // Sorted columns by priority (1 is the primary key).
        let sortedPriority: [Int: Int] =
            highlightSortedColumns
            ? Dictionary(
                uniqueKeysWithValues: table.columns.indices.compactMap { column in
                    table.sortState.priority(of: table.columns[column].header).map { (column, $0) }
                })
            : [:]
        func style(_ column: Int, header: Bool) -> String {
            var parts: [String] = []
            // A frozen column sticks to its edge, a sticky header to the top; a frozen header cell both ways.
            let offsets = (column < fixedColumns ? ["\(edge): 0"] : []) + (header && stickyHeader ? ["top: 0"] : [])
            if !offsets.isEmpty { parts.append((["position: sticky"] + offsets).joined(separator: "; ")) }
            let alignment = table.columns[column].effectiveAlignment
            if alignment != .leading { parts.append("text-align: " + (alignment == .center ? "center" : direction == .rightToLeft ? "left" : "right")) }
            return parts.isEmpty ? "" : " style=\"\(parts.joined(separator: "; "))\""
        }
        func classes(_ column: Int) -> [String] {
            let definition = table.columns[column]
            var classes = [column < fixedColumns ? "fixed" : nil, definition.isNumeric ? "num" : nil].compactMap { $0 }
            if let priority = sortedPriority[column] { classes += ["sorted", "sorted-\(priority)"] }
            return classes
        }
        var html = "<table class=\"\(tableClasses)\"\(grid)\(dir)>\n<thead><tr>"
        for (column, definition) in table.columns.enumerated() {
            let indicator = table.sortIndicator(for: column)
            let aria =
                switch indicator {
                case .ascending: " aria-sort=\"ascending\""
                case .descending: " aria-sort=\"descending\""
                case .none: " aria-sort=\"none\""
                case .hidden: ""
                }
            let headerClasses = classes(column).filter { $0 != "num" }
            let attributes = aria + (headerClasses.isEmpty ? "" : " class=\"\(headerClasses.joined(separator: " "))\"") + style(column, header: true)
            let header = Self.escape(definition.header)
            if table.isSortable(column) {
                var state = table.sortState
                state.tap(definition.header)
                let arrow = indicator == .ascending ? " ▲" : indicator == .descending ? " ▼" : ""
                html += "<th scope=\"col\"\(attributes)><a href=\"\(Self.escape(link(state.spec)))\">\(header)\(arrow)</a></th>"
            } else {
                html += "<th scope=\"col\"\(attributes)>\(header)</th>"
            }
        }
        html += "</tr></thead>\n<tbody>\n"
        for (index, row) in table.pageRows.enumerated() {
            let selected = table.isSelected(row.id)
            var rowClasses = stripes ? [index % 2 == 0 ? "odd" : "even"] : []
            if selectable && selected { rowClasses.append("selected") }
            html +=
                "<tr" + (selectable ? " aria-selected=\"\(selected)\"" : "")
                + (rowClasses.isEmpty ? "" : " class=\"\(rowClasses.joined(separator: " "))\"") + ">"
            for (column, definition) in table.columns.enumerated() {
                let cellClasses = classes(column)
                let attributes = (cellClasses.isEmpty ? "" : " class=\"\(cellClasses.joined(separator: " "))\"") + style(column, header: false)
                let content = definition.htmlCell?(row).html ?? Self.escape(definition.display(row))
                html += "<td\(attributes)>\(content)</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// `&`, `<`, `>`, `"` and `'` escaped, on UTF-8 bytes (see ``HTMLEscaping``).
    public static func escape(_ text: String) -> String {
        HTMLEscaping.escape(text)
    }
}
