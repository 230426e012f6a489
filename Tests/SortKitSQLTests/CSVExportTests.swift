import Foundation
import SortKit
import SortKitShared
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// CSV downloads: the byte writer against the `String` one, and a page written straight from the
/// in-memory index against the same page's rows written by ``CSVExport/appendRecords(_:to:)``.
@Suite("CSV export")
struct CSVExportTests {
    /// Cells that need quotes or a `'` and ones that nearly do: quotes, the delimiter, every line
    /// break scalar (LF, VT, FF, CR, NEL, LS, PS) and their near misses (U+0084, U+2027, U+202A),
    /// formula starts, signed numbers, combining marks, non-ASCII.
    static let pieces = [
        "a", "Z", " ", ",", "\"", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{84}", "\u{2028}", "\u{2029}", "\u{2027}", "\u{202A}",
        "=", "+", "-", "@", "\t", "1", "2.5", "e3", "é", "e\u{301}", "日本", "😀", ";", "'",
    ]

    static func randomText(_ random: inout SplitMix64, most: Int = 6) -> String {
        (0..<Int(random.next() % UInt64(most + 1))).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    @Test("The byte writer quotes as CSV.quoted does (seeded random fields)")
    func quoting() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<20_000 {
            var field = Self.randomText(&random, most: 8)
            var output: [UInt8] = []
            field.withUTF8 { CSV.appendQuoted($0, delimiter: UInt8(ascii: ","), to: &output) }
            let expected = CSV.quoted(field)
            #expect(
                String(decoding: output, as: UTF8.self) == expected, "seed \(seed) (SORTKIT_SEED=\(seed) repeats it), round \(round): \(field.debugDescription)"
            )
            if String(decoding: output, as: UTF8.self) != expected { return }
        }
    }

    @Test("A download page from the index is byte for byte the page's rows written as CSV, written and new rows included", arguments: Backend.available)
    func indexPages(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        var records = [["text", "n", "f"]]
        for row in 0..<300 {
            records.append([
                Self.randomText(&random), row % 7 == 0 ? "" : String(Int(random.next() % 200) - 100),
                ["-1234.50", "-$1,234.50", "+3", "=1+2", "", String(row)][Int(random.next() % 6)],
            ])
        }
        try await store.importCSV(Array(CSV.format(records).utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        // Rows the index holds apart from its arenas: an updated one, a new one; and a gone one.
        try await store.update(3, in: "t", set: ["text": "=cmd|' /C calc'!A0,\"x\"\n"])
        try await store.insert(["text": "new\u{2028}row", "n": "-7", "f": "@SUM(A1)"], into: "t")
        try await store.delete(5, from: "t")
        let specs = ["text", "-n,text", "f:nocase,-text", "n"]
        for spec in specs {
            for search in ["", "a", "é"] {
                for defusing in [nil, [ColumnType.string, .integer, .float]] {
                    let export = CSVExport(defusing: defusing)
                    var request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, limit: Int(random.next() % 40) + 1)
                    var fromRows: [UInt8] = [], fromIndex: [UInt8] = []
                    var sawIndexBytes = false
                    var cells: [[String]] = []
                    while true {
                        let page = try await store.page(of: "t", request)
                        var csvRequest = request
                        csvRequest.csv = export
                        let csvPage = try await store.page(of: "t", csvRequest)
                        export.appendRecords(page.rows.map(\.cells), to: &fromRows)
                        cells += page.rows.map(\.cells)
                        if let bytes = csvPage.csv {
                            sawIndexBytes = true
                            #expect(csvPage.rows.isEmpty)
                            fromIndex += bytes
                        } else {
                            export.appendRecords(csvPage.rows.map(\.cells), to: &fromIndex)
                        }
                        #expect(csvPage.next == page.next && csvPage.filtered == page.filtered)
                        guard let next = page.next else { break }
                        request.after = next
                    }
                    #expect(
                        fromIndex == fromRows,
                        "\(backend), seed \(seed) (SORTKIT_SEED=\(seed) repeats it), sort \(spec), q '\(search)', defusing \(defusing != nil)")
                    // Every backend writes the bytes: the index from its arenas, SQLite read by SQL
                    // from its columns.
                    #expect(sawIndexBytes, "\(backend)")
                    if defusing == nil {
                        // Without defusing the download reads back as the rows.
                        #expect(try CSV.parse(fromIndex) == cells, "\(backend), seed \(seed), sort \(spec), q '\(search)'")
                    }
                }
            }
        }
    }

    @Test("A page big enough to be written in slices (one per core) joins them in order; a megabyte cell too", arguments: Backend.available)
    func bigPages(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        var records = [["text", "n"]]
        for row in 0..<9_000 { records.append([Self.randomText(&random), String(row % 97)]) }
        records.append([String(repeating: "x,\"é", count: 300_000), "1"])
        try await store.importCSV(Array(CSV.format(records).utf8), as: "big", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.update(10, in: "big", set: ["text": "=written"])
        let export = CSVExport(defusing: [.string, .integer])
        let request = PageRequest(order: .spec(try SortSpec(parsing: "-n,text")), limit: 8_500)
        let rows = try await store.page(of: "big", request)
        var csvRequest = request
        csvRequest.csv = export
        let csv = try await store.page(of: "big", csvRequest)
        var expected: [UInt8] = []
        export.appendRecords(rows.rows.map(\.cells), to: &expected)
        #expect(rows.rows.count == 8_500)
        #expect((csv.csv ?? []) == expected || (backend == .sqliteSQL && csv.csv == nil), "\(backend), seed \(seed) (SORTKIT_SEED=\(seed) repeats it)")
        // The megabyte cell sorts last by -n (1) then text: on the next page.
        var last = csvRequest
        last.after = csv.next
        let tail = try await store.page(of: "big", last)
        let tailText = String(decoding: tail.csv ?? [], as: UTF8.self)
        #expect(backend == .sqliteSQL || tailText.contains(String(repeating: "x,\"\"é", count: 1_000)), "\(backend)")
    }
}
