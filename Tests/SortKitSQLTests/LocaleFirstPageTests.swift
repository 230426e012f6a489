import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// A first page by a locale column comes from a selection that reads the full keys of only
/// the rows whose first letter can place them on the page (#36): it must be the page the full
/// sort gives, for every direction, strength, blank and hard first letter, and after writes.
@Suite("First pages by a locale column")
struct LocaleFirstPageTests {
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
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 3636
        var random = SplitMix64(seed: seed)
        // No ranking is kept, so every page below is a first page's selection.
        let store = try SQLiteTableStore(
            path: try temporaryDatabase(), queryBudget: testQueryBudget, indexLimits: IndexLimits(rankingBytesPerTable: 0, rankingBytes: 0))
        let csv = Self.csv(rows: 3_000, using: &random)
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        var memory = try TextTable(csv: Array(csv.utf8))
        let specs = [
            "t:locale=sv", "-t:locale=sv", "t:locale=da:nocase,-n", "-t:locale=cs:fold,n", "t:locale=und:natural", "-t:locale=hu:nulls-first",
            "t:locale=sv:nulls-last", "t:locale=tr,n", "t:locale=ko",
        ]
        func check(_ round: String) async throws {
            for spec in specs {
                let order = try SortSpec(parsing: spec)
                let expected = try memory.sortedRowIndices(by: order).map { Int64($0 + 1) }
                for (offset, limit) in [(0, 1), (0, 25), (40, 10)] {
                    let page = try await store.page(of: "t", PageRequest(order: .spec(order), offset: offset, limit: limit))
                    let want = Array(expected.dropFirst(offset).prefix(limit))
                    #expect(page.rows.map(\.id) == want, "\(round): \(spec) offset \(offset) limit \(limit) (seed \(seed))")
                }
            }
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
}
