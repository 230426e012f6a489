import Foundation
import GRDB
import OrderKeys
import SortKit
import SortKitTestSupport
import Synchronization
import Testing

@testable import SortKitSQL

/// Tables served from the database's own indexes under an index budget (`--index-memory`):
/// the same pages as the in-memory index, row for row, with searches, column filters, cursors
/// and writes; the budget's placement; and the indexes the queries use.
@Suite("Tables served from the database's indexes")
struct DatabaseServedTests {
    /// The backends with a SQL store to compare: SQLite and PostgreSQL.
    static let backends = [Backend.sqlite, .postgres].filter(Backend.available.contains)

    /// A store at `location` with an index budget of `bytes` (1: every imported table is
    /// served from the database).
    static func open(_ backend: Backend, _ location: String, budget bytes: Int?) async throws -> any TableStore {
        let limits = IndexLimits(indexBytes: bytes)
        if backend == .postgres {
            return try await PostgresTableStore(
                url: try Service.postgres.value(), schema: location, queryBudget: testQueryBudget, indexLimits: limits)
        }
        return try SQLiteTableStore(path: location, queryBudget: testQueryBudget, indexLimits: limits)
    }

    /// Search terms: pieces of the random tables' text, folded or not, short and long, and
    /// LIKE's own wildcards.
    static let terms = [
        "a", "é", "e\u{301}", "ss", "ß", "σ", "ж", "10", "00", "aa", "abé", "x-", "%", "_", "😀", "zz", "todo", "one", "-5", "2011-0", "a%\u{301}b", "é_\u{301}",
    ]

    /// Sets `request`'s search to one of ``terms`` (a third of the time none) and, a quarter of
    /// the time, a filter of one of `columns` to another.
    static func drawSearch(_ request: inout PageRequest, columns: [String], using random: inout SplitMix64) {
        request.search = Int.random(in: 0..<3, using: &random) == 0 ? "" : terms.randomElement(using: &random)!
        if Int.random(in: 0..<4, using: &random) == 0 {
            request.columnSearch = [columns.randomElement(using: &random)!: terms.randomElement(using: &random)!]
        }
    }

    @Test("Pages served from the database agree with the in-memory index (seeded)", arguments: backends)
    func agreeWithMemory(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 2041
        var random = SplitMix64(seed: seed)
        let database = try await Self.open(backend, try backend.newLocation(), budget: 1)
        let memory = try await Self.open(backend, try backend.newLocation(), budget: nil)
        for tableNumber in 0..<6 {
            // At least a row: an empty table's index takes nothing, so it is held in memory.
            let csv = DifferentialTests.randomCSV(rows: Int.random(in: 1...70, using: &random), using: &random)
            let name = "d\(tableNumber)"
            for store in [database, memory] { try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:]) }
            #expect(try await database.indexPlacement(of: name) == .database)
            #expect(try await memory.indexPlacement(of: name) == .memory)
            let columns = try await memory.schema(of: name).columns.map(\.name)
            for round in 0..<24 {
                if round == 12 {
                    // Writes through both: the search index and key columns follow them.
                    let ids = try await memory.page(of: name, PageRequest(limit: 1_000)).rows.map(\.id)
                    for id in ids.shuffled(using: &random).prefix(3) {
                        for store in [database, memory] { try await store.delete(id, from: name) }
                    }
                    if let id = try await memory.page(of: name, PageRequest(limit: 1_000)).rows.map(\.id).randomElement(using: &random) {
                        for store in [database, memory] { try await store.update(id, in: name, set: ["s": "Zz todo ÉÉ", "m": "-5"]) }
                    }
                    for store in [database, memory] { _ = try await store.insert(["s": "abé one", "e": "todo", "i": "10"], into: name) }
                }
                var spec = DifferentialTests.randomSpec(columns: columns, using: &random)
                if Bool.random(using: &random) {
                    // The orders the database keeps indexes for: columns as they are, nulls anywhere.
                    spec = SortSpec(
                        spec.keys.map { key in
                            SortSpec.Key(key.column, key.direction, key.modifiers.filter { if case .nulls = $0 { true } else { false } })
                        })
                }
                var request = PageRequest(order: .spec(spec), limit: 1_000)
                Self.drawSearch(&request, columns: columns, using: &random)
                let context = "\(backend): table \(tableNumber), \(spec), search '\(request.search)' \(request.columnSearch), seed \(seed)"
                let expected = try await memory.page(of: name, request)
                // Every order: PostgreSQL's without a key column computed by SortKit as it scans.
                let got = try await database.page(of: name, request)
                #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(context) (replay with SORTKIT_SEED=\(seed))")
                #expect(got.filtered == expected.filtered, "\(context): count")
                #expect(got.rows.map(\.cells) == expected.rows.map(\.cells), "\(context): cells")
                request.limit = Int.random(in: 1...9, using: &random)
                let paged = try await DifferentialTests.keysetPages(database, name, request, most: expected.rows.count)
                #expect(paged == expected.rows.map(\.id), "\(context): keyset paging")
            }
        }
    }

    @Test("Deep pages of all rows, started at the first key's group or after the row before them, are the in-memory index's", arguments: backends)
    func deepPages(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let database = try await Self.open(backend, try backend.newLocation(), budget: 1)
        let memory = try await Self.open(backend, try backend.newLocation(), budget: nil)
        // Few values of `a` (a tenth blank: nulls), `d` mostly blank, numbers with ties.
        let rows = PageQuery.leadGroupOffset + 2_500
        var csv = "a,b,c,d\n"
        for _ in 0..<rows {
            let a = random.next() % 10 == 0 ? "" : ["Émile", "zoë", "apple", "Zoe", "ß", "日本"][Int(random.next() % 6)]
            let d = random.next() % 100 < 85 ? "" : "d\(random.next() % 5)"
            csv += "\(a),\(random.next() % 50),t\(random.next() % 1_000),\(d)\n"
        }
        for store in [database, memory] { try await store.importCSV(Array(csv.utf8), as: "deep", delimiter: UInt8(ascii: ","), presets: [:]) }
        #expect(try await database.indexPlacement(of: "deep") == .database)
        for spec in ["a,-b", "-a,b,c", "a:nulls-first,c", "-a:nulls-first,-b", "d,a,b", "d:nulls-first,b", "-d,c", "b,c", "a", "-b", "d:nulls-first"] {
            // Pages inside a group and across groups' ends (every 61 rows), and at the table's end.
            for offset in Array(stride(from: PageQuery.leadGroupOffset, to: rows - 30, by: 61)) + [rows - 30, rows - 1, rows, rows + 5] {
                let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), offset: offset, limit: 25)
                let context = "\(backend): \(spec) from \(offset), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
                let expected = try await memory.page(of: "deep", request)
                let got = try await database.page(of: "deep", request)
                #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(context)")
                #expect(got.rows.count == max(0, min(25, rows - offset)), "\(context)")
                #expect((got.next == nil) == (expected.next == nil), "\(context): next")
            }
        }
    }

    @Test("The budget holds the tables that fit in memory and serves the rest from the database", arguments: backends)
    func placement(_ backend: Backend) async throws {
        let location = try backend.newLocation()
        let small = "name,n\n" + (1...50).map { "row \($0),\($0)" }.joined(separator: "\n") + "\n"
        let big = "title,price\n" + (1...3_000).map { "Title number \($0) çà,\($0 % 97)" }.joined(separator: "\n") + "\n"
        let smallBytes = IndexPlacement.estimatedBytes(rows: 50, textBytes: 600, columns: 2)
        do {
            // Without a budget, both in memory; nothing is built in the database.
            let store = try await Self.open(backend, location, budget: nil)
            try await store.importCSV(Array(small.utf8), as: "small", delimiter: UInt8(ascii: ","), presets: [:])
            try await store.importCSV(Array(big.utf8), as: "big", delimiter: UInt8(ascii: ","), presets: [:])
            #expect(try await store.placeIndexes() == ["small": .memory, "big": .memory])
        }
        // A new server with a budget that holds the small table only: the big one gets its
        // database indexes at placement, once, and is served by them.
        let store = try await Self.open(backend, location, budget: smallBytes * 4)
        #expect(try await store.placeIndexes() == ["small": .memory, "big": .database])
        #expect(try await store.indexPlacement(of: "big") == .database)
        let page = try await store.page(of: "big", PageRequest(order: .spec(try SortSpec(parsing: "-price,title")), search: "number 12", limit: 3))
        #expect(page.rows.map { $0.cells[0] } == ["Title number 1260 çà", "Title number 2812 çà", "Title number 1259 çà"])
        #expect(page.filtered == 188) // two terms, "number" and "12"
        #expect(try await store.indexUsage(of: "big") == nil, "no in-memory index is loaded for a table served from the database")
        // An import under the same budget that doesn't fit is served from the database at once.
        try await store.importCSV(Array(big.utf8), as: "big2", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await store.indexPlacement(of: "big2") == .database)
        try await store.dropTable("big2")
        #expect(try await store.page(of: "small", PageRequest(order: .spec(try SortSpec(parsing: "-n")), limit: 1)).rows.first?.cells == ["row 50", "50"])
        #expect(try await store.indexUsage(of: "small") != nil)
    }

    @Test(
        "A database-served view streamed in one read is the in-memory pages' rows and CSV; a slow or vanished client",
        .timeLimit(.minutes(10)), arguments: backends)
    func streamedViews(_ backend: Backend) async throws {
        // Text cells a spreadsheet would run as formulas, quotes, separators, line breaks.
        let titles = ["=1+2", "-5", "@SUM(A1)", "+x", "\"q\"\"", "a,b", "l\nb", "é", "T"]
        let csv =
            "title,price\n"
            + (1...500).map {
                "\(titles[$0 % titles.count].isEmpty ? "" : "\"\(titles[$0 % titles.count].replacingOccurrences(of: "\"", with: "\"\""))\($0 % 37)\""),\($0 % 23)"
            }.joined(separator: "\n") + "\n"
        let streaming: any TableStore, streamWait: Duration
        if backend == .postgres {
            let store = try await PostgresTableStore(
                url: try Service.postgres.value(), schema: "st" + UUID().uuidString.lowercased().prefix(8), maximumConnections: 4,
                queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
            (streaming, streamWait) = (store, store.streamWait)
        } else {
            let store = try SQLiteTableStore(path: try backend.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
            (streaming, streamWait) = (store, store.streamWait)
        }
        let memory = try await Self.open(backend, try backend.newLocation(), budget: nil)
        for store in [streaming, memory] { try await store.importCSV(Array(csv.utf8), as: "v", delimiter: UInt8(ascii: ","), presets: [:]) }
        let table = try await streaming.table("v")
        let export = CSVExport(defusing: [.string, .integer])
        /// The view's rows in memory, all of them.
        func expected(_ request: PageRequest) async throws -> [TableRow] {
            var all = request
            all.limit = 1_000
            return try await memory.page(of: "v", all).rows
        }
        // Orders by keys the database stores, and by keys it doesn't (SQLite computes them in
        // the query, PostgreSQL's rows are sorted by SortKit as they are scanned).
        for (spec, search) in [
            ("-price,title", ""), ("title", "t1"), ("price", "nothing"), ("title:len,-price", ""), ("-price:abs,title:random=3", "t"),
            ("title:locale=sv:nocase", ""), ("-price", ""), ("title", ""),
        ] {
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, limit: 40)
            // The first page by page, then the rest in one read from its cursor.
            let first = try await streaming.page(of: table, request)
            var rest = request
            rest.after = first.next
            var rows = first.rows, records: [UInt8] = []
            if first.next != nil {
                /// The view from `request` streamed, then page by page from where the stream
                /// stopped, if it did (a client left behind on a busy machine: the full suite
                /// runs tests side by side on two cores).
                func streamed(_ request: PageRequest) async throws -> (rows: [TableRow], csv: [UInt8]) {
                    var rows: [TableRow] = [], csv: [UInt8] = []
                    let end = try await streaming.streamPages(of: table, request) {
                        rows += $0.rows
                        csv += $0.csv ?? []
                    }
                    #expect(end != .notStreamed, "\(spec)")
                    guard case .continues(let cursor) = end else { return (rows, csv) }
                    var paging = request, next: String? = cursor
                    while let after = next {
                        paging.after = after
                        let page = try await streaming.page(of: table, paging)
                        rows += page.rows
                        // A page of rows (PostgreSQL's SQL pages): written as the server does.
                        if let records = page.csv { csv += records } else if request.csv != nil { export.appendRecords(page.rows.map(\.cells), to: &csv) }
                        next = page.next
                    }
                    return (rows, csv)
                }
                rows += try await streamed(rest).rows
                rest.csv = export
                records = try await streamed(rest).csv
            }
            let all = try await expected(request)
            #expect(rows == all, "\(spec) '\(search)': \(rows.count) rows streamed, \(all.count) in memory")
            var expectedRecords: [UInt8] = []
            export.appendRecords(all.dropFirst(first.rows.count).map(\.cells), to: &expectedRecords)
            #expect(records == expectedRecords, "\(spec) '\(search)': the CSV records")
        }
        // A client slower than the database: the read stops once a batch waits over a second
        // for room, with a cursor after the last row handed on; pages from it give the rest.
        // (By a stored key, and by one SortKit computes: PostgreSQL's cursor is then made from
        // the selection's terms.)
        for spec in ["-title", "title:len,-price"] {
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), limit: 50)
            var rows: [TableRow] = []
            let end = try await streaming.streamPages(of: table, request) { page in
                rows += page.rows
                if rows.count == 50 { try await Task.sleep(for: streamWait * 3) }
            }
            guard case .continues(let cursor) = end else {
                Issue.record("a slow client's read by \(spec) ended \(end)")
                continue
            }
            var next: String? = cursor, paging = request
            while let after = next {
                paging.after = after
                let page = try await streaming.page(of: table, paging)
                rows += page.rows
                next = page.next
            }
            let all = try await expected(request)
            #expect(rows.count == 500 && rows == all, "a slow client by \(spec): \(rows.count) rows")
        }
        // A reader that goes away part way (a client gone): the read ends with its error, its
        // slot and connection come back, and the next read streams again.
        struct Gone: Error {}
        var batches = 0
        await #expect(throws: Gone.self) {
            _ = try await streaming.streamPages(of: table, PageRequest(order: .spec(try SortSpec(parsing: "title")), limit: 7)) { _ in
                batches += 1
                throw Gone()
            }
        }
        #expect(batches == 1)
        var again = 0
        let ended = try await streaming.streamPages(of: table, PageRequest(order: .spec(try SortSpec(parsing: "-title")), limit: 7)) {
            again += $0.rows.count
        }
        // Streamed again (on a busy machine its reader may stop before the end, as for any
        // client it leaves behind: then it was admitted and read part of the view).
        let after = try await streaming.page(of: table, PageRequest(limit: 3))
        if case .continues = ended { #expect(again > 0 && again < 500) } else { #expect(ended == .finished && again == 500) }
        #expect(after.rows.count == 3)
        // A table held in memory, or the manual order, is read page by page.
        #expect(try await memory.streamPages(of: try await memory.table("v"), PageRequest(limit: 5)) { _ in } == .notStreamed)
        #expect(try await streaming.streamPages(of: table, PageRequest(order: .manual, limit: 5)) { _ in } == .notStreamed)
    }

    @Test("SQLite: a download of every row by one key is read in row order and put in order; ids too sparse go by the index")
    func rowOrder() async throws {
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        let memory = try await Self.open(.sqlite, try Backend.sqlite.newLocation(), budget: nil)
        // Quotes, separators, line breaks, formulas, blanks and non-ASCII text in the cells.
        let titles = ["=1+2", "\"q\"\"", "a,b", "l\nb", "é", "", "e\u{301}", "日本"]
        let csv =
            "title,price\n"
            + (0..<3_000).map { "\"\(titles[$0 % titles.count].replacingOccurrences(of: "\"", with: "\"\""))\($0 % 13)\",\($0 % 17)" }.joined(separator: "\n")
            + "\n"
        for store in [store as any TableStore, memory] { try await store.importCSV(Array(csv.utf8), as: "r", delimiter: UInt8(ascii: ","), presets: [:]) }
        let export = CSVExport(defusing: [.string, .integer])
        /// The view's CSV records: streamed in row order (`nil` if it wasn't), and in memory;
        /// and, read again in `parts` parts of its ids, the same records (or `nil` too) and in
        /// how many parts they were read. `stale` reads with the table's catalog entry from
        /// before the last write: read again in one snapshot, one part.
        func records(_ spec: String, parts: Int = 2, stale: _TableInfo? = nil) async throws -> (
            rowOrder: [UInt8]?, memory: [UInt8], readInParts: Int
        ) {
            let current = try await store.read { try await SQLiteTableStore.info("r", $0) }
            let info = stale ?? current
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), limit: 1_000)
            let ordering = try SQLiteTableStore.ordering(request.order, info)
            let ids = try PageQuery(request, info: info, ordering: ordering).ids(after: nil, offset: 0)
            var streamed: [UInt8] = [], expected: [UInt8] = []
            let end = try await store.streamInRowOrder(ids: .query(ids), table: info, columns: 2, csv: export, batchRows: 97) { _, csv, _ in
                streamed += csv ?? []
            }
            var all = request
            all.limit = 5_000
            export.appendRecords(try await memory.page(of: "r", all).rows.map(\.cells), to: &expected)
            // The same records read in `parts` parts, handed on in batches of 1,000.
            let (read, readInParts) = try await SQLiteTableStore.records(store.database, .query(ids), info, columns: 2, csv: export, parts: parts)
            let again = try await read?.handedOn(batchRows: 1_000) ?? []
            #expect((read == nil) == (end == nil) && (read == nil || again == streamed), "\(spec) in \(parts) parts")
            return (end == nil ? nil : streamed, expected, readInParts)
        }
        for spec in ["title", "-title", "price", "-price:nulls-first"] {
            let (streamed, expected, parts) = try await records(spec)
            #expect(streamed == expected, "\(spec): \(streamed?.count ?? -1) bytes streamed, \(expected.count) in memory")
            #expect(parts == 2, "\(spec): read in \(parts) parts")
        }
        // Three parts, one, and more than a part's 127 give the same records.
        for parts in [3, 1, 5_000] { #expect(try await records("-title", parts: parts).readInParts == min(parts, 127)) }
        // A thousand rows left of 3,000, ids up to 3,000: put in order by id. Twenty left: too
        // sparse (a place per id would outnumber the rows), the index walk reads them.
        for (kept, inRowOrder) in [(1_000, true), (20, false)] {
            let gone = (1...3_000).map(Int64.init).filter { $0 % Int64(3_000 / kept) != 0 }
            let remaining = try await memory.page(of: "r", PageRequest(limit: 5_000)).rows.map(\.id)
            let before = try await store.read { try await SQLiteTableStore.info("r", $0) }
            for store in [store as any TableStore, memory] { try await store.delete(Array(Set(gone).intersection(remaining)), from: "r") }
            let (streamed, expected, _) = try await records("title")
            #expect((streamed != nil) == inRowOrder, "\(kept) rows")
            if let streamed { #expect(streamed == expected, "\(kept) rows") }
            // With the catalog entry from before the delete, each reader finds the table moved
            // on: read again in one snapshot (the rows of now, in the order of now).
            let (stale, _, parts) = try await records("title", stale: before)
            if inRowOrder {
                #expect(parts == 1 && stale == expected, "\(kept) rows, stale: \(parts) parts")
            }
        }
    }

    @Test("SQLite: first pages by a computed key in halves, side by side; stale, in one read")
    func pageInHalves() async throws {
        let rows = 4 * SQLiteTableStore.halvesRows + 3
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        let memory = try await Self.open(.sqlite, try Backend.sqlite.newLocation(), budget: nil)
        // Titles of repeating lengths (many ties across the halves), decomposed and blank ones,
        // and prices with nulls and negatives.
        let titles = ["é", "e\u{301}x", "日本語", "", "Zoë Ocean", "a", "  ", "Ab"]
        let csv =
            "title,price\n"
            + (0..<rows).map { "\(titles[$0 % titles.count])\($0 % 7 == 0 ? "" : String($0 % 13)),\($0 % 11 == 0 ? "" : String($0 % 23 - 11))" }.joined(
                separator: "\n") + "\n"
        for store in [store as any TableStore, memory] { try await store.importCSV(Array(csv.utf8), as: "h", delimiter: UInt8(ascii: ","), presets: [:]) }
        // A row deleted at each end and in the middle: ids no longer dense.
        for store in [store as any TableStore, memory] { try await store.delete([1, Int64(rows / 2), Int64(rows)], from: "h") }
        let info = try await store.read { try await SQLiteTableStore.info("h", $0) }
        for (spec, offset, limit) in [("title:len", 0, 25), ("-title:len,-price", 37, 10), ("title:random=7", 0, 1), ("price:abs,title:len", 9_000, 999)] {
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), offset: offset, limit: limit)
            let ordering = try SQLiteTableStore.ordering(request.order, info)
            let query = try PageQuery(request, info: info, ordering: ordering)
            let halves = try await store.pageInHalves(request, info, ordering, query)
            let expected = try await memory.page(of: "h", request)
            #expect(halves?.rows.map(\.id) == expected.rows.map(\.id), "\(spec) from \(offset)")
            #expect(halves?.filtered == expected.filtered && (halves?.next == nil) == (expected.next == nil), "\(spec) from \(offset)")
            // Its cursor goes on where the memory's does.
            if let next = halves?.next, let after = expected.next {
                var more = request
                (more.offset, more.after) = (0, next)
                var oracle = request
                (oracle.offset, oracle.after) = (0, after)
                #expect(try await store.page(of: "h", more).rows.map(\.id) == (try await memory.page(of: "h", oracle).rows.map(\.id)), "\(spec) next")
            }
            // Through the store's own page, and with the catalog entry of before the write.
            #expect(try await store.page(of: "h", request).rows.map(\.id) == expected.rows.map(\.id), "\(spec) page")
            var stale = info
            stale.dataVersion -= 1
            #expect(try await store.pageInHalves(request, stale, ordering, query) == nil, "\(spec) stale")
        }
        // Not in halves: past the bounds, filtered, an order of stored keys or led by one (its
        // index walk stops at the page), a term of text.
        for request in [
            PageRequest(order: .spec(try SortSpec(parsing: "title:len")), offset: SQLiteTableStore.halvesRows, limit: 1),
            PageRequest(order: .spec(try SortSpec(parsing: "title:len")), search: "zoë", limit: 5),
            PageRequest(order: .spec(try SortSpec(parsing: "title")), limit: 5),
            PageRequest(order: .spec(try SortSpec(parsing: "title,title:len")), limit: 5),
            PageRequest(order: .spec(try SortSpec(parsing: "title:len,title:binary")), limit: 5),
        ] {
            let ordering = try SQLiteTableStore.ordering(request.order, info)
            #expect(try await store.pageInHalves(request, info, ordering, try PageQuery(request, info: info, ordering: ordering)) == nil)
        }
        // A filtered page beside its count: SearchPagesTests.
    }

    @Test("A database-served table: cells too long for a B-tree entry, schema changes, a drop and the same name again", arguments: backends)
    func oddTables(_ backend: Backend) async throws {
        var random = SplitMix64(seed: 77)
        // 4,000 letters that don't compress: past PostgreSQL's 2,704-byte B-tree entry.
        let long = String((0..<4_000).map { _ in Character(UnicodeScalar(UInt8.random(in: 97...122, using: &random))) })
        let csv = "note,n\nb \(long),2\n\"a, \(long.prefix(9))\",10\n,1\nÉ,\n"
        let store = try await Self.open(backend, try backend.newLocation(), budget: 1)
        for round in 0..<2 {
            try await store.importCSV(Array(csv.utf8), as: "odd", delimiter: UInt8(ascii: ","), presets: [:])
            #expect(try await store.indexPlacement(of: "odd") == .database)
            func notes(_ spec: String, _ search: String = "") async throws -> [String] {
                try await store.page(of: "odd", PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, limit: 10)).rows.map {
                    String($0.cells[0].prefix(3))
                }
            }
            #expect(try await notes("note") == ["a, ", "b \(long.prefix(1))", "É", ""], "round \(round)")
            #expect(try await notes("-n") == ["a, ", "b \(long.prefix(1))", "", "É"])
            #expect(try await notes("n", String(long.dropFirst(100).prefix(20))) == ["b \(long.prefix(1))"])
            // A longer cell written later, and schema changes: the indexes follow.
            try await store.update(4, in: "odd", set: ["note": "c " + long])
            // A megabyte of non-ASCII text, ordered by a key the table doesn't store (SQLite
            // computes it in its query, PostgreSQL as it scans).
            try await store.update(2, in: "odd", set: ["note": "a, " + String(repeating: "ж", count: 500_000)])
            #expect(try await notes("-note:len") == ["a, ", "b \(long.prefix(1))", "c \(long.prefix(1))", ""], "round \(round)")
            try await store.alter("odd", [.addColumn("extra", .integer), .changeType("n", to: .float), .renameColumn("note", to: "text")])
            try await store.update(3, in: "odd", set: ["extra": "5", "n": "0.5"])
            let page = try await store.page(of: "odd", PageRequest(order: .spec(try SortSpec(parsing: "-extra,n")), search: String(long.prefix(30)), limit: 5))
            #expect(page.rows.map(\.id) == [1, 4] && page.filtered == 2, "round \(round)")
            #expect(try await store.page(of: "odd", PageRequest(order: .spec(try SortSpec(parsing: "n")), limit: 5)).rows.map(\.id) == [3, 1, 2, 4])
            #expect(try await store.page(of: "odd", PageRequest(order: .spec(try SortSpec(parsing: "-text")), limit: 5)).rows.map(\.id) == [4, 1, 2, 3])
            try await store.dropTable("odd")
        }
    }

    @Test("Streamed reads past a store's maximum are refused, having read nothing; a read's slot comes back when it ends")
    func streamSlots() async throws {
        let slots = _StreamSlots(maximum: 2)
        final class Gate: Sendable {
            let started = Atomic(0), open = Atomic(false)
        }
        let gate = Gate()
        /// A read that holds its slot until the gate opens.
        let held: @Sendable (AsyncThrowingStream<_StreamBatch, any Error>.Continuation, _StreamBatch.Ahead) async throws -> _StreamEnd = {
            sink, _ in
            gate.started.add(1, ordering: .relaxed)
            while !gate.open.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            sink.finish()
            return .finished
        }
        let first = Task { try await slots.stream({ _, _, _ in }, read: held) }
        let second = Task { try await slots.stream({ _, _, _ in }, read: held) }
        while gate.started.load(ordering: .relaxed) < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try await slots.stream({ _, _, _ in Issue.record("a refused read handed on rows") }, read: held) == .notStreamed)
        #expect(gate.started.load(ordering: .relaxed) == 2, "the refused read ran")
        gate.open.store(true, ordering: .releasing)
        #expect(try await first.value == .finished)
        #expect(try await second.value == .finished)
        #expect(try await slots.stream({ _, _, _ in }, read: held) == .finished, "a slot given back")
        // PostgreSQL streams up to a quarter of its pool's connections, SQLite two.
        #expect(try SQLiteTableStore(path: try Backend.sqlite.newLocation()).streams.maximum == 2)
    }

    @Test(
        "PostgreSQL: a database-served table's column indexes include their keys (index-only walks); older ones are made again at placement",
        .needs(.postgres, for: "PostgreSQL's indexes"))
    func includedKeys() async throws {
        let location = try Backend.postgres.newLocation()
        let csv = "title,price\n" + (1...3_000).map { "Title \($0 % 1_000) é,\($0 % 97)" }.joined(separator: "\n") + "\n"
        let store = try #require(try await Self.open(.postgres, location, budget: 1) as? PostgresTableStore)
        // A preset's index is kept when the column indexes are made again.
        try await store.importCSV(Array(csv.utf8), as: "inc", delimiter: UInt8(ascii: ","), presets: ["cheap": try SortSpec(parsing: "price,title")])
        try await store.buildIndexes()
        let info = try await store.read { try await PostgresTableStore.info("inc", $0) }
        // Per column index: 1 where it includes a column beside its keys.
        func included(_ store: PostgresTableStore) async throws -> [Int64] {
            try await store.read { session in
                try await session.select(
                    """
                    SELECT CASE WHEN i.indnatts > i.indnkeyatts THEN 1 ELSE 0 END FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
                    WHERE i.indrelid = '\(info.physical)'::regclass AND c.relname LIKE '%\\_c%' ORDER BY c.relname
                    """)
            }.map { $0[0].integer ?? -1 }
        }
        #expect(try await included(store) == [1, 1, 1, 1])
        let request = PageRequest(order: .spec(try SortSpec(parsing: "-title,price")), offset: 1_234, limit: 7)
        let expected = try await store.page(of: "inc", request).rows.map(\.id)
        // As a table indexed before: its column indexes without the key, and no mark.
        try await store.write { session in
            for (_, suffix, columns, _) in try info.schema.columnIndexes(.postgresql, info.databaseIndex) {
                try await session.execute("DROP INDEX \(info.physical)_\(suffix)")
                try await session.execute("CREATE INDEX \(info.physical)_\(suffix) ON \(info.physical) (\(columns))")
            }
            try await session.execute("COMMENT ON TABLE \(info.physical) IS NULL")
        }
        #expect(try await included(store) == [0, 0, 0, 0])
        // The builder leaves such a table to its placement: it works on tables marked pending.
        #expect(try await store.indexStep() == false)
        #expect(try await store.indexesPending(of: "inc") == false)
        #expect(try await included(store) == [0, 0, 0, 0])
        // A server started on it places the table in the database again: made again, once.
        let restarted = try #require(try await Self.open(.postgres, location, budget: 1) as? PostgresTableStore)
        #expect(try await restarted.placeIndexes() == ["inc": .database])
        try await restarted.buildIndexes()
        #expect(try await included(restarted) == [1, 1, 1, 1])
        #expect(try await restarted.page(of: "inc", request).rows.map(\.id) == expected)
    }

    @Test(
        "PostgreSQL: an order it has no key column for is computed as it scans — deep pages, a search, writes; past the deepest offset, a cursor",
        .needs(.postgres, for: "PostgreSQL's scans"))
    func computedOrders() async throws {
        let database = try await Self.open(.postgres, try Backend.postgres.newLocation(), budget: 1)
        let memory = try await Self.open(.postgres, try Backend.postgres.newLocation(), budget: nil)
        // Titles in both normal forms, blanks (nulls), ties; prices with signs.
        let titles = ["Émile", "E\u{301}mile", "", "zoë", "Ærø", "日本", "ß", "a"]
        let csv =
            "title,price\n"
            + (0..<3_000).map { titles[$0 % titles.count].isEmpty ? ",\($0 % 3)" : "\(titles[$0 % titles.count])\($0 % 7),\(($0 % 11) - 5)" }.joined(
                separator: "\n") + "\n"
        for store in [database, memory] { try await store.importCSV(Array(csv.utf8), as: "c", delimiter: UInt8(ascii: ","), presets: [:]) }
        try await database.delete(Array(Int64(10)...Int64(40)), from: "c")
        try await memory.delete(Array(Int64(10)...Int64(40)), from: "c")
        for spec in ["title:len,-price", "-price:abs,title:random=3", "title:locale=sv:nocase", "title:enum=a1|ß2:nulls-first,price:len"] {
            for (offset, search) in [(0, ""), (2_950, ""), (1_500, "e"), (0, "日本")] {
                let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, offset: offset, limit: 30)
                let expected = try await memory.page(of: "c", request), got = try await database.page(of: "c", request)
                #expect(got.rows == expected.rows && got.filtered == expected.filtered, "\(spec) from \(offset), search '\(search)'")
                #expect((got.next == nil) == (expected.next == nil), "\(spec) from \(offset): next")
            }
        }
        // A cursor of another kind (an in-memory index's starts with text), correctly signed
        // and with as many values as the order's terms, is refused.
        let store = try #require(database as? PostgresTableStore)
        var foreign = PageRequest(order: .spec(try SortSpec(parsing: "title:len")), limit: 5)
        foreign.after = try KeysetCursor(order: foreign.order.description, search: foreign.cursorScope, values: [.text("index"), .integer(7)])
            .encoded(secret: store.secret)
        await #expect(throws: TableStoreError.self) { _ = try await database.page(of: "c", foreign) }
        // A deep offset holds the rows before it: past a million, the error names the cursor.
        let deep = PageRequest(order: .spec(try SortSpec(parsing: "title:len")), offset: 1_000_001, limit: 5)
        await #expect(throws: TableStoreError.self) { _ = try await database.page(of: "c", deep) }
        do {
            _ = try await database.page(of: "c", deep)
        } catch {
            #expect("\(error)".contains("after="), "\(error)")
        }
    }

    @Test("The database's indexes serve each column's order both ways and the search")
    func plans() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        let csv = "title,price\n" + (1...500).map { "Book \($0),\($0)" }.joined(separator: "\n") + "\n"
        try await store.importCSV(Array(csv.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.buildIndexes()
        // With rows marked gone (`_Tombstones`): the view leaves them out without a sort.
        store.compactor.pause()
        try await store.delete([3, 250], from: "books")
        for spec in ["title", "-title", "price", "-price"] {
            let plan = try await store.queryPlan(of: "books", PageRequest(order: .spec(try SortSpec(parsing: spec)), limit: 10)).joined(separator: " | ")
            #expect(plan.contains("USING INDEX st_1_c"), "\(spec): \(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(spec): \(plan)")
        }
        let plan = try await store.queryPlan(of: "books", PageRequest(search: "book 12", limit: 10)).joined(separator: " | ")
        #expect(plan.contains("VIRTUAL TABLE INDEX"), "\(plan)")
        // The index builds' sorter settings (2 MB runs on two threads) are the import's alone:
        // the writing connection has its 64 MB cache and no sorter threads again.
        let settings = try await store.database.write { db in
            [try Int.fetchOne(db, sql: "PRAGMA cache_size"), try Int.fetchOne(db, sql: "PRAGMA threads")]
        }
        #expect(settings == [-SQLiteTableStore.pageCacheKiB, 0])
        // LIKE's wildcards are found by scalar: a mark after % doesn't hide it (search folding
        // drops U+0301 but keeps the enclosing U+20DD, which makes "%⃝" one Character), and
        // such a term is tested by instr alone.
        for term in ["bo%\u{301}k", "b_\u{301}ok", "bo%\u{20DD}k", "b_\u{20DD}ok"] {
            let wildcard = try await store.queryPlan(of: "books", PageRequest(search: term, limit: 10)).joined(separator: " | ")
            #expect(!wildcard.contains("VIRTUAL TABLE"), "\(term.unicodeScalars.map(\.value)): \(wildcard)")
        }
    }
}
