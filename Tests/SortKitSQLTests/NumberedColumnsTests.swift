import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// An index keeps a column whose cells repeat as its distinct cells and a number per row, and
/// their folded search text once per distinct cell (``_CellColumn``, ``_FoldedText``): searches
/// must find what testing each row's whole text finds.
@Suite("Numbered columns in the index")
struct NumberedColumnsTests {
    @Test("A search of a one-column table kept numbered, blank cells included, agrees with testing row by row, before and after compaction (seeded)")
    func numberedSearchEdges() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let values = ["", "ab", "c", "ab c", "Éa", "zz"]
        var rows: [Int64: String] = [:]
        var csv = "v\n"
        for id in 1...5_000 {
            let value = values.randomElement(using: &random)!
            rows[Int64(id)] = value
            csv += "\"\(value)\"\n"
        }
        let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        for round in 0..<2 {
            for (query, filter) in [("ab", nil), ("c", nil), ("ea", nil), ("ab c", nil), ("q", nil), ("", "b"), ("a", "zz"), ("b", "ab")] as [(String, String?)]
            {
                let search = SearchQuery(query)
                let expected = rows.filter { _, value in
                    search.matches(folded: SearchQuery.foldedFields([value]))
                        && (filter.map { SearchQuery($0).matches(folded: SearchQuery.fold(value)) } ?? true)
                }.keys.sorted()
                let request = PageRequest(order: .spec(SortSpec()), search: query, columnSearch: filter.map { ["v": $0] } ?? [:], limit: 10_000)
                let page = try await store.page(of: "t", request)
                #expect(page.filtered == expected.count && page.rows.map(\.id) == expected, "round \(round): '\(query)' \(filter ?? ""), seed \(seed)")
            }
            // Rewrite more than a quarter of the rows: the index is compacted (numbered again).
            for id in Int64(1)...1_400 {
                let value = values.randomElement(using: &random)!
                try await store.update(id, in: "t", set: ["v": value])
                rows[id] = value
            }
        }
    }
}
