import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// An imported cell (well-formed UTF-8: the scanner rejects other records, as
/// `CSVEdgeTests` check) is stored as its NFC text, nothing for blank text: read from its bytes
/// when every scalar is its own NFC, with accents typed apart composed pair by pair, through a
/// `String` otherwise. Every way must store the same bytes.
@Suite("Imported cells as stored")
struct CSVColumnsTests {
    @Test("A cell's stored bytes equal its String's NFC, blank cells and Greek singletons included (seeded)")
    func storedCells() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xCE11
        var random = SplitMix64(seed: seed)
        let pieces: [[UInt8]] = [
            "a", " ", "\t", "é", "e\u{301}", "\u{301}", "Å", "A\u{30A}", "ж", "й", "и\u{306}", "Ω", "\u{387}", "\u{37E}", "\u{374}", "中", "한",
            "\u{1100}\u{1161}", "か\u{3099}", "が", "\u{3000}", "\u{A0}", "ǅ", "Ṩ", "😀", "1", "ß", "\u{2028}", "ﬁ", "\u{212B}",
        ].map { Array($0.utf8) }
        // One composer for every cell, as a slice of an import has: pairs it met are kept.
        var composer = _MarkComposer()
        for round in 0..<5_000 {
            let cell = (0..<Int.random(in: 0...6, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
            let text = String(decoding: cell, as: UTF8.self)
            let expected = _isBlank(text) ? [] : Array(Collation.normalized(text).utf8)
            var stored: [UInt8] = []
            cell.withUnsafeBufferPointer { _CSVColumns.appendCell($0, to: &stored, composer: &composer) }
            #expect(stored == expected, "round \(round): \(cell) (seed \(seed))")
        }
    }

    @Test("A CSV with malformed UTF-8 in a cell, even at the end of the file, is refused with its line, and no table is left")
    func malformedUTF8() async throws {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xE6, 0x97]] {
            let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
            for atEnd in [false, true] {
                var csv = Array("t,n\nok,1\n".utf8) + [0x61] + bad + Array(",2".utf8)
                if !atEnd { csv += Array("\nlast,3\n".utf8) }
                await #expect {
                    _ = try await store.importCSV(csv, as: "t", delimiter: UInt8(ascii: ","), presets: [:])
                } throws: { error in
                    "\(error)".contains("line 3") && "\(error)".contains("UTF-8")
                }
                #expect(try await store.tables().isEmpty, "\(bad), at the end: \(atEnd)")
            }
        }
    }
}

extension CSVColumnsTests {
    @Test("A column kept numbered reads every slot's cell as the plain column does, and takes 4 bytes a slot beside its distinct cells (seeded)")
    func numberedColumns() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let words = ["", "done", "Île", "東京", "e\u{301}", "Река", "ß", "1.5", String(repeating: "é", count: 100_000)]
        for round in 0..<30 {
            // From every cell its own (titles) to a handful of values (statuses).
            let count = Int.random(in: 0...6_000, using: &random), distinct = Int.random(in: 1...max(1, count), using: &random)
            let cells = (0..<count).map { _ in
                let value = Int.random(in: 0..<distinct, using: &random)
                return value < words.count ? words[value] : "\(words[value % (words.count - 1)]) \(value)"
            }
            var arena = _ByteArena()
            for cell in cells {
                arena.bytes += Array(cell.utf8)
                arena.close()
            }
            let context: Comment = "round \(round): \(count) cells, up to \(distinct) distinct (seed \(seed))"
            let column = _CellColumn(arena, numbering: _ColumnNumbering(arena))
            #expect(column.count == count, context)
            #expect((0..<count).allSatisfy { column.text($0) == cells[$0] }, context)
            let viewed = _CellColumn.withViews([column]) { views in (0..<count).map { String(decoding: views[0][$0], as: UTF8.self) } }
            #expect(viewed == cells, context)
            let sliced = _CellColumn.inSlices([column], count: count, parts: 3) { views, range in range.map { String(decoding: views[0][$0], as: UTF8.self) } }
            #expect(Array(sliced.joined()) == cells, context)
            if let numbering = column.numbering {
                // Each distinct cell once (its bytes, its end, its first slot: 8 bytes and up to
                // 8 more of the array's growth); 4 bytes a slot for its number.
                #expect(column.arena.count == Set(cells).count && numbering.ids.count == count, context)
                let distinctBytes = Set(cells).reduce(0) { $0 + $1.utf8.count + 8 + 16 }
                #expect(column.byteCount <= distinctBytes + 4 * count + 4_096, "\(column.byteCount) bytes; \(context)")
            } else {
                #expect(Set(cells).count * 4 > count * 3 || count < 2, "a repeating column kept plain; \(context)")
            }
        }
    }

    @Test("An import's typed values: a repeating column's kept once per distinct cell with the column's numbers, each record's the parse of its cell (seeded)")
    func typedValues() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let schema = TableSchema(name: "t", columns: [.init("n", .integer), .init("p", .float), .init("d", .date), .init("s", .string)])
        let prices = ["9.5", "12", "", " 7 ", "1e3", "-0", "99999999999999999999", "x"]
        for round in 0..<20 {
            let count = Int.random(in: 1...5_000, using: &random)
            var csv = "n,p,d,s\n"
            var expected: [[SortValue]] = []
            for record in 0..<count {
                // Ids (every value its own), repeating prices and dates; blank and odd cells too.
                let n = round % 4 == 3 ? "\(Int.random(in: -3...3, using: &random))" : "\(record * 7 - 100)"
                let p = prices.randomElement(using: &random)!, d = "2024-01-\(10 + Int.random(in: 0..<5, using: &random))"
                csv += "\(n),\(p),\(d),s\(record)\n"
                expected.append([ColumnType.integer.sortValue(n), ColumnType.float.sortValue(p), ColumnType.date.sortValue(d)])
            }
            var columns = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","))
            columns.number()
            let (_, _, typed) = columns.derived(schema)
            let context: Comment = "round \(round), \(count) records (seed \(seed))"
            #expect(typed.keys.sorted() == [0, 1, 2], context)
            for column in 0..<3 {
                let values = try #require(typed[column], context)
                #expect(values.count == count && values.perRecord == expected.map { $0[column] }, context)
                #expect((0..<count).allSatisfy { values[$0] == expected[$0][column] }, context)
                if count >= 64, column > 0 {
                    // Prices and dates repeat: a value per distinct cell.
                    #expect(values.ids != nil && values.values.count <= 8, context)
                }
                if column == 0, round % 4 != 3 {
                    // Ids: integers alone, 8 bytes a record, known to ascend.
                    #expect(values.integers?.count == count && values.values.isEmpty && values.strictlyAscendingIntegers, context)
                }
            }
        }
    }

    @Test("An import's rows hand on each record's whole folded text, numbered fields filled in, as SearchQuery folds the cells (seeded)")
    func importedFoldedText() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let words = ["", " ", "Jürgen", "ÉCLAIR", "東京", "e\u{301}", "Straße", "done", "a\u{1F}b", String(repeating: "Ö", count: 300)]
        for round in 0..<12 {
            // Up to four columns, any of them repeating (numbered) or not, first and last included.
            // Round 0: one repeating column (its base rows empty); round 1: numbered first, last
            // and side by side.
            let fixed: [[Bool]] = [[true], [true, false, true, true]]
            let width = round < 2 ? fixed[round].count : Int.random(in: 1...4, using: &random)
            let count = Int.random(in: 100...3_000, using: &random)
            let repeats = round < 2 ? fixed[round] : (0..<width).map { _ in Bool.random(using: &random) }
            let rows = (0..<count).map { record in
                (0..<width).map { column in
                    let word = words.randomElement(using: &random)!
                    return repeats[column] ? word : "\(word) \(record)"
                }
            }
            let csv =
                (0..<width).map { "c\($0)" }.joined(separator: ",") + "\n"
                + rows.map { $0.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\n" }.joined()
            var columns = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","))
            columns.number()
            let schema = TableSchema(name: "t", columns: (0..<width).map { .init("c\($0)", .string) })
            let (cells, folded, typed) = columns.derived(schema)
            let context: Comment = "round \(round): \(count) rows, repeating \(repeats) (seed \(seed))"
            #expect(cells.base.contains { $0.numbering != nil } == !folded.distinct.isEmpty, context)
            if round < 2 { #expect(folded.distinct.map(\.column) == repeats.indices.filter { repeats[$0] }, context) }
            var texts: [String] = [], stored: [[String]] = []
            var scratch = _FoldScratch()
            // The cells as the load reads them: a repeating column's through its numbering.
            _TableInfo(id: 1, schema: schema, variants: []).withImportRows(cells, folded: folded, typed: typed) { rows in
                for record in 0..<count {
                    var row: [String] = []
                    rows.forEachValue(of: record, scratch: &scratch) { value in
                        switch value {
                        case .folded(let bytes): texts.append(String(decoding: bytes, as: UTF8.self))
                        case .cell(let bytes): row.append(String(decoding: bytes, as: UTF8.self))
                        case .value, .key: row.append("")
                        }
                    }
                    stored.append(row)
                }
            }
            #expect(stored == rows.map { $0.map { _isBlank($0) ? "" : Collation.normalized($0) } }, context)
            // The cells as stored: NFC, nothing for blank text.
            let expected = rows.map { SearchQuery.foldedFields($0.map { _isBlank($0) ? "" : Collation.normalized($0) }) }
            let wrong = zip(texts, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(texts.count == count && wrong == nil, "record \(wrong?.offset ?? -1): \(wrong.map { "\($0.element)" } ?? ""); \(context)")
            #expect(folded.wholeByteCount == expected.reduce(0) { $0 + $1.utf8.count }, context)
        }
    }

    @Test("An import's values equal rowValues' for the same cells: typed values and every key column, repeating columns' keys made once (seeded)")
    func importedValuesAndKeys() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        // Per column kind, the cells it draws from: text (accents typed apart, Hangul, a
        // megabyte-free long cell, digits for the natural order), numbers (huge, negative,
        // decimals, blanks) and dates; a few distinct cells repeat (numbered, keys cached).
        let pools: [[String]] = [
            ["Jürgen 2", "Ju\u{308}rgen 10", "서울", "ÉCLAIR", "", " ", "straße", "Strasse", "a\u{1F}b", String(repeating: "Ö", count: 300)],
            ["0", "-1", "42", "9223372036854775807", "-9223372036854775808", "", "007"],
            ["1.5", "-0.25", "1e300", "3", "", "92.61"],
            ["1975-04-30", "2015-08-30", "", "2000-01-01"],
        ]
        for round in 0..<10 {
            let width = Int.random(in: 1...5, using: &random)
            let count = Int.random(in: 200...3_000, using: &random)
            let kinds = (0..<width).map { _ in Int.random(in: 0..<pools.count, using: &random) }
            let repeats = (0..<width).map { _ in Bool.random(using: &random) }
            let rows = (0..<count).map { record in
                (0..<width).map { column in
                    let cell = pools[kinds[column]].randomElement(using: &random)!
                    // A unique cell: text gets the record number, a number column a new number.
                    guard !repeats[column] else { return cell }
                    return kinds[column] == 0 ? "\(cell) \(record)" : kinds[column] == 3 ? cell : "\(record)"
                }
            }
            let csv =
                (0..<width).map { "c\($0)" }.joined(separator: ",") + "\n"
                + rows.map { $0.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\n" }.joined()
            var columns = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","))
            columns.number()
            let schema = TableSchema(name: "t", columns: zip(columns.header, columns.inferredTypes()).map { TableSchema.Column($0, $1) })
            let (cells, folded, typed) = columns.derived(schema)
            for dialect in SQLDialect.allCases {
                let info = _TableInfo(id: 1, schema: schema, variants: try schema.requiredVariants(dialect, databaseIndex: .natural))
                let context: Comment = "round \(round), \(dialect): \(count) rows, kinds \(kinds), repeating \(repeats) (seed \(seed))"
                let keys = info.importKeys(cells)
                #expect(keys.count == info.variants.count, context)
                var scratch = _FoldScratch()
                info.withImportRows(cells, folded: folded, typed: typed, keys: keys) { rows in
                    for record in 0..<count {
                        var values: [SQLValue] = []
                        rows.forEachValue(of: record, scratch: &scratch) { value in
                            switch value {
                            case .cell(let bytes), .folded(let bytes): values.append(.text(String(decoding: bytes, as: UTF8.self)))
                            case .key(let bytes): values.append(.blob(Array(bytes)))
                            case .value(let value): values.append(value)
                            }
                        }
                        let expected = info.rowValues((0..<width).map { columns.text(record, $0) })
                        if values != expected {
                            Issue.record("record \(record): \(values) against \(expected); \(context)")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test(
        "An import stores every row's whole search text, numbered fields filled in, across the load's batches (seeded)",
        arguments: Backend.available)
    func storedSearchText(backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let authors = ["Jürgen", "ÉMILE", "東京", "", "e\u{301}va", "Straße"], statuses = ["done", "todo", " "]
        // One batch of 16,384 and a row; exactly two; two and a part: each batch's texts are
        // filled on another thread while the one before is inserted.
        for (number, count) in [16_385, 2 * 16_384, 2 * 16_384 + Int.random(in: 1...999, using: &random)].enumerated() {
            var csv = "title,author,status\n"
            var rows: [[String]] = []
            for record in 0..<count {
                let row = ["Ísland \(record)", authors.randomElement(using: &random)!, statuses.randomElement(using: &random)!]
                rows.append(row)
                csv += row.map { "\"\($0)\"" }.joined(separator: ",") + "\n"
            }
            let store = try await backend.makeStore()
            try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
            func stored<Store: _SQLTableStore>(_ store: Store) async throws -> [[SQLValue]] {
                try await store.read { session in try await session.select("SELECT s FROM st_1 ORDER BY id", []) }
            }
            let sql = store as! any _SQLTableStore
            let texts = try await stored(sql).map { $0[0].cell }
            let expected = rows.map { SearchQuery.foldedFields($0.map { _isBlank($0) ? "" : Collation.normalized($0) }) }
            let wrong = zip(texts, expected).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                texts.count == count && wrong == nil,
                "\(backend), import \(number) of \(count) rows, row \(wrong?.offset ?? -1): \(wrong.map { "\($0.element)" } ?? "") (seed \(seed))")
        }
    }

    @Test(
        "A megabyte of decomposed text in a numbered column, in the first batch and in the last record at end of file, is stored, searched and sorted as a short cell is",
        arguments: Backend.available)
    func megabyteNumberedCell(backend: Backend) async throws {
        // "u" and a combining diaeresis 600,000 times (1.8 MB; 1.2 MB as NFC), with a "<" that
        // the mark before it doesn't join: the author column still repeats (it is numbered),
        // so its megabyte is folded once and filled into both rows' search text.
        let megabyte = String(repeating: "u\u{308}", count: 600_000) + "<b> Zoë"
        let authors = ["Jürgen", "東京", "e\u{301}va", "Straße"]
        let count = 16_384 + 3
        var rows: [[String]] = []
        for record in 0..<count {
            rows.append(["T\(record)", record == 5 || record == count - 1 ? megabyte : authors[record % authors.count]])
        }
        let csv = "title,author\n" + rows.map { "\($0[0]),\"\($0[1])\"" }.joined(separator: "\n") // no line end at the end
        let store = try await backend.makeStore()
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        let sql = store as! any _SQLTableStore
        func stored<Store: _SQLTableStore>(_ store: Store) async throws -> [[SQLValue]] {
            try await store.read { session in try await session.select("SELECT c1, s FROM st_1 WHERE id IN (6, \(count)) ORDER BY id", []) }
        }
        let nfc = Collation.normalized(megabyte)
        let read = try await stored(sql)
        #expect(read.count == 2 && read.allSatisfy { $0[0].cell == nfc }, "\(backend): the stored cells")
        for (row, record) in zip(read, [5, count - 1]) {
            #expect(row[1].cell == SearchQuery.foldedFields([rows[record][0], nfc]), "\(backend): the search text of record \(record)")
        }
        let found = try await store.page(of: "t", PageRequest(search: "uuu<b> zoe", limit: 10))
        #expect(found.rows.map(\.id) == [6, Int64(count)] && found.filtered == 2, "\(backend)")
        // By author then title, the page around the megabyte rows holds the rows an oracle
        // sort of the NFC cells puts there.
        // (Keys made once per distinct cell, found by number: comparing or hashing the
        // megabyte `String`s normalizes them whole each time.)
        let authorKeys = (authors + [megabyte]).map { Collation.natural.sortKey(for: Collation.normalized($0)) }
        let authorOf = rows.indices.map { $0 == 5 || $0 == count - 1 ? authors.count : $0 % authors.count }
        let titleKeys = rows.map { Collation.natural.sortKey(for: $0[0]) }
        let expected = rows.indices.sorted {
            let (a, b) = (authorKeys[authorOf[$0]], authorKeys[authorOf[$1]])
            return a == b ? titleKeys[$0].lexicographicallyPrecedes(titleKeys[$1]) : a.lexicographicallyPrecedes(b)
        }
        let at = max(0, expected.firstIndex(of: 5)! - 2)
        let sorted = try await store.page(of: "t", PageRequest(order: .spec(try SortSpec(parsing: "author,title")), offset: at, limit: 6))
        #expect(sorted.rows.map(\.id) == expected[at..<min(count, at + 6)].map { Int64($0 + 1) }, "\(backend)")
    }

    @Test("A CSV read in slices on the cores gives the columns one slice gives; malformed CSV in the last slice is named by its line")
    func slicedRead() throws {
        var random = SplitMix64(seed: 0x511CE)
        var csv = "a,b\n"
        for record in 0..<3_000 {
            let cell = ["x", "\"q,\"\"uoted\"\"\"", "", "Ähre \(record)", "\"multi\nline\""].randomElement(using: &random)!
            csv += "\(record),\(cell)\n"
        }
        let whole = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","))
        for slice in [16, 997, 10_000] {
            let sliced = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","), minimumSlice: slice)
            #expect(sliced.header == whole.header && sliced.count == whole.count, "slices of \(slice) bytes")
            #expect(zip(sliced.columns, whole.columns).allSatisfy { $0.bytes == $1.bytes && $0.ends == $1.ends }, "slices of \(slice) bytes")
        }
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).count
        let broken = csv + "3000,\"open\n"
        #expect(throws: (any Error).self) { try _CSVColumns.read(Array(broken.utf8), delimiter: UInt8(ascii: ","), minimumSlice: 16) }
        do {
            _ = try _CSVColumns.read(Array(broken.utf8), delimiter: UInt8(ascii: ","), minimumSlice: 16)
        } catch {
            #expect("\(error)".contains("line \(lines)"), "\(error)")
        }
    }
}
