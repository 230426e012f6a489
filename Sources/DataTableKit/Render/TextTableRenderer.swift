import Foundation
import SortKit

/// Draws a ``DataTable``'s current page as a box-drawing table for a terminal: ▲/▼ (with the
/// key's priority when several) on sorted headers, numbers right-aligned, long text truncated
/// with "…" or wrapped, right-to-left text isolated so it can't reorder the frame, frozen
/// columns kept on every horizontal page, and the footer "rows a–b of filtered (total)".
///
///     print(TextTableRenderer(maxWidth: 80, fixedColumns: 1).render(table))
public struct TextTableRenderer: Sendable {
    /// Column width options.
    public var widths: ColumnWidthOptions
    /// The widest the table may be, in cells; columns that don't fit go to further horizontal
    /// pages. `nil`: no limit.
    public var maxWidth: Int?
    /// Columns frozen at the left on every horizontal page.
    public var fixedColumns: Int
    /// Columns frozen at the right on every horizontal page.
    public var fixedRightColumns: Int
    /// Wrap long cells onto more lines instead of truncating them.
    public var wrap: Bool
    /// Which horizontal page to draw (from 0; clamped).
    public var horizontalPage: Int

    /// A renderer.
    public init(
        widths: ColumnWidthOptions = ColumnWidthOptions(), maxWidth: Int? = nil, fixedColumns: Int = 0,
        fixedRightColumns: Int = 0, wrap: Bool = false, horizontalPage: Int = 0
    ) {
        self.widths = widths
        self.maxWidth = maxWidth
        self.fixedColumns = fixedColumns
        self.fixedRightColumns = fixedRightColumns
        self.wrap = wrap
        self.horizontalPage = horizontalPage
    }

    /// The horizontal pages: each the columns it shows, frozen ones included.
    public func horizontalPages<Row>(_ table: DataTable<Row>) -> [[Int]] {
        horizontalPages(table.columnWidths(self.widths), gutter: table.selectionMode != .none)
    }

    /// With a selection `gutter` (two cells for ✓), the columns get two cells less.
    private func horizontalPages(_ widths: [Int], gutter: Bool = false) -> [[Int]] {
        let count = widths.count
        let left = Array(0..<min(fixedColumns, count))
        let right = Array(max(left.count, count - fixedRightColumns)..<count)
        let middle = Array(left.count..<max(left.count, count - fixedRightColumns))
        guard let maxWidth = maxWidth.map({ gutter ? $0 - 2 : $0 }) else { return [left + middle + right] }
        let frozen = (left + right).reduce(1) { $0 + widths[$1] + 3 }
        var pages: [[Int]] = []
        var current: [Int] = []
        var used = frozen
        for column in middle {
            if !current.isEmpty && used + widths[column] + 3 > maxWidth {
                pages.append(current)
                current = []
                used = frozen
            }
            current.append(column)
            used += widths[column] + 3
        }
        if !current.isEmpty || pages.isEmpty { pages.append(current) }
        return pages.map { left + $0 + right }
    }

    /// The table's current page as text.
    public func render<Row>(_ table: DataTable<Row>) -> String {
        render(_TextTableContent(table, widths: table.columnWidths(widths)))
    }

    /// A page of a CSV file read by ``CSVPage`` as text: what ``render(_:)-(DataTable<Row>)``
    /// draws for a ``DataTable`` of the whole file on the same page.
    ///
    ///     let page = try CSVPage(contentsOf: url, sort: SortSpec(parsing: "title"), pageSize: 20)
    ///     print(TextTableRenderer().render(page))
    public func render(_ page: CSVPage) -> String {
        render(_TextTableContent(page, widths: page.columnWidths(widths)))
    }

    private func render(_ table: _TextTableContent) -> String {
        var widths = table.widths
        let gutter = table.selected != nil
        let pages = horizontalPages(widths, gutter: gutter)
        let pageNumber = min(max(0, horizontalPage), pages.count - 1)
        let shown = pages[pageNumber]
        if let maxWidth, shown.count == 1 { widths[shown[0]] = min(widths[shown[0]], max(1, maxWidth - 4 - (gutter ? 2 : 0))) }
        func line(_ left: String, _ middle: String, _ right: String) -> String {
            left + shown.map { String(repeating: "─", count: widths[$0] + 2) }.joined(separator: middle) + right
        }
        // With a selection mode, a gutter marks selected rows with ✓.
        var output = [line("┌", "┬", "┐")]
        output.append(
            "│"
                + shown.map { column in
                    let header = TerminalWidth.printable(table.headers[column]) + table.marks[column]
                    return " " + pad(TerminalWidth.truncate(header, to: widths[column]), widths[column], table.alignments[column]) + " "
                }.joined(separator: "│") + "│")
        output.append(line("├", "┼", "┤"))
        for (rowIndex, row) in table.rows.enumerated() {
            let mark = table.selected?[rowIndex] == true ? "✓ " : "  "
            let cells = shown.map { column -> [String] in
                // Nothing in a cell acts on the terminal, and a line break can't shift the border.
                let text = TerminalWidth.printable(row[column])
                return wrap ? TerminalWidth.wrap(text, to: widths[column]) : [TerminalWidth.truncate(text, to: widths[column])]
            }
            for lineIndex in 0..<(cells.map(\.count).max() ?? 1) {
                output.append(
                    (gutter ? mark : "") + "│"
                        + zip(shown, cells).map { column, lines in
                            let text = lineIndex < lines.count ? lines[lineIndex] : ""
                            return " " + pad(text, widths[column], table.alignments[column]) + " "
                        }.joined(separator: "│") + "│")
            }
        }
        output.append(line("└", "┴", "┘"))
        if gutter {
            // Frame lines and the header line up with the marked rows.
            for index in output.indices where !output[index].hasPrefix("✓ ") && !output[index].hasPrefix("  │") {
                output[index] = "  " + output[index]
            }
        }
        let first = table.filteredCount == 0 ? 0 : table.firstRow + 1
        let last = table.firstRow + table.rows.count
        var footer = "rows \(first)–\(last) of \(table.filteredCount) (\(table.totalCount))"
        if pages.count > 1 { footer += " · columns page \(pageNumber + 1) of \(pages.count)" }
        if gutter { footer += " · \(table.selectedCount) selected" }
        output.append(footer)
        return output.joined(separator: "\n") + "\n"
    }

    /// `text` padded to `width` cells; right-to-left text inside Unicode isolates (FSI…PDI)
    /// so the terminal's bidi algorithm can't move the frame around it.
    private func pad(_ text: String, _ width: Int, _ alignment: CellAlignment) -> String {
        let missing = max(0, width - TerminalWidth.of(text))
        let isolated = text.unicodeScalars.contains(where: Self.isRightToLeft) ? "\u{2068}" + text + "\u{2069}" : text
        switch alignment {
        case .leading: return isolated + String(repeating: " ", count: missing)
        case .trailing: return String(repeating: " ", count: missing) + isolated
        case .center: return String(repeating: " ", count: missing / 2) + isolated + String(repeating: " ", count: missing - missing / 2)
        }
    }

    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
        default: false
        }
    }
}

/// What the text renderer draws, from a ``DataTable`` or a ``CSVPage``: headers with their
/// sort marks, which columns are numeric, the page's cell texts, and the counts.
private struct _TextTableContent {
    var headers: [String]
    /// " ▲", " ▼2" or "" per column.
    var marks: [String]
    var alignments: [CellAlignment]
    var widths: [Int]
    var rows: [[String]]
    /// Rows before the page.
    var firstRow: Int
    var filteredCount: Int
    var totalCount: Int
    /// With a selection mode, whether each page row is selected, and how many rows are.
    var selected: [Bool]? = nil
    var selectedCount = 0

    init<Row>(_ table: DataTable<Row>, widths: [Int]) {
        headers = table.columns.map(\.header)
        marks = table.columns.indices.map { column in
            let direction: SortDirection? =
                switch table.sortIndicator(for: column) {
                case .ascending: .ascending
                case .descending: .descending
                default: nil
                }
            return Self.mark(
                direction, priority: table.sortState.priority(of: table.columns[column].header),
                keys: table.sortState.keys.count)
        }
        alignments = table.columns.map(\.effectiveAlignment)
        self.widths = Self.fitting(widths, headers: headers, marks: marks)
        rows = table.pageRows.map { row in table.columns.indices.map { table.text(row, column: $0) } }
        firstRow = table.pageIndex * table.pageSize
        filteredCount = table.filteredCount
        totalCount = table.totalCount
        if table.selectionMode != .none {
            selected = table.pageRows.map { table.isSelected($0.id) }
            selectedCount = table.selection.count
        }
    }

    init(_ page: CSVPage, widths: [Int]) {
        headers = page.columns
        let state = page.sortState
        marks = page.columns.map { header in
            Self.mark(state.direction(of: header), priority: state.priority(of: header), keys: state.keys.count)
        }
        alignments = page.columnTypes.map { $0 == .integer || $0 == .float ? .trailing : .leading }
        self.widths = Self.fitting(widths, headers: headers, marks: marks)
        rows = page.rows
        firstRow = page.pageIndex * page.pageSize
        filteredCount = page.filteredCount
        totalCount = page.totalCount
    }

    /// `widths` widened where a header and its mark don't fit: the width strategies reserve
    /// two cells for " ▲", and a multi-key sort's priority (" ▼2", " ▲12") needs more.
    static func fitting(_ widths: [Int], headers: [String], marks: [String]) -> [Int] {
        widths.indices.map { index in
            index < headers.count && index < marks.count
                ? max(widths[index], TerminalWidth.of(headers[index] + marks[index])) : widths[index]
        }
    }

    static func mark(_ direction: SortDirection?, priority: Int?, keys: Int) -> String {
        guard let direction else { return "" }
        return " " + (direction == .ascending ? "▲" : "▼") + (keys > 1 ? priority.map(String.init) ?? "" : "")
    }
}
