import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// The selection PostgreSQL's scans of orders SortKit computes go through: the first rows of
/// each random batch, after a cursor, both directions, against sorting them all.
@Suite("Rows of an order SortKit computes")
struct ComputedSelectionTests {
    /// The oracle's order of two values of one kind: integers as numbers, bytes as `memcmp`
    /// then length.
    static func before(_ a: SQLValue, _ b: SQLValue) -> Bool? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? nil : x < y
        case (.blob(let x), .blob(let y)):
            for (p, q) in zip(x, y) where p != q { return p < q }
            return x.count == y.count ? nil : x.count < y.count
        default: preconditionFailure("one kind per term")
        }
    }

    @Test("The kept rows are the first of all of them, sorted, after the cursor (seeded)")
    func firstRows() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<300 {
            let count = Int.random(in: 0...3_000, using: &random)
            // A key of 0–3 bytes (few values: ties), a rank, the id last.
            let rows: [[SQLValue]] = (0..<count).map { id in
                [
                    .blob((0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }),
                    .integer(Int64.random(in: -2...2, using: &random)), .integer(Int64(id)),
                ]
            }
            let descending = [Bool.random(using: &random), Bool.random(using: &random), false]
            func precedes(_ a: [SQLValue], _ b: [SQLValue]) -> Bool {
                for index in a.indices { if let before = Self.before(a[index], b[index]) { return before != descending[index] } }
                return false
            }
            let keep = [1, 2, 26, 1_000, 5_000].randomElement(using: &random)!
            let after = count > 0 && Bool.random(using: &random) ? rows.randomElement(using: &random) : nil
            var selection = _ComputedSelection(descending: descending, computing: [:], keep: round % 10 == 0 ? nil : keep, after: after)
            for row in rows.shuffled(using: &random) { selection.add(row) }
            let all = rows.sorted(by: precedes).filter { row in after.map { precedes($0, row) } ?? true }
            let expected = round % 10 == 0 ? all : Array(all.prefix(keep))
            #expect(selection.sorted() == expected, "round \(round), \(count) rows, keep \(keep), seed \(seed) (replay with SORTKIT_SEED=\(seed))")
            #expect(selection.count == count)
        }
    }

    @Test("A computed term is the key the stored column would hold; an enum= rank the CASE's")
    func computedTerms() throws {
        let schema = TableSchema(name: "t", columns: [.init("title", .string), .init("price", .float)])
        let ordering = try SQLOrdering(
            .spec(SortSpec(parsing: "title:len,-price:abs,title:enum=b|a:nulls-first")), schema: schema, dialect: .postgresql)
        let computed = ordering.terms.map(\.computed)
        #expect(computed.map { $0 == nil } == [false, false, false, false, true], "the id is read, not computed")
        let length = try #require(computed[0]), absolute = try #require(computed[1]), rank = try #require(computed[2])
        #expect(length.value(of: "Émile") == .blob(try #require(length.variant.key(of: "e\u{301}mile", type: .string))), "5 characters either way")
        #expect(length.value(of: "") == .blob([0xFF]), "a null length sorts last ascending")
        #expect(absolute.value(of: "-2.5") == absolute.value(of: "2.5"))
        #expect(absolute.value(of: " ") == .blob([]), "a null sorts last descending: below every key")
        #expect(rank.value(of: "b") == .integer(0) && rank.value(of: "a") == .integer(1) && rank.value(of: "c") == .integer(2))
        #expect(rank.value(of: "") == .integer(-1), "nulls first: below every rank")
    }
}
