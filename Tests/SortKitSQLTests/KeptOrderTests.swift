import Foundation
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// The whole orders a table served from the database keeps for orders it has no index for
/// (``_KeptOrders``): the same pages as the in-memory index, by offset and by cursor, before
/// and after they are kept; dropped by a write; kept only in the room the budget leaves.
@Suite("Kept orders of tables served from the database")
struct KeptOrderTests {
    /// A budget the 3,000-row table's index doesn't fit (about 230 KB) and its orders (24 KB) do.
    static let budget = 100_000

    /// Titles in both normal forms, blanks (nulls), ties, a megabyte; prices with signs.
    static func csv(rows: Int) -> String {
        let titles = ["Émile", "E\u{301}mile", "", "zoë", "Ærø", "日本", "ß", "a", "   "]
        var csv = "title,price\n"
        for row in 0..<rows {
            let title = titles[row % titles.count]
            csv += (title.isEmpty ? "" : "\(title)\(row % 7)") + ",\((row % 11) - 5)\n"
        }
        return csv + String(repeating: "ж", count: 500_000) + ",99999999999999999999\n"
    }

    /// A store with `budget` holding table `c` (``csv(rows:)`` of 3,000 rows), served from the database.
    static func imported(_ backend: Backend, budget: Int) async throws -> (store: any TableStore, sql: any _SQLTableStore) {
        let database = try await DatabaseServedTests.open(backend, try backend.newLocation(), budget: budget)
        try await database.importCSV(Array(Self.csv(rows: 3_000).utf8), as: "c", delimiter: UInt8(ascii: ","), presets: [:])
        return (database, try #require(database as? any _SQLTableStore))
    }

    @Test("Pages of a kept order, by offset and by cursor, are the in-memory index's", arguments: DatabaseServedTests.backends)
    func keptPages(_ backend: Backend) async throws {
        let database = try await DatabaseServedTests.open(backend, try backend.newLocation(), budget: Self.budget)
        let memory = try await DatabaseServedTests.open(backend, try backend.newLocation(), budget: nil)
        let csv = Self.csv(rows: 3_000)
        for store in [database, memory] { try await store.importCSV(Array(csv.utf8), as: "c", delimiter: UInt8(ascii: ","), presets: [:]) }
        for store in [database, memory] { try await store.delete(Array(Int64(10)...Int64(40)), from: "c") }
        #expect(try await database.indexPlacement(of: "c") == .database)
        let store = try #require(database as? any _SQLTableStore)
        for spec in ["title:len,-price", "-price:abs,title:random=3", "title:locale=sv:nocase", "-title:nocase:nulls-first"] {
            let order = TableOrder.spec(try SortSpec(parsing: spec))
            // A cursor made by the scan, used once the order is kept.
            let scanned = try await database.page(of: "c", PageRequest(order: order, limit: 40))
            #expect(try await store.keepOrder(of: "c", order), "\(spec): kept")
            #expect((try await keptOrderCount(store, "c", order)) == 2_970, "\(spec): every row's id")
            var next = PageRequest(order: order, limit: 40)
            next.after = scanned.next
            let second = try await memory.page(of: "c", PageRequest(order: order, offset: 40, limit: 40))
            #expect(try await database.page(of: "c", next).rows == second.rows, "\(spec): the scan's cursor")
            for offset in [0, 1, 1_500, 2_929, 2_930, 2_969, 2_970, 5_000] {
                let request = PageRequest(order: order, offset: offset, limit: 40)
                let expected = try await memory.page(of: "c", request), got = try await database.page(of: "c", request)
                #expect(got.rows == expected.rows && got.filtered == expected.filtered, "\(spec) from \(offset)")
                #expect((got.next == nil) == (expected.next == nil), "\(spec) from \(offset): next")
            }
            let request = PageRequest(order: order, limit: 97)
            let all = try await memory.page(of: "c", PageRequest(order: order, limit: 5_000)).rows.map(\.id)
            #expect(try await DifferentialTests.keysetPages(database, "c", request, most: 5_000) == all, "\(spec): keyset paging")
            // A search still scans, with its own count.
            let search = PageRequest(order: order, search: "e", limit: 25)
            let (got, expected) = (try await database.page(of: "c", search), try await memory.page(of: "c", search))
            #expect(got.rows == expected.rows && got.filtered == expected.filtered, "\(spec): search")
        }
    }

    @Test("The pages come from the kept ids; a write makes a new version that scans again", arguments: DatabaseServedTests.backends)
    func keptIDsAreRead(_ backend: Backend) async throws {
        let (database, store) = try await Self.imported(backend, budget: Self.budget)
        let order = TableOrder.spec(try SortSpec(parsing: "title:len"))
        #expect(try await store.keepOrder(of: "c", order))
        let scanned = try await database.page(of: "c", PageRequest(order: order, limit: 3_001)).rows.map(\.id)
        // Ids kept in another order choose the page's rows — the page's and one more, which
        // the page's query puts in order: the kept path is the one taken.
        #expect(try await forgeKeptOrder(store, "c", order, ids: scanned.reversed()))
        let n = scanned.count
        #expect(try await database.page(of: "c", PageRequest(order: order, offset: 7, limit: 5)).rows.map(\.id) == Array(scanned[(n - 13)..<(n - 8)]))
        // A write is a new version: the order is scanned again, with the row gone.
        try await database.delete(scanned[3], from: "c")
        let after = try await database.page(of: "c", PageRequest(order: order, limit: 5)).rows.map(\.id)
        #expect(after == scanned.filter { $0 != scanned[3] }.prefix(5).map { $0 })
    }

    @Test("A first page keeps its order in the background, in the room the budget leaves", arguments: DatabaseServedTests.backends)
    func keptInBackground(_ backend: Backend) async throws {
        let (database, store) = try await Self.imported(backend, budget: Self.budget)
        let order = TableOrder.spec(try SortSpec(parsing: "title:len"))
        // A search doesn't start one.
        _ = try await database.page(of: "c", PageRequest(order: order, search: "zo", limit: 5))
        try await Task.sleep(for: .milliseconds(200))
        #expect((try await keptOrderCount(store, "c", order)) == nil)
        _ = try await database.page(of: "c", PageRequest(order: order, limit: 5))
        var waited = 0
        while (try await keptOrderCount(store, "c", order)) == nil, waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect((try await keptOrderCount(store, "c", order)) == 3_001)
        // Four more orders: the oldest goes (at most four are kept).
        for spec in ["title:random=1", "title:random=2", "title:random=3", "title:random=4"] {
            #expect(try await store.keepOrder(of: "c", .spec(try SortSpec(parsing: spec))))
        }
        #expect((try await keptOrderCount(store, "c", order)) == nil)
        // A budget too small for the order keeps none.
        let small = try await Self.imported(backend, budget: 20_000).sql
        #expect(try await small.keepOrder(of: "c", order) == false)
    }
}

/// How many ids `store` keeps for `table`'s current version by `order`; `nil`: none.
func keptOrderCount<Store: _SQLTableStore>(_ store: Store, _ table: String, _ order: TableOrder) async throws -> Int? {
    let info = try await store.read { session in try await Store.info(table, session) }
    return store.indexes.orders[Store.keptOrderKey(info, order)]?.count
}

/// Keeps `ids` as `table`'s current order by `order`, as a build would.
func forgeKeptOrder<Store: _SQLTableStore>(_ store: Store, _ table: String, _ order: TableOrder, ids: [Int64]) async throws -> Bool {
    let info = try await store.read { session in try await Store.info(table, session) }
    return store.indexes.keepOrder(ids, key: Store.keptOrderKey(info, order), table: info.id)
}
