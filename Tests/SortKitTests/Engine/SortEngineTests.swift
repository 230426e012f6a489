import Foundation
import SortKitTestSupport
import Testing

@testable import SortKit

/// A row with one column per encoding path of the engine.
struct EngineRow: Sendable {
    var id: Int
    var lowCardinality: String? // dictionary-encoded strings
    var highCardinality: String? // prefix-encoded strings, long shared prefixes
    var fullRange: Int64? // 64-bit range with nulls: the word loses a bit
    var smallInt: Int
    var double: Double?
    var mixed: SortValue
    var date: Date?
    var flag: Bool?
    var status: Status?
}

@Suite("Fast engine agrees with the reference path")
struct SortEngineTests {
    func makeRows(_ count: Int, _ random: inout SeededRandom) -> [EngineRow] {
        let authors = (0..<Int.random(in: 1...12, using: &random)).map { _ in random.unicodeString(maxLength: 4) }
        let prefix = String(repeating: "shared prefix ", count: Int.random(in: 0...2, using: &random))
        return (0..<count).map { id in
            EngineRow(
                id: id,
                lowCardinality: Int.random(in: 0..<8, using: &random) == 0 ? nil : authors.randomElement(using: &random)!,
                highCardinality: Int.random(in: 0..<8, using: &random) == 0 ? nil : prefix + random.unicodeString(maxLength: 6),
                fullRange: Int.random(in: 0..<6, using: &random) == 0
                    ? nil
                    : [Int64.min, .max, 0, -1, Int64.random(in: .min ... .max, using: &random)].randomElement(using: &random)!,
                smallInt: Int.random(in: -3...3, using: &random),
                double: Int.random(in: 0..<6, using: &random) == 0
                    ? nil
                    : [.nan, -0.0, 0.0, 1.5, -2.25, .infinity, -.infinity, Double(Int.random(in: -5...5, using: &random))].randomElement(using: &random)!,
                mixed: random.sortValue().value,
                date: Bool.random(using: &random) ? nil : Date(timeIntervalSince1970: Double(Int.random(in: -3...3, using: &random))),
                flag: [nil, true, false].randomElement(using: &random)!,
                status: [nil, .todo, .reading, .done].randomElement(using: &random)!)
        }
    }

    func randomKey(_ random: inout SeededRandom) -> SortKey<EngineRow> {
        let direction = SortDirection.allCases.randomElement(using: &random)!
        let nulls = NullPlacement.allCases.randomElement(using: &random)!
        let collation = Collation.allCases.randomElement(using: &random)!
        switch Int.random(in: 0..<11, using: &random) {
        case 0: return SortKey(\.lowCardinality, direction, collation: collation, nulls: nulls)
        case 1: return SortKey(\.highCardinality, direction, collation: collation, nulls: nulls)
        case 2: return SortKey(\.fullRange, direction, nulls: nulls)
        case 3: return SortKey(\.smallInt, direction)
        case 4: return SortKey(\.double, direction, nulls: nulls)
        case 5: return SortKey(\.mixed, direction, collation: collation, nulls: nulls)
        case 6: return SortKey(\.date, direction, nulls: nulls)
        case 7: return SortKey(\.flag, direction, nulls: nulls)
        case 8: return SortKey(declaredOrderOf: \.status, direction, nulls: nulls)
        case 9: return SortKey(direction, comparing: { _compare($0.smallInt % 2, $1.smallInt % 2) })
        default: return SortKey(direction, collation: collation, nulls: nulls) { $0.smallInt == 0 ? nil : $0.smallInt * 2 }
        }
    }

    @Test("Random keys of every kind, direction, collation and null placement")
    func equivalence() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0040)
            for round in 0..<300 {
                let rows = makeRows(Int.random(in: _engineThreshold...700, using: &random), &random)
                let keys = (0..<Int.random(in: 1...5, using: &random)).map { _ in randomKey(&random) }
                let fast = rows.sortedIndices(by: keys)
                let reference = rows._referenceSortedIndices(by: keys)
                #expect(fast == reference, "round \(round), \(keys.count) keys, \(random.replay)")
                let k = Int.random(in: 0...80, using: &random)
                #expect(rows.indices(ofMin: k, sortedBy: keys) == Array(reference.prefix(k)), "top-\(k), round \(round), \(random.replay)")
            }
        }
    }

    @Test("Many exact keys overflow the 128-bit composite and still sort right")
    func wideKeys() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0041)
        let rows = makeRows(2_000, &random)
        let keys: [SortKey<EngineRow>] = [
            SortKey(\.fullRange), SortKey(\.double, .descending), SortKey(\.date), SortKey(\.smallInt, .descending),
        ]
        #expect(rows.sortedIndices(by: keys) == rows._referenceSortedIndices(by: keys), "\(random.replay)")
    }

    @Test("Keys that fit in 32 bits sort as one 64-bit word per row, wider keys as 128-bit records, with the same ties")
    func compactAndRecordPaths() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0045)
        let rows = makeRows(3_000, &random)
        let narrow: [SortKey<EngineRow>] = [SortKey(declaredOrderOf: \.status), SortKey(\.smallInt, .descending), SortKey(\.flag)]
        // Values spread over 64 bits, too few repeats (1 row in 16 shares one) to be ranked:
        // they can't fit the compact word, and the repeats make ties.
        let wide: [SortKey<EngineRow>] = [
            SortKey(\.smallInt), SortKey(.descending) { Int64($0.id % 16 == 0 ? 0 : $0.id) &* 0x1E37_79B9_7F4A_7C15 },
        ]
        #expect(_SortEngine(_keyInputs(narrow, rows, parallel: false), count: rows.count).isCompact)
        #expect(!_SortEngine(_keyInputs(wide, rows, parallel: false), count: rows.count).isCompact)
        for keys in [narrow, wide] {
            let reference = rows._referenceSortedIndices(by: keys)
            let (order, ties) = rows._sortedIndicesMarkingTies(by: keys)
            #expect(order == reference, "\(random.replay)")
            let expectedTies = reference.indices.map { $0 > 0 && keys.compare(rows[reference[$0 - 1]], rows[reference[$0]]) == .orderedSame }
            #expect(ties == expectedTies, "\(random.replay)")
        }
    }

    @Test("Strings that share long key prefixes: runs sorted by 16-byte windows agree with the reference")
    func sharedPrefixWindows() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0046)
            for round in 0..<60 {
                // Few prefixes, many rows each: runs of equal composites longer than 16 rows, whose
                // keys differ 16, 32 or more bytes in (NUL characters and digits included).
                let prefixes = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    String(repeating: random.unicodeString(maxLength: 6), count: Int.random(in: 1...6, using: &random))
                }
                let rows = makeRows(Int.random(in: 100...1_500, using: &random), &random).map { row in
                    var row = row
                    // Mostly distinct (so keys are prefix-encoded), some equal (so there are ties).
                    let suffix =
                        Int.random(in: 0..<20, using: &random) == 0
                        ? "="
                        : random.unicodeString(maxLength: 3) + String(Int.random(in: 0..<100_000, using: &random))
                    row.highCardinality = Int.random(in: 0..<10, using: &random) == 0 ? nil : prefixes.randomElement(using: &random)! + suffix
                    return row
                }
                let direction = SortDirection.allCases.randomElement(using: &random)!
                let collation = Collation.allCases.randomElement(using: &random)!
                let nulls = NullPlacement.allCases.randomElement(using: &random)!
                var keys = [SortKey<EngineRow>(\.highCardinality, direction, collation: collation, nulls: nulls)]
                if Bool.random(using: &random) { keys.insert(SortKey(\.flag, nulls: nulls), at: 0) }
                if Bool.random(using: &random) { keys.append(SortKey(\.smallInt, .descending)) }
                let reference = rows._referenceSortedIndices(by: keys)
                #expect(rows.sortedIndices(by: keys) == reference, "round \(round), \(direction), \(collation), \(nulls), \(random.replay)")
                let ties = rows._sortedIndicesMarkingTies(by: keys).tiesPrevious
                let expectedTies = reference.indices.map { $0 > 0 && keys.compare(rows[reference[$0 - 1]], rows[reference[$0]]) == .orderedSame }
                #expect(ties == expectedTies, "round \(round), \(random.replay)")
            }
        }
    }

    @Test("Top-k compares stored strings where they are stored, in every collation and direction")
    func topKStoredStrings() {
        struct Named { var name: String; var rank: Int }
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0047)
        for round in 0..<40 {
            let names = (0..<Int.random(in: 1...300, using: &random)).map { _ in random.unicodeString(maxLength: 5) }
            let rows = (0..<Int.random(in: 100...2_000, using: &random)).map { _ in
                Named(name: names.randomElement(using: &random)!, rank: Int.random(in: 0...3, using: &random))
            }
            let direction = SortDirection.allCases.randomElement(using: &random)!
            let collation = Collation.allCases.randomElement(using: &random)!
            var keys = [SortKey<Named>(\.name, direction, collation: collation)]
            if Bool.random(using: &random) { keys.insert(SortKey(\.rank), at: 0) }
            #expect(keys.contains { $0._stringOffset != nil })
            let k = Int.random(in: 1...60, using: &random)
            let reference = Array(rows._referenceSortedIndices(by: keys).prefix(k))
            #expect(rows.indices(ofMin: k, sortedBy: keys) == reference, "round \(round), \(collation), \(direction), \(random.replay)")
            // A slice: positions count from its start.
            let slice = rows[7...]
            #expect(slice.indices(ofMin: k, sortedBy: keys) == Array(slice._referenceSortedIndices(by: keys).prefix(k)), "round \(round), \(random.replay)")
        }
    }

    @Test("Slices sort by their own indices, below and above the engine's threshold")
    func slices() {
        let values = [5, 3, 9, 3, 1, 8, 2, 7] + (0..<200).map { ($0 * 37) % 11 }
        let keys = [SortKey<Int>(\.self), SortKey(comparing: { _compare($0 % 2, $1 % 2) })]
        for range in [2..<8, 3..<150] {
            let slice = values[range]
            let expected = slice.indices.sorted { (slice[$0], $0) < (slice[$1], $1) }
            #expect(slice.sortedIndices(by: keys) == expected, "\(range)")
            #expect(slice.sorted(by: keys) == expected.map { values[$0] }, "\(range)")
            #expect(slice.indices(ofMin: 3, sortedBy: keys) == Array(expected.prefix(3)), "\(range)")
        }
    }

    /// When the keys the selection reads inline all tie with the heap's largest member, the
    /// earlier row wins: rows must come out in input order among ties, in each core's slice.
    @Test("Top-k with keys of few values: ties keep input order, one slice and one per core")
    func topKTies() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0046)
            for count in [5_000, 150_000] {
                let values = (0..<count).map { _ in Int.random(in: 0..<3, using: &random) }
                let keySets: [[SortKey<Int>]] = [
                    [SortKey(\.self)], [SortKey(.descending) { $0 % 3 }, SortKey { $0 % 2 }], [SortKey(\.self), SortKey { $0 % 2 }, SortKey { _ in 0 }],
                ]
                for keys in keySets {
                    let expected = Array(values._referenceSortedIndices(by: keys).prefix(50))
                    #expect(values.indices(ofMin: 50, sortedBy: keys) == expected, "\(count) rows, \(keys.count) keys, \(random.replay)")
                }
            }
        }
    }

    @Test("Large inputs take the parallel encoding path")
    func parallelEncoding() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0042)
            let rows = makeRows(60_000, &random)
            let keys: [SortKey<EngineRow>] = [SortKey(declaredOrderOf: \.status), SortKey(\.lowCardinality), SortKey(\.double, .descending)]
            #expect(rows.sortedIndices(by: keys) == rows._referenceSortedIndices(by: keys), "\(random.replay)")
            #expect(rows.min(count: 50, sortedBy: keys).map(\.id) == Array(rows._referenceSortedIndices(by: keys).prefix(50)))
        }
    }

    @Test("Large string columns build their collation keys in one slice per core, joined in order")
    func parallelStringKeys() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0044)
            // A long shared prefix: order is decided past the first 8 key bytes, in each slice's arena.
            let rows = makeRows(60_000, &random).map { row in
                var row = row
                // Mostly distinct (so keys are prefix-encoded, not dictionary-encoded).
                row.highCardinality = row.highCardinality.map { "A long shared prefix " + $0 + " \(row.id * 7_919 % 1_000)" }
                return row
            }
            for keys: [SortKey<EngineRow>] in [
                [SortKey(\.highCardinality)], [SortKey(\.highCardinality, .descending, collation: .caseInsensitive, nulls: .first)],
            ] {
                #expect(rows.sortedIndices(by: keys) == rows._referenceSortedIndices(by: keys), "\(random.replay)")
            }
            // Rows are moved into their sorted places in one slice per core.
            let keys = [SortKey<EngineRow>(\.highCardinality)]
            #expect(rows.sorted(by: keys).map(\.id) == rows.sortedIndices(by: keys), "\(random.replay)")
        }
    }

    @Test("Top-k on large inputs splits the rows per core and merges to the one-pass result")
    func parallelTopK() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0043)
        let rows = makeRows(140_000, &random)
        // Few distinct values: ties cross the slice boundary, so stability is tested too.
        let keys: [SortKey<EngineRow>] = [SortKey(declaredOrderOf: \.status), SortKey(\.lowCardinality, .descending)]
        let reference = rows.sortedIndices(by: keys)
        for k in [1, 50, 3_000] {
            #expect(rows.indices(ofMin: k, sortedBy: keys) == Array(reference.prefix(k)), "top-\(k), \(random.replay)")
        }
    }

    @Test("A page at any depth (indices(ofRanks:)) is the full sort's slice: every key kind, ties, edges, the parallel pass")
    func rankWindows() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_004C)
            let rows = makeRows(40_000, &random)
            for round in 0..<12 {
                let keys = (0..<Int.random(in: 1...3, using: &random)).map { _ in randomKey(&random) }
                let reference = rows.sortedIndices(by: keys)
                let start = [0, 4_000, 20_000, 39_990, Int.random(in: 0..<40_000, using: &random)].randomElement(using: &random)!
                for ranks in [start..<start + 25, start..<start + 5_000, 39_975..<40_000, 20_000..<20_000, 0..<40_000, 39_999..<45_000] {
                    let expected = Array(reference[ranks.clamped(to: 0..<40_000)])
                    #expect(rows.indices(ofRanks: ranks, sortedBy: keys) == expected, "ranks \(ranks), round \(round), \(random.replay)")
                }
                // A sample that misses the ranks (a negative margin) falls back to the exact selection.
                let ranks = start..<min(40_000, start + 50)
                let forced = rows.withUnsafeBufferPointer { buffer in
                    _TopK(keys: keys.map { $0._topKKey(for: buffer) }).window(ranks, of: buffer.count, parallel: false, deviations: -40)
                }
                #expect(forced == Array(reference[ranks]), "forced miss, ranks \(ranks), round \(round), \(random.replay)")
            }
            // Heavy ties (four values): the pivots are (key, position) pairs, so ties stay in input order.
            let tied = [SortKey<EngineRow>(declaredOrderOf: \.status, .descending)]
            #expect(rows.indices(ofRanks: 17_000..<17_100, sortedBy: tied) == Array(rows.sortedIndices(by: tied)[17_000..<17_100]))
            // A slice keeps its own indices; a non-contiguous collection reads through its indices.
            let slice = rows[10_000..<38_000]
            let sliceKeys = [SortKey<EngineRow>(\.highCardinality, .descending, collation: .natural)]
            #expect(slice.indices(ofRanks: 9_000..<9_040, sortedBy: sliceKeys) == Array(slice.sortedIndices(by: sliceKeys)[9_000..<9_040]))
            let lazy = (0..<40_000).lazy.map { rows[$0] }
            #expect(lazy.indices(ofRanks: 30_000..<30_010, sortedBy: sliceKeys) == Array(rows.sortedIndices(by: sliceKeys)[30_000..<30_010]))
            // Above two slices' worth of rows the pass runs on every core and merges in order.
            let large = makeRows(140_000, &random)
            let keys: [SortKey<EngineRow>] = [SortKey(\.lowCardinality), SortKey(\.double, .descending)]
            let reference = large.sortedIndices(by: keys)
            for ranks in [70_000..<70_050, 139_950..<140_000, 5_000..<5_025] {
                #expect(large.indices(ofRanks: ranks, sortedBy: keys) == Array(reference[ranks]), "ranks \(ranks), \(random.replay)")
            }
        }
    }

    @Test("Hundreds of strings sharing a 1 MB prefix sort without deep recursion, as the reference does")
    func megabytePrefixes() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_0048)
            // ASCII, so keys are built in one pass; the window sort meets 1 MB of equal bytes.
            let prefix = String(repeating: "Chapter 10 of the title ", count: 44_000)
            let tails = ["", "a", "B", "2", "10", "\u{0}", "~", "a2", "a10"]
            let rows =
                (0..<200).map { _ in prefix + (0..<Int.random(in: 0...2, using: &random)).map { _ in tails.randomElement(using: &random)! }.joined() }
                + [String(prefix.prefix(500_000)), "", "zz"]
            for (collation, direction) in [
                (Collation.binary, SortDirection.ascending), (.natural, .descending), (.caseInsensitive, .ascending), (.folded, .descending),
            ] {
                let keys = [SortKey<String>(\.self, direction, collation: collation)]
                #expect(rows.sortedIndices(by: keys) == rows._referenceSortedIndices(by: keys), "\(collation), \(direction), \(random.replay)")
            }
        }
    }

    @Test("Non-ASCII strings sharing a long prefix, every collation and direction")
    func longNonASCIIPrefixes() async {
        await offPool {
            var random = SeededRandom.fromEnvironment(default: 0x5EED_004B)
            let prefix = String(repeating: "Straße 10 Éclair ", count: 4_000)
            let tails = ["", "a", "B", "é", "e\u{301}", "2", "10", "ß", "SS", "\u{0}"]
            let rows = (0..<120).map { _ in prefix + (0..<Int.random(in: 0...2, using: &random)).map { _ in tails.randomElement(using: &random)! }.joined() }
            for collation in Collation.allCases {
                for direction in SortDirection.allCases {
                    let keys = [SortKey<String>(\.self, direction, collation: collation)]
                    #expect(rows.sortedIndices(by: keys) == rows._referenceSortedIndices(by: keys), "\(collation), \(direction), \(random.replay)")
                }
            }
        }
    }

    @Test("Top-k equals the full sort's first rows for keys of mixed collations over non-ASCII text")
    func topKMixedCollations() {
        struct Pair { var a: String; var b: String }
        // The case: one string key under binary, another under folded.
        let pairs = [Pair(a: "É", b: "f"), Pair(a: "É", b: "É")]
        let keys = [SortKey<Pair>(\.a, collation: .binary), SortKey(\.b, collation: .folded)]
        #expect(pairs.sortedIndices(by: keys) == [1, 0])
        #expect(pairs.indices(ofMin: 1, sortedBy: keys) == [1])
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0049)
        for round in 0..<200 {
            let rows = (0..<Int.random(in: 2...400, using: &random)).map { _ in
                Pair(a: random.unicodeString(maxLength: 2), b: random.unicodeString(maxLength: 3))
            }
            let keys = [
                SortKey<Pair>(\.a, .allCases.randomElement(using: &random)!, collation: .allCases.randomElement(using: &random)!),
                SortKey<Pair>(\.b, .allCases.randomElement(using: &random)!, collation: .allCases.randomElement(using: &random)!),
            ]
            let k = Int.random(in: 1...rows.count, using: &random)
            #expect(rows.indices(ofMin: k, sortedBy: keys) == Array(rows.sortedIndices(by: keys).prefix(k)), "round \(round), \(random.replay)")
        }
    }

    @Test("Beyond the engine's limit (2^32 − 1 rows) the comparison path gives the same order and ties")
    func engineLimitFallback() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_004A)
        let rows = makeRows(2_000, &random)
        let keys: [SortKey<EngineRow>] = [SortKey(\.lowCardinality), SortKey(\.double, .descending)]
        #expect(rows._sortedIndices(by: keys, parallel: false, engineLimit: 100) == rows.sortedIndices(by: keys), "\(random.replay)")
        let limited = rows._sortedIndicesMarkingTies(by: keys, engineLimit: 100)
        let engine = rows._sortedIndicesMarkingTies(by: keys)
        #expect(limited.order == engine.order && limited.tiesPrevious == engine.tiesPrevious, "\(random.replay)")
    }
}
