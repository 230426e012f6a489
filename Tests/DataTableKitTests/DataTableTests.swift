import Foundation
import OrderKeys
import SortKit
import Testing

@testable import DataTableKit

struct Person: Identifiable, Hashable, Sendable {
    enum Level: CaseIterable, Sendable { case junior, senior, principal }
    var id: Int
    var first: String
    var last: String
    var salary: Double
    var level: Level
    var started: Date?
}

let people = [
    Person(id: 1, first: "Ann", last: "Zed", salary: 1_234.56, level: .senior, started: Date(timeIntervalSince1970: 100)),
    Person(id: 2, first: "Bob", last: "Émile", salary: 99, level: .junior, started: nil),
    Person(id: 3, first: "Cy", last: "emile", salary: 1_234.56, level: .principal, started: Date(timeIntervalSince1970: 50)),
    Person(id: 4, first: "Di", last: "Young", salary: 10_000, level: .junior, started: Date(timeIntervalSince1970: 200)),
    Person(id: 5, first: "Ed", last: "Adams", salary: 99, level: .senior, started: nil),
]

func columns() -> [DataTableColumn<Person>] {
    [
        DataTableColumn("Name", sortedBy: \.last) { "\($0.first) \($0.last)" },
        DataTableColumn("Salary", \.salary) { "$" + String(format: "%.2f", $0) }.editable(\.salary) { Double($0) },
        DataTableColumn("Level", declaredOrderOf: \.level) { "\($0)" },
        DataTableColumn(
            "Started",
            sortedByComparator: { a, b in
                // Full control: nulls last, then by date.
                switch (a.started, b.started) {
                case (nil, nil): .orderedSame
                case (nil, _): .orderedDescending
                case (_, nil): .orderedAscending
                case (let x?, let y?): x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
                }
            }
        ) { $0.started.map { "\(Int($0.timeIntervalSince1970))" } ?? "" },
        DataTableColumn("Notes"),
    ]
}

@Suite("Data table behaviour")
struct DataTableTests {
    @Test("Every column style sorts by its value, not its display text")
    func columnStyles() {
        var table = DataTable(rows: people, columns: columns())
        table.tapHeader(1)
        #expect(table.displayedIDs == [2, 5, 1, 3, 4]) // 99 < 1234.56 < 10000, not "$10,000" < "$99"; stable
        table.tapHeader(0)
        #expect(table.displayedIDs == [5, 3, 2, 4, 1]) // natural by last name: Adams, emile, Émile, Young, Zed
        table.tapHeader(2)
        #expect(table.displayedIDs == [2, 4, 1, 5, 3]) // declared order junior < senior < principal
        table.tapHeader(3)
        #expect(table.displayedIDs == [3, 1, 4, 2, 5]) // comparator: nulls last, stable
        table.tapHeader(3)
        #expect(table.displayedIDs == [4, 1, 3, 2, 5] || table.displayedIDs == [2, 5, 4, 1, 3])
    }

    @Test("Regression: multi-column and stable (the reference sorts one column, unstably)")
    func multiColumnStable() {
        var table = DataTable(rows: people, columns: columns())
        table.tapHeader(1)
        table.tapHeader(2, additive: true)
        #expect(table.sortSpec.description == "Salary,Level")
        #expect(table.displayedIDs == [2, 5, 1, 3, 4])
        table.tapHeader(1, additive: true)
        #expect(table.displayedIDs == [4, 1, 3, 2, 5])
        #expect(table.sortIndicator(for: 1) == .descending && table.sortIndicator(for: 2) == .ascending)
    }

    @Test("Regression: a tap on a non-sortable column changes nothing, but the event fires")
    func nonSortableTap() {
        var table = DataTable(rows: people, columns: columns())
        var events: [(Int, Bool)] = []
        table.onHeaderTap = { events.append(($0.column, $0.isSortable)) }
        table.tapHeader(1)
        let before = (table.displayedIDs, (0..<5).map(table.sortIndicator(for:)))
        #expect(table.tapHeader(4) == false)
        #expect(table.displayedIDs == before.0 && (0..<5).map(table.sortIndicator(for:)) == before.1)
        #expect(table.sortIndicator(for: 4) == .hidden && table.sortIndicator(for: 1) == .ascending)
        // The user's override is asked at each tap: state may change between taps.
        var locked = true
        table.isColumnSortable = { $0 == 0 ? !locked : nil }
        #expect(table.tapHeader(0) == false)
        locked = false
        #expect(table.tapHeader(0) == true)
        #expect(events.map(\.0) == [1, 4, 0, 0] && events.map(\.1) == [true, false, false, true])
    }

    @Test("Regression: the default sort uses typed keys at load")
    func defaultSort() throws {
        let table = DataTable(rows: people, columns: columns(), defaultSort: try SortSpec(parsing: "-Salary"))
        #expect(table.displayedIDs == [4, 1, 3, 2, 5])
        #expect(table.sortIndicator(for: 1) == .descending)
    }

    @Test("Regression: search keeps the sort; clearing it restores the sorted order; filters per column")
    func searchKeepsSort() {
        var table = DataTable(rows: people, columns: columns())
        table.tapHeader(1, additive: false)
        table.tapHeader(1) // salary descending
        table.setSearch("EMILE")
        #expect(table.displayedIDs == [3, 2]) // diacritic- and case-insensitive, still by salary desc
        table.setSearch("1234.56 senior") // typed value and display text, every term
        #expect(table.displayedIDs == [1])
        table.setSearch("")
        #expect(table.displayedIDs == [4, 1, 3, 2, 5])
        table.setFilter("junior", column: 2)
        #expect(table.displayedIDs == [4, 2] && table.filteredCount == 2 && table.totalCount == 5)
        table.setFilter("zed", column: 2) // "zed" is a name, not a level
        #expect(table.displayedIDs.isEmpty)
    }

    @Test("Regression: paging is real — counts, pages, and out-of-range pages clamped")
    func paging() {
        var table = DataTable(rows: people, columns: columns(), pageSize: 2)
        table.tapHeader(0)
        #expect(table.pageCount == 3 && table.pageRows.map(\.id) == [5, 3])
        table.setPage(2)
        #expect(table.pageRows.map(\.id) == [1])
        table.setPage(99)
        #expect(table.pageIndex == 2)
        table.setPage(-4)
        #expect(table.pageIndex == 0)
        table.setPage(1)
        table.setSearch("e") // a new search shows its first page
        #expect(table.pageIndex == 0)
        table.setPageSize(10)
        #expect(table.pageCount == 1)
    }

    @Test("Edits: immediate re-sorts; keepPositionUntilNextSort keeps the row in place; bad text changes nothing")
    func edits() throws {
        var table = DataTable(rows: people, columns: columns())
        table.tapHeader(1)
        let diff = try table.edit(2, column: 1, to: "50000")
        #expect(table.displayedIDs == [5, 1, 3, 4, 2])
        #expect(diff.moved.map(\.id) == [2] && diff.updated == [2])
        table.editPolicy = .keepPositionUntilNextSort
        try table.edit(4, column: 1, to: "1")
        #expect(table.displayedIDs == [5, 1, 3, 4, 2])
        #expect(table.text(table.rows[3], column: 1) == "$1.00")
        table.tapHeader(1)
        table.tapHeader(1)
        #expect(table.displayedIDs == [4, 5, 1, 3, 2])
        #expect(throws: DataTableError.invalidValue("lots", column: "Salary")) { try table.edit(4, column: 1, to: "lots") }
        #expect(throws: DataTableError.notEditable("Name")) { try table.edit(4, column: 0, to: "x") }
        #expect(table.rows[3].salary == 1)
    }

    @Test("Regression: setData's diff reports moves, keeps sort and filter, and follows the anchor row")
    func setData() {
        var table = DataTable(rows: people, columns: columns(), pageSize: 2)
        table.tapHeader(0)
        table.setPage(1) // rows 2 and 4 by name: Émile, Young
        #expect(table.pageRows.map(\.id) == [2, 4])
        var changed = people
        changed[0].last = "Aaron" // Ann Zed → Ann Aaron: moves to the front
        changed.remove(at: 4) // Ed Adams removed
        changed.append(Person(id: 6, first: "Fay", last: "Moss", salary: 1, level: .junior, started: nil))
        let diff = table.setData(changed)
        #expect(table.displayedIDs == [1, 3, 2, 6, 4])
        #expect(diff.removed.map(\.id) == [5] && diff.inserted.map(\.id) == [6])
        #expect(diff.moved.map(\.id) == [1] && diff.updated == [1])
        #expect(table.pageRows.map(\.id) == [2, 6]) // the anchor (Bob Émile) still on screen
        #expect(table.sortSpec.description == "Name")
    }

    /// A row type that isn't `Equatable`: setData compares what the columns display.
    struct Note: Identifiable {
        var id: Int
        var text: String
        var hidden: Int
    }

    @Test("setData on rows that aren't Equatable: updated means a displayed cell changed; removals and inserts in one call")
    func setDataByDisplay() {
        let notes = (1...6).map { Note(id: $0, text: "note \($0)", hidden: 0) }
        var table = DataTable(rows: notes, columns: [DataTableColumn("Text", \.text)], pageSize: 10)
        table.tapHeader(0)
        var next = notes
        next[1].hidden = 7 // not displayed: not an update
        next[2].text = "a note" // displayed and sorts first
        next.remove(at: 4)
        next.insert(Note(id: 9, text: "note 0", hidden: 0), at: 0)
        let diff = table.setData(next)
        #expect(diff.updated == [3])
        #expect(diff.removed.map(\.id) == [5] && diff.inserted.map(\.id) == [9])
        #expect(table.displayedIDs == [3, 9, 1, 2, 4, 6])
        #expect(table.rows.map(\.hidden) == next.map(\.hidden))
    }

    @Test("setData with repeated ids keeps every row; an id follows its first row; empty to full and back")
    func setDataRepeatedIDs() {
        let repeated = [
            Person(id: 1, first: "A", last: "One", salary: 1, level: .junior, started: nil),
            Person(id: 1, first: "B", last: "Two", salary: 2, level: .junior, started: nil),
            Person(id: 2, first: "C", last: "Three", salary: 3, level: .junior, started: nil),
        ]
        var table = DataTable(rows: repeated, columns: columns())
        table.tapHeader(1)
        #expect(table.totalCount == 3)
        let diff = table.setData([repeated[2], repeated[0], repeated[1], repeated[0]])
        #expect(table.totalCount == 4 && table.displayedIDs == [1, 1, 1, 2])
        // The second old row with id 1 follows no new row (gone); the new rows after the first 1 are new.
        #expect(diff.removed.map(\.id) == [1] && diff.inserted.map(\.id) == [1, 1] && diff.updated.isEmpty)
        table.setData([])
        #expect(table.totalCount == 0 && table.displayedIDs.isEmpty)
        table.setData(people)
        #expect(table.totalCount == people.count && Set(table.displayedIDs) == Set(people.map(\.id)))
    }

    @Test("Diffs against a brute-force oracle on random updates (seeded)")
    func diffOracle() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 55
        var random = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let old = Array((0..<Int.random(in: 0...30, using: &random)).shuffled(using: &random))
            var new = old.filter { _ in Int.random(in: 0..<5, using: &random) > 0 }.shuffled(using: &random)
            for id in 100..<(100 + Int.random(in: 0...5, using: &random)) {
                new.insert(id, at: Int.random(in: 0...new.count, using: &random))
            }
            let diff = DataTableDiff(from: old, to: new)
            let context = "old \(old), new \(new), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
            #expect(Set(diff.removed.map(\.id)) == Set(old).subtracting(new), "\(context)")
            #expect(Set(diff.inserted.map(\.id)) == Set(new).subtracting(old), "\(context)")
            #expect(diff.removed.allSatisfy { old[$0.index] == $0.id } && diff.inserted.allSatisfy { new[$0.index] == $0.id })
            let moved = Set(diff.moved.map(\.id))
            let still = new.filter { old.contains($0) && !moved.contains($0) }
            #expect(still == old.filter { still.contains($0) }, "rows that didn't move keep their order: \(context)")
            let kept = new.filter { old.contains($0) }.map { old.firstIndex(of: $0)! }
            #expect(diff.moved.count == kept.count - Self.longestIncreasingLength(kept), "fewest moves: \(context)")
        }
    }

    /// The O(n²) oracle.
    static func longestIncreasingLength(_ values: [Int]) -> Int {
        var best = Array(repeating: 1, count: values.count)
        for i in values.indices { for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) } }
        return best.max() ?? 0
    }

    @Test("Untyped tables: CSV cells sort by inferred type; mixed sort values are transitive")
    func untyped() throws {
        var table = DataTable(csv: try TextTable(csv: Array("name,size\nb,10\na,9\nc,\nd,100\n".utf8)))
        table.tapHeader(1)
        #expect(table.displayedIDs == [2, 1, 4, 3])
        // The reference compares mixed values as strings: 9 < 10 < "5a" < 9. Here: numbers, then text.
        var mixed = DataTable(headers: ["v"], values: [[.string("5a")], [.integer(10)], [.integer(9)]])
        mixed.tapHeader(0)
        #expect(mixed.displayedIDs == [3, 2, 1])
        #expect(throws: DataTableError.invalidValue("big", column: "size")) { try table.edit(1, column: 1, to: "big") }
    }
}

@Suite("DataTable sort cycles, caps and key removal")
struct DataTableCycleTests {
    @Test("A descending-first column, a cap of two keys and removing a key re-sort the rows")
    func cyclesAndCaps() {
        var salary = DataTableColumn<Person>("Salary", \.salary)
        salary.sortCycle = .descendingFirst
        var table = DataTable(rows: people, columns: [columns()[0], salary, columns()[2]], pageSize: 10)
        table.tapHeader(1)
        #expect(table.sortSpec.description == "-Salary")
        #expect(table.pageRows.map(\.id) == [4, 1, 3, 2, 5])
        #expect(table.sortIndicator(for: 1) == .descending)
        table.maxSortKeys = 2
        table.tapHeader(2, additive: true)
        table.tapHeader(0, additive: true)
        #expect(table.sortSpec.description == "-Salary,Name")
        #expect(table.pageRows.map(\.id) == [4, 3, 1, 5, 2])
        let removed = table.removeSortKey(1)
        #expect(removed && table.sortSpec.description == "Name")
        #expect(table.pageRows.map(\.id) == [5, 3, 2, 4, 1])
        let again = table.removeSortKey(1)
        #expect(!again)
        table.tapHeader(1)
        table.tapHeader(1)
        #expect(table.sortSpec.description == "Salary")
    }
}

@Suite("DataTable pinned rows and sort rules")
struct DataTablePinTests {
    @Test("Pinned rows stay first under every sort and matching search; rules group and expand keys")
    func pinnedAndRules() throws {
        var table = DataTable(rows: people, columns: columns(), pageSize: 10)
        table.pinnedIDs = [4, 99, 2]
        #expect(table.pageRows.map(\.id) == [4, 2, 1, 3, 5])
        table.tapHeader(0)
        #expect(table.pageRows.map(\.id) == [4, 2, 5, 3, 1])
        table.tapHeader(1)
        table.tapHeader(1)
        #expect(table.pageRows.map(\.id) == [4, 2, 1, 3, 5])
        table.setSearch("emile")
        #expect(table.pageRows.map(\.id) == [2, 3])
        table.setSearch("")
        table.pinnedIDs = []
        // Level first (declared order), then the picked Salary descending.
        table.sortRules = SortRules(before: try SortSpec(parsing: "Level"))
        #expect(table.sortSpec.description == "-Salary")
        #expect(table.pageRows.map(\.id) == [4, 2, 1, 5, 3])
    }
}

@Suite("DataTable with a locale collation")
struct DataTableLocaleTests {
    @Test("A column with a Czech collation sorts ch after h, through header taps in both directions")
    func czech() throws {
        let czech = Collation.locale(try LocaleCollation("cs"))
        let rows = ["chata", "hrad", "cibule", "ivo", "Chrám"].enumerated().map {
            Person(id: $0.offset, first: "", last: $0.element, salary: 0, level: .junior, started: nil)
        }
        var table = DataTable(rows: rows, columns: [DataTableColumn("Last", sortedBy: \.last, collation: czech) { $0.last }], pageSize: 10)
        table.tapHeader(0)
        #expect(table.pageRows.map(\.last) == ["cibule", "hrad", "chata", "Chrám", "ivo"])
        table.tapHeader(0)
        #expect(table.pageRows.map(\.last) == ["ivo", "Chrám", "chata", "hrad", "cibule"])
    }
}
