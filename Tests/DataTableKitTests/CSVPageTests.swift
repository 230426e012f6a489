import Foundation
import OrderKeys
import SortKitTestSupport
import Testing

@testable import DataTableKit
@testable import SortKit

@Suite("CSVPage: a page of a CSV file as its table shows it")
struct CSVPageTests {
    /// The oracle: the whole file as a `DataTable`, sorted, searched and paged.
    private func tableText(_ csv: [UInt8], sort: SortSpec, search: String, page: Int, pageSize: Int, widths: ColumnWidthOptions) throws -> String {
        let text = try TextTable(csv: csv)
        var keys: [SortSpec.Key] = []
        for var key in sort.keys {
            key.column = text.columns[try text.columnIndex(key.column)]
            keys.append(key)
        }
        var table = DataTable(csv: text, pageSize: pageSize)
        table.setSort(SortSpec(keys))
        table.setSearch(search)
        table.setPage(page)
        return TextTableRenderer(widths: widths).render(table)
    }

    private func pageText(_ csv: [UInt8], sort: SortSpec, search: String, page: Int, pageSize: Int, widths: ColumnWidthOptions) throws -> String {
        let page = try CSVPage(csv: csv, sort: sort, search: search, page: page, pageSize: pageSize, widths: widths)
        return TextTableRenderer(widths: widths).render(page)
    }

    /// Cells of many shapes: plain, signed, zero-led and long integers, decimals with and
    /// without trailing zeros, dates and date-times, bools, blanks, quoted text with commas,
    /// quotes and line breaks, non-ASCII and decomposed text.
    private static func cell(_ kind: Int, _ random: inout SplitMix64) -> String {
        let r = Int(random.next() % 1000)
        switch kind {
        case 0: return String(r)
        case 1: return [String(r), "-\(r)", "0\(r)", "+\(r)", "", " \(r)", "123456789012345678", "9223372036854775807"][r % 8]
        case 2: return ["\(r).\(r % 10)", "\(r).50", "0.\(r)", "\(r)", "0.00\(r % 10 + 1)", "1e3", "", "-\(r).25"][r % 8]
        case 3: return String(format: "%04d-%02d-%02d", 1550 + r % 480, r % 12 + 1, r % 28 + 1) + (r % 9 == 0 ? "T10:3\(r % 10)" : "")
        case 4: return ["true", "FALSE", "", "True"][r % 4]
        default:
            let words = [
                "Émile", "E\u{301}mile", "straße", "STRASSE", "a,b", "say \"hi\"", "two\nlines", "ıi", "Zoë", "zoe", "", " ", "10 apples", "9 apples", "Ab",
                "ab", "日本",
            ]
            return words[r % words.count] + (r % 3 == 0 ? " \(r % 7)" : "")
        }
    }

    private static func csv(rows: Int, kinds: [Int], _ random: inout SplitMix64) -> [UInt8] {
        var text = kinds.indices.map { "c\($0)" }.joined(separator: ",") + "\n"
        for _ in 0..<rows {
            text += kinds.map { CSV.quoted(cell($0, &random)) }.joined(separator: ",") + "\n"
        }
        return Array(text.utf8)
    }

    @Test("Random files, sorts, searches, pages and width strategies render as the DataTable does (seeded)")
    func differential() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xC5F
        var random = SplitMix64(seed: seed)
        let strategies: [ColumnWidthStrategy] = [
            .sampledMax(sampleSize: 100), .sampledMax(sampleSize: 5), .estimatedAverage,
            .hybrid(sampleSize: 7), .maxMeasured, .percentile(90, sampleSize: 1000), .fixed(6),
        ]
        let modifiers = [
            "", ":num", ":text", ":nocase", ":fold", ":natural", ":date", ":nulls-first", ":enum=true|false", ":abs", ":num:abs", ":len", ":random=3",
            ":empty=null", ":locale=sv", ":locale=de:nocase",
        ]
        for round in 0..<60 {
            let kinds = (0..<Int(random.next() % 4 + 2)).map { _ in Int(random.next() % 6) }
            let rows = [0, 1, 3, 40, 150, 700][Int(random.next() % 6)]
            let csv = Self.csv(rows: rows, kinds: kinds, &random)
            let specText = kinds.indices.shuffled(using: &random).prefix(Int(random.next() % 3)).map { column in
                (random.next() % 2 == 0 ? "-" : "") + "c\(column)" + modifiers[Int(random.next() % UInt64(modifiers.count))]
            }.joined(separator: ",")
            let sort = try SortSpec(parsing: specText)
            let search = ["", "e", "ab", "t00", "30.0", "0.5", "strasse apples", "emile", "1", "true", "-0", "日本", "zz"][Int(random.next() % 13)]
            let pageSize = [1, 5, 20][Int(random.next() % 3)]
            let page = [0, 1, 3, 1000][Int(random.next() % 4)]
            let widths = ColumnWidthOptions(strategy: strategies[Int(random.next() % UInt64(strategies.count))])
            let context =
                "round \(round), sort '\(specText)', search '\(search)', page \(page)×\(pageSize), \(widths.strategy), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
            let expected = try tableText(csv, sort: sort, search: search, page: page, pageSize: pageSize, widths: widths)
            let actual = try pageText(csv, sort: sort, search: search, page: page, pageSize: pageSize, widths: widths)
            #expect(actual == expected, "\(context)\n\(String(decoding: csv.prefix(400), as: UTF8.self))")
        }
    }

    @Test("A file of several MiB is scanned in slices and paged (top-k, or the rank window deep in the file) as by a full sort")
    func largeFile() async throws {
        try await offPool {
            var random = SplitMix64(seed: 0xB16)
            let csv = Self.csv(rows: 60_000, kinds: [0, 2, 3, 5, 1], &random)
            #expect(csv.count > 2 << 20)
            // Deep pages (from rank 4,096) take the sampled rank window; 5,000 is past the end.
            for (spec, search, page) in [
                ("c3,-c1", "", 0), ("-c2", "e", 2), ("c0:num,c4", "apples", 40), ("", "2", 7), ("c1", "", 5_000),
                ("c3,-c1", "", 1_200), ("-c2:nocase", "", 2_399), ("c4,c0", "e", 900), ("c0:num", "", 1_700),
                // Text keys compared as the cells' bytes (blank, quoted, NFD), first pages and deep.
                ("c3:locale=sv", "", 0), ("-c3:locale=sv,c0", "", 1_300), ("c3:fold", "e", 30), ("-c3:natural", "", 2_000),
            ] {
                let sort = try SortSpec(parsing: spec)
                let expected = try tableText(csv, sort: sort, search: search, page: page, pageSize: 25, widths: ColumnWidthOptions())
                let actual = try pageText(csv, sort: sort, search: search, page: page, pageSize: 25, widths: ColumnWidthOptions())
                #expect(actual == expected, "sort '\(spec)', search '\(search)', page \(page)")
            }
        }
    }

    @Test("Odd files: empty, header only, no final line end, BOM, blank lines, CRLF, no header")
    func oddFiles() async throws {
        try await offPool {
            for text in ["", "a,b", "a,b\n", "a,b\n1,2", "\u{FEFF}name\nb\n\na\n", "x,y\r\n2,b\r\n1,a\r\n", "name\n\"\"\n", "n\n\"multi\nline\"\nb"] {
                let csv = Array(text.utf8)
                for spec in ["", "-1", "name"] where spec.isEmpty || (try? TextTable(csv: csv).columnIndex(spec)) != nil {
                    let sort = try SortSpec(parsing: spec)
                    let expected = try tableText(csv, sort: sort, search: "", page: 0, pageSize: 10, widths: ColumnWidthOptions())
                    #expect(
                        try pageText(csv, sort: sort, search: "", page: 0, pageSize: 10, widths: ColumnWidthOptions()) == expected,
                        "\(text.debugDescription) by '\(spec)'")
                }
            }
            // A key cell past the packed span's 8 MiB, quoted with doubled quotes, and a megabyte one.
            let huge = String(repeating: "z\"\"", count: 3_000_000)
            let big = Array("k,n\n\"\(huge)\",1\nb,2\n\(String(repeating: "é", count: 600_000)),3\n".utf8)
            for spec in ["k", "-k", "n"] {
                let sort = try SortSpec(parsing: spec)
                let expected = try tableText(big, sort: sort, search: "b", page: 0, pageSize: 10, widths: ColumnWidthOptions())
                #expect(try pageText(big, sort: sort, search: "b", page: 0, pageSize: 10, widths: ColumnWidthOptions()) == expected)
                let all = try CSVPage(csv: big, sort: sort)
                #expect(all.rows.map { $0[1] } == (spec == "-k" ? ["1", "3", "2"] : spec == "k" ? ["2", "3", "1"] : ["1", "2", "3"]))
            }
            let headerless = try CSVPage(csv: Array("b,2\na,1\n".utf8), sort: SortSpec(parsing: "1"), hasHeader: false)
            #expect(headerless.columns == ["1", "2"])
            #expect(headerless.rows == [["a", "1"], ["b", "2"]])
        }
    }

    @Test("Errors name the problem: malformed CSV with its line (also past the first slice), an unknown column")
    func errors() throws {
        var text = "a,b\n" + String(repeating: "xxxxxxxxxx,yyyyyyyyyy\n", count: 200_000)
        text += "1,2,3\n"
        let csv = Array(text.utf8)
        let expected = #expect(throws: CSVError.self) { try TextTable(csv: csv) }
        let actual = #expect(throws: CSVError.self) { try CSVPage(csv: csv) }
        #expect(actual?.description == expected?.description)
        #expect(actual?.description.contains("line 200002") == true, "\(String(describing: actual))")
        #expect(throws: SortSpecError.unknownColumn("colour", known: ["a", "b"])) {
            try CSVPage(csv: Array("a,b\n1,2\n".utf8), sort: SortSpec(parsing: "colour"))
        }
    }

    @Test("Typing plain numbers from bytes agrees with typing text")
    func byteInference() {
        let cells = [
            "0", "007", "42", "123456789012345678", "1234567890123456789", "-5", "+5", "1.5", "1.", ".5", "1.2.3", "123456789.123456",
            "1234567890.5", "1.1234567", "", " ", "2024-01-02", "2023-02-29", "2024-02-29", "2024-13-01", "0000-01-01", "2024-1-02", "true", "1e3", "١٢", "12a",
        ]
        for first in cells {
            for second in cells {
                var text = _TypeInference(), bytes = _TypeInference()
                for cell in [first, second] {
                    text.add(cell)
                    var copy = cell
                    copy.withUTF8 { bytes.add(utf8: $0) }
                }
                #expect(text.type == bytes.type, "\(first.debugDescription), \(second.debugDescription)")
            }
        }
    }

    @Test("Plain numbers read from bytes are the values typing their text gives (seeded)")
    func byteNumbers() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next() % 10)) }) }
        var cells = [
            "0", "007", "0.0", "00.000000", "999999999.999999", "123456789012345678", "999999999999999999", "1234567890123456789",
            "0.1", "0.3", "2.675", "1.005", "92.61", "-5", "+5", "1.", ".5", "1.2.3", "1234567890.5", "1.1234567", "", " ", " 7", "1e3",
            "١٢", "12a", "5\u{301}",
        ]
        for _ in 0..<20_000 {
            let whole = digits(Int(random.next() % 9) + 1)
            cells.append(random.next() % 3 == 0 ? digits(Int(random.next() % 18) + 1) : whole + "." + digits(Int(random.next() % 6) + 1))
        }
        for type in [ColumnType.integer, .float] {
            for cell in cells {
                var copy = cell
                let fromBytes = copy.withUTF8 { _plainNumberValue($0, columnType: type) }
                let expected = type.sortValue(cell)
                let shape = Array(cell.utf8).withUnsafeBufferPointer { _NumberShape($0) }
                let context = "\(type) \(cell.debugDescription), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
                // Every plain shape is read from the bytes, exactly as the text path reads it.
                #expect((fromBytes != nil) == (shape == .digits || (shape == .decimal && type == .float)), "\(context)")
                if let fromBytes { #expect("\(fromBytes)" == "\(expected)", "\(context)") }
            }
        }
    }

    @Test("A file read in one part per core has every byte once, at odd sizes and part boundaries (seeded)")
    func parallelRead() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for size in [1, 2, 3, 7, 4_096, 65_537, 1_000_003] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            let url = folder.appendingPathComponent("f\(size)")
            try Data(bytes).write(to: url)
            // In parts from 1 byte on (one per core here), and in one part.
            #expect(_readWholeFile(atPath: url.path, parallelFrom: 1) == bytes, "size \(size), seed \(seed)")
            #expect(_readWholeFile(atPath: url.path, parallelFrom: .max) == bytes, "size \(size), seed \(seed)")
        }
        #expect(_readWholeFile(atPath: folder.appendingPathComponent("missing").path, parallelFrom: 1) == nil)
        // An empty file and a folder: read to their end, and refused.
        try Data().write(to: folder.appendingPathComponent("empty"))
        #expect(_readWholeFile(atPath: folder.appendingPathComponent("empty").path, parallelFrom: 1) == [])
        #expect(_readWholeFile(atPath: folder.path, parallelFrom: 1) == nil)
    }
}
