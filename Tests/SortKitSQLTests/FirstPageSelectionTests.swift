import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// A first page by an order the table hasn't ranked yet comes from a top-k selection over the
/// cells: by a locale column, one that reads the full keys of only the rows whose first letter
/// can place them on the page (#36); by a number, date or transform, one that reads a
/// repeating column's values once per distinct cell. It must be the page the full sort gives,
/// for every direction, strength, blank and odd value, and after writes.
@Suite("First pages from a selection (no ranking yet)")
struct FirstPageSelectionTests {
    /// First letters that weigh alone, and ones that don't: contractions (ch, aa, dzs), a
    /// letter a mark joins, a mark alone, Hangul, a digit under `natural`, whitespace-only and
    /// blank cells (null), leading spaces.
    static let heads = [
        "a", "A", "Å", "A\u{30A}", "ä", "Ø", "z", "Z", "ch", "Ch", "aa", "dzs", "c", "h", "é", "e\u{301}", "\u{301}", "ж", "ґ", "Ω", "中", "한",
        "1", "10", "2", " ", "  ", "-", "", "\u{3000}", "ß", "ı", "İ", "ㄱ",
    ]

    static func csv(rows: Int, using random: inout SplitMix64) -> String {
        var records = [["t", "n"]]
        for _ in 0..<rows {
            let text = (0..<Int.random(in: 0...4, using: &random)).map { _ in heads.randomElement(using: &random)! }.joined()
            records.append([text, String(Int.random(in: 0...9, using: &random))])
        }
        return CSV.format(records)
    }

    @Test("Pages from the narrowed selection equal the full sort's (seeded)")
    func pages() async throws {
        let (store, table, seed, generator) = try await Self.seededTable(rows: 3_000, defaultSeed: 3636)
        var random = generator
        var memory = table
        let specs = [
            "t:locale=sv", "-t:locale=sv", "t:locale=da:nocase,-n", "-t:locale=cs:fold,n", "t:locale=und:natural", "-t:locale=hu:nulls-first",
            "t:locale=sv:nulls-last", "t:locale=tr,n", "t:locale=ko",
        ]
        func check(_ round: String) async throws {
            try await Self.checkPages(store, memory, specs, deep: 40, "\(round) (seed \(seed))")
        }
        try await check("after the import")
        // Written rows are read from their strings, not the base cells.
        for id in [Int64(3), 17, 400] {
            let text = ["", "aa", "Åsa", " a", "Ab"].randomElement(using: &random)!
            try await store.update(id, in: "t", set: ["t": text])
            memory.rows[Int(id) - 1][0] = text
        }
        try await check("after updates")
    }

    @Test("First pages of numbers, dates and transforms read through a column's distinct cells equal the full sort's, after writes too (seeded)")
    func distinctCells() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 3838
        var random = SplitMix64(seed: seed)
        // Over 4,096 rows whose prices and dates repeat: the selection numbers their distinct cells.
        // Numbers and dates with blanks, so that the columns are typed (checked below).
        // Plain decimals are read from their bytes; long ones, and integers past 2^53 that a
        // Double can't tell apart, through the cells' reader.
        let prices = [
            "12.5", "-12.5", "0", "-0", "3", "1000.0", "", " ", "7.25", "-7.250", "123456789.125", "0.1", "0.30000000000000004", "-0.0",
            "123456789012345678", "999999999999999.5",
        ]
        let dates = ["2024-01-02", "1999-12-31", "", "2024-01-02", "1970-01-01", "0001-01-01"]
        let integers = ["5", "-5", "007", "9007199254740993", "9007199254740992", "-9223372036854775808", "9223372036854775807", "", "0", "-0", "12"]
        var records = [["price", "d", "t", "n"]]
        for _ in 0..<6_000 {
            records.append([
                prices.randomElement(using: &random)!, dates.randomElement(using: &random)!,
                (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.heads.randomElement(using: &random)! }.joined(),
                integers.randomElement(using: &random)!,
            ])
        }
        // The last record, at the end of the file: a megabyte title of plain letters, counted
        // and hashed from its bytes eight at a time, first by descending length.
        records.append(["", "", String(repeating: "Жé字나 ", count: 100_000), ""])
        let (store, table) = try await Self.imported(CSV.format(records))
        var memory = table
        let types = try await store.table("t").schema.columns.map(\.type)
        #expect(types == [.float, .date, .string, .integer])
        let specs = [
            "-price:abs,t", "price,t:nocase", "price:num:nulls-first", "d:date,-t", "-d,price", "t:len,price", "t:random=7", "-price:text",
            "n:abs,t", "-n,price", "n,-t", "-t:len,n", "-t:random=7", "t:num,n", "-price,n", "n:random=3",
            // Alone, a key's ties are ordered by row and its nulls by their placement: dates
            // all of one length, few lengths, prices that repeat, integers past 2^53 (whose
            // prefixes round, so equal ones may differ).
            "d:len", "-d:len", "d:len:nulls-first", "t:len", "-t:len:nulls-first", "t:len:nulls-natural", "price", "-price:abs",
            "price:nulls-first", "-price:nulls-natural", "n", "-n:abs:nulls-first",
        ]
        var deleted: Set<Int64> = []
        func check(_ round: String) async throws {
            try await Self.checkPages(store, memory, specs, deep: 300, "\(round) (seed \(seed))", deleted: deleted)
        }
        try await check("after the import")
        // Rewritten rows read their strings, not their base cells' distinct values; so do new rows.
        for id in [Int64(5), 99, 4_000] {
            let cells = ["-100000", "2030-01-01", "Zz", "-7"]
            try await store.update(id, in: "t", set: ["price": cells[0], "d": cells[1], "t": cells[2], "n": cells[3]])
            memory.rows[Int(id) - 1] = cells
        }
        for cells in [["-99999", "1000-01-01", "a", "99"], ["", "", "", ""]] {
            let id = try await store.insert(["price": cells[0], "d": cells[1], "t": cells[2], "n": cells[3]], into: "t")
            #expect(id == Int64(memory.rows.count + 1))
            memory.rows.append(cells)
        }
        try await check("after writes")
        // Deleted rows leave gaps among the slots: the selection reads the kept ones, not a range.
        deleted = [7, 2_000, Int64(memory.rows.count)]
        try await store.delete(Array(deleted), from: "t")
        try await check("after deletes")
    }

    @Test("random= and len over a table with deleted rows and no written ones: the hashes four at a time over slots with gaps (seeded)")
    func deletedRowsOnly() async throws {
        let (store, memory, seed, generator) = try await Self.seededTable(rows: 5_000, defaultSeed: 4444)
        var random = generator
        let deleted = Set((0..<40).map { _ in Int64.random(in: 1...5_000, using: &random) })
        try await store.delete(Array(deleted), from: "t")
        let specs = ["t:random=7", "-t:random=7", "t:random=3:nulls-first", "t:len", "-t:len", "n:random=5"]
        try await Self.checkPages(store, memory, specs, deep: 200, "deleted rows (seed \(seed))", deleted: deleted)
    }

    @Test("The first rows kept for the pages after a first page (no ranking yet) follow writes (seeded)")
    func keptFirstRowsAfterWrites() async throws {
        let (store, table, seed, _) = try await Self.seededTable(rows: 3_000, defaultSeed: 4545)
        var memory = table
        // One order, so its kept rows stay kept; its next pages are slices of them.
        try await Self.checkPages(store, memory, ["-t:len"], deep: 100, "before (seed \(seed))")
        // The longest text, then a blank one where the first page's first row was.
        for (id, text) in [(Int64(2_999), String(repeating: "Жé", count: 40)), (Int64(1), "")] {
            try await store.update(id, in: "t", set: ["t": text])
            memory.rows[Int(id) - 1][0] = text
            try await Self.checkPages(store, memory, ["-t:len"], deep: 100, "after writing row \(id) (seed \(seed))")
        }
    }

    @Test("Kept first rows under searches, column filters and excluded rows give the ranked path's pages, counts and next pages (seeded)")
    func keptFirstRowsAgainstRankings() async throws {
        let (store, _, seed, _) = try await Self.seededTable(rows: 3_000, defaultSeed: 4646)
        // The same rows in a store that keeps rankings, built first (a page past 4,095 rows
        // waits for them): its pages come from them.
        var same = SplitMix64(seed: seed)
        let ranked = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        try await ranked.importCSV(Array(Self.csv(rows: 3_000, using: &same).utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        let requests: [(search: String, columns: [String: String], excluding: [Int64])] = [
            ("", [:], []), ("a", [:], []), ("", ["t": "ch"], []), ("1", ["n": "1"], [5, 17]), ("", [:], Array(1...40)), ("zzzz", [:], []),
        ]
        for spec in ["-t:len", "t:random=7", "n:abs,t", "t:locale=sv"] {
            _ = try await ranked.page(of: "t", PageRequest(order: .spec(try SortSpec(parsing: spec)), offset: 4_096, limit: 1))
            for (search, columns, excluding) in requests {
                for (offset, limit) in [(0, 25), (25, 25), (230, 25), (300, 40)] {
                    let request = PageRequest(
                        order: .spec(try SortSpec(parsing: spec)), search: search, columnSearch: columns, offset: offset, limit: limit, excluding: excluding)
                    let (kept, want) = (try await store.page(of: "t", request), try await ranked.page(of: "t", request))
                    let context = "\(spec) q=\(search) \(columns) excluding \(excluding.count) offset \(offset) (seed \(seed))"
                    #expect(kept.rows.map(\.id) == want.rows.map(\.id), "\(context)")
                    #expect(kept.filtered == want.filtered && kept.total == want.total, "\(context): counts")
                    #expect((kept.next == nil) == (want.next == nil), "\(context): next")
                }
            }
        }
    }

    @Test("The bound on prefixes: nulls by their placement, one key's ties by slot")
    func boundedPrefixes() {
        let firsts: [UInt64] = [5, 0, 5, 4]
        #expect(_TableIndex.bounded([0, 1, 2, 3], firsts: firsts, need: 2) == [0, 1, 2, 3])
        #expect(_TableIndex.bounded(0..<4, firsts: firsts, need: 2, unknown: .nullsLast) == [0, 2, 3])
        #expect(_TableIndex.bounded(0..<4, firsts: firsts, need: 2, unknown: .nullsLast, tiesBySlot: true) == [0, 3])
        // One null first is the page of one; for two, the null and the smallest values.
        #expect(_TableIndex.bounded(0..<4, firsts: firsts, need: 1, unknown: .nullsFirst, tiesBySlot: true) == [1])
        #expect(_TableIndex.bounded(0..<4, firsts: firsts, need: 2, unknown: .nullsFirst, tiesBySlot: true) == [0, 1, 3])
        #expect(_TableIndex.bounded(0..<4, firsts: firsts, need: 2, unknown: .nullsFirst) == [0, 1, 2, 3])
        // Fewer known values than the page: no bound.
        #expect(_TableIndex.bounded(0..<4, firsts: [0, 0, 3, 0] as [UInt64], need: 2, unknown: .nullsLast) == nil)
    }

    @Test("Plain decimals read from bytes are the Double that parsing the text gives; other forms are left to the parser (seeded)")
    func plainDecimals() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xDEC1
        var random = SplitMix64(seed: seed)
        let odd = ["", "-", ".", "1.", ".5", "+5", " 5", "5 ", "1e3", "1,5", "--1", "1.2.3", "١٢", "0x10", "1234567890123456", "nan", "-.5"]
        for text in odd {
            #expect(Array(text.utf8).withUnsafeBufferPointer { _plainDecimal($0, fraction: true) } == nil, "\(text.debugDescription)")
        }
        #expect(Array("1.5".utf8).withUnsafeBufferPointer { _plainDecimal($0, fraction: false) } == nil)
        for round in 0..<20_000 {
            let digits = Int.random(in: 1...15, using: &random)
            var text = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            if Bool.random(using: &random), digits > 1 {
                let point = Int.random(in: 1..<digits, using: &random)
                text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            }
            if Bool.random(using: &random) { text = "-" + text }
            let value = Array(text.utf8).withUnsafeBufferPointer { _plainDecimal($0, fraction: true) }
            #expect(value?.bitPattern == Double(text)?.bitPattern, "round \(round): \(text) (seed \(seed))")
        }
    }

    /// ``csv(rows:using:)``'s table of `rows` rows imported by ``imported(_:)``, from the seed
    /// `SORTKIT_SEED` names or `defaultSeed`; and the generator, to go on with.
    static func seededTable(rows: Int, defaultSeed: UInt64) async throws -> (SQLiteTableStore, TextTable, UInt64, SplitMix64) {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? defaultSeed
        var random = SplitMix64(seed: seed)
        let (store, table) = try await imported(csv(rows: rows, using: &random))
        return (store, table, seed, random)
    }

    /// `csv` imported as table "t" into a store that keeps no ranking, so every page is a
    /// first page's selection; and the same rows in memory.
    static func imported(_ csv: String) async throws -> (SQLiteTableStore, TextTable) {
        let store = try SQLiteTableStore(
            path: try temporaryDatabase(), queryBudget: testQueryBudget, indexLimits: IndexLimits(rankingBytesPerTable: 0, rankingBytes: 0))
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        return (store, try TextTable(csv: Array(csv.utf8)))
    }

    /// Pages at the start and at `deep` of each spec's order in `store`, against the in-memory sort.
    /// Rows `deleted` are left out of the expected order (a deletion moves no other row).
    static func checkPages(
        _ store: SQLiteTableStore, _ memory: TextTable, _ specs: [String], deep: Int, _ context: String, deleted: Set<Int64> = []
    ) async throws {
        for spec in specs {
            let order = try SortSpec(parsing: spec)
            let expected = try memory.sortedRowIndices(by: order).map { Int64($0 + 1) }.filter { !deleted.contains($0) }
            for (offset, limit) in [(0, 1), (0, 25), (deep, 10)] {
                let page = try await store.page(of: "t", PageRequest(order: .spec(order), offset: offset, limit: limit))
                let want = Array(expected.dropFirst(offset).prefix(limit))
                #expect(page.rows.map(\.id) == want, "\(context): \(spec) offset \(offset) limit \(limit)")
                // The row after the page, which the selection takes too, tells that there is a next page.
                #expect((page.next != nil) == (offset + limit < expected.count), "\(context): \(spec) offset \(offset) limit \(limit): next")
            }
        }
    }
}
