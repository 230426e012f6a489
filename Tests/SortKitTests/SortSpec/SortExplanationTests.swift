import Foundation
import Testing

@testable import SortKit

@Suite("Explaining an order")
struct SortExplanationTests {
    @Test("Why is Émile before Emma: the folded sort keys differ at the third letter")
    func emile() throws {
        let why = try SortSpec(parsing: "name:fold").explain(["Émile"], ["Emma"], columnTypes: [.string])
        #expect(why.decidingKey == 0)
        #expect(why.steps[0].order == .orderedAscending)
        #expect(why.steps[0].firstKey! < why.steps[0].secondKey!)
        #expect(why.description.hasPrefix("key 1 'name:fold': \"Émile\" before \"Emma\" (sort keys "))
        #expect(why.description.contains(" < "))
        #expect(why.description.hasSuffix(" decides"))
        // Descending and nulls: the order is the output's.
        let price = try SortSpec(parsing: "status:enum=todo|done,-price").explain(["todo", "9.5"], ["todo", ""], columnTypes: [.string, .float])
        #expect(price.decidingKey == 1 && price.steps[0].order == .orderedSame && price.steps[0].ranks?.first == 0)
        #expect(price.steps[1].order == .orderedAscending && price.steps[1].second == .null)
        let tie = try SortSpec(parsing: "a:nocase").explain(["X"], ["x"], columnTypes: [.string])
        #expect(tie.decidingKey == 0, "nocase breaks ties by binary")
        let same = try SortSpec(parsing: "a").explain(["x"], ["x"], columnTypes: [.string])
        #expect(same.decidingKey == nil && same.description.hasSuffix("every key ties: input order decides"))
    }

    @Test("Adjacent rows of a sorted table explain as in order; swapped, as out of order (seeded)")
    func adjacent() throws {
        var random = SeededRandom.fromEnvironment(default: 0xE8)
        let specs = ["a", "-b:num", "c:enum=x|y,-a:len", "b:abs:nulls-first,a:fold", "c:random=3,b"]
        for round in 0..<100 {
            let rows = (0..<Int(random.next() % 25)).map { _ in
                [
                    ["É", "e", "Emma", "", "émile", "zz"][Int(random.next() % 6)], ["-3", "2", "", "$5", "-2"][Int(random.next() % 5)],
                    ["x", "y", "z", ""][Int(random.next() % 4)],
                ]
            }
            let table = TextTable(columns: ["a", "b", "c"], rows: rows)
            let spec = try SortSpec(parsing: specs[round % specs.count])
            let columns = try spec.keys.map { try table.columnIndex($0.column) }
            let types = table.columnTypes()
            let keyTypes = zip(spec.keys, columns).map { key, column in key.interpretation == .inferred && key.enumOrder == nil ? types[column] : .string }
            let order = try table.sortedRowIndices(by: spec)
            for (a, b) in zip(order, order.dropFirst()) {
                let texts = { (row: Int) in columns.map { rows[row][$0] } }
                let why = spec.explain(texts(a), texts(b), columnTypes: keyTypes)
                if let decider = why.decidingKey {
                    #expect(why.steps[decider].order == .orderedAscending, "round \(round), \(random.replay)")
                    let back = spec.explain(texts(b), texts(a), columnTypes: keyTypes)
                    #expect(back.decidingKey == decider && back.steps[decider].order == .orderedDescending)
                } else {
                    #expect(a < b, "ties keep input order")
                }
            }
        }
    }
}
