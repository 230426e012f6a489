import Foundation
import Testing
@testable import SortKit

extension SortValueSample {
    var value: SortValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .double(let d): .double(d)
        case .date(let d): .date(d)
        case .string(let s): .string(s)
        }
    }
}

@Suite("Sort values")
struct SortValueTests {
    @Test("Cross-type order: numbers < dates < strings < booleans, null smallest")
    func crossTypeOrder() {
        let values: [SortValue] = ["b", 10, true, 9.5, nil, "a", .date(.distantPast), false, .double(.nan)]
        #expect(values.sorted() == [nil, 9.5, 10, .double(.nan), .date(.distantPast), "a", "b", false, true])
    }

    @Test("Integers and doubles compare by value", arguments: [
        (SortValue.integer(9), SortValue.double(9.5), ComparisonResult.orderedAscending),
        (.double(9.5), .integer(10), .orderedAscending),
        (.integer(9), .double(9), .orderedSame),
        (.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992), .orderedDescending),
        (.integer(.max), .double(9.223372036854776e18), .orderedAscending),
        (.integer(.min), .double(-9.223372036854776e18), .orderedSame),
        (.integer(-1), .double(-0.5), .orderedAscending),
        (.integer(0), .double(-0.0), .orderedSame),
        (.integer(.max), .double(.nan), .orderedAscending),
        (.double(.infinity), .double(.nan), .orderedAscending),
        (.double(.nan), .double(.nan), .orderedSame),
    ])
    func numbers(lhs: SortValue, rhs: SortValue, expected: ComparisonResult) {
        #expect(SortValue.compare(lhs, rhs) == expected)
        #expect(SortValue.compare(rhs, lhs) == expected.reversed)
    }

    @Test("The anchor library's trap: 9 < 10 < \"5a\" and 9 < \"5a\" (transitive)")
    func mixedTypesAreTransitive() {
        #expect(SortValue.integer(9) < .integer(10))
        #expect(SortValue.integer(10) < .string("5a"))
        #expect(SortValue.integer(9) < .string("5a"))
    }

    @Test("Equal values hash alike")
    func hashing() {
        #expect(Set<SortValue>([.integer(9), .double(9), .double(.nan), .double(.nan), "e\u{301}", "é"]).count == 3)
        #expect(SortValue.integer(0).hashValue == SortValue.double(-0.0).hashValue)
    }

    @Test("Conversions from Swift types")
    func conversions() {
        #expect(Int(3).sortValue == .integer(3))
        #expect(UInt64.max.sortValue == .double(Double(UInt64.max)))
        #expect(Optional<String>.none.sortValue == .null)
        #expect(Decimal(string: "12.5")!.sortValue == .double(12.5))
        #expect(Float(1.5).sortValue == .double(1.5))
    }

    @Test("The order is a strict weak order on random triples (irreflexive, transitive, total)")
    func strictWeakOrder() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0001)
        for _ in 0..<20_000 {
            let (a, b, c) = (random.sortValue().value, random.sortValue().value, random.sortValue().value)
            for collation in Collation.allCases {
                let cmp = { SortValue.compare($0, $1, collation: collation) }
                #expect(cmp(a, a) == .orderedSame, "reflexive \(a), \(collation), \(random.replay)")
                #expect(cmp(a, b) == cmp(b, a).reversed, "antisymmetric \(a) \(b), \(collation), \(random.replay)")
                if cmp(a, b) != .orderedDescending && cmp(b, c) != .orderedDescending {
                    #expect(cmp(a, c) != .orderedDescending, "transitive \(a) ≤ \(b) ≤ \(c), \(collation), \(random.replay)")
                }
                if cmp(a, b) == .orderedSame && cmp(b, c) == .orderedSame {
                    #expect(cmp(a, c) == .orderedSame, "equivalence \(a) \(b) \(c), \(random.replay)")
                }
            }
        }
    }
}

@Suite("Sort value byte keys")
struct SortValueKeyTests {
    @Test("memcmp order of sortKey(collation:) is compare's order, across types (seeded)")
    func keysOrderAsValues() {
        var random = SeededRandom.fromEnvironment(default: 77)
        for collation in Collation.allCases {
            for _ in 0..<20_000 {
                let a = random.sortValue().value, b = random.sortValue().value
                guard let keyA = a.sortKey(collation: collation), let keyB = b.sortKey(collation: collation) else {
                    #expect(a.isNull || b.isNull)
                    continue
                }
                let byKey: ComparisonResult = keyA == keyB ? .orderedSame
                    : keyA.lexicographicallyPrecedes(keyB) ? .orderedAscending : .orderedDescending
                let byValue = SortValue.compare(a, b, collation: collation)
                #expect(byKey == byValue, "\(a) vs \(b) under \(collation), \(random.replay)")
            }
        }
    }

    @Test("compare and sortKey share one default collation: natural")
    func defaults() {
        var random = SeededRandom.fromEnvironment(default: 79)
        #expect(SortValue.compare("file2", "file10") == .orderedAscending)
        #expect(SortValue.string("file2") < SortValue.string("file10"))
        for _ in 0..<5_000 {
            let a = random.sortValue().value, b = random.sortValue().value
            #expect(SortValue.compare(a, b) == SortValue.compare(a, b, collation: .default), "\(random.replay)")
            if let keyA = a.sortKey(), let keyB = b.sortKey() {
                #expect(_compareBytes(keyA, keyB) == SortValue.compare(a, b), "\(a) vs \(b), \(random.replay)")
            }
        }
    }

    @Test("Equivalence key ranges hold exactly the equivalent strings")
    func equivalenceRanges() {
        var random = SeededRandom.fromEnvironment(default: 78)
        for collation in Collation.allCases {
            for _ in 0..<5_000 {
                let a = random.unicodeString(maxLength: 4), b = random.unicodeString(maxLength: 4)
                let range = collation.equivalenceKeyRange(for: a)
                let key = collation.sortKey(for: b)
                let inside = !key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper)
                #expect(inside == collation.areEquivalent(a, b), "\(a.debugDescription) vs \(b.debugDescription) under \(collation), \(random.replay)")
            }
        }
    }
}
