import Foundation
import SortKit
import SortKitShared
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// A search of a table served from SQLite's indexes: its page walks the order's index or reads
/// the search index, whichever answers first, and its count is read in two halves of the ids
/// side by side; the same rows and counts as the in-memory index either way.
@Suite("Searches of tables served from SQLite's indexes")
struct SearchPagesTests {
    /// A table past the size counted in halves: a word in one row of three (`isla`), one in six
    /// rows at its ends and middle (`zebra`), composed and decomposed accents, `ß`, blank and
    /// megabyte-free odd cells, and prices with nulls.
    static func csv(rows: Int) -> String {
        let sparse: Set<Int> = [0, 1, rows / 2, rows / 2 + 1, rows - 2, rows - 1]
        let words = ["Isla", "Café", "Cafe\u{301}", "Straße", "", "日本語", "ISLA mar", "  "]
        return "title,price\n"
            + (0..<rows).map { row in
                let title = (sparse.contains(row) ? "Zebra " : "") + words[row % words.count] + (row % 3 == 0 ? " isla" : "") + " \(row % 97)"
                return "\(title),\(row % 11 == 0 ? "" : String(row % 23 - 11))"
            }.joined(separator: "\n") + "\n"
    }

    /// ``csv(rows:)`` as table `s` in a store serving it from the database (its indexes made)
    /// and in one holding it in memory, the rows `deleting` deleted from both.
    static func stores(rows: Int, deleting: [Int64]) async throws -> (database: SQLiteTableStore, memory: SQLiteTableStore) {
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        let memory = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget)
        for each in [store, memory] { try await each.importCSV(Array(Self.csv(rows: rows).utf8), as: "s") }
        try await store.buildIndexes()
        for each in [store, memory] { try await each.delete(deleting, from: "s") }
        return (store, memory)
    }

    @Test("A search's pages, cursors and counts are the in-memory index's: dense and rare terms, short ones, several, per column")
    func agreeWithMemory() async throws {
        let rows = 4 * SQLiteTableStore.halvesRows + 5
        // Rows deleted at an end and in the middle: the ids aren't dense, and the halves' split
        // falls near a gap.
        let (store, memory) = try await Self.stores(rows: rows, deleting: [1, Int64(rows / 2 + 1), Int64(rows)])
        let searches: [(String, [String: String])] = [
            ("isla", [:]), ("zebra", [:]), ("ZEBRA isla", [:]), ("nothing", [:]), ("is", [:]), ("café", [:]), ("cafe\u{301}", [:]),
            ("strasse", [:]), ("日本語", [:]), ("%a", [:]), ("zebra", ["title": "isla"]), ("", ["title": "mar"]),
        ]
        for (search, filter) in searches {
            for spec in ["", "title", "-price,title", "title:len"] {
                let context = "'\(search)' \(filter) by '\(spec)'"
                for (offset, limit) in [(0, 7), (30, 5)] {
                    let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, columnSearch: filter, offset: offset, limit: limit)
                    let (got, expected) = (try await store.page(of: "s", request), try await memory.page(of: "s", request))
                    #expect(got.rows.map(\.id) == expected.rows.map(\.id), "\(context) from \(offset)")
                    #expect(got.rows.map(\.cells) == expected.rows.map(\.cells), "\(context) from \(offset): cells")
                    #expect(got.filtered == expected.filtered && (got.next == nil) == (expected.next == nil), "\(context) from \(offset): count")
                }
                // Paged on by cursor to the end (a rare term's rows all; a dense term's first 120).
                let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, columnSearch: filter, limit: 40)
                let expected = try await DifferentialTests.keysetPages(memory, "s", request, most: 120)
                #expect(try await DifferentialTests.keysetPages(store, "s", request, most: 120) == expected, "\(context): keyset paging")
            }
        }
    }

    @Test("A search's download is the in-memory index's CSV: common, rare, non-ASCII and absent terms, by two orders")
    func downloads() async throws {
        let rows = 4 * SQLiteTableStore.halvesRows + 5
        let (store, memory) = try await Self.stores(rows: rows, deleting: [2, Int64(rows / 2)])
        let export = CSVExport(defusing: [.string, .float])
        for search in ["isla", "strasse", "日本語", "zebra", "nothing"] {
            for spec in ["title", "-price"] {
                var request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, limit: rows)
                var expected: [UInt8] = []
                export.appendRecords(try await memory.page(of: "s", request).rows.map(\.cells), to: &expected)
                request.csv = export
                request.limit = 500
                var downloaded: [UInt8] = []
                let end = try await store.streamPages(of: try await store.table("s"), request) { downloaded += $0.csv ?? [] }
                #expect(end != .notStreamed, "'\(search)' by \(spec)")
                // A client left behind on a busy machine (the full suite runs tests side by side):
                // the read stops after a batch, and pages from its cursor give the rest.
                if case .continues(let cursor) = end {
                    var next: String? = cursor
                    while let after = next {
                        request.after = after
                        let page = try await store.page(of: "s", request)
                        if let records = page.csv { downloaded += records } else { export.appendRecords(page.rows.map(\.cells), to: &downloaded) }
                        next = page.next
                    }
                }
                // (Compared first: a failure shouldn't print a megabyte of bytes.)
                let same = downloaded == expected
                #expect(same, "'\(search)' by \(spec): \(downloaded.count) bytes, \(expected.count) expected")
            }
        }
    }

    @Test("The order's walk and the search index find the same rows; the halves' count is one read's; a stale snapshot reads again")
    func walkAndHalves() async throws {
        let rows = 4 * SQLiteTableStore.halvesRows + 1
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        try await store.importCSV(Array(Self.csv(rows: rows).utf8), as: "s")
        try await store.buildIndexes()
        try await store.delete([Int64(rows / 2)], from: "s")
        let info = try await store.read { try await SQLiteTableStore.info("s", $0) }
        #expect(info.searchIndexed)
        for (search, filter) in [("isla", [String: String]()), ("zebra", [:]), ("nothing", [:]), ("zebra isla", ["title": "isla"]), ("is", [:])] {
            for spec in ["", "-price,title"] {
                let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, columnSearch: filter, limit: 9)
                let query = try PageQuery(request, info: info, ordering: try SQLiteTableStore.ordering(request.order, info))
                // Terms of three scalars or more go through the search index; a walk tests every row.
                #expect(query.narrowsBySearchIndex == (search != "is"), "\(search)")
                var walk = query
                walk.usesSearchIndex = false
                #expect(!walk.narrowsBySearchIndex && !walk.select(request, cursor: nil).sql.contains("_search"))
                let indexed = try await store.pageRows(select: query.select(request, cursor: nil), count: query.count(), csv: nil)
                let walked = try await store.pageRows(select: walk.select(request, cursor: nil), count: walk.count(), csv: nil)
                #expect(walked.rows == indexed.rows && walked.filtered == indexed.filtered, "'\(search)' by '\(spec)'")
                // Two halves: the count of one read, and the versions of the request's catalog entry.
                let halves = try await store.countInHalves(query, info)
                #expect(halves?.count == indexed.filtered && halves?.version == Int(info.dataVersion), "'\(search)' halves")
                let beside = try await store.pageBesideCount(query, request, cursor: nil, csv: nil, info)
                #expect(beside?.rows == indexed.rows && beside?.filtered == indexed.filtered, "'\(search)' beside")
                // A catalog entry of an older data version: every read has the newer one, and the
                // page stands. Of another schema version: `nil`, and the page is read again.
                var older = info
                older.dataVersion -= 1
                #expect(try await store.pageBesideCount(query, request, cursor: nil, csv: nil, older)?.filtered == indexed.filtered)
                var stale = info
                stale.schemaVersion += 1
                let staleQuery = try PageQuery(request, info: stale, ordering: try SQLiteTableStore.ordering(request.order, stale))
                #expect(try await store.pageBesideCount(staleQuery, request, cursor: nil, csv: nil, stale) == nil, "'\(search)' stale")
            }
        }
        // A part of the ids: the search index finds that part's rows alone, and the row test
        // is left to it (a range of `t.id` too made SQLite walk the range).
        let request = PageRequest(search: "isla", limit: 5)
        var part = try PageQuery(request, info: info, ordering: try SQLiteTableStore.ordering(request.order, info))
        part.idRange = 10...20
        #expect(part.count().sql.contains("rowid BETWEEN") && !part.count().sql.contains("t.id BETWEEN"), "\(part.count().sql)")
        var short = try PageQuery(PageRequest(search: "is", limit: 5), info: info, ordering: try SQLiteTableStore.ordering(request.order, info))
        short.idRange = 10...20
        #expect(short.count().sql.contains("t.id BETWEEN"), "\(short.count().sql)")
        var walkedPart = part
        walkedPart.usesSearchIndex = false
        let inPart = try await store.pageRows(select: part.count(), count: nil, csv: nil).rows.first?.first?.integer
        let walkedInPart = try await store.pageRows(select: walkedPart.count(), count: nil, csv: nil).rows.first?.first?.integer
        #expect(inPart != nil && inPart == walkedInPart)
    }
}
