import Foundation
import Testing

@testable import SortKit

/// A row with every kind of field Foundation interop deals with.
struct ShelfItem: Sendable, Equatable {
    enum Status: String, CaseIterable, Sendable { case todo, reading, done }

    var id: Int
    var title: String
    var note: String?
    var price: Double?
    var count: Int
    var status: Status { didSet { statusRank = status.declaredOrderRank } }
    var statusRank: Int

    init(id: Int, title: String, note: String?, price: Double?, count: Int, status: Status) {
        self.id = id
        self.title = title
        self.note = note
        self.price = price
        self.count = count
        self.status = status
        statusRank = status.declaredOrderRank
    }

    static func random(id: Int, _ random: inout SeededRandom, ascii: Bool = false) -> ShelfItem {
        func text(_ random: inout SeededRandom) -> String {
            ascii
                ? String((0..<Int.random(in: 0...3, using: &random)).map { _ in "aAbB1 z".randomElement(using: &random)! })
                : random.unicodeString(maxLength: 3)
        }
        return ShelfItem(
            id: id, title: text(&random), note: Bool.random(using: &random) ? nil : text(&random),
            price: Int.random(in: 0..<4, using: &random) == 0 ? nil : Double(Int.random(in: -3...3, using: &random)),
            count: Int.random(in: 0..<3, using: &random), status: Status.allCases.randomElement(using: &random)!)
    }
}

/// Stable insertion sort by a comparison: the oracle every ordering here is checked against.
func insertionSorted<Row>(_ rows: [Row], _ compare: (Row, Row) -> ComparisonResult) -> [Row] {
    var result: [Row] = []
    for row in rows {
        var position = result.count
        while position > 0 && compare(result[position - 1], row) == .orderedDescending { position -= 1 }
        result.insert(row, at: position)
    }
    return result
}

/// Sorts through Foundation's own generic algorithm, which calls the comparators' `compare`.
func foundationSorted<Row, Comparator: SortComparator>(_ rows: [Row], _ comparators: [Comparator]) -> [Row]
where Comparator.Compared == Row {
    rows.sorted(using: comparators)
}

@Suite("SortKey as Foundation's SortComparator")
struct SortComparatorTests {
    func randomKeys(_ random: inout SeededRandom) -> [SortKey<ShelfItem>] {
        let pool: [SortKey<ShelfItem>] = [
            SortKey(\.title), SortKey(\.note), SortKey(\.price), SortKey(\.count),
            SortKey(declaredOrderOf: \.status), SortKey(comparable: \.price), SortKey(comparable: \.count),
            SortKey<ShelfItem>(comparing: { a, b in
                (a.title.count == b.title.count) ? .orderedSame : (a.title.count < b.title.count ? .orderedAscending : .orderedDescending)
            }),
        ]
        return (0..<Int.random(in: 1...3, using: &random)).map { _ in
            var key = pool.randomElement(using: &random)!
            key.direction = SortDirection.allCases.randomElement(using: &random)!
            if key.isValueKey {
                key.collation = Collation.allCases.randomElement(using: &random)!
                key.nulls = NullPlacement.allCases.randomElement(using: &random)!
            }
            return key
        }
    }

    @Test("sorted(using:) with SortKit keys equals sorted(by:) and the oracle, under order flips, with nulls and collations")
    func sortedUsingMatchesSortedBy() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0024)
        for round in 0..<200 {
            let rows = (0..<Int.random(in: 0...150, using: &random)).map { ShelfItem.random(id: $0, &random) }
            var keys = randomKeys(&random)
            // Flip some keys the way SwiftUI's Table does: through `order`.
            for index in keys.indices where Bool.random(using: &random) {
                keys[index].order = keys[index].order == .forward ? .reverse : .forward
            }
            let expected = insertionSorted(rows) { keys.compare($0, $1) }.map(\.id)
            let context = "round \(round), \(random.replay)"
            #expect(rows.sorted(using: keys).map(\.id) == expected, "sorted(using: [SortKey]) — \(context)")
            #expect(rows.sorted(by: keys).map(\.id) == expected, "sorted(by:) — \(context)")
            #expect(rows.sorted(using: SortKeys(keys)).map(\.id) == expected, "sorted(using: SortKeys) — \(context)")
            #expect(foundationSorted(rows, keys).map(\.id) == expected, "Foundation's sort over the keys — \(context)")
            var inPlace = rows
            inPlace.sort(using: keys)
            #expect(inPlace.map(\.id) == expected, "sort(using:) — \(context)")
            if let first = keys.first {
                let one = insertionSorted(rows) { first.compare($0, $1) }.map(\.id)
                #expect(rows.sorted(using: first).map(\.id) == one, "sorted(using: SortKey) — \(context)")
            }
        }
    }

    @Test("Every spelling of sorted(using:) and sort(using:) with SortKit keys runs the engine: each row's value read once")
    func fastPathIsChosen() {
        final class Reads: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            func read() { lock.withLock { count += 1 } }
            func take() -> Int {
                lock.withLock {
                    defer { count = 0 }; return count
                }
            }
        }
        let reads = Reads()
        let rows = (0..<1_000).map { ShelfItem(id: $0, title: "t\($0 % 37)", note: nil, price: Double($0 % 11), count: $0 % 7, status: .todo) }
        let key = SortKey<ShelfItem>(.descending) { row -> Int in
            reads.read(); return row.count
        }.named("count")
        let list = SortKeys([key, SortKey(\.title)])
        let expected = insertionSorted(rows) { list.compare($0, $1) }.map(\.id)
        _ = reads.take()
        let spellings: [(String, () -> [ShelfItem])] = [
            ("one key", { rows.sorted(using: key) }),
            ("[SortKey]", { rows.sorted(using: [key, SortKey(\.title)]) }),
            ("ArraySlice", { rows.sorted(using: [key, SortKey(\.title), SortKey(\.price)].prefix(2)) }),
            ("lazy map", { rows.sorted(using: [0, 1].lazy.map { $0 == 0 ? key : SortKey(\.title) }) }),
            ("SortKeys", { rows.sorted(using: list) }),
            ("[SortKeys]", { rows.sorted(using: [list]) }),
            (
                "sort(using: [SortKey])",
                {
                    var copy = rows; copy.sort(using: [key, SortKey(\.title)]); return copy
                }
            ),
            (
                "sort(using: SortKeys)",
                {
                    var copy = rows; copy.sort(using: list); return copy
                }
            ),
            ("ArraySlice rows", { Array(rows[...].sorted(using: [key, SortKey(\.title)])) }),
        ]
        for (name, sort) in spellings {
            let sorted = sort()
            #expect(reads.take() <= rows.count, "\(name): the key was read per comparison, not per row")
            if name != "one key" { #expect(sorted.map(\.id) == expected, "\(name)") }
        }
        // Foundation's generic path (what an unrecognized spelling gets) reads per comparison.
        _ = foundationSorted(rows, [key])
        #expect(reads.take() > rows.count * 2)
    }

    @Test("Flipping order reverses the direction only: nulls stay last, ties keep input order")
    func orderFlipKeepsNulls() {
        let rows = [
            ShelfItem(id: 0, title: "b", note: nil, price: nil, count: 1, status: .todo),
            ShelfItem(id: 1, title: "a", note: nil, price: 2, count: 1, status: .todo),
            ShelfItem(id: 2, title: "c", note: nil, price: 9, count: 1, status: .todo),
            ShelfItem(id: 3, title: "d", note: nil, price: 2, count: 1, status: .todo),
        ]
        var key = SortKey(\ShelfItem.price)
        #expect(key.order == .forward)
        #expect(rows.sorted(using: key).map(\.id) == [1, 3, 2, 0])
        key.order = .reverse
        #expect(key.direction == .descending)
        #expect(rows.sorted(using: key).map(\.id) == [2, 1, 3, 0])
        #expect(foundationSorted(rows, [key]).map(\.id) == [2, 1, 3, 0])

        var list = SortKeys([SortKey(\ShelfItem.price), SortKey(\.title)])
        list.order = .reverse
        #expect(list.effectiveKeys.map(\.direction) == [.descending, .descending])
        #expect(rows.sorted(using: list).map(\.id) == [2, 3, 1, 0])
        #expect(insertionSorted(rows) { list.compare($0, $1) }.map(\.id) == [2, 3, 1, 0])
    }

    @Test("Keys are equal when they read the same thing the same way; closure keys when named alike")
    func equality() {
        #expect(SortKey(\ShelfItem.price) == SortKey(\ShelfItem.price))
        #expect(Set([SortKey(\ShelfItem.price), SortKey(\ShelfItem.price)]).count == 1)
        #expect(SortKey(\ShelfItem.price) != SortKey(\ShelfItem.price, .descending))
        #expect(SortKey(\ShelfItem.title) != SortKey(\ShelfItem.title, collation: .binary))
        #expect(SortKey(\ShelfItem.title) != SortKey(\ShelfItem.note))
        #expect(SortKey(\ShelfItem.count) != SortKey(comparable: \ShelfItem.count))
        #expect(SortKey(declaredOrderOf: \ShelfItem.status) == SortKey(declaredOrderOf: \ShelfItem.status))
        #expect(SortKey(\ShelfItem.status, order: [.done, .todo]) != SortKey(\ShelfItem.status, order: [.todo, .done]))

        let closure = SortKey<ShelfItem> { $0.title.count }
        #expect(closure == closure)
        #expect(closure != SortKey<ShelfItem> { $0.title.count })
        let named = SortKey<ShelfItem> { $0.title.count }.named("length")
        #expect(named == SortKey<ShelfItem> { $0.title.count * 2 }.named("length"))
        #expect(named.name == "length")
        var flipped = named
        flipped.order = .reverse
        #expect(flipped != named)
        flipped.order = .forward
        #expect(flipped == named)

        let list = SortKeys([SortKey(\ShelfItem.title), SortKey(\.count)])
        #expect(list == SortKeys([SortKey(\ShelfItem.title), SortKey(\.count)]))
        #expect(list != SortKeys([SortKey(\ShelfItem.count), SortKey(\.title)]))
        #expect(SortKeys([closure]).named("x") == SortKeys([SortKey<ShelfItem> { $0.count }]).named("x"))
    }
}
