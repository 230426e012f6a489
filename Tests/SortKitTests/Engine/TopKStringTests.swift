import Foundation
import Testing

@testable import SortKit

/// A top-k selection compares a stored `String` property where the row holds it: its bytes are
/// read in place (a short string copied out of its inline form, a long one read from its
/// storage) and the heap's largest key is kept in a buffer of the selection's own. These tests
/// hold it to the reference sort across the lengths where a string stops fitting inline.
@Suite("Top-k of stored strings")
struct TopKStringTests {
    struct Row: Sendable {
        var id: Int
        var group: Int
        var name: String
    }

    /// Text from pieces that each take a different path: ASCII, precomposed and decomposed
    /// accents, a lone combining mark, digits (natural order's runs), Cyrillic, Greek, CJK, an
    /// emoji, a ligature, markup. Lengths run from 0 to 40 bytes, and the names of exactly 14
    /// to 18 bytes straddle the 15-byte inline limit.
    static func names(_ random: inout SeededRandom) -> [String] {
        let pieces = [
            "a", "B", "é", "e\u{301}", "\u{301}", "ß", "Ж", "ж", "Ω", "東", "😀", "0", "9", "10", " ", "<", "Å", "ǅ", "ﬁ", "z",
        ]
        var names: [String] = ["", " ", "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "é" + String(repeating: "a", count: 14)]
        for _ in 0..<400 {
            let target = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 14...18, using: &random) : Int.random(in: 0...40, using: &random)
            var name = ""
            while name.utf8.count < target { name += pieces.randomElement(using: &random)! }
            names.append(name)
        }
        return names
    }

    static let collations: [Collation] =
        Collation.allCases + [
            .locale(try! LocaleCollation("sv")), .locale(try! LocaleCollation("de", numeric: true)),
        ]

    @Test("Every length around the inline limit, every collation, both directions: the reference sort's first page")
    func storedStrings() {
        var random = SeededRandom.fromEnvironment(default: 0x70_9C_57)
        let names = Self.names(&random)
        let rows = (0..<6_000).map { Row(id: $0, group: Int.random(in: 0..<3, using: &random), name: names.randomElement(using: &random)!) }
        for collation in Self.collations {
            for direction in [SortDirection.ascending, .descending] {
                for keys in [[SortKey<Row>(\.name, direction, collation: collation)], [SortKey(\.group), SortKey(\.name, direction, collation: collation)]] {
                    let expected = Array(rows._referenceSortedIndices(by: keys).prefix(60))
                    #expect(rows.indices(ofMin: 60, sortedBy: keys) == expected, "\(collation) \(direction), \(keys.count) keys, \(random.replay)")
                }
            }
        }
    }

    @Test("A page deep in the order, found between two sampled pivots, on both paths")
    func deepPages() {
        var random = SeededRandom.fromEnvironment(default: 0x70_9C_58)
        let names = Self.names(&random)
        let rows = (0..<20_000).map { Row(id: $0, group: Int.random(in: 0..<3, using: &random), name: names.randomElement(using: &random)!) }
        for collation in [Collation.natural, .binary, Self.collations.last!] {
            let keys = [SortKey<Row>(\.name, .descending, collation: collation), SortKey(\.id)]
            let expected = rows._referenceSortedIndices(by: keys)
            for ranks in [9_000..<9_050, 19_990..<20_000] {
                #expect(rows.indices(ofRanks: ranks, sortedBy: keys) == Array(expected[ranks]), "\(collation) \(ranks), \(random.replay)")
            }
        }
    }
}
