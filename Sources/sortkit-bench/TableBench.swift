import ArgumentParser
import DataTableKit
import Foundation
import SortKit

extension BenchBook: Identifiable {}

/// `sortkit-bench table`: DataTableKit on 100,000 rows × 6 columns.
struct TableBench: ParsableCommand, TimedBookBench {
    static let defaults = BenchDefaults(rows: 100_000, runs: 5)
    static let configuration = defaults.command("table", "Tap to sort, search keystrokes, setData diffs and column widths on a headless data table")

    @OptionGroup var data: DataSetOptions
    @OptionGroup var timing: RunOptions

    func run() throws {
        let books = self.books
        let columns: [DataTableColumn<BenchBook>] = [
            DataTableColumn("title", \.title),
            DataTableColumn("author", \.author),
            DataTableColumn("status", declaredOrderOf: \.status) { "\($0)" },
            DataTableColumn("price", \.price) { String(format: "$%.2f", $0) },
            DataTableColumn("published", sortedBy: \.published) { $0.published.map { "\(Int($0.timeIntervalSince1970))" } ?? "" },
            DataTableColumn("pages", \.pages),
        ]
        var start = DispatchTime.now().uptimeNanoseconds
        let unprepared = DataTable(rows: books, columns: columns, pageSize: 50)
        print(String(format: "build: %d rows × %d columns (search text folded once): %.0f ms", rows, columns.count, ms(since: start)))
        start = DispatchTime.now().uptimeNanoseconds
        var base = unprepared
        base.prepareSorting()
        print(String(format: "prepareSorting (every column ranked once): %.0f ms", ms(since: start)))

        try reportTaps("first tap on title, table not prepared (ranks the column)", target: nil, on: unprepared, [(0, false)], [SortKey(\.title)])
        try reportTaps("tap a string column (title ascending)", target: 30, on: base, [(0, false)], [SortKey(\.title)])
        try reportTaps(
            "4 taps: status, +author, +author again (desc), +price", target: 30, on: base, [(2, false), (1, true), (1, true), (3, true)],
            [SortKey(declaredOrderOf: \.status), SortKey(\.author, .descending), SortKey(\.price)])
        var sortedTable = base
        sortedTable.tapHeader(0)
        let sortedOnce = sortedTable
        try reportTaps("tap it again (descending)", target: 30, on: sortedOnce, [(0, false)], [SortKey(\.title, .descending)])
        var typed = sortedOnce
        typed.setSearch("ga")
        let afterTwo = typed
        try report("search keystroke (\"ga\" → \"gar\", sorted by title)", target: 30) { () -> DataTable<BenchBook> in
            var table = afterTwo
            table.setSearch("gar")
            return table
        } verify: { table in
            let query = SearchQuery("gar")
            guard table.pageRows.allSatisfy({ row in query.matches(columns.map { $0.display(row) }) })
            else { throw ValidationError("a row doesn't match") }
            try self.sorted(table, by: [SortKey(\.title)])
        }
        var changed = books
        for index in stride(from: 0, to: rows, by: 100) {
            let old = changed[index]
            changed[index] = BenchBook(
                id: old.id, title: old.title, author: old.author, status: old.status, statusRank: old.statusRank,
                price: old.price + 1, published: old.published, pages: old.pages)
        }
        try report("setData with 1% of rows changed (diff of displayed rows)", target: 50) { () -> (DataTable<BenchBook>, DataTableDiff<Int>) in
            var table = sortedOnce
            let diff = table.setData(changed)
            return (table, diff)
        } verify: { table, diff in
            guard diff.updated.count == rows / 100, diff.inserted.isEmpty, diff.removed.isEmpty else {
                throw ValidationError("diff: \(diff.updated.count) updates, \(diff.inserted.count) inserts")
            }
            try self.sorted(table, by: [SortKey(\.title)])
        }
        // Selection by id: ranges in display order, "all matching", and setData dropping rows
        // that left the data.
        var selectable = sortedOnce
        selectable.selectionMode = .multiple
        let shown = selectable.displayedIDs
        try selectable.select(shown[10])
        let anchored = selectable
        try report("shift-click a range of 1,000 rows (display order)", target: 30) { () -> DataTable<BenchBook> in
            var table = anchored
            _ = try? table.selectRange(to: shown[1_009])
            return table
        } verify: { table in
            guard table.selection == Set(shown[10...1_009]) else { throw ValidationError("range: \(table.selection.count) rows") }
        }
        var searched = selectable
        searched.setSearch("gar")
        let matching = searched
        try report("select all rows matching a search (\"gar\")", target: 30) { () -> DataTable<BenchBook> in
            var table = matching
            table.selectAllMatching()
            return table
        } verify: { table in
            guard table.selection == Set(table.displayedIDs).union([shown[10]]) else { throw ValidationError("all matching") }
        }
        try report("select all \(rows) rows", target: nil) { () -> DataTable<BenchBook> in
            var table = selectable
            table.selectAllMatching()
            return table
        } verify: { table in
            guard table.selection.count == rows else { throw ValidationError("select all: \(table.selection.count)") }
        }
        let fewer = Array(changed.dropLast(rows / 100))
        try report("setData (1% of rows gone, 1% changed), nothing selected", target: 50) { () -> DataTable<BenchBook> in
            var table = selectable
            table.setData(fewer)
            return table
        } verify: { table in
            guard table.totalCount == rows - rows / 100 else { throw ValidationError("setData: \(table.totalCount) rows") }
        }
        var tenth = selectable
        for id in shown.prefix(rows / 10) { try tenth.select(id) }
        let withSelection = tenth
        try report("setData (1% of rows gone, 1% changed) with 10% of rows selected", target: 50) { () -> (DataTable<BenchBook>, DataTableDiff<Int>) in
            var table = withSelection
            let diff = table.setData(fewer)
            return (table, diff)
        } verify: { table, diff in
            let gone = Set(changed.suffix(rows / 100).map(\.id)).intersection(withSelection.selection)
            guard Set(diff.deselected) == gone, table.selection == withSelection.selection.subtracting(gone) else {
                throw ValidationError("setData dropped \(diff.deselected.count) selected rows, expected \(gone.count)")
            }
        }
        print("column widths (all 6 columns), reference SwiftDataTables' published times at 10k rows in brackets:")
        let reference: [String: String] = ["estimatedAverage": "~20 ms", "hybrid(100)": "~50 ms", "maxMeasured": "~500 ms"]
        let strategies: [(String, ColumnWidthStrategy)] = [
            ("estimatedAverage", .estimatedAverage), ("hybrid(100)", .hybrid(sampleSize: 100)),
            ("sampledMax(100)", .sampledMax(sampleSize: 100)), ("maxMeasured", .maxMeasured),
            ("percentile(95, 1000)", .percentile(95, sampleSize: 1_000)), ("fixed(12)", .fixed(12)),
        ]
        for (name, strategy) in strategies {
            var times: [Double] = []
            var widths: [Int] = []
            for _ in 0..<runs {
                start = DispatchTime.now().uptimeNanoseconds
                widths = base.columnWidths(ColumnWidthOptions(strategy: strategy, maximum: 60))
                times.append(ms(since: start))
            }
            times.sort()
            // `%-22@` doesn't pad objects: the name is padded here.
            let label = name.padding(toLength: 22, withPad: " ", startingAt: 0)
            let note = (reference[name].map { "[\($0) at 10k]" } ?? "").padding(toLength: 16, withPad: " ", startingAt: 0)
            print(String(format: "  %@ %9.2f ms  %@ widths %@", label, times[times.count / 2], note, "\(widths)"))
        }
    }

    func report<T>(_ name: String, target: Double?, _ body: () -> T, verify: (T) throws -> Void) throws {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = body()
            times.append(ms(since: start))
            try verify(result)
        }
        times.sort()
        let goal = target.map { String(format: " (target < %.0f ms)", $0) } ?? ""
        print(String(format: "%-60@ median %8.2f ms, min %8.2f ms%@", name, times[times.count / 2], times[0], goal))
    }

    /// Header taps (column, additive) on a copy of `table`, timed, the result checked to be
    /// in the order of `keys`.
    func reportTaps(
        _ name: String, target: Double?, on table: DataTable<BenchBook>, _ taps: [(column: Int, additive: Bool)], _ keys: [SortKey<BenchBook>]
    ) throws {
        try report(name, target: target) { () -> DataTable<BenchBook> in
            var copy = table
            for tap in taps { copy.tapHeader(tap.column, additive: tap.additive) }
            return copy
        } verify: {
            try self.sorted($0, by: keys)
        }
    }

    /// Every displayed row must be in order.
    func sorted(_ table: DataTable<BenchBook>, by keys: [SortKey<BenchBook>]) throws {
        let shown = table.displayedPositions.map { table.rows[$0] }
        for (a, b) in zip(shown, shown.dropFirst()) where keys.compare(a, b) == .orderedDescending {
            throw ValidationError("rows out of order")
        }
    }

    func ms(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
}
