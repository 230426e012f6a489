import Foundation
import GRDB
import GRDBSQLite
import OrderKeys
import SortKit
import SortKitTestSupport
import Synchronization
import Testing

@testable import SortKitSQL

/// What a request may make the in-memory index keep and do (#34): rankings under byte budgets
/// (least recently used out), a cap on new orders per request, and a time budget that covers
/// the wait for a search and the search itself, whatever the cells hold.
@Suite("Index limits")
struct IndexLimitsTests {
    /// A table of `rows` rows and 8 text columns, each cell distinct (a ranking of it is
    /// 8 bytes a row and then some).
    static func table(_ store: SQLiteTableStore, rows: Int, name: String = "t") async throws {
        var csv = (0..<8).map { "c\($0)" }.joined(separator: ",") + "\n"
        for row in 0..<rows { csv += (0..<8).map { "v\(($0 * 7919 + row * 104_729) % 1_000_003)" }.joined(separator: ",") + "\n" }
        try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
    }

    static func sorted(_ store: SQLiteTableStore, _ spec: String, table: String = "t") async throws -> [Int64] {
        try await store.page(of: table, PageRequest(order: .spec(SortSpec(parsing: spec)), limit: 5_000)).rows.map(\.id)
    }

    @Test("Rankings stay within the per-table and the all-tables budget, least recently used out; pages stay right")
    func rankingBudgets() async throws {
        let rows = 5_000
        // One ranking of 5,000 rows: 40 KB and its groups; a budget of three per table, five in all.
        let one = 2 * rows * 4 + (rows + 1) * 4
        let store = try SQLiteTableStore(
            path: try temporaryDatabase(), queryBudget: testQueryBudget,
            indexLimits: IndexLimits(rankingBytesPerTable: 3 * one, rankingBytes: 5 * one))
        try await Self.table(store, rows: rows)
        let oracle = try SQLiteTableStore(path: try temporaryDatabase(), inMemoryIndex: false, queryBudget: testQueryBudget)
        try await Self.table(oracle, rows: rows)
        var kept = store.indexes.usage(table: 1)!
        #expect(kept.rankingBytes <= 3 * one && kept.rankingBudget == 3 * one)
        // Every column a new way: each answer is the SQL path's, and the index never holds more
        // than its budget.
        for spec in ["c0:nocase", "-c1:fold", "c2:len", "c3:binary", "c4:nocase", "c5:fold", "c6:len", "c7:binary", "c0:nocase"] {
            #expect(try await Self.sorted(store, spec) == Self.sorted(oracle, spec), "\(spec)")
            // Background builds of a first page land a moment later.
            try await Task.sleep(for: .milliseconds(20))
            kept = store.indexes.usage(table: 1)!
            #expect(kept.rankingBytes <= 3 * one, "\(spec): \(kept.rankingBytes) bytes kept")
        }
        // Deep pages build the ranking at once; the most recent ones are the ones kept.
        _ = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "c5:nocase")), offset: 4_500, limit: 10))
        _ = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "c6:nocase")), offset: 4_500, limit: 10))
        let variants = Set(store.indexes.keptVariants.map(\.columnName))
        #expect(variants.contains("k5_text_nocase") && variants.contains("k6_text_nocase"), "\(variants)")
        // A write updates only the kept rankings, and pages stay right.
        try await store.update(7, in: "t", set: ["c5": "aaa"])
        try await oracle.update(7, in: "t", set: ["c5": "aaa"])
        #expect(try await Self.sorted(store, "c5:nocase") == Self.sorted(oracle, "c5:nocase"))
        #expect(store.indexes.usage(table: 1)!.rankingBytes <= 3 * one)
        // A second table: all tables together stay within five rankings' bytes.
        try await Self.table(store, rows: rows, name: "u")
        for spec in ["c0:nocase", "c1:len", "c2:fold"] {
            _ = try await store.page(of: "u", PageRequest(order: .spec(SortSpec(parsing: spec)), offset: 4_900, limit: 5))
        }
        let total = [Int64(1), 2].compactMap { store.indexes.usage(table: $0)?.rankingBytes }.reduce(0, +)
        #expect(total <= 5 * one, "\(total) bytes in all")
    }

    @Test("An import, and a table read into memory again, build only the orders that fit the table's budget: presets' keys, then columns in order")
    func ordersWithinBudgetAtImport() async throws {
        let rows = 2_000, one = 12 * rows + 4
        let path = try temporaryDatabase()
        let limits = IndexLimits(rankingBytesPerTable: 3 * one, rankingBytes: 100 * one)
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: limits)
        var csv = (0..<8).map { "c\($0)" }.joined(separator: ",") + "\n"
        for row in 0..<rows { csv += (0..<8).map { "v\(($0 * 7919 + row * 104_729) % 1_000_003)" }.joined(separator: ",") + "\n" }
        let presets = ["b": try SortSpec(parsing: "-c5:nocase"), "a": try SortSpec(parsing: "c6,c7")]
        let schema = try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: presets)
        // Preset "a"'s c6 and c7, preset "b"'s c5 under nocase; c0 would come next.
        let expected = Set(try _TableIndex.defaultVariantsByPriority(schema).prefix(3).map(\.columnName))
        #expect(expected == ["k6_text_natural", "k7_text_natural", "k5_text_nocase"])
        #expect(Set(store.indexes.keptVariants.map(\.columnName)) == expected)
        // Read into memory again by another store on the same file (a restart): the same ones.
        let again = try SQLiteTableStore(path: path, queryBudget: testQueryBudget, indexLimits: limits)
        _ = try await again.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "c6")), limit: 5))
        #expect(Set(again.indexes.keptVariants.map(\.columnName)) == expected)
        // No budget for one order: none built, and pages are still right.
        let none = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget, indexLimits: IndexLimits(rankingBytesPerTable: one / 2))
        try await none.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(none.indexes.keptVariants.isEmpty)
        #expect(try await Self.sorted(none, "c3") == Self.sorted(store, "c3"))
        // Ten million rows of a 256 MB table budget: two orders.
        #expect(try _TableIndex.defaultVariants(schema, rows: 10_000_000, budget: 256 << 20).count == 2)
    }

    @Test("Over the all-tables budget, orders no request has read go before read ones, least important first")
    func unreadOrdersGoFirst() async throws {
        let rows = 2_000, one = 12 * rows + 4
        let store = try SQLiteTableStore(
            path: try temporaryDatabase(), queryBudget: testQueryBudget, indexLimits: IndexLimits(rankingBytesPerTable: 3 * one, rankingBytes: 4 * one))
        // t: c0, c1, c2 built; c0 and c1 read.
        try await Self.table(store, rows: rows)
        for spec in ["c0", "c1"] { _ = try await Self.sorted(store, spec) }
        // u: its c0, c1, c2 built; two of the six go, the unread c2s (the last columns) first.
        try await Self.table(store, rows: rows, name: "u")
        #expect(store.indexes.usage(table: 1)?.rankings == 2 && store.indexes.usage(table: 2)?.rankings == 2)
        #expect(store.indexes.keptVariants.map(\.columnName).sorted() == ["k0_text_natural", "k0_text_natural", "k1_text_natural", "k1_text_natural"])
    }

    @Test("Each structure of the index stays within its stated bytes per row, imported and read again, multilingual text included")
    func structureBytes() async throws {
        let path = try temporaryDatabase()
        let importer = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        let words = ["Île", "sjö", "東京", "Ωκεανός", "Река", "e\u{301}t\u{E9}", "plain", "ß"]
        var csv = "title,author,price,when\n"
        for row in 0..<20_000 {
            csv += "\(words[row % 8]) \(words[row * 7 % 8]) \(row),A. \(words[row * 3 % 8]),\(row % 977).5,2020-01-\(10 + row % 19)\n"
        }
        try await importer.importCSV(Array(csv.utf8), as: "m", delimiter: UInt8(ascii: ","), presets: [:])
        // The writing connection's page cache gives the import's pages back once committed (it
        // kept up to 64 MB for the server's life).
        let cached = try await importer.database.writeWithoutTransaction { db in
            var used: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &used, &highest, 0)
            return used
        }
        #expect(cached < 256 * 1_024, "the writer's page cache holds \(cached) bytes after a \(csv.utf8.count)-byte import")
        for (round, spec) in ["title", "-price,title"].enumerated() {
            // The index an import built, then one another store reads from the database.
            let store = round == 0 ? importer : try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
            _ = try await store.page(of: "m", PageRequest(order: .spec(try SortSpec(parsing: spec)), search: round == 1 ? "sjö" : "", limit: 5))
            let usage = try #require(try await store.indexUsage(of: "m"))
            let rows = usage.rows, bytes = usage.structureBytes
            let perRow = bytes.mapValues { Double($0) / Double(rows) }
            print(
                "index bytes per row after \(spec): \(perRow.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", "))"
            )
            // Stated: a column whose cells repeat (author, price, when) 4 per row and its distinct
            // cells, the others (title) their bytes and 8 per cell; the folded text the other
            // columns' folded bytes (no more than theirs here), a separator per field and 8 per
            // row, the repeating columns' once per distinct cell; no bytes for the ids of rows
            // numbered 1…n (a run, ``_RowIDs``); 1 per row for liveness; 10 per row per ranking
            // (order, rank, groups): 4 for the order, at most 2 for the rank under 65,535 groups,
            // at most 4 for the groups.
            let titleBytes = csv.split(separator: "\n").dropFirst().reduce(0) { $0 + $1.split(separator: ",")[0].utf8.count }
            #expect(
                bytes["cells"]! <= titleBytes + 8 * rows + 3 * 4 * rows + 64 * 1_024,
                "cells \(bytes["cells"]!) for \(titleBytes) bytes of titles in \(rows) rows")
            #expect(bytes["folded"]! <= titleBytes + (3 + 8) * rows + 64 * 1_024, "folded \(bytes["folded"]!)")
            #expect(bytes["ids"]! == 0 && bytes["live"]! <= rows + 256, "\(bytes)")
            #expect(bytes["rankings"]! <= 10 * rows * max(1, usage.rankings) + 4_096, "\(usage.rankings) rankings: \(bytes["rankings"]!)")
        }
    }

    @Test("One request may ask for a few orders the table hasn't built: more is a 400 naming them")
    func newVariantsPerRequest() async throws {
        let store = try SQLiteTableStore(
            path: try temporaryDatabase(), queryBudget: testQueryBudget,
            indexLimits: IndexLimits(newVariantsPerRequest: 3))
        try await Self.table(store, rows: 100)
        let many = "c0:len,c1:len,c2:len,c3:len"
        do {
            _ = try await Self.sorted(store, many)
            Issue.record("four new orders were accepted")
        } catch let error as TableStoreError {
            #expect(
                error.kind == .invalid && error.description.contains("4 orders") && error.description.contains("c3:len")
                    && error.description.contains("at most 3"), "\(error)")
        }
        // Three at a time is fine, and then the fourth is one new one.
        _ = try await Self.sorted(store, "c0:len,c1:len,c2:len")
        _ = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "c0:len,c1:len,c2:len")), offset: 90, limit: 5))
        #expect(try await Self.sorted(store, many).count == 100)
    }

    @Test("A line of work: one at a time; a full line refuses (unavailable); a wait past the deadline leaves it (timedOut)")
    func line() async throws {
        let line = _Line(maxWaiting: 2)
        let release = Mutex(false)
        let running = Task {
            try await line.run {
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        // Two may wait; a third is refused at once.
        let first = Task { try await line.run(deadline: _Deadline(.seconds(60))) { 2 } }
        let second = Task { try await line.run(deadline: _Deadline(.milliseconds(100))) { 3 } }
        while await line.waitingCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        do {
            _ = try await line.run(deadline: _Deadline(.seconds(60))) { 4 }
            Issue.record("a third waiter was let in")
        } catch let error as TableStoreError {
            #expect(error.kind == .unavailable, "\(error)")
        }
        // The short deadline passes while it waits: it leaves the line with timedOut.
        do {
            _ = try await second.value
            Issue.record("the waiter past its deadline ran")
        } catch let error as TableStoreError {
            #expect(error.kind == .timedOut, "\(error)")
        }
        release.withLock { $0 = true }
        #expect(try await running.value == 1)
        #expect(try await first.value == 2)
        #expect(await line.waitingCount == 0)
    }

    @Test("An 8 KB filter over 16 KB cells of one repeated letter: linear, and inside the budget")
    func hostileFilter() async throws {
        let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        let cell = String(repeating: "a", count: 16_384)
        var csv = "id_text,body\n"
        for row in 0..<400 { csv += "r\(row),\(cell)\n" }
        try await store.importCSV(Array(csv.utf8), as: "big", delimiter: UInt8(ascii: ","), presets: [:])
        let filter = String(repeating: "a", count: 8_191) + "b"
        let start = ContinuousClock.now
        let page = try await store.page(of: "big", PageRequest(columnSearch: ["body": filter], limit: 10))
        #expect(page.filtered == 0)
        // Quadratic, this took about 400 × 16,384 × 8,192 byte comparisons: many minutes in a
        // debug build. Linear, it is 6.5 MB of text (seconds at most, even at the scan threads'
        // low priority beside a busy test run).
        #expect(ContinuousClock.now - start < .seconds(120))
        let hit = try await store.page(of: "big", PageRequest(columnSearch: ["body": String(repeating: "a", count: 8_192)], limit: 10))
        #expect(hit.filtered == 400)
    }

    @Test("Substring search: the linear path agrees with a naive oracle on repetitive text (seeded)")
    func containsOracle() {
        let seed: UInt64 = 81
        var random = SplitMix64(seed: seed)
        for round in 0..<3_000 {
            let alphabet = Array("ab".utf8)
            let text = (0..<Int(random.next() % 300)).map { _ in alphabet[Int(random.next() % 2)] }
            let term = (0..<Int(1 + random.next() % 40)).map { _ in alphabet[Int(random.next() % 2)] }
            let naive = text.count >= term.count && (0...(text.count - term.count)).contains { text[$0..<($0 + term.count)].elementsEqual(term) }
            let query = SearchQuery(String(decoding: term, as: UTF8.self))
            let found = text.withUnsafeBufferPointer { query.matches(foldedBytes: $0) }
            #expect(found == naive, "seed \(seed), round \(round)")
            if found != naive { return }
        }
    }
}
