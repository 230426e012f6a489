import ArgumentParser
import DataTableKit
import Foundation
import SortKit

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Print a page of a CSV file as a formatted table.",
        discussion: """
            Sorted headers show ▲/▼. The footer says "rows a–b of filtered (total)". Widths:
            average, hybrid[:N], sampled[:N], max, percentile:P[:N], fixed:W.

            Example: sortkit view books.csv --by -price:num --search 'le guin' --page-size 10
            """
    )

    @Argument(help: "The CSV file.")
    var file: String

    @Option(name: .customLong("by"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A sort spec; repeat to add keys.", valueName: "SPEC"))
    var specs: [String] = []

    @Option(help: ArgumentHelp("Show rows where every word matches some column.", valueName: "TEXT"))
    var search: String = ""

    @Option(help: "The page to show, from 1.")
    var page: Int = 1

    @Option(name: .customLong("page-size"), help: "Rows per page.")
    var pageSize: Int = 20

    @Option(help: ArgumentHelp("How column widths are measured.", valueName: "STRATEGY"))
    var widths: String = "sampled:100"

    @Option(name: .customLong("max-width"), help: ArgumentHelp("The widest a column's data makes it, in terminal cells.", valueName: "N"))
    var maxWidth: Int = 40

    @Option(help: ArgumentHelp("Columns frozen at the left when the table is wider than the terminal.", valueName: "N"))
    var fixed: Int = 0

    @Option(
        name: .customLong("terminal-width"),
        help: ArgumentHelp("The table's total width; wider tables page sideways (default: $COLUMNS, else no limit).", valueName: "N"))
    var terminalWidth: Int?

    @Option(name: .customLong("columns-page"), help: "Which horizontal page of columns to show, from 1.")
    var columnsPage: Int = 1

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page must be 1 or more, got \(page)") }
        guard pageSize >= 1 else { throw ValidationError("--page-size must be 1 or more, got \(pageSize)") }
        guard maxWidth >= 1 else { throw ValidationError("--max-width must be 1 or more, got \(maxWidth)") }
        guard fixed >= 0 else { throw ValidationError("--fixed must be 0 or more, got \(fixed)") }
        guard ColumnWidthStrategy(parsing: widths) != nil else {
            throw ValidationError("--widths: unknown strategy '\(widths)' (average, hybrid[:N], sampled[:N], max, percentile:P[:N], fixed:W)")
        }
    }

    func run() throws {
        try reportingFailures(of: "sortkit view") { try show() }
    }

    private func show() throws {
        // One page of the file as a table of it would show it, without loading the table:
        // CSVPage scans the file on every core and selects the page by a rank window (top-k, or a sampled pivot pass for deep pages).
        let keys = try specs.flatMap { try SortSpec(parsing: $0).keys }
        let options = ColumnWidthOptions(strategy: ColumnWidthStrategy(parsing: widths)!, maximum: maxWidth)
        let csvPage: CSVPage
        do {
            csvPage = try CSVPage(
                contentsOf: URL(fileURLWithPath: file), sort: SortSpec(keys), search: search,
                page: page - 1, pageSize: pageSize, widths: options)
        } catch let error as CSVError {
            throw CommandFailure("\(file): \(error)")
        } catch let error as CocoaError where error.code != .fileReadCorruptFile {
            throw CommandFailure("cannot read '\(file)'")
        }
        let width = terminalWidth ?? ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init)
        let renderer = TextTableRenderer(widths: options, maxWidth: width, fixedColumns: fixed, horizontalPage: columnsPage - 1)
        print(renderer.render(csvPage), terminator: "")
    }
}
