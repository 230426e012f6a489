import Foundation
import SortKitTestSupport
import Testing
@testable import SortKit

@Suite("Locale collations (UCA + CLDR)")
struct LocaleCollationTests {
    func sorted(_ words: [String], _ spec: String) throws -> [String] {
        let collation = try #require(Collation(rawValue: spec))
        return words.sorted { collation.compare($0, $1) == .orderedAscending }
    }

    @Test("The issue's orders: Swedish, Ukrainian")
    func issueExamples() throws {
        let swedish = "apa vas wasa zebra ål äpple öl Örn".split(separator: " ").map(String.init)
        #expect(try sorted(swedish.reversed(), "locale=sv") == swedish)
        let ukrainian = "гарбуз ґанок дім ера єнот іній їжак яблуко".split(separator: " ").map(String.init)
        #expect(try sorted(ukrainian.reversed(), "locale=uk") == ukrainian)
        // The root files å under a, as code-point folding did not.
        #expect(try sorted(["zebra", "ål"], "locale=und") == ["ål", "zebra"])
    }

    @Test("Letters and digraphs of several tailorings")
    func tailorings() throws {
        #expect(try sorted(["hrad", "chata", "ivo", "cibule"], "locale=cs") == ["cibule", "hrad", "chata", "ivo"])
        #expect(try sorted(["ob", "ña", "nz"], "locale=es") == ["nz", "ña", "ob"])
        #expect(try sorted(["ıa", "ia", "ha"], "locale=tr") == ["ha", "ıa", "ia"])
        #expect(try sorted(["zoo", "sa", "ta"], "locale=et") == ["sa", "zoo", "ta"])
        #expect(try sorted(["yra", "ira", "kas"], "locale=lt") == ["ira", "yra", "kas"])
        #expect(try sorted(["aabe", "zebra", "åbe"], "locale=da").first == "zebra")
        #expect(try sorted(["Müller", "Mueller", "Muff"], "locale=de-u-co-phonebk") == ["Mueller", "Müller", "Muff"])
        #expect(try sorted(["Müller", "Mueller", "Muff"], "locale=de") == ["Mueller", "Muff", "Müller"])
        #expect(try sorted(["cz", "csa", "da"], "locale=hu") == ["cz", "csa", "da"])
        #expect(try sorted(["llama", "luz", "lz"], "locale=es-u-co-trad") == ["luz", "lz", "llama"])
    }

    @Test("Strengths: nocase ignores case, fold accents too, natural compares numbers")
    func strengths() throws {
        let nocase = try #require(Collation(rawValue: "locale=sv:nocase"))
        #expect(nocase.areEquivalent("Örn", "örn"))
        #expect(!nocase.areEquivalent("Örn", "orn"))
        let fold = try #require(Collation(rawValue: "locale=und:fold"))
        #expect(fold.areEquivalent("Éclair", "eclair"))
        // In Swedish ö is a letter of its own, not an o with an accent.
        #expect(!(try #require(Collation(rawValue: "locale=sv:fold"))).areEquivalent("öl", "ol"))
        #expect(try sorted(["file10", "file9", "file010", "File2"], "locale=en:natural") == ["File2", "file9", "file010", "file10"])
        #expect(try sorted(["a", "A", "á"], "locale=und") == ["a", "A", "á"])
    }

    @Test("Tags: canonical forms, fallbacks and clear errors")
    func tags() throws {
        #expect(try LocaleCollation("sv_SE").identifier == "sv-SE")
        #expect(try LocaleCollation("sv-se").tableName == "sv")
        #expect(try LocaleCollation("unicode").identifier == "und")
        #expect(try LocaleCollation("en-US").tableName == "und")
        #expect(try LocaleCollation("sr-Latn").tableName == "sr-Latn")
        #expect(try LocaleCollation("DE-u-co-PHONEBK").identifier == "de-u-co-phonebk")
        for bad in ["", " ", "s", "sv-", "sv--SE", "<script>", "sv-u-kn-true", "de-u-co-pinyin", String(repeating: "a", count: 100), "en\u{301}"] {
            #expect(throws: LocaleCollationError.self, "\(bad)") { try LocaleCollation(bad) }
        }
        #expect(LocaleCollation.availableIdentifiers.contains("de-u-co-phonebk"))
        #expect(LocaleCollation.availableIdentifiers.contains("uk"))
        // The spec round-trips, strength included.
        for text in ["title:locale=sv", "title:locale=sv:nocase", "-title:locale=de-u-co-phonebk:fold", "t:locale=und:natural"] {
            #expect(try SortSpec(parsing: text).description == text)
        }
        #expect(try SortSpec(parsing: "t:nocase:locale=uk").description == "t:locale=uk:nocase")
        #expect(throws: SortSpecError.self) { try SortSpec(parsing: "t:locale=sv:binary") }
        #expect(throws: SortSpecError.self) { try SortSpec(parsing: "t:locale=sv:locale=da") }
        #expect(throws: SortSpecError.self) { try SortSpec(parsing: "t:locale=") }
        let decoded = try JSONDecoder().decode([Collation].self, from: Data(#"["locale=uk:fold","natural"]"#.utf8))
        #expect(decoded == [try #require(Collation(rawValue: "locale=uk:fold")), .natural])
    }

    @Test("Keys: byte order is the comparison; canonically equivalent spellings tie; equivalence ranges")
    func keys() throws {
        let collation = try #require(Collation(rawValue: "locale=sv"))
        #expect(collation.sortKey(for: "Cafe\u{301}") == collation.sortKey(for: "Café"))
        #expect(!collation.sortKey(for: "x").contains(0) || collation.sortKey(for: "x").firstIndex(of: 0)! == collation.sortKey(for: "x").count - 2)
        let range = try #require(Collation(rawValue: "locale=sv:nocase")).equivalenceKeyRange(for: "Örn")
        let key = try #require(Collation(rawValue: "locale=sv:nocase")).sortKey(for: "ÖRN")
        #expect(!key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper))
        // A megabyte string and odd scalars don't crash and keep the order total.
        let long = String(repeating: "å", count: 1 << 20)
        #expect(collation.compare(long, long + "a") == .orderedAscending)
        #expect(collation.compare("\u{0}", "") == .orderedDescending)
        #expect(collation.compare("\u{10FFFF}", "\u{E0001}") != .orderedSame)
    }

    /// CLDR's conformance file for the root collation: every line sorts at or after the one
    /// before it, comparing the three levels (non-ignorable). Lines with lone surrogates can't
    /// be Swift strings and are counted apart.
    @Test("CollationTest_CLDR_NON_IGNORABLE.txt passes for the root collation")
    func conformance() throws {
        guard let text = DataFiles.text("uca/CollationTest_CLDR_NON_IGNORABLE.txt", in: DataFiles.cldr, package: "unicode-cldr-core") else { return }
        let root = try #require(Collation(rawValue: "locale=und"))
        var previous: [UInt8]?
        var previousLine = ""
        var checked = 0, surrogates = 0, failures = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let hex = line.split(separator: ";")[0].split(separator: " ")
            let values = hex.compactMap { UInt32($0, radix: 16) }
            guard values.allSatisfy({ !(0xD800...0xDFFF).contains($0) }) else {
                surrogates += 1
                previous = nil
                continue
            }
            let string = String(String.UnicodeScalarView(values.map { Unicode.Scalar($0)! }))
            let key = root.equivalenceKey(for: string)
            if let previous, _compareBytes(previous, key) == .orderedDescending {
                failures += 1
                if failures <= 10 { Issue.record("out of order: \(previousLine) > \(line)") }
            }
            checked += 1
            previous = key
            previousLine = String(line)
        }
        print("CollationTest_CLDR_NON_IGNORABLE: \(checked) lines checked, \(failures) out of order, \(surrogates) with lone surrogates skipped")
        #expect(failures == 0)
        #expect(checked > 150_000)
    }
}
