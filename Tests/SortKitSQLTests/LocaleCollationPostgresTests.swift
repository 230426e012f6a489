import Foundation
import OrderKeys
import PostgresNIO
import SortKitTestSupport
import Testing

@testable import SortKit
@testable import SortKitSQL

/// Every compiled tailoring against PostgreSQL's ICU collation of the same locale: seeded words
/// from the language's alphabet (CLDR's exemplar characters with their digraphs, both cases),
/// digits, spaces and punctuation, ordered by `COLLATE` (ties by "C") and by SortKit's keys, at
/// the four strengths (`-u-ks-level2`, `-u-ks-level1`, `-u-ks-level1-kn-true`).
@Suite("Locale collations against PostgreSQL's ICU", .serialized)
struct LocaleCollationPostgresTests {
    /// Orders that differ from PostgreSQL's ICU 72 (CLDR 42) by data version or by an ICU
    /// implementation detail, and why; each is listed in the DocC article "Sorting in every
    /// language". Their differences are printed, not failures; every other order must match.
    static let knownDifferences: [String: String] = [
        "wae": "ICU reads \"oó\" as o + ó, not as the tailored contraction \"oo\" + an acute (its FCD matching)",
        "dz": "Tibetan subjoined letters after a digit: ICU's Tibetan contraction handling differs",
    ]

    /// Tags whose meaning changed between CLDR 41 (our data) and ICU 72's CLDR 42: CLDR 42 made
    /// Swedish's "reformed" order the standard one and renamed the old standard "traditional".
    static let icuTag = ["sv-u-co-standard": "sv-u-co-trad"]

    static func exemplars(of tag: String) -> [String]? {
        let file = tag.replacingOccurrences(of: "-", with: "_")
        guard tag != "und", let text = DataFiles.text("main/\(file).xml", in: DataFiles.cldr, package: "unicode-cldr-core", required: tag == "en") else {
            return nil
        }
        guard let start = text.range(of: "<exemplarCharacters>"), let end = text.range(of: "</exemplarCharacters>", range: start.upperBound..<text.endIndex)
        else {
            return nil
        }
        var set = String(text[start.upperBound..<end.lowerBound])
        set = String(set.dropFirst().dropLast()) // [ … ]
        var items: [String] = []
        var scalars = Array(set.unicodeScalars)
        var i = 0
        var current = ""
        func flush() {
            if !current.isEmpty { items.append(current) }
            current = ""
        }
        while i < scalars.count {
            let s = scalars[i]
            if s == " " { flush(); i += 1; continue }
            if s == "{" {
                flush()
                var j = i + 1
                while j < scalars.count && scalars[j] != "}" { current.unicodeScalars.append(scalars[j]); j += 1 }
                flush()
                i = j + 1
                continue
            }
            if s == "\\" && i + 1 < scalars.count {
                if scalars[i + 1] == "u", i + 5 < scalars.count, let v = UInt32(String(String.UnicodeScalarView(scalars[(i + 2)...(i + 5)])), radix: 16),
                    let u = Unicode.Scalar(v)
                {
                    current.unicodeScalars.append(u)
                    i += 6
                } else {
                    current.unicodeScalars.append(scalars[i + 1])
                    i += 2
                }
                continue
            }
            if s == "-" && !current.isEmpty && i + 1 < scalars.count, let first = current.unicodeScalars.last, current.unicodeScalars.count == 1 {
                // A range a-z.
                let last = scalars[i + 1]
                if last.value > first.value && last.value - first.value < 200 {
                    for v in (first.value + 1)...last.value { items.append(String(Unicode.Scalar(v)!)) }
                    i += 2
                    flush()
                    continue
                }
            }
            current.unicodeScalars.append(s)
            i += 1
        }
        flush()
        scalars.removeAll()
        return items
    }

    static func words(alphabet: [String], seed: UInt64, count: Int) -> [String] {
        var random = SplitMix64(seed: seed)
        let pieces =
            alphabet + alphabet.map { $0.uppercased() } + alphabet.map { $0.prefix(1).uppercased() + $0.dropFirst() }
            + ["0", "1", "2", "9", "10", "007", " ", "-", ".", "'"]
        var words = Set<String>()
        while words.count < count {
            let length = Int.random(in: 1...5, using: &random)
            let word = (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
            words.insert(_normalizedNFC(word))
        }
        return words.sorted()
    }

    @Test(
        "Every compiled tailoring orders seeded words as PostgreSQL's ICU does, at every strength",
        .needs(.postgres, for: "locale collations against PostgreSQL's ICU"))
    func differential() async throws {
        let url = try Service.postgres.value()
        let client = PostgresClient(configuration: try PostgresClient.Configuration(url: url))
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 36
        var compared = 0, mismatched: [String] = []
        for identifier in LocaleCollation.availableIdentifiers {
            let base = identifier.components(separatedBy: "-u-co-")[0]
            // A regional tag without an alphabet of its own (fr-CA, de-AT) uses its language's.
            let parent = base.split(separator: "-").first.map(String.init) ?? base
            guard let alphabet = Self.exemplars(of: base) ?? Self.exemplars(of: parent) ?? (identifier == "und" ? Self.exemplars(of: "en") : nil) else {
                print("no exemplar characters for \(identifier): skipped")
                continue
            }
            // Japanese: the long vowel mark and the iteration marks, which sort by the kana before them.
            let marks = base == "ja" ? ["ー", "ゝ", "ゞ", "ヽ", "ヾ", "かー", "アー", "がー", "うゞ", "キヾ"] : []
            let words = Self.words(alphabet: alphabet + marks, seed: seed &+ UInt64(truncatingIfNeeded: identifier.hashValue & 0), count: 300)
            for (suffix, modifier) in [("", ""), ("ks-level2", ":nocase"), ("ks-level1", ":fold"), ("ks-level1-kn-true", ":natural")] {
                let icuBase = Self.icuTag[identifier] ?? identifier
                let icuTag = icuBase.contains("-u-") ? icuBase + (suffix.isEmpty ? "" : "-" + suffix) : icuBase + (suffix.isEmpty ? "" : "-u-" + suffix)
                let name = "sk_" + icuTag.replacingOccurrences(of: "-", with: "_").lowercased()
                try await client.query("CREATE COLLATION IF NOT EXISTS \(unescaped: "\"" + name + "\"") (provider = icu, locale = '\(unescaped: icuTag)')")
                let rows = try await client.query(
                    "SELECT w FROM unnest(\(words)::text[]) AS t(w) ORDER BY w COLLATE \(unescaped: "\"" + name + "\""), w COLLATE \"C\"")
                var expected: [String] = []
                for try await word in rows.decode(String.self) { expected.append(word) }
                let collation = try #require(Collation(rawValue: "locale=" + identifier + modifier))
                let actual = words.map { (collation.sortKey(for: $0), $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
                compared += 1
                if actual != expected, let why = Self.knownDifferences[identifier] {
                    print("known difference, locale=\(identifier)\(modifier): \(why)")
                } else if actual != expected {
                    let index = actual.indices.first { actual[$0] != expected[$0] } ?? 0
                    let context =
                        "locale=\(identifier)\(modifier) (ICU \(icuTag)): first difference at \(index): SortKit \(actual[max(0, index - 1)...min(actual.count - 1, index + 1)]) ICU \(expected[max(0, index - 1)...min(expected.count - 1, index + 1)]) (seed \(seed))"
                    mismatched.append(context)
                }
            }
        }
        print("locale collations vs PostgreSQL's ICU: \(compared) orders compared, \(mismatched.count) differ")
        for line in mismatched { print("  " + line) }
        #expect(mismatched.isEmpty, "\(mismatched.count) of \(compared) orders differ from ICU (seed \(seed)); see the printed lines")
        #expect(compared > 100)
    }
}
