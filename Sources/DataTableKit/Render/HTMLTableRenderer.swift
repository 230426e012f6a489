import SortKit

/// Draws a ``DataTable``'s current page as a semantic HTML `<table>`: `<th scope="col"
/// aria-sort="ascending|descending|none">` with a sort link (`?sort=SPEC`, the spec a tap
/// would give, so sorting works without JavaScript), every cell HTML-escaped, numbers marked
/// for right alignment, and frozen columns `position: sticky`. With a selection mode, the
/// table is a `grid` and each row carries `aria-selected` (and class `selected` when it is).
///
///     HTMLTableRenderer(fixedColumns: 1).render(table) { "?sort=" + $0.description }
public struct HTMLTableRenderer: Sendable {
    /// Columns frozen at the left when the table scrolls sideways.
    public var fixedColumns: Int

    /// A renderer.
    public init(fixedColumns: Int = 0) {
        self.fixedColumns = fixedColumns
    }

    /// The table's current page; `link` makes a header's `href` from the spec a tap on it
    /// would give (its text is escaped here).
    public func render<Row>(_ table: DataTable<Row>, link: (SortSpec) -> String = { "?sort=" + $0.description }) -> String {
        // With a selection mode the table is a grid whose rows say whether they are selected.
        let selectable = table.selectionMode != .none
        let grid = selectable ? " role=\"grid\"" + (table.selectionMode == .multiple ? " aria-multiselectable=\"true\"" : "") : ""
        var html = "<table class=\"data-table\"\(grid)>\n<thead><tr>"
        for (column, definition) in table.columns.enumerated() {
            let sticky = column < fixedColumns ? " style=\"position: sticky; left: 0\" class=\"fixed\"" : ""
            let indicator = table.sortIndicator(for: column)
            let aria = switch indicator {
            case .ascending: " aria-sort=\"ascending\""
            case .descending: " aria-sort=\"descending\""
            case .none: " aria-sort=\"none\""
            case .hidden: ""
            }
            let header = Self.escape(definition.header)
            if table.isSortable(column) {
                var state = table.sortState
                state.tap(definition.header)
                let arrow = indicator == .ascending ? " ▲" : indicator == .descending ? " ▼" : ""
                html += "<th scope=\"col\"\(aria)\(sticky)><a href=\"\(Self.escape(link(state.spec)))\">\(header)\(arrow)</a></th>"
            } else {
                html += "<th scope=\"col\"\(sticky)>\(header)</th>"
            }
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in table.pageRows {
            let selected = table.isSelected(row.id)
            html += selectable ? "<tr aria-selected=\"\(selected)\"\(selected ? " class=\"selected\"" : "")>" : "<tr>"
            for (column, definition) in table.columns.enumerated() {
                let classes = [column < fixedColumns ? "fixed" : nil, definition.isNumeric ? "num" : nil].compactMap { $0 }
                let attributes = (classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")
                    + (column < fixedColumns ? " style=\"position: sticky; left: 0\"" : "")
                html += "<td\(attributes)>\(Self.escape(definition.display(row)))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// `&`, `<`, `>`, `"` and `'` escaped.
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
