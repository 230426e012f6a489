import Foundation
import SortKitTestSupport
import Testing

@testable import SortKit

/// Unicode's own data files (see `DataFiles`).
enum UnicodeDataFiles {
    static func text(_ name: String) -> String? {
        DataFiles.text(name, in: DataFiles.unicode, package: "unicode-data")
    }

    /// CaseFolding.txt's C and F mappings.
    static func caseFolding() -> [(source: Unicode.Scalar, target: String)]? {
        text("CaseFolding.txt").map { text in
            text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "#", omittingEmptySubsequences: false)[0].split(separator: ";").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard fields.count >= 3, fields[1] == "C" || fields[1] == "F" else { return nil }
                let target = String(String.UnicodeScalarView(fields[2].split(separator: " ").map { Unicode.Scalar(UInt32($0, radix: 16)!)! }))
                return (Unicode.Scalar(UInt32(fields[0], radix: 16)!)!, target)
            }
        }
    }

    /// allkeys.txt's primary weights of single scalars.
    static func rootPrimaries() -> [UInt32: [Int]]? {
        text("allkeys.txt").map { text in
            var primaries: [UInt32: [Int]] = [:]
            for line in text.split(separator: "\n") {
                guard let semicolon = line.firstIndex(of: ";") else { continue }
                let code = line[..<semicolon].split(separator: " ")
                guard code.count == 1, let value = UInt32(code[0], radix: 16) else { continue }
                primaries[value] = line[semicolon...].split(separator: "[").dropFirst().compactMap { element in
                    Int(element.dropFirst().prefix { $0 != "." }, radix: 16).flatMap { $0 == 0 ? nil : $0 }
                }
            }
            return primaries
        }
    }
}

@Suite("Unicode case folding")
struct CaseFoldingTests {
    @Test("The issue's cases: ẞ, ß and SS fold alike in every folding collation; ı is not i (search: SearchQueryTests)")
    func sharpS() {
        for collation in [Collation.caseInsensitive, .folded, .natural] {
            #expect(collation.areEquivalent("STRAẞE", "straße"), "\(collation)")
            #expect(collation.areEquivalent("straße", "STRASSE"), "\(collation)")
            #expect(collation.areEquivalent("STRAẞE", "Strasse"), "\(collation)")
            #expect(!collation.areEquivalent("ı", "i"), "\(collation): dotless i is a letter of its own")
            #expect(collation.areEquivalent("İstanbul", "i\u{307}stanbul"), "\(collation): İ folds to i + combining dot")
            #expect(collation.areEquivalent("ΌΣΟΣ", "όσος"), "\(collation): final sigma")
            #expect(collation.areEquivalent("ﬃ", "FFI"), "\(collation)")
            #expect(collation.areEquivalent("ꭰ", "Ꭰ"), "\(collation): Cherokee folds to upper case")
        }
    }

    @Test("Folding is idempotent on every entry of the table and on random text")
    func idempotent() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0070)
        let sources = _UnicodeTables.shared.caseFoldingSources.map { Unicode.Scalar($0)! }
        var texts = sources.map { String($0) }
        for _ in 0..<3_000 {
            texts.append(String(String.UnicodeScalarView((0..<Int.random(in: 1...6, using: &random)).map { _ in sources.randomElement(using: &random)! })))
        }
        for text in texts {
            let once = _caseFold(text), diacritics = _diacriticFold(text)
            #expect(Array(_caseFold(once).utf8) == Array(once.utf8), "\(text.debugDescription), \(random.replay)")
            #expect(Array(_diacriticFold(diacritics).utf8) == Array(diacritics.utf8), "\(text.debugDescription), \(random.replay)")
        }
    }

    @Test("Each scalar the standard library says changes when case folded is in the table, and only those")
    func agreesWithStandardLibrary() {
        let sources = Set(_UnicodeTables.shared.caseFoldingSources)
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let changes = scalar.properties.changesWhenCaseFolded
            if sources.contains(value) {
                // Changes_When_Casefolded is defined on the canonical decomposition: a full
                // folding ("ǰ" → "j" + caron) that only decomposes changes nothing.
                #expect(
                    changes || _caseFold(String(scalar)) == String(scalar),
                    "U+\(String(value, radix: 16)) is in the table but doesn't change when case folded")
            } else if changes {
                // Changes_When_Casefolded is defined on the canonical decomposition: a scalar not in
                // the table must decompose to one that is.
                let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
                #expect(decomposed.contains { sources.contains($0.value) }, "U+\(String(value, radix: 16)) changes when case folded but isn't folded")
            }
        }
    }

    @Test("caseInsensitive equality agrees with CaseFolding.txt for every pair it lists")
    func caseFoldingFile() {
        guard let pairs = UnicodeDataFiles.caseFolding() else { return }
        #expect(pairs.count > 1_400)
        for (source, target) in pairs {
            #expect(
                Collation.caseInsensitive.areEquivalent(String(source), target),
                "U+\(String(source.value, radix: 16)) and its folding \(target.debugDescription)")
            #expect(
                Collation.caseInsensitive.sortKey(for: String(source)).prefix(while: { $0 != 0 })
                    == Collation.caseInsensitive.sortKey(for: target).prefix(while: { $0 != 0 }))
        }
    }

    @Test("folded agrees with the root collation's primary strength on Latin letters")
    func rootCollation() {
        guard let primaries = UnicodeDataFiles.rootPrimaries() else { return }
        var letterOfPrimary: [Int: Character] = [:]
        for letter in "abcdefghijklmnopqrstuvwxyz" { letterOfPrimary[primaries[letter.unicodeScalars.first!.value]![0]] = letter }
        var checked = 0
        for range in [0x00C0...0x024F, 0x1E00...0x1EFF] as [ClosedRange<UInt32>] {
            for value in range {
                guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic, let weights = primaries[value], !weights.isEmpty else { continue }
                let letters = weights.compactMap { letterOfPrimary[$0] }
                let folded = Collation.diacriticFolded(String(scalar))
                if letters.count == weights.count {
                    // Weighed as plain letters: folds to exactly them ("Ø" → "o", "Æ" → "ae").
                    #expect(folded == String(letters), "U+\(String(value, radix: 16)) \(scalar): \(folded) vs \(String(letters))")
                } else {
                    // A letter of its own ("Þ", "Ŋ", "ı"): folds to no plain ASCII.
                    #expect(!folded.unicodeScalars.allSatisfy { $0.isASCII }, "U+\(String(value, radix: 16)) \(scalar) folds to \(folded)")
                }
                checked += 1
            }
        }
        #expect(checked > 500)
        #expect(Collation.folded.areEquivalent("Ærø Łódź Đorđe Øster Œuvre", "aero lodz dorde oster oeuvre"))
        #expect(!Collation.folded.areEquivalent("Þór", "tor"))
    }

    @Test(
        "Greek, Cyrillic, Vietnamese, kana, CJK ideographs and Hangul fold scalar by scalar exactly as the general path does; the NFC shortcut agrees with the normalizer"
    )
    func tableFold() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0071)
        let ideographsAndHangul =
            [0x3400, 0x4DBF, 0x4E00, 0x5B57, 0x9FFF, 0xAC00, 0xAC01, 0xD7A3].map { Unicode.Scalar($0)! }
            + (0..<200).map { _ in Unicode.Scalar(UInt32.random(in: 0x4E00...0x9FFF, using: &random))! }
            + (0..<200).map { _ in Unicode.Scalar(UInt32.random(in: 0xAC00...0xD7A3, using: &random))! }
        let scalars =
            (0x20..<0x7F).map { Unicode.Scalar($0)! }
            + (0x80..<0x530).compactMap { value -> Unicode.Scalar? in
                (0x300...0x36F).contains(value) || (0x483...0x489).contains(value) ? nil : Unicode.Scalar(value)
            } + (0x1E00..<0x1F00).map { Unicode.Scalar($0)! }
            + (0x3000..<0x3100).compactMap { value -> Unicode.Scalar? in
                (0x302A...0x302F).contains(value) || value == 0x3099 || value == 0x309A ? nil : Unicode.Scalar(value)
            } + ideographsAndHangul
        // Every scalar the NFC shortcut passes is its own NFC, alone and after any other.
        for value in UInt32(0)..<0xD7A4 where _isNFCAlone(value) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for before in ["", "a", "\u{1100}", "\u{AC00}", "e\u{301}"] {
                let text = before + String(scalar)
                #expect(
                    Array(_normalizedNFC(text).utf8) == Array(_normalizedNFC(before).utf8) + Array(String(scalar).utf8),
                    "U+\(String(value, radix: 16)) after \(before.debugDescription)")
            }
        }
        var texts = scalars.map { String($0) }
        for _ in 0..<3_000 {
            texts.append(String(String.UnicodeScalarView((0..<Int.random(in: 1...8, using: &random)).map { _ in scalars.randomElement(using: &random)! })))
        }
        for text in texts {
            #expect(Array(_caseFold(text).utf8) == Array(_slowCaseFold(text).utf8), "\(text.debugDescription), \(random.replay)")
            #expect(Array(_diacriticFold(text).utf8) == Array(_slowDiacriticFold(text).utf8), "\(text.debugDescription), \(random.replay)")
        }
    }
}
