import Foundation
import Testing

@testable import SortKit

@Suite("Collations")
struct CollationTests {
    func sorted(_ strings: [String], _ collation: Collation) -> [String] {
        strings.sorted { collation.compare($0, $1) == .orderedAscending }
    }

    @Test(
        "One-pass keys equal the general path: natural against its token encoding, the others against normalize-then-fold, on random text of many scripts and digit kinds (seeded)"
    )
    func naturalKeyOracle() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_00A1)
        let pieces = [
            "a", "Z", "é", "ß", "Σ", "ж", "字", "한", "が", "0", "7", "00", "Ễ", "ẞ", "İ", "ΐ", "Ǆ", "\u{387}", "\u{1F71}", "e\u{301}", "m\u{30A}", "\u{30A}",
            "1\u{301}", "\u{323}\u{302}", "ß\u{301}", "の", "、", "\u{663}", "\u{966}", "\u{FF11}", "\u{1D7D8}",
            " ", "-", "\u{301}", "²", "\u{3007}", "\u{A620}", "\u{10FFFD}",
        ]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            // The oracle: the tokens, encoded one by one.
            var expected: [UInt8] = []
            for token in _NaturalToken.tokens(_diacriticFold(Collation.normalized(text))) {
                switch token {
                case .scalar(let scalar): expected += String(scalar).utf8.map { $0 &+ 1 }
                case .number(let digits): expected += [0x31, UInt8(digits.count + 1)] + digits.map { $0 &+ 1 }
                }
            }
            let nfc = Array(Collation.normalized(text).utf8)
            expected += [0] + nfc
            #expect(Collation.natural.sortKey(for: text) == expected, "\(text.debugDescription), \(random.replay)")
            // The other collations against the general path's folds (normalize, fold scalar by scalar, recompose).
            let caseKey = _slowCaseFold(text).utf8.map { $0 &+ 1 } + [0] + nfc
            let foldKey = _slowDiacriticFold(text).utf8.map { $0 &+ 1 } + [0] + nfc
            #expect(Collation.caseInsensitive.sortKey(for: text) == caseKey, "\(text.debugDescription), \(random.replay)")
            #expect(Collation.folded.sortKey(for: text) == foldKey, "\(text.debugDescription), \(random.replay)")
            #expect(Collation.binary.sortKey(for: text) == nfc, "\(text.debugDescription), \(random.replay)")
        }
    }

    @Test("Natural: digit runs by value, case folded")
    func natural() {
        #expect(sorted(["file10", "File11", "file2", "file1"], .natural) == ["file1", "file2", "file10", "File11"])
        #expect(sorted(["a100", "a20", "a3", "a03", "a"], .natural) == ["a", "a03", "a3", "a20", "a100"])
        #expect(Collation.natural.areEquivalent("Track 07", "track 7"))
        #expect(Collation.natural.compare("x99999999999999999999999", "x100000000000000000000000") == .orderedAscending)
        #expect(Collation.natural.compare("Chapter 9", "chapter 10") == .orderedAscending)
        #expect(Collation.natural.compare("a-1", "a1") == .orderedAscending)
        #expect(Collation.natural.compare("a1", "a:1") == .orderedAscending)
        #expect(Collation.natural.compare("v\u{663}", "v4") == .orderedAscending, "Arabic-Indic 3 < 4")
        #expect(Collation.natural.compare("Émile 2", "emile 10") == .orderedAscending)
    }

    @Test("Natural order's documented surprises: digit runs are not signed or decimal numbers; :num reads numbers")
    func naturalSurprises() throws {
        #expect(sorted(["x-10", "x-5"], .natural) == ["x-5", "x-10"], "the - is text: 5 < 10")
        #expect(sorted(["1.10", "1.5"], .natural) == ["1.5", "1.10"], "the runs after the point: 5 < 10")
        // The way out the docs give: read the text as numbers.
        let table = try TextTable(csv: Array("v\n1.5\n1.10\n-5\n-10\n".utf8))
        let keys = try table.sortKeys(for: SortSpec(parsing: "v:num"))
        #expect(Array(table.rows.indices).sorted(by: keys).map { table.rows[$0][0] } == ["-10", "-5", "1.10", "1.5"])
    }

    @Test("Leading zeros and very long digit runs")
    func longDigits() {
        let long = String(repeating: "9", count: 300)
        let longer = "1" + String(repeating: "0", count: 300)
        #expect(Collation.natural.compare(long, longer) == .orderedAscending)
        #expect(Collation.natural.sortKey(for: long).lexicographicallyPrecedes(Collation.natural.sortKey(for: longer)))
        #expect(Collation.natural.areEquivalent("0000" + long, long))
        #expect(Collation.natural.compare("0", "00") == .orderedAscending, "equal values, binary tie-break")
    }

    @Test("Case folding covers Latin, German ß, Greek and Cyrillic")
    func caseFolding() {
        #expect(Collation.caseInsensitive.areEquivalent("Straße", "STRASSE"))
        #expect(Collation.caseInsensitive.areEquivalent("ΣΊΣΥΦΟΣ", "σίσυφος"))
        #expect(Collation.caseInsensitive.areEquivalent("ЖУРНАЛ", "журнал"))
        #expect(Collation.caseInsensitive.areEquivalent("ﬁle", "FILE"))
        #expect(!Collation.caseInsensitive.areEquivalent("Éclair", "eclair"))
        #expect(sorted(["b", "B", "a", "A"], .caseInsensitive) == ["A", "a", "B", "b"])
    }

    @Test("Folding removes diacritics")
    func folding() {
        #expect(Collation.folded.areEquivalent("Éclair", "eclair"))
        #expect(Collation.folded.areEquivalent("Ångström", "angstrom"))
        #expect(Collation.folded.areEquivalent("Crème Brûlée", "CREME BRULEE"))
        #expect(sorted(["éclair", "Eclair", "ecru", "Zebra"], .folded) == ["Eclair", "éclair", "ecru", "Zebra"])
    }

    @Test("Canonically equivalent strings get equal keys under every collation", arguments: Collation.allCases)
    func canonicalEquivalence(collation: Collation) {
        let pairs = [("é", "e\u{301}"), ("Å", "A\u{30A}"), ("\u{1E0A}\u{323}", "\u{1E0C}\u{307}"), ("Crème", "Cre\u{300}me")]
        for (a, b) in pairs {
            #expect(collation.sortKey(for: a) == collation.sortKey(for: b), "\(a) vs \(b)")
            #expect(collation.compare(a, b) == .orderedSame)
        }
    }

    @Test("Binary is Unicode code point order")
    func binary() {
        #expect(sorted(["b", "a", "Z", "é", "😀", "ｚ"], .binary) == ["Z", "a", "b", "é", "ｚ", "😀"])
    }

    @Test("Byte keys order exactly as the comparison, on random strings", arguments: Collation.allCases)
    func keysMatchComparison(collation: Collation) {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0002)
        for _ in 0..<4_000 {
            let a = random.unicodeString()
            let b = random.unicodeString()
            let byKeys = _compareBytes(collation.sortKey(for: a), collation.sortKey(for: b))
            #expect(byKeys == collation.compare(a, b), "\(collation): \(a.debugDescription) vs \(b.debugDescription), \(random.replay)")
        }
    }

    @Test("Long texts compare as their keys do, whether their first words decide or not (seeded)", arguments: Collation.allCases)
    func longTexts(collation: Collation) {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0037)
        // Words around the 64-byte cut: digits that a cut would split, marks, letters that fold
        // alike ("é", "E"), scalars outside the tables; the tail pads the texts past 1 KB.
        let pieces = ["a", "E", "é", "e\u{301}", " ", "1", "22", "ß", "ж", "中", "\u{1100}", "😀", "-", "9999999999", "Straße", "STRASSE"]
        func words(_ count: Int) -> String { (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined() }
        for _ in 0..<600 {
            let shared = words(Int.random(in: 0...60, using: &random))
            let tail = String(repeating: "x", count: 1_024)
            let a = shared + words(Int.random(in: 0...40, using: &random)) + tail
            let b = Bool.random(using: &random) ? shared + words(Int.random(in: 0...40, using: &random)) + tail : a.uppercased()
            let expected = _compareBytes(collation.sortKey(for: a), collation.sortKey(for: b))
            let texts = "\(a.prefix(120).debugDescription) vs \(b.prefix(120).debugDescription)"
            #expect(collation.compare(a, b) == expected, "\(collation): \(texts), \(random.replay)")
        }
        // Decided by the first words: the rest is never read.
        let long = String(repeating: "ab ", count: 400_000)
        #expect(collation.compare("Apple pie is " + long, "Banana split " + long) == .orderedAscending)
    }

    @Test("Comparing a string with a key by prefix first equals comparing full keys", arguments: Collation.allCases)
    func prefixComparison(collation: Collation) {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0005)
        var scratch = _KeyScratch()
        let long = ["Chapter 12 of a rather long title", "chapter 12 of a rather long title!", "Chapter 0012 of a rather long", ""]
        for _ in 0..<3_000 {
            let a = Bool.random(using: &random) ? random.unicodeString(maxLength: 12) : long.randomElement(using: &random)! + random.unicodeString(maxLength: 2)
            let b = Bool.random(using: &random) ? random.unicodeString(maxLength: 12) : long.randomElement(using: &random)!
            let key = collation.sortKey(for: b)
            let expected = _compareBytes(collation.sortKey(for: a), key)
            #expect(collation.compare(a, toSortKey: key, scratch: &scratch) == expected, "\(a.debugDescription) vs \(b.debugDescription), \(random.replay)")
        }
    }

    @Test("Decomposed text compared with a key orders as its full key: marks after letters and digits, equal primaries", arguments: Collation.allCases)
    func decomposedComparison(collation: Collation) {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0036)
        var scratch = _KeyScratch()
        // Letters that fold alone, and some that don't (a jamo, a Greek singleton, a mark past
        // U+036F, a precomposed letter NFC splits): long texts too, whose first letters a
        // comparison decides before the rest is read.
        let letters = [
            "a", "E", "o", "z", "é", "Å", "ж", "Ж", "ω", "1", "2", "10", " ", "-", "ß", "ı", "中", "서", "\u{1100}", "\u{374}",
            "e\u{332}", "\u{F900}", "ab", " x", "Q", "α", "η", "Ω", "ι",
        ]
        // U+0345 (ypogegrammeni) folds to ι, not away: it must take the full key.
        let marks = ["\u{301}", "\u{300}", "\u{308}", "\u{30A}", "\u{327}", "\u{36F}", "\u{323}\u{307}", "\u{345}", "\u{313}\u{345}"]
        func word() -> String {
            var text = ""
            for _ in 0..<Int.random(in: 0...(Bool.random(using: &random) ? 6 : 24), using: &random) {
                text += letters.randomElement(using: &random)!
                if Int.random(in: 0..<3, using: &random) == 0 { text += marks.randomElement(using: &random)! }
            }
            return text
        }
        for _ in 0..<8_000 {
            let a = word()
            // Often the same letters with other marks or case, so primaries tie and the
            // tie-break decides.
            let b = Bool.random(using: &random) ? word() : a.decomposedStringWithCanonicalMapping.filter { _ in Int.random(in: 0..<8, using: &random) > 0 }
            let key = collation.sortKey(for: b)
            let expected = _compareBytes(collation.sortKey(for: a), key)
            #expect(collation.compare(a, toSortKey: key, scratch: &scratch) == expected, "\(a.debugDescription) vs \(b.debugDescription), \(random.replay)")
        }
    }

    @Test("Binary agrees with Swift's own String order and equality")
    func binaryAgreesWithSwift() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0003)
        for _ in 0..<4_000 {
            let a = random.unicodeString()
            let b = random.unicodeString()
            let swift: ComparisonResult = a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
            #expect(Collation.binary.compare(a, b) == swift, "\(a.debugDescription) vs \(b.debugDescription), \(random.replay)")
        }
    }

    @Test("Folding collations break ties by binary, so only canonically equal strings are equal")
    func tieBreak() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0004)
        for _ in 0..<2_000 {
            let a = random.unicodeString(maxLength: 3)
            let b = random.unicodeString(maxLength: 3)
            for collation in Collation.allCases {
                #expect((collation.compare(a, b) == .orderedSame) == (a == b), "\(collation) \(a.debugDescription) \(b.debugDescription), \(random.replay)")
            }
        }
    }

    @Test("Latin text below U+0250 folds scalar by scalar exactly as the general path folds it")
    func latinFoldTable() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0005)
        let scalars = (0x20..<0x7F).map { Unicode.Scalar($0)! } + (0x80..<0x250).map { Unicode.Scalar($0)! }
        // Every scalar alone, then random text mixing them with ASCII.
        var texts = scalars.map { String($0) }
        for _ in 0..<3_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...8, using: &random) { text.append(scalars.randomElement(using: &random)!) }
            texts.append(String(text))
        }
        for text in texts {
            // Compared as bytes: `==` on strings is canonical equivalence.
            #expect(Array(_caseFold(text).utf8) == Array(_slowCaseFold(text).utf8), "\(text.debugDescription), \(random.replay)")
            #expect(Array(_diacriticFold(text).utf8) == Array(_slowDiacriticFold(text).utf8), "\(text.debugDescription), \(random.replay)")
        }
    }
}
