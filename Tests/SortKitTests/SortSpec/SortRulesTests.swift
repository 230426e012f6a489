import Foundation
import Testing

@testable import SortKit

@Suite("Sort rules: fixed keys and columns that sort by others")
struct SortRulesTests {
    @Test("Fixed keys wrap the picked ones; a column sorting by others expands, reversed when descending")
    func applied() throws {
        let rules = SortRules(
            before: try SortSpec(parsing: "status:enum=todo|doing|done"), after: try SortSpec(parsing: "-updated"),
            sortsBy: ["Name": try SortSpec(parsing: "last:nocase,first:nulls-first")])
        #expect(rules.applied(to: try SortSpec(parsing: "-Name")).description == "status:enum=todo|doing|done,-last:nocase,-first:nulls-first,-updated")
        #expect(rules.applied(to: SortSpec()).description == "status:enum=todo|doing|done,-updated")
        // The fixed key wins over the same column picked; a picked key named again by `after` stays where picked.
        #expect(rules.applied(to: try SortSpec(parsing: "-status,updated")).description == "status:enum=todo|doing|done,updated")
        #expect(SortRules().applied(to: try SortSpec(parsing: "a,-b")).description == "a,-b")
        #expect(SortRules().isEmpty && !rules.isEmpty)
    }

    @Test("Applied rules order a table as the expanded spec does, stable, against a hand-written oracle (seeded)")
    func oracle() throws {
        var random = SeededRandom.fromEnvironment(default: 0xF1FED)
        let statuses = ["todo", "doing", "done"]
        for round in 0..<100 {
            let rows = (0..<Int(random.next() % 30)).map { _ in
                [
                    statuses[Int(random.next() % 3)], ["Ann", "Bo", "Cy", ""][Int(random.next() % 4)], ["Lee", "Ng", "Zed"][Int(random.next() % 3)],
                    String(random.next() % 5),
                ]
            }
            let table = TextTable(columns: ["status", "first", "last", "n"], rows: rows)
            let rules = SortRules(before: try SortSpec(parsing: "status:enum=todo|doing|done"), sortsBy: ["first": try SortSpec(parsing: "last,first")])
            let descending = random.next() % 2 == 0
            let order = try table.sortedRowIndices(by: rules.applied(to: SortSpec([SortSpec.Key("first", descending ? .descending : .ascending)])))
            let expected = rows.indices.sorted { a, b in
                let (x, y) = (rows[a], rows[b])
                let rank = { statuses.firstIndex(of: $0)! }
                if rank(x[0]) != rank(y[0]) { return rank(x[0]) < rank(y[0]) }
                if x[2] != y[2] { return descending ? x[2] > y[2] : x[2] < y[2] }
                if x[1] != y[1] {
                    // Blank first names are null: last in both directions.
                    if x[1].isEmpty || y[1].isEmpty { return y[1].isEmpty }
                    return descending ? x[1] > y[1] : x[1] < y[1]
                }
                return a < b
            }
            #expect(order == expected, "round \(round), \(random.replay)")
        }
    }
}
