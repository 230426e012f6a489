import Foundation
import OrderKeys
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
        // Chinese: pinyin by default (Běijīng, Guǎngzhōu, Shànghǎi, Zhōngguó), and by stroke count.
        #expect(try sorted(["中国", "上海", "北京", "广州"], "locale=zh") == ["北京", "广州", "上海", "中国"])
        #expect(try sorted(["中国", "上海", "北京", "广州"], "locale=zh-u-co-stroke") == ["上海", "广州", "中国", "北京"])
        // Han sorts before Latin in Chinese ([reorder Hani]), after it in the root.
        #expect(try sorted(["zoo", "中"], "locale=zh") == ["中", "zoo"])
        #expect(try sorted(["zoo", "中"], "locale=und") == ["zoo", "中"])
        // Thai ignores spaces and punctuation ([alternate shifted]); the root weighs them first.
        #expect(try sorted(["ab", "a-c", "aa"], "locale=th") == ["aa", "ab", "a-c"])
        #expect(try sorted(["ab", "a-c", "aa"], "locale=und") == ["a-c", "aa", "ab"])
        // Japanese: the long vowel mark weighs as the vowel before it (カーキ as カアキ, so after
        // カアカ); the root gives it a weight of its own, before every kana.
        #expect(try sorted(["カイ", "カーキ", "カアカ"], "locale=ja") == ["カアカ", "カーキ", "カイ"])
        #expect(try sorted(["カイ", "カーキ", "カアカ"], "locale=und") == ["カーキ", "カアカ", "カイ"])
        #expect(try sorted(["日本", "にほん"], "locale=ja") == ["にほん", "日本"])
        // Korean: a Hanja sorts with the syllable it reads as (伽 is 가), Hangul before Han.
        #expect(try sorted(["나", "伽", "가", "中"], "locale=ko") == ["가", "伽", "나", "中"])
    }

    /// A fast way of writing a locale key, and the texts to try it on.
    struct FastPath: Sendable, CustomTestStringConvertible {
        let name: String
        let pieces: [String]
        let seed: UInt64
        let write: @Sendable (LocaleCollation, UnsafeBufferPointer<UInt8>, inout [UInt8]) -> Bool
        var testDescription: String { name }

        /// ASCII from the 128-entry table: letters that start contractions somewhere (c, a, l,
        /// d, g, n, s, t, z), digits, both cases, spaces, punctuation and controls.
        static let ascii = FastPath(
            name: "ASCII",
            pieces: [
                "a", "A", "aa", "c", "ch", "CH", "l", "ll", "dz", "gy", "ny", "sz", "zs", "th", "v", "w", "ph", "rh", "ff", "y", "j", "k", "e", "o", "u",
                "Z", "0", "7", "10", " ", "-", ".", "'", "\t", "\u{0}", "~",
            ], seed: 0xA5C1_1
        ) { $0.appendASCIISortKey($1, to: &$2) }

        /// Streamed: letters that weigh alone and ones that don't (contractions, a letter
        /// before a mark or a precomposed letter, Hangul, kana) in several scripts.
        static let streamed = FastPath(
            name: "streamed",
            pieces: [
                "a", "Å", "ä", "ö", "é", "ß", "ı", "İ", "ł", "ø", "ch", "aa", "dzs", "ll", "c", "h", "ж", "Ж", "ґ", "є", "ї", "я", "α", "Ω", "ά", "中",
                "文", "𠀋", "한", "カ", "ー", "e\u{301}", "\u{308}", "0", "7", "١", " ", "-", "'", "\u{212B}", "â", "ǟ", "A", "d", "z", "s",
                // Root's "L·" contraction, and U+0387, which decomposes to the middle dot.
                "L", "l", "·", "\u{387}", "Library",
            ], seed: 0x5EED_0038
        ) { $0.appendStreamedSortKey($1, to: &$2) }
    }

    @Test(
        "Keys a fast path writes equal the general path's, for every tailoring and strength (seeded)",
        arguments: [FastPath.ascii, .streamed])
    func fastKeys(_ path: FastPath) throws {
        var random = SeededRandom.fromEnvironment(default: path.seed)
        var fast = 0
        for tag in LocaleCollation.availableIdentifiers + ["und"] {
            for (strength, numeric) in [(LocaleCollation.Strength.tertiary, false), (.secondary, false), (.primary, false), (.primary, true)] {
                let collation = try LocaleCollation(tag, strength: strength, numeric: numeric)
                for _ in 0..<24 {
                    let text = (0..<Int.random(in: 0...6, using: &random)).map { _ in path.pieces.randomElement(using: &random)! }.joined()
                    var general: [UInt8] = [9]
                    collation.appendGeneralSortKey(for: text, to: &general)
                    var key: [UInt8] = [9]
                    if Array(text.utf8).withUnsafeBufferPointer({ path.write(collation, $0, &key) }) {
                        fast += 1
                        #expect(key == general, "\(path.name) \(tag) \(strength) numeric \(numeric): \(text.debugDescription), \(random.replay)")
                    } else {
                        #expect(key == [9], "nothing written when the \(path.name) path declines")
                    }
                }
            }
        }
        #expect(fast > 1_000, "the \(path.name) path took \(fast) texts")
    }

    @Test("A first letter that starts a contraction only with a non-ASCII scalar streams before ASCII, not before that scalar")
    func leadingPrimaryBeforeASCII() throws {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        for tag in ["und", "sv", "ca"] {
            let collation = try LocaleCollation(tag)
            for text in ["Library", "L", "Lx 9", "llama"] {
                #expect(bytes(text).withUnsafeBufferPointer { collation.leadingPrimary(ofUTF8: $0) } != nil, "\(tag) \(text)")
            }
            for text in ["L·a", "l\u{387}x", "Lé"] {
                #expect(bytes(text).withUnsafeBufferPointer { collation.leadingPrimary(ofUTF8: $0) } == nil, "\(tag) \(text)")
            }
        }
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

@Suite("Locale collations: precomposed text skips NFD")
struct LocaleCollationClosureTests {
    /// Text of starters is weighed without NFD, from the tables' canonical closure: its key must
    /// be its NFD's (which takes the NFD path) for every tailoring, digraphs and precomposed
    /// letters next to each other ("aå" in Danish, "cĥ" in Czech) included.
    @Test("A text compared with a key a word at a time orders as the full keys do, in every tailoring (seeded)")
    func wordwiseComparison() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 37
        var random = SplitMix64(seed: seed)
        // Contractions that a space must end (ch, aa, dzs, ll), marks that join or follow a
        // letter, digits for the numeric variant, spaces at the ends and doubled, kana with
        // length marks (a contextual table), and texts that share their first words.
        let pieces =
            Array("aåäöAÖzZcCdhslyiıİñnoeé1209 -.жЖґєїяαάΩ中ア").map(String.init) + [
                "ch", "CH", "aa", "dzs", "ll", "cs", "gy", "E\u{301}", "a\u{308}", "\u{301}", "o\u{323}\u{302}", "ー", "カー", "  ", "10 ", " 9",
                // A precomposed vowel sign before a scalar that continues a contraction (Kannada),
                // a Hangul syllable, a Tibetan vowel that decomposes to a non-starter.
                "\u{0CCA}\u{0CD5}", "\u{0CC6}", "한", "ǻ", "ṩ", "\u{0F73}", "١٢",
                // A precomposed letter after one that starts a contraction with its
                // decomposition (Danish "A" + "â" is "Aa" + U+0302).
                "â", "Â", "ǟ", "å", "čh", "ć",
            ]
        let heads = ["", "The ", "the  ", "Åsa ", "Chapter 12 ", "chapter 012 "]
        func text() -> String {
            heads.randomElement(using: &random)! + (0..<Int.random(in: 0...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        var scratch = _KeyScratch()
        var decided = 0
        for tag in LocaleCollation.availableIdentifiers + ["und", "ja"] {
            for (strength, numeric) in [(LocaleCollation.Strength.tertiary, false), (.primary, false), (.primary, true)] {
                let locale = try LocaleCollation(tag, strength: strength, numeric: numeric)
                let collation = Collation.locale(locale)
                for _ in 0..<24 {
                    let a = text()
                    let b = Bool.random(using: &random) ? text() : String(a.prefix(Int.random(in: 0...a.count, using: &random))) + text()
                    let key = collation.sortKey(for: b)
                    let expected = _compareBytes(collation.sortKey(for: a), key)
                    let message = "locale=\(tag) \(strength) numeric \(numeric): \(a.debugDescription) vs \(b.debugDescription) (seed \(seed))"
                    #expect(collation.compare(a, toSortKey: key, scratch: &scratch) == expected, "\(message)")
                    if let primaries = key.withUnsafeBufferPointer({ locale.comparePrimaries(of: a, toKey: $0, scratch: &scratch.locale) }) {
                        decided += 1
                        #expect(primaries == expected, "primaries: \(message)")
                    }
                }
            }
        }
        #expect(decided > 2_000, "the primaries decided \(decided) comparisons")
    }

    @Test("A scalar newer than the tables weighs as this runtime's NFD of it, alone or beside text that needs NFD")
    func newerScalars() throws {
        let root = try LocaleCollation("und")
        let collation = Collation.locale(root)
        var scratch = _KeyScratch()
        // U+16D68 (Kirat Rai, Unicode 16) decomposes to U+16D67 twice in a runtime that knows
        // it; U+113C5 (Tulu-Tigalari) likewise. Hangul sends the whole text to NFD.
        for letter in ["\u{16D68}", "\u{113C5}", "\u{16D67}"] {
            let nfd = String(String.UnicodeScalarView(_nfdScalars(letter)))
            #expect(collation.sortKey(for: letter) == collation.sortKey(for: nfd), "\(letter.debugDescription)")
            for (a, b) in [(letter + " 한", letter + " 한"), (letter + " 한a", letter + " 한b"), (letter + "x", letter + " 한")] {
                let key = collation.sortKey(for: b)
                let expected = _compareBytes(collation.sortKey(for: a), key)
                #expect(collation.compare(a, toSortKey: key, scratch: &scratch) == expected, "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test("Malformed UTF-8 in a cell: the first primary is unknown, never a crash or a read past the end")
    func malformedBytes() throws {
        let sv = try LocaleCollation("sv")
        let a = try #require(Array("a".utf8).withUnsafeBufferPointer { sv.leadingPrimary(ofUTF8: $0) })
        for bytes: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80, 0x61], [0xFF], [0xC3, 0x41]] {
            #expect(bytes.withUnsafeBufferPointer { sv.leadingPrimary(ofUTF8: $0) } == nil, "\(bytes)")
        }
        // Well-formed letters before the damage still weigh: the string's repair starts after them.
        #expect([0x61, 0xC3].withUnsafeBufferPointer { sv.leadingPrimary(ofUTF8: $0) } == a)
    }

    @Test("Every tailoring: a string's key equals its NFD spelling's key (seeded)")
    func closure() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 36
        var random = SplitMix64(seed: seed)
        let pieces =
            Array("aåäáàâãæeéèêëiíïoóöøőuúüűyýcčćĉhĥdďđnňñlľłrřsšśzžžtťgğkAÅÄÁÆÉÖØÜČŠŽĎĐŇŁабвгґдеєёжзиіїйклмнопрстуфхцчшщьюяЁЇЙαάβγδεέηήιίϊΐοόυύϋΰωώΆΈΉΊΌΎΏ1 -")
            .map(String.init) + ["ch", "dzs", "aa", "ll", "cs", "gy", "ij", "ĳ", "ǻ", "ǟ", "ṩ", "ễ"]
        for identifier in LocaleCollation.availableIdentifiers {
            let collation = Collation.locale(try LocaleCollation(identifier))
            for _ in 0..<300 {
                let text = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
                let decomposed = String(String.UnicodeScalarView(_nfdScalars(text)))
                #expect(collation.sortKey(for: text) == collation.sortKey(for: decomposed), "locale=\(identifier) \(text.debugDescription) (seed \(seed))")
            }
        }
    }
}

@Suite("Locale collations in the sort engine")
struct LocaleCollationEngineTests {
    struct Book: Sendable { var title: String; var id: Int }

    /// The engine (keys, parallel sort, top-k) against the comparison, on seeded multilingual
    /// titles large enough for the parallel path.
    @Test("SortKey with a locale collation sorts as the comparison does, in every direction, also for top-k")
    func engine() throws {
        var random = SplitMix64(seed: UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 36)
        let letters = Array("aåäözZÅÖ ch1029-ґєїяĳßẞéE\u{301}").map(String.init)
        let books = (0..<20_000).map { id in
            Book(title: (0..<Int.random(in: 0...6, using: &random)).map { _ in letters.randomElement(using: &random)! }.joined(), id: id)
        }
        for spec in ["locale=sv", "locale=uk:nocase", "locale=de-u-co-phonebk:fold", "locale=und:natural"] {
            let collation = try #require(Collation(rawValue: spec))
            for direction in [SortDirection.ascending, .descending] {
                let sorted = books.sorted(by: [SortKey(\Book.title, direction, collation: collation), SortKey(\Book.id)])
                let expected = books.sorted { a, b in
                    let order = collation.compare(a.title, b.title)
                    if order != .orderedSame { return direction == .ascending ? order == .orderedAscending : order == .orderedDescending }
                    return a.id < b.id
                }
                #expect(sorted.map(\.id) == expected.map(\.id), "\(spec) \(direction)")
            }
        }
    }
}
