import Foundation
import OrderKeys
import Testing

@testable import SortKit

@Suite("Sort keys built from cached pieces")
struct LocalePieceKeysTests {
    /// Words that repeat (so the cache answers), contractions and digraphs that a space must
    /// end, marks that join a letter or follow a space, digits for the numeric variant, spaces
    /// at the ends and doubled, and a contextual table (ja), which is passed through.
    static let pieces: [String] =
        Array("aåäöAÖzZcCdhslyiıİñnoeé1209 -.жЖґєїяαάΩ中ア").map(String.init) + [
            "ch", "CH", "aa", "dzs", "ll", "cs", "gy", "E\u{301}", "a\u{308}", "\u{301}", "o\u{323}\u{302}", "ー", "カー", "  ", "10 ", " 9",
            "\u{0CCA}\u{0CD5}", "\u{0CC6}", "한", "ǻ", "ṩ", "\u{0F73}", "١٢", "â", "Â", "ǟ", "å", "čh", "ć", " \u{301}", "\u{0}",
            "Ångström ", "Straße ", "Cafe\u{301} ", "Ґанок ", "Ωκεανός ", "花园 ", "Œuvre", "Ærø ", "𠀀", "\u{E000}", "丂",
        ]

    @Test("The key from pieces equals the collation's own key: every tailoring, strength and variant (seeded)")
    func agreesWithCollation() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 38
        var random = SplitMix64(seed: seed)
        let heads = ["", " ", "The ", "the  ", "Åsa ", "Chapter 12 ", "chapter 012 "]
        var compared = 0, hits = 0
        for tag in LocaleCollation.availableIdentifiers + ["und", "ja"] {
            let variants: [(LocaleCollation.Strength, Bool)] = [(.tertiary, false), (.secondary, false), (.primary, false), (.primary, true)]
            for (strength, numeric) in variants {
                let collation = Collation.locale(try LocaleCollation(tag, strength: strength, numeric: numeric))
                var keys = _SortKeyPieces(collation)
                for _ in 0..<30 {
                    let text =
                        heads.randomElement(using: &random)!
                        + (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
                    var built: [UInt8] = []
                    keys.appendSortKey(for: text, to: &built)
                    var expected: [UInt8] = []
                    _withUTF8(text) { collation._appendSortKey(forValidUTF8: $0, to: &expected) }
                    #expect(built == expected, "locale=\(tag) \(strength) numeric \(numeric): \(text.debugDescription) (seed \(seed))")
                    compared += 1
                }
                hits += keys.hits
            }
        }
        #expect(compared > 1_000)
        #expect(hits > 1_000, "pieces the cache answered")
        #expect(
            LocaleCollation.availableIdentifiers.contains { (try? LocaleCollation($0))?.table.backwardsSecondary == true },
            "a backwards-secondary table (fr-CA)")
    }

    @Test(
        "primariesOnly keys are the whole keys' primary levels in compact codes: the same order and ties in fewer bytes; every tailoring and strength, odd text, other collations whole (seeded)"
    )
    func primariesOnly() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 40
        var random = SplitMix64(seed: seed)
        let odd = [
            "", " ", "a", "abc", "The end", String(repeating: "x", count: _SortKeyPieces.longestPiece + 1) + " öl", String(repeating: "å", count: 200_000),
        ]
        // Letters of implicit weights (a lead, then a trail: CJK, unassigned, private use) that
        // differ only in their trails, or in tailored long lists (zh).
        let implicit = ["中", "丂", "花园", "花朵", "𠀀", "𠀁", "\u{E000}", "\u{E001}", "한", "a中"]
        var shorter = 0, (compactBytes, standardBytes) = (0, 0)
        var withoutCompactCodes: [String] = []
        for tag in LocaleCollation.availableIdentifiers + ["und", "ja"] {
            for strength in [LocaleCollation.Strength.tertiary, .secondary, .primary] {
                let locale = try LocaleCollation(tag, strength: strength), collation = Collation.locale(locale)
                if strength == .tertiary && locale.table.compactCodes.isEmpty { withoutCompactCodes.append(tag) }
                var keys = _SortKeyPieces(collation, primariesOnly: true)
                #expect(keys.primariesOnly)
                // The long texts in a few tailorings: their keys, built whole, are slow in debug builds.
                let long = ["sv", "ja", "fr-CA"].contains(tag) && strength == .tertiary
                let texts =
                    (long ? odd : Array(odd.prefix(5))) + implicit
                    + (0..<20).map { _ in (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined() }
                var pairs: [(built: [UInt8], primaries: [UInt8])] = []
                for text in texts {
                    var built: [UInt8] = []
                    keys.appendSortKey(for: text, to: &built)
                    let whole = collation.sortKey(for: text)
                    // The oracle: the whole key's primary level, two bytes a primary.
                    let primaries = Array(whole.prefix { $0 >= 2 })
                    var compact: [UInt8] = []
                    primaries.withUnsafeBufferPointer { locale.appendCompactPrimaries($0, to: &compact) }
                    #expect(built == compact, "locale=\(tag) \(strength): \(text.prefix(40).debugDescription) (seed \(seed))")
                    #expect(built.count <= primaries.count && built.allSatisfy { $0 >= 2 }, "locale=\(tag): \(text.prefix(40).debugDescription)")
                    if built.count < whole.count { shorter += 1 }
                    (compactBytes, standardBytes) = (compactBytes + built.count, standardBytes + primaries.count)
                    pairs.append((built, primaries))
                }
                // Compact keys order and tie as the primaries do.
                for a in pairs {
                    for b in pairs {
                        func order(_ x: [UInt8], _ y: [UInt8]) -> Int { x == y ? 0 : x.lexicographicallyPrecedes(y) ? -1 : 1 }
                        let (compact, standard) = (order(a.built, b.built), order(a.primaries, b.primaries))
                        #expect(compact == standard, "locale=\(tag) \(strength): \(a.primaries) against \(b.primaries) (seed \(seed))")
                    }
                }
            }
        }
        #expect(shorter > 1_000)
        #expect(withoutCompactCodes.isEmpty, "tables without compact codes: \(withoutCompactCodes)")
        #expect(compactBytes * 10 < standardBytes * 7, "\(compactBytes) bytes in compact codes against \(standardBytes)")
        // Not for a numeric locale collation or the built-in ones: their keys stay whole.
        for collation in [Collation.locale(try LocaleCollation("sv", numeric: true)), .natural, .binary, .caseInsensitive] {
            var keys = _SortKeyPieces(collation, primariesOnly: true)
            #expect(!keys.primariesOnly && !_SortKeyPieces.writesPrimariesOnly(collation))
            var built: [UInt8] = []
            keys.appendSortKey(for: "Öl 10 öl", to: &built)
            #expect(built == collation.sortKey(for: "Öl 10 öl"), "\(collation)")
        }
    }

    @Test("Compact codes: every code's bytes above the codes' below; none when they don't fit, when a lead lacks its trail, or a trail follows a trail")
    func compactCodes() {
        typealias Table = _UCATable
        let trail = UInt64(Table.trailFlag | 7) << 32
        func bytes(_ code: UInt32) -> [UInt8] {
            code >> 16 & 3 == 2 ? [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] : [UInt8(truncatingIfNeeded: code >> 8)]
        }
        // 600 codes, single ones side by side, at the ends and between runs of 254 and more.
        let codes = Table.compactCodes(count: 600, single: [1, 2, 3, 300, 301, 556, 600], pool: [5 << 32, trail, 9 << 32], leads: [11])
        #expect(codes.count == 601)
        let written = (1...600).map { bytes(codes[$0] & ~Table.followedByTrail) }
        #expect(zip(written, written.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "codes in order")
        #expect(written.allSatisfy { $0.allSatisfy { $0 >= 2 } } && [1, 2, 3, 300, 301, 556, 600].allSatisfy { written[$0 - 1].count == 1 })
        #expect(codes[5] & Table.followedByTrail != 0 && codes[11] & Table.followedByTrail != 0 && codes[9] & Table.followedByTrail == 0)
        // One byte each for 300 codes spread out: more than a byte's 254 values.
        #expect(Table.compactCodes(count: 60_000, single: Set(stride(from: 100, to: 60_000, by: 200)), pool: [], leads: []).isEmpty)
        #expect(Table.compactCodes(count: 1 << 16, single: [], pool: [], leads: []).isEmpty)
        // A marked lead without its trail, a trail after a trail, a trail first.
        #expect(Table.compactCodes(count: 20, single: [], pool: [5 << 32, trail, 5 << 32, 6 << 32], leads: []).isEmpty)
        #expect(Table.compactCodes(count: 20, single: [], pool: [11 << 32, 6 << 32], leads: [11]).isEmpty)
        #expect(Table.compactCodes(count: 20, single: [], pool: [5 << 32, trail, trail], leads: []).isEmpty)
        #expect(Table.compactCodes(count: 20, single: [], pool: [trail, 5 << 32], leads: []).isEmpty)
        // An element without a primary between a lead and its trail (a mark) is no primary.
        #expect(Table.compactCodes(count: 20, single: [], pool: [5 << 32, 0x0040_0040, trail], leads: [])[5] & Table.followedByTrail != 0)
    }

    @Test("Odd text: empty, only spaces, a megabyte-long word, a piece past the cache's length, many distinct words")
    func oddText() throws {
        let collation = Collation.locale(try LocaleCollation("sv"))
        var keys = _SortKeyPieces(collation)
        let long = String(repeating: "å", count: 600_000)
        let texts =
            [
                "", " ", "   ", "a", " a", "a ", String(repeating: "x", count: _SortKeyPieces.longestPiece + 1) + " öl", long, "ö " + long,
            ] + (0..<9_000).map { "word\($0) öl" }
        for text in texts {
            var built: [UInt8] = []
            keys.appendSortKey(for: text, to: &built)
            #expect(built == collation.sortKey(for: text), "\(text.prefix(40).debugDescription)")
        }
    }

    @Test("The folding collations' keys from pieces equal their own keys, binary's too (seeded)")
    func otherCollations() {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 39
        var random = SplitMix64(seed: seed)
        // Digit runs that a space ends or doesn't, leading zeros, non-ASCII digits, letters that
        // fold to more than one (ß, ﬁ, İ), final and medial sigma, marks after a space, a
        // no-break space, and a digit run too long for the cache.
        let extra = [
            "file10", " 007", "2 ", "١٢ ", "ß", "ﬁ", "İ", "ΟΔΟΣ ", "σς", " \u{301}x", "\u{A0}", "Ǆ", "x²", String(repeating: "9", count: 300), " ",
        ]
        var hits = 0
        for collation in [Collation.binary, .caseInsensitive, .folded, .natural] {
            var keys = _SortKeyPieces(collation)
            for _ in 0..<400 {
                let text = (0..<Int.random(in: 0...6, using: &random)).map { _ in (Self.pieces + extra).randomElement(using: &random)! }.joined()
                var built: [UInt8] = []
                keys.appendSortKey(for: text, to: &built)
                #expect(built == collation.sortKey(for: text), "\(collation) \(text.debugDescription) (seed \(seed))")
            }
            hits += keys.hits
        }
        #expect(hits > 200, "pieces the cache answered")
    }
}
