import DataTableKit
import DataTableKitSQL
import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

/// A ``LazyDataTable`` over each store against the in-memory ``DataTable`` of the same CSV,
/// step by step under random taps, searches, filters and page changes.
@Suite("Lazy data table over the stores")
struct LazyDataTableTests {
    @Test("Random taps, searches, filters and pages show the rows the in-memory table shows (seeded)", arguments: Backend.available)
    func againstMemory(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x1A2
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        let terms = ["", "a", "é", "2", "do", "ss", "zz", "1 e"]
        for tableNumber in 0..<3 {
            let csv = DifferentialTests.randomCSV(rows: Int.random(in: 0...70, using: &random), using: &random)
            let text = try TextTable(csv: Array(csv.utf8))
            let name = "lazy\(tableNumber)"
            try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
            let pageSize = Int.random(in: 1...9, using: &random)
            var memory = DataTable(csv: text, pageSize: pageSize)
            var lazy = LazyDataTable(source: TableStoreSource(store: store, table: name), headers: text.columns, pageSize: pageSize, cachedPages: 2)
            try await lazy.load()
            for step in 0..<40 {
                let action = Int.random(in: 0..<5, using: &random)
                switch action {
                case 0, 1:
                    let column = Int.random(in: 0..<text.columns.count, using: &random)
                    let additive = action == 1
                    memory.tapHeader(column, additive: additive)
                    try await lazy.tapHeader(column, additive: additive)
                case 2:
                    let term = terms.randomElement(using: &random)!
                    memory.setSearch(term)
                    try await lazy.setSearch(term)
                case 3:
                    let column = Int.random(in: 0..<text.columns.count, using: &random)
                    let term = terms.randomElement(using: &random)!
                    memory.setFilter(term, column: column)
                    try await lazy.setFilter(term, forColumn: text.columns[column])
                default:
                    let page = Int.random(in: 0...max(0, memory.pageCount), using: &random)
                    memory.setPage(page)
                    try await lazy.goToPage(page)
                }
                let context =
                    "\(backend), table \(tableNumber), step \(step), action \(action), sort \(lazy.sortSpec), search '\(lazy.searchText)', filters \(lazy.columnFilters), seed \(seed)"
                #expect(lazy.sortSpec == memory.sortSpec, "\(context)")
                #expect(lazy.pageRows.map(\.id) == memory.pageRows.map { Int64($0.id) }, "\(context)")
                #expect(lazy.filteredCount == memory.filteredCount && lazy.totalCount == memory.totalCount, "\(context)")
                #expect(lazy.pageIndex == memory.pageIndex && lazy.pageCount == memory.pageCount, "\(context)")
                #expect(lazy.heldPages <= 3, "a few pages in memory")
            }
        }
    }

    @Test("Pages kept for going back are reused; a new query drops them; a failed read changes nothing")
    func cache() async throws {
        actor Counter { var reads = 0; func add() { reads += 1 } }
        struct Counting: DataTableSource {
            let counter: Counter
            let failing: Bool
            func page(_ request: PageRequest) async throws -> DataTablePage<Int> {
                await counter.add()
                if failing && !request.search.isEmpty { throw TableStoreError.invalid("no search here") }
                let rows = Array(0..<100)
                return DataTablePage(rows: Array(rows.dropFirst(request.offset).prefix(request.limit)), totalCount: 100, filteredCount: 100)
            }
        }
        let counter = Counter()
        var table = LazyDataTable(source: Counting(counter: counter, failing: true), headers: ["n"], pageSize: 10, cachedPages: 1)
        try await table.load()
        try await table.goToPage(1)
        try await table.goToPage(0)
        #expect(await counter.reads == 2, "page 0 came from the kept pages")
        try await table.goToPage(2)
        try await table.goToPage(1)
        #expect(await counter.reads == 4 && table.heldPages == 2, "one kept page besides the current: page 1 was dropped and read again")
        try await table.goToPage(99)
        #expect(table.pageIndex == 9 && table.pageRows == Array(90..<100))
        await #expect(throws: TableStoreError.self) { try await table.setSearch("x") }
        #expect(table.searchText == "" && table.pageIndex == 9 && table.pageRows == Array(90..<100), "a failed read leaves the table as it was")
    }
}
