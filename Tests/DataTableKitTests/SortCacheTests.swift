import Foundation
import OrderKeys
import SortKit
import Testing

@testable import DataTableKit

/// The table keeps each sort key's ranking between sorts and merges changed rows into it; these
/// tests check every displayed order against a fresh sort of the rows (the oracle).
@Suite("Kept sort orders")
struct SortCacheTests {
    struct Item: Identifiable, Equatable, Sendable {
        var id: Int
        var name: String?
        var group: Int?
        var score: Double
        var tag: String
    }

    static var columns: [DataTableColumn<Item>] {
        [
            DataTableColumn("name", sortedBy: \.name, nulls: .first) { $0.name ?? "" },
            DataTableColumn("group", \.group),
            DataTableColumn("score", \.score) { String(format: "%.1f", $0) }.editable(\.score) { Double($0) },
            DataTableColumn("tag", sortedByComparator: { $0.tag.lowercased().compare($1.tag.lowercased()) }) { $0.tag },
            DataTableColumn("notes"),
        ]
    }

    /// The oracle's key for each header.
    static let keys: [String: SortKey<Item>] = [
        "name": SortKey(\.name, nulls: .first), "group": SortKey(\.group), "score": SortKey(\.score),
        "tag": SortKey(comparing: { $0.tag.lowercased().compare($1.tag.lowercased()) }),
    ]

    static func item(_ id: Int, _ random: inout SplitMix64) -> Item {
        let names = ["Émile", "emile", "Ann", "ann 2", "ann 10", "Zoë", "bob", "Bob"]
        return Item(
            id: id,
            name: Int.random(in: 0..<6, using: &random) == 0 ? nil : names.randomElement(using: &random),
            group: Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0..<5, using: &random),
            score: Double(Int.random(in: 0..<20, using: &random)) / 2,
            tag: ["x", "X", "y", "Z"].randomElement(using: &random)!)
    }

    /// Positions the table should show: the rows sorted afresh, then searched.
    static func expected(_ table: DataTable<Item>) -> [Int] {
        let keys = table.sortSpec.keys.map { key in
            key.direction == .descending ? Self.keys[key.column]!.reversed : Self.keys[key.column]!
        }
        let query = SearchQuery(table.searchText)
        return table.rows.sortedIndices(by: keys).filter { position in
            query.matches(columns.indices.map { table.text(table.rows[position], column: $0) })
        }
    }

    @Test("Random taps, searches, data changes and edits match a fresh sort (seeded)")
    func randomOperations() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xDA7A
        var random = SplitMix64(seed: seed)
        for round in 0..<8 {
            var nextID = 0
            var rows: [Item] = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                defer { nextID += 1 }
                return Self.item(nextID, &random)
            }
            var table = DataTable(rows: rows, columns: Self.columns, pageSize: 7)
            if round.isMultiple(of: 3) { table.prepareSorting() }
            // Half the rounds update kept orders in the background, as large tables do.
            if round.isMultiple(of: 2) { table.backgroundUpdateThreshold = 0 }
            for step in 0..<50 {
                let context = "round \(round), step \(step), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
                let before = table.displayedIDs
                var diff: DataTableDiff<Int>?
                var changedIDs: Set<Int> = []
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    table.tapHeader(Int.random(in: 0..<Self.columns.count, using: &random), additive: Bool.random(using: &random))
                case 3:
                    table.setSearch(["", "a", "an", "ann", "e", "em", "bob 2"].randomElement(using: &random)!)
                case 4..<8:
                    // A few rows changed (merged into kept orders) or many (ranked again).
                    let changes = Bool.random(using: &random) ? Int.random(in: 0...3, using: &random) : rows.count / 2
                    for _ in 0..<changes where !rows.isEmpty {
                        let index = Int.random(in: 0..<rows.count, using: &random)
                        let fresh = Self.item(rows[index].id, &random)
                        if fresh != rows[index] { changedIDs.insert(fresh.id) }
                        rows[index] = fresh
                    }
                    if Int.random(in: 0..<3, using: &random) == 0, !rows.isEmpty { rows.remove(at: Int.random(in: 0..<rows.count, using: &random)) }
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        rows.insert(Self.item(nextID, &random), at: Int.random(in: 0...rows.count, using: &random))
                        nextID += 1
                    }
                    if Int.random(in: 0..<6, using: &random) == 0 { rows.shuffle(using: &random) }
                    diff = table.setData(rows)
                default:
                    guard let row = rows.randomElement(using: &random) else { continue }
                    let score = Double(Int.random(in: 0..<20, using: &random)) / 2
                    diff = try table.edit(row.id, column: 2, to: "\(score)")
                    rows[rows.firstIndex { $0.id == row.id }!].score = score
                    changedIDs.insert(row.id) // an edited row is reported updated while shown
                }
                #expect(table.rows == rows, "\(context)")
                #expect(table.displayedPositions == Self.expected(table), "order after \(table.sortSpec), search '\(table.searchText)': \(context)")
                // Cell widths are measured when rows are folded and must follow every change.
                let measured = table.columnWidths(ColumnWidthOptions(strategy: .maxMeasured, minimum: 0, maximum: 1_000))
                let widest = Self.columns.indices.map { column in
                    max(
                        table.displayedPositions.map { TerminalWidth.of(table.text(table.rows[$0], column: column)) }.max() ?? 0,
                        TerminalWidth.of(Self.columns[column].header) + (table.sortIndicator(for: column) == .hidden ? 0 : 2))
                }
                #expect(measured == widest, "widths: \(context)")
                if let diff {
                    let after = table.displayedIDs
                    let oracle = DataTableDiff(from: before, to: after)
                    #expect(Set(diff.removed.map(\.id)) == Set(oracle.removed.map(\.id)), "\(context)")
                    #expect(Set(diff.inserted.map(\.id)) == Set(oracle.inserted.map(\.id)), "\(context)")
                    #expect(diff.moved.count == oracle.moved.count, "\(context)")
                    #expect(Set(diff.updated) == changedIDs.intersection(before).intersection(after), "\(context)")
                }
            }
        }
    }

    @Test("Both directions and null placements come from one kept ranking")
    func directionsFromOneRanking() {
        var random = SplitMix64(seed: 7)
        let rows = (0..<200).map { Self.item($0, &random) }
        var table = DataTable(rows: rows, columns: Self.columns)
        for column in [0, 1] {
            table.tapHeader(column)
            #expect(table.displayedPositions == Self.expected(table))
            table.tapHeader(column)
            #expect(table.displayedPositions == Self.expected(table))
            // Nulls: first for name in both directions, last for group in both.
            let ends = [table.displayedPositions.first!, table.displayedPositions.last!].map { rows[$0] }
            if column == 0 { #expect(ends[0].name == nil) } else { #expect(ends[1].group == nil) }
        }
    }
}
