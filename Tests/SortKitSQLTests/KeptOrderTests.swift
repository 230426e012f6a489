import Foundation
import OrderKeys
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
        let titles = ["Émile", "E\u{301}mile", "", "zoë", "Ærø", "日本", "ß", "a", "   ", "\u{301}e", "-0"]
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
            #expect(scanned.rows == (try await memory.page(of: "c", PageRequest(order: order, limit: 40))).rows, "\(spec): scanned")
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
            let served = store.indexes.orders.served
            #expect(try await DifferentialTests.keysetPages(database, "c", request, most: 5_000) == all, "\(spec): keyset paging")
            #expect(store.indexes.orders.served - served == (2_970 + 96) / 97, "\(spec): every page from the kept ids")
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

    @Test(
        "A write between the catalog's read and the page's, or a cursor whose row moved since, is scanned",
        arguments: DatabaseServedTests.backends)
    func staleReads(_ backend: Backend) async throws {
        let (database, store) = try await Self.imported(backend, budget: Self.budget)
        let order = TableOrder.spec(try SortSpec(parsing: "title:len"))
        #expect(try await store.keepOrder(of: "c", order))
        // The catalog entry a request read before a write: its kept order isn't read.
        #expect(try await keptPage(store, "c", PageRequest(order: order, limit: 5)) { try await database.delete(5, from: "c") } == nil)
        // A cursor made before its row moved to the end: the rows after its terms, as the scan
        // finds them, not the rows after the row's new place.
        let first = try await database.page(of: "c", PageRequest(order: order, limit: 5))
        let moved = try #require(first.rows.last?.id)
        try await database.update(moved, in: "c", set: ["title": String(repeating: "x", count: 50)])
        var next = PageRequest(order: order, limit: 5)
        next.after = first.next
        let expected = try await database.page(of: "c", next)
        #expect(try await store.keepOrder(of: "c", order))
        let served = store.indexes.orders.served
        #expect(try await database.page(of: "c", next).rows == expected.rows)
        #expect(store.indexes.orders.served == served, "the moved row's cursor is scanned")
        // A cursor of a row that didn't move is read from the kept ids.
        next.after = try await database.page(of: "c", PageRequest(order: order, limit: 5)).next
        let kept = try await database.page(of: "c", next)
        #expect(store.indexes.orders.served == served + 2)
        #expect(kept.rows.count == 5 && !kept.rows.contains { $0.id == moved })
    }

    @Test("A first page keeps its order in the background, in the room the budget leaves", arguments: DatabaseServedTests.backends)
    func keptInBackground(_ backend: Backend) async throws {
        let (database, store) = try await Self.imported(backend, budget: Self.budget)
        let order = TableOrder.spec(try SortSpec(parsing: "-title:len:nulls-first,-price:abs"))
        // A search doesn't start one.
        _ = try await database.page(of: "c", PageRequest(order: order, search: "zo", limit: 5))
        try await Task.sleep(for: .milliseconds(200))
        #expect((try await keptOrderCount(store, "c", order)) == nil)
        // A first page from an offset, whose selection drops rows as it goes (on PostgreSQL its
        // scan collects every row's terms too).
        _ = try await database.page(of: "c", PageRequest(order: order, offset: 7, limit: 5))
        var waited = 0
        while (try await keptOrderCount(store, "c", order)) == nil, waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        // One page of every row, in order (the page's own query orders its rows).
        let all = try await database.page(of: "c", PageRequest(order: order, limit: 5_000)).rows.map(\.id)
        #expect(try await keptOrderIDs(store, "c", order) == all, "the kept ids are the order's")
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
    try await keptOrderIDs(store, table, order)?.count
}

/// The ids `store` keeps for `table`'s current version by `order`.
func keptOrderIDs<Store: _SQLTableStore>(_ store: Store, _ table: String, _ order: TableOrder) async throws -> [Int64]? {
    let info = try await store.read { session in try await Store.info(table, session) }
    return store.indexes.orders[Store.keptOrderKey(info, order)]
}

/// Keeps `ids` as `table`'s current order by `order`, as a build would.
func forgeKeptOrder<Store: _SQLTableStore>(_ store: Store, _ table: String, _ order: TableOrder, ids: [Int64]) async throws -> Bool {
    let info = try await store.read { session in try await Store.info(table, session) }
    return store.indexes.keepOrder(ids, key: Store.keptOrderKey(info, order), table: info.id)
}

/// The kept page of `request` for the catalog entry read before `write`.
func keptPage<Store: _SQLTableStore>(
    _ store: Store, _ table: String, _ request: PageRequest, before write: () async throws -> Void
) async throws -> TablePage? {
    let info = try await store.read { session in try await Store.info(table, session) }
    try await write()
    return try await store.keptOrderPage(request, cursor: nil, info, try Store.ordering(request.order, info))
}

/// SQLite's `sortkit_key`, registered through SQLite's C API.
@Suite("SQLite's sortkit_key")
struct SQLiteKeyFunctionTests {
    @Test("Names that change from row to row are read again; odd cells key as memory's")
    func namesPerRow() async throws {
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget)
        // The second argument is a constant, the third isn't: each row's own names.
        let rows: [(String?, String, String?)] = [
            ("Émile", "natural", nil), ("ÉMILE", "caseInsensitive", nil), ("E\u{301}mile", "natural", "len"), (nil, "locale=sv", nil),
            ("", "natural", "len"), (String(repeating: "ж", count: 300_000), "natural", "len"), ("12", "natural", "abs"),
            ("日本 x", "binary", "random=7"), ("a", "folded", "bogus"),
        ]
        for (cell, collation, transform) in rows {
            let values: [SQLValue] = [cell.map(SQLValue.text) ?? .null, .text(collation), transform.map(SQLValue.text) ?? .null]
            let got = try await store.read { session in
                try await session.select(
                    "SELECT sortkit_key(c, 'text', k, 'string'), sortkit_key(c, 'text', k, 'string', t) FROM (SELECT ? AS c, ? AS k, ? AS t)",
                    values)
            }
            let plain = KeyVariant.computedKey([cell, "text", collation, "string"]).map(SQLValue.blob) ?? .null
            let transformed = transform.map { KeyVariant.computedKey([cell, "text", collation, "string", $0]).map(SQLValue.blob) ?? .null } ?? .null
            #expect(got.first == [plain, transformed], "\(cell?.prefix(10) ?? "null") \(collation) \(transform ?? "-")")
        }
        // Two rows of one statement whose collation differs: the second isn't keyed by the first's names.
        let two = try await store.read { session in
            try await session.select(
                "SELECT sortkit_key(c, 'text', k, 'string') FROM (SELECT 'Émile' AS c, 'natural' AS k UNION ALL SELECT 'Émile', 'caseInsensitive')")
        }
        #expect(
            two.map(\.first) == [
                .blob(KeyVariant.computedKey(["Émile", "text", "natural", "string"])!),
                .blob(KeyVariant.computedKey(["Émile", "text", "caseInsensitive", "string"])!),
            ])
    }

    @Test("len and random= keys read off a cell's bytes equal those of its String: odd, non-NFC and ill-formed text (seeded)")
    func keysOffBytes() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("É".utf8), Array("e\u{301}".utf8), Array("\u{1100}\u{1161}".utf8), Array("한".utf8), Array("日本".utf8),
            Array(" ".utf8), Array("\u{A0}".utf8), Array("\t".utf8), Array("\u{2028}".utf8), Array("Å".utf8), Array("\u{212B}".utf8),
            Array("😀".utf8), Array("7".utf8), Array("-".utf8), [0xFF], [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0],
        ]
        var cells: [[UInt8]] = [[], Array(" ".utf8), Array("  \u{A0}".utf8), Array(repeating: 0x61, count: 1 << 20), Array("e\u{301}".utf8)]
        for _ in 0..<600 { cells.append((0..<Int.random(in: 1...12, using: &random)).flatMap { _ in pieces[Int(random.next() % UInt64(pieces.count))] }) }
        for names in [
            ["text", "natural", "string", "len"], ["text", "binary", "string", "random=7"], ["inferred", "natural", "string", "random=0"],
            ["inferred", "natural", "integer", "len"], ["text", "caseInsensitive", "string", "random=18446744073709551615"],
            ["inferred", "natural", "string", "len"],
        ] {
            let reader = KeyVariant.ComputedKeyReader(names: names)!
            for cell in cells {
                let bytes = cell.withUnsafeBufferPointer { reader.key(ofUTF8: $0) }
                #expect(bytes == reader.key(of: String(decoding: cell, as: UTF8.self)), "seed \(seed), \(names), \(cell.prefix(24))")
            }
        }
    }

    @Test("A view in the database file can't call it")
    func directOnly() async throws {
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget)
        try await store.write { session in try await session.execute("CREATE VIEW v AS SELECT sortkit_key('a', 'text', 'natural', 'string') AS k") }
        await #expect(throws: (any Error).self) { _ = try await store.read { session in try await session.select("SELECT k FROM v") } }
        #expect(
            try await store.read { session in try await session.select("SELECT sortkit_key('a', 'text', 'natural', 'string') IS NOT NULL") } == [[.integer(1)]])
    }
}

/// The byte strings a kept order's build sorts (``_WholeOrder``) against the selection's
/// comparison of the terms (``_ComputedSelection``), the oracle.
@Suite("Whole orders as byte strings")
struct WholeOrderTests {
    @Test("Random rows of bytes, integers and nulls, each term either way, sort as the selection compares them (seeded)")
    func againstSelection() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<300 {
            let terms = Int.random(in: 1...3, using: &random)
            let descending = (0..<terms).map { _ in Bool.random(using: &random) } + [false]
            var whole = _WholeOrder(descending: descending, computing: [:])
            var selection = _ComputedSelection(descending: descending, computing: [:], keep: nil, after: nil)
            for id in 0..<Int64.random(in: 0...60, using: &random) {
                let row: [SQLValue] =
                    (0..<terms).map { _ in
                        switch random.next() % 5 {
                        case 0: .null
                        case 1: .integer([Int64.min, -1, 0, 1, Int64.max, Int64(random.next() % 5)][Int(random.next() % 6)])
                        default: .blob((0..<Int(random.next() % 4)).map { _ in [0, 1, 0xFE, 0xFF, 0x61][Int(random.next() % 5)] })
                        }
                    } + [.integer(id)]
                whole.add(row)
                selection.add(row)
            }
            let expected = selection.sorted().compactMap { $0.last?.integer }
            #expect(whole.sortedIDs() == expected, "round \(round), seed \(seed) (replay with SORTKIT_SEED=\(seed))")
        }
        var text = _WholeOrder(descending: [false, false], computing: [:])
        text.add([.text("a"), .integer(1)])
        #expect(text.sortedIDs() == nil, "text isn't written")
    }
}

/// ``_KeptOrders``' bookkeeping: room, versions, least recently read first, dropped tables.
@Suite("Kept orders' bookkeeping")
struct KeptOrdersBookkeepingTests {
    @Test("An order past the room isn't kept; the least recently read go first; at most four")
    func room() {
        let orders = _KeptOrders()
        #expect(!orders.keep(Array(0..<100), key: "1/1/1|a", table: 1, room: 799))
        #expect(orders.keep(Array(0..<100), key: "1/1/1|a", table: 1, room: 800))
        #expect(orders.keep(Array(0..<100), key: "2/1/1|a", table: 2, room: 1_600))
        _ = orders["1/1/1|a"]
        // Room for two: table 2's order, read least recently, goes.
        #expect(orders.keep(Array(0..<100), key: "3/1/1|a", table: 3, room: 1_600))
        #expect(orders["2/1/1|a"] == nil && orders["1/1/1|a"] != nil && orders.bytes == 1_600)
        for table in Int64(4)...8 { #expect(orders.keep([table], key: "\(table)/1/1|a", table: table, room: 1 << 20)) }
        #expect(orders["4/1/1|a"] == nil && orders["8/1/1|a"] == [8])
        orders.free(1)
        #expect(orders["5/1/1|a"] == nil && orders.bytes == 24)
    }

    @Test("A table keeps its newest version's orders; a dropped table keeps none")
    func versions() {
        let orders = _KeptOrders()
        #expect(orders.keep([1, 2], key: "1/1/8|a", table: 1, room: 1 << 20))
        #expect(orders.keep([2, 1], key: "1/1/8|b", table: 1, room: 1 << 20))
        // Read on a standby behind: not kept, and the newer ones stay.
        #expect(!orders.keep([1], key: "1/1/7|a", table: 1, room: 1 << 20))
        #expect(orders["1/1/8|a"] == [1, 2])
        // A newer version drops the older ones (10 after 9: compared as numbers).
        #expect(orders.keep([2], key: "1/1/10|a", table: 1, room: 1 << 20))
        #expect(orders["1/1/8|a"] == nil && orders["1/1/8|b"] == nil && orders.bytes == 8)
        #expect(orders.keep([3], key: "1/2/1|a", table: 1, room: 1 << 20), "a schema change is newer")
        orders.forget(table: 1)
        #expect(orders["1/2/1|a"] == nil && orders.bytes == 0)
        #expect(!orders.keep([3], key: "1/2/2|a", table: 1, room: 1 << 20))
    }
}
