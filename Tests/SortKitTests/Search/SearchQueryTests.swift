import Foundation
import Testing

@testable import SortKit

@Suite("Search queries")
struct SearchQueryTests {
    /// The oracle: every term's bytes occur, by a naive scan, in one field folded on its own.
    static func oracle(_ query: String, _ fields: [String]) -> Bool {
        let terms = query.split(whereSeparator: \.isWhitespace).map { Array(SearchQuery.fold(String($0)).utf8) }
        let folded = fields.map { Array(SearchQuery.fold($0).utf8) }
        return terms.allSatisfy { term in
            folded.contains { field in
                term.isEmpty
                    || field.count >= term.count
                        && (0...(field.count - term.count)).contains { Array(field[$0..<$0 + term.count]) == term }
            }
        }
    }

    @Test("Folding is Unicode's: ẞ, ß and SS find each other; ı does not find i; accents are ignored")
    func folding() {
        #expect(SearchQuery("strasse").matches(["Große STRAẞE"]))
        #expect(SearchQuery("STRAẞE").matches(["die Strasse"]))
        #expect(!SearchQuery("istanbul").matches(["ıstanbul"]))
        #expect(SearchQuery("emile rouss").matches(["Émile", "Jean-Jacques Rousseau"]))
        #expect(SearchQuery("EMILE").matches(["E\u{301}mile"]), "decomposed text")
        #expect(SearchQuery("lodz").matches(["Łódź"]), "Ł folds as the root collation weighs it")
    }

    @Test("Blank queries match everything; a term never matches across two fields")
    func blankAndFieldEdges() {
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            #expect(SearchQuery(blank).isBlank, "\(blank.debugDescription)")
            #expect(SearchQuery(blank).matches([]))
        }
        #expect(!SearchQuery("ab").matches(["a", "b"]))
        // The separator in a query is folded to a space inside its term, so it can't reach across.
        #expect(!SearchQuery("a\u{1F}b").matches(["a", "b"]))
        #expect(SearchQuery("a\u{1F}b").matches(["xa by"]))
        #expect(!SearchQuery("x").matches([]))
    }

    @Test("A megabyte field and a NUL byte are searched like any text")
    func oddFields() {
        let big = String(repeating: "ab", count: 500_000) + "Zola"
        #expect(SearchQuery("zola").matches([big]))
        #expect(!SearchQuery("zolb").matches([big]))
        #expect(SearchQuery("b\u{0}c").matches(["ab\u{0}cd"]))
    }

    @Test("Byte folding of multilingual text, marks anywhere, equals the String fold (seeded)")
    func byteFoldingOfMultilingualText() {
        // Table scalars of every range, marks that fold away and those that don't (U+0345,
        // U+0483, U+3099), at the start, after digits and after letters, and scalars the tables
        // don't cover (jamo, emoji, Arabic), which fold as a String.
        let pieces = [
            "a", "Z", "7", " ", "\u{1F}", "é", "É", "e\u{301}", "\u{301}", "\u{308}\u{301}", "1\u{301}", "ß", "ẞ", "Æ", "Ł",
            "ǅ", "İ", "ı", "ſ", "Ω", "ω\u{345}", "ᾀ", "ά", "Σ", "ς", "\u{374}", "\u{37E}", "Ж", "ё", "ж\u{483}", "Ё", "Ạ",
            "ỹ", "Ἀ", "ᾼ", "ῥ", "\u{1F71}", "\u{1FBE}", "か", "が", "か\u{3099}", "ヴ", "。", "中", "한", "\u{1100}\u{1161}", "😀", "ب", "\u{0}", "Ǆ", "Ŋ", "Ħ",
            // ASCII runs that fill a word (folded eight bytes at a time), with the bytes around A–Z.
            "Hello World ", "@AZ[`az{\u{1E}\u{1F}\u{20}", "\u{7F}MIXED case\u{1F}", "ԱԲ", "\u{7FF}",
        ]
        var random = SeededRandom.fromEnvironment(default: 0xF01D_B17E)
        for round in 0..<5_000 {
            let count = Int.random(in: 0...(Bool.random(using: &random) ? 8 : 30), using: &random)
            var text = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            var bytes: [UInt8] = [0x2A]
            text.withUTF8 { SearchQuery._appendFolded($0, to: &bytes) }
            #expect(bytes == [0x2A] + Array(SearchQuery.fold(text).utf8), "round \(round): \(text.debugDescription), \(random.replay)")
        }
    }

    @Test("Every ASCII byte folds as the String fold does, at every place in a word and in the tail after it")
    func everyASCIIByteFolds() {
        for byte in 0..<UInt8(0x80) {
            for offset in 0..<17 {
                let scalars = (0..<17).map { $0 == offset ? byte : UInt8(0x41 + $0) }
                // An ASCII cell is folded byte by byte; after a non-ASCII letter, ASCII runs are
                // folded a word at a time (and the tail byte by byte).
                for (prefix, suffix) in [("", ""), ("", "é"), ("é", ""), ("Ж", "é")] {
                    var text = prefix + String(decoding: scalars, as: UTF8.self) + suffix
                    var bytes: [UInt8] = []
                    text.withUTF8 { SearchQuery._appendFolded($0, to: &bytes) }
                    #expect(bytes == Array(SearchQuery.fold(text).utf8), "\(text.debugDescription)")
                }
            }
        }
    }

    @Test("Every scalar search folds from its table folds alone, and between others, as the String fold does (seeded)")
    func everyTableScalarFolds() {
        let covered = _SearchFolds.scalars.map { String(Unicode.Scalar($0)!) }
        #expect(covered.count > 1_800)
        let others = ["a", "Q", "5", " ", "\u{301}", "\u{345}", "中", "😀"]
        var random = SeededRandom.fromEnvironment(default: 0x7AB1_E5)
        for scalar in covered {
            for var text in [scalar, (covered + others).randomElement(using: &random)! + scalar + (covered + others).randomElement(using: &random)!] {
                var bytes: [UInt8] = []
                text.withUTF8 { SearchQuery._appendFolded($0, to: &bytes) }
                #expect(bytes == Array(SearchQuery.fold(text).utf8), "\(text.debugDescription), \(random.replay)")
            }
        }
    }

    @Test("matches(_:), matches(folded:), matches(foldedBytes:) and the byte folding agree with a naive oracle (seeded)")
    func agreesWithOracle() {
        var random = SeededRandom.fromEnvironment(default: 0x5EA2_C401)
        for round in 0..<3_000 {
            let fields = (0..<Int.random(in: 0...3, using: &random)).map { _ in random.unicodeString(maxLength: 6) }
            let query = (0..<Int.random(in: 0...2, using: &random)).map { _ in random.unicodeString(maxLength: 2) }.joined(separator: " ")
            let search = SearchQuery(query)
            let expected = Self.oracle(query, fields)
            let folded = SearchQuery.foldedFields(fields)
            #expect(search.matches(fields) == expected, "round \(round): \(query.debugDescription) in \(fields), \(random.replay)")
            #expect(search.matches(folded: folded) == expected, "round \(round), \(random.replay)")
            var bytes: [UInt8] = []
            for (index, field) in fields.enumerated() {
                if index > 0 { bytes.append(0x1F) }
                var field = field
                field.withUTF8 { SearchQuery._appendFolded($0, to: &bytes) }
            }
            #expect(bytes == Array(folded.utf8), "round \(round): byte folding of \(fields), \(random.replay)")
            #expect(bytes.withUnsafeBufferPointer { search.matches(foldedBytes: $0) } == expected, "round \(round), \(random.replay)")
        }
    }
}
