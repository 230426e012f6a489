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

    @Test(
        "Integers and doubles compare by value",
        arguments: [
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

    @Test("Integers beyond 64 bits: exact against integers and doubles, in compare, hashing and sort keys (seeded)")
    func largeIntegers() {
        #expect(_parseDecimal("12345678901234567891") == .largeInteger(12_345_678_901_234_567_891))
        #expect(_parseDecimal("9223372036854775807") == .integer(.max))
        #expect(SortValue(exactly: Int128(Int64.max)) == .integer(.max))
        #expect(SortValue.compare(.largeInteger(12_345_678_901_234_567_891), .largeInteger(12_345_678_901_234_567_890)) == .orderedDescending)
        #expect(SortValue.compare(.largeInteger(Int128(1) << 64), .double(18_446_744_073_709_551_616)) == .orderedSame)
        #expect(SortValue.compare(.largeInteger((Int128(1) << 64) + 1), .double(18_446_744_073_709_551_616)) == .orderedDescending)
        #expect(SortValue.compare(.largeInteger(-(Int128(1) << 70)), .integer(.min)) == .orderedAscending)
        #expect(SortValue.largeInteger(Int128(1) << 64).hashValue == SortValue.double(18_446_744_073_709_551_616).hashValue)
        // Random numbers of every kind near 2^53, 2^63 and 2^100: compare and memcmp of sort
        // keys against an exact oracle (values as fractions of Int128, doubles within range).
        let seed: UInt64 = 128
        var random = SeededRandom(seed: seed)
        func sample() -> SortValue {
            let scale = [Int128(1) << 53, Int128(1) << 63, Int128(1) << 100][Int(random.next() % 3)]
            let offset = Int128(Int64(bitPattern: random.next()) % 1_000)
            let value = (random.next() % 2 == 0 ? scale : -scale) + offset
            switch random.next() % 3 {
            case 0: return SortValue(exactly: value)
            case 1: return .double(Double(value))
            default: return .double(Double(value) + 0.5)
            }
        }
        func exact(_ value: SortValue) -> Double? {
            switch value {
            case .integer(let v): Double(v)
            case .largeInteger(let v): Double(v)
            case .double(let v): v
            default: nil
            }
        }
        for round in 0..<5_000 {
            let a = sample(), b = sample()
            let order = SortValue.compare(a, b)
            // The keys' byte order is compare's order.
            let keyOrder = _compareBytes(a.sortKey()!, b.sortKey()!)
            #expect(keyOrder == order || (abs(exact(a) ?? 0) >= 0x1p116 || abs(exact(b) ?? 0) >= 0x1p116), "seed \(seed), round \(round): \(a) \(b)")
            // Against the doubles: never contradicts them when they differ.
            if let x = exact(a), let y = exact(b), x != y { #expect(order == (x < y ? .orderedAscending : .orderedDescending), "seed \(seed), round \(round)") }
            if order == .orderedSame { #expect(a.hashValue == b.hashValue, "seed \(seed), round \(round)") }
        }
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
                let byKey: ComparisonResult =
                    keyA == keyB
                    ? .orderedSame
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
