import Foundation
import Testing

@testable import SortKit

/// A row for randomized sorts: a mixed-type column, an optional string, an optional enum.
struct RandomRow: Sendable {
    var id: Int
    var mixed: SortValue
    var text: String?
    var status: Status?
    var group: Int
}

@Suite("Multi-key sorts against an oracle")
struct SortPropertyTests {
    /// The oracle: insertion sort (stable by construction) comparing values directly with
    /// `SortValue.compare(_:_:collation:)` — no collation keys, no index tie-break.
    func oracle(_ rows: [RandomRow], _ keys: [(SortKey<RandomRow>, (RandomRow) -> SortValue)]) -> [Int] {
        var result: [RandomRow] = []
        for row in rows {
            var position = result.count
            while position > 0 {
                let previous = result[position - 1]
                var order = ComparisonResult.orderedSame
                for (key, value) in keys {
                    let (a, b) = (value(previous), value(row))
                    if a.isNull || b.isNull {
                        if a.isNull != b.isNull {
                            order = a.isNull == key.nulls.nullsFirst(key.direction) ? .orderedAscending : .orderedDescending
                        }
                    } else {
                        let raw = SortValue.compare(a, b, collation: key.collation)
                        order = key.direction == .ascending ? raw : raw.reversed
                    }
                    if order != .orderedSame { break }
                }
                if order != .orderedDescending { break }
                position -= 1
            }
            result.insert(row, at: position)
        }
        return result.map(\.id)
    }

    @Test("Random multi-key sorts equal the oracle and are stable")
    func randomSorts() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0010)
        for round in 0..<150 {
            let rows = (0..<Int.random(in: 0...120, using: &random)).map { id in
                RandomRow(
                    id: id, mixed: random.sortValue().value,
                    text: Bool.random(using: &random) ? nil : random.unicodeString(maxLength: 3),
                    status: [nil, .todo, .reading, .done].randomElement(using: &random)!,
                    group: Int.random(in: 0..<3, using: &random))
            }
            var keys: [(SortKey<RandomRow>, (RandomRow) -> SortValue)] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let direction = SortDirection.allCases.randomElement(using: &random)!
                let nulls = NullPlacement.allCases.randomElement(using: &random)!
                let collation = Collation.allCases.randomElement(using: &random)!
                switch Int.random(in: 0..<4, using: &random) {
                case 0: keys.append((SortKey(\.mixed, direction, collation: collation, nulls: nulls), \.mixed))
                case 1: keys.append((SortKey(\.text, direction, collation: collation, nulls: nulls), { $0.text.sortValue }))
                case 2:
                    keys.append(
                        (
                            SortKey(declaredOrderOf: \.status, direction, nulls: nulls),
                            {
                                $0.status.map { .integer(Int64(Status.allCases.firstIndex(of: $0)!)) } ?? .null
                            }
                        ))
                default: keys.append((SortKey(\.group, direction), { .integer(Int64($0.group)) }))
                }
            }
            let sorted = rows.sorted(by: keys.map(\.0)).map(\.id)
            let expected = oracle(rows, keys)
            #expect(sorted == expected, "round \(round), \(keys.count) keys, \(random.replay)")
        }
    }

    @Test("Stability: equal keys keep input order, ascending and descending")
    func stability() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0011)
        let values = (0..<2_000).map { _ in Int.random(in: 0..<10, using: &random) }
        for direction in SortDirection.allCases {
            let sorted = Array(values.enumerated()).sorted(by: [SortKey(\.element, direction)])
            for (a, b) in zip(sorted, sorted.dropFirst()) where a.element == b.element {
                #expect(a.offset < b.offset, "\(direction), \(random.replay)")
            }
        }
    }
}

@Suite("Sort fences")
struct SortFenceTests {
    /// Wherever two fences tell an order, it is the values' order under the key (direction
    /// included); values that compare equal never get fences that tell.
    @Test("A fence that tells agrees with comparing the values, for strings, numbers and dates of every kind (seeded)")
    func fencesAgree() {
        var random = SeededRandom.fromEnvironment(default: 0xFE2CE)
        let texts = [
            random.unicodeString(), random.unicodeString(), random.unicodeString(maxLength: 20), "", "a", "A", "ab", "abcdefgh", "abcdefghi", "abcdefgh\u{301}",
            "Émile", "E\u{301}mile", "émile", "서울", "東京", "Ωmega", "file2", "file10", "\u{0}", "zz",
        ]
        let numbers: [SortValue] = [
            .null, .integer(0), .integer(-1), .integer(.max), .integer(.max - 1), .integer(.min), .integer(1 << 53), .integer((1 << 53) + 1),
        ]
        let doubles: [SortValue] = [.double(0), .double(-0.0), .double(.nan), .double(.infinity), .double(-.infinity), .double(1e300), .double(0.5)]
        let others: [SortValue] = [
            .largeInteger(Int128(Int64.max) * 4), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(Date(timeIntervalSinceReferenceDate: -1)),
        ]
        let strings: [SortValue] = texts.map { .string($0) }
        let values = strings + numbers + doubles + others
        var told = 0
        for collation in [Collation.natural, .binary, .caseInsensitive, .folded] {
            for direction in SortDirection.allCases {
                let key = SortKey<SortValue>(direction, collation: collation) { $0 }
                for _ in 0..<2_000 {
                    let a = values.randomElement(using: &random)!, b = values.randomElement(using: &random)!
                    guard let order = _SortFence(key, value: a).order(of: _SortFence(key, value: b), direction: direction) else { continue }
                    told += 1
                    // `order` is how b's row compares with a's.
                    #expect(order == key.compareValues(b, a), "\(a) against \(b), \(collation), \(direction) (\(random.replay))")
                }
            }
        }
        #expect(told > 1_000)
    }
}
