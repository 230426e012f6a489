import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitFiles

/// A run sorted by one locale-collated text column is keyed by its primaries alone, and the
/// records whose primaries tie are ordered by their whole keys where the sort meets them.
@Suite("Sorting a file by primaries first")
struct PrimariesFirstTests {
    /// Words whose primaries tie in most locales (case, accents, composed and decomposed,
    /// ligatures and expansions), so that most ties are broken past the primaries.
    static let words = [
        "cote", "côte", "Cote", "coté", "Côte", "co\u{302}te", "CÔTE", "Ångström", "angstrom", "Angstrom", "æble", "aeble", "Straße", "strasse",
        "öl", "Öl", "ol", "Ol", "ŋ", "n", "ĳs", "ijs", "", " ",
    ]

    /// Spellings of one word whose primaries tie in most locales, two of them equal but for
    /// their normalization.
    static let unknowns = ["Unknown", "unknown", "UNKNOWN", "unknówn", "Unknówn", "unkno\u{301}wn", "unknown", "Unknown"]

    /// Texts from `words` and a number below `numbers`, every 97th blank with `blanks` (the
    /// first windows then differ at their first byte: the sort is in halves, merged); with
    /// `unknowns`, two in five rows from ``unknowns`` (groups of thousands of tied primaries).
    static func texts(
        _ count: Int, numbers: Int, sameStart: Bool, blanks: Bool = true, unknowns: Bool = false, using random: inout SplitMix64
    ) -> [String] {
        (0..<count).map { index in
            if blanks && index % 97 == 0 { return "" }
            if unknowns && index % 5 < 2 { return Self.unknowns.randomElement(using: &random)! }
            let word = words.randomElement(using: &random)!
            let text = word + " " + String(Int.random(in: 0..<numbers, using: &random))
            return sameStart ? "Cote " + text : text
        }
    }

    static func arena(_ texts: [String]) -> _ByteArena {
        var arena = _ByteArena()
        for text in texts {
            arena.bytes.append(contentsOf: text.utf8)
            arena.close()
        }
        return arena
    }

    @Test("Run keys by primaries give the whole keys' order, in fewer bytes; on the cores and merged; other collations keep whole keys (seeded)")
    func runKeys() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 41
        var random = SplitMix64(seed: seed)
        let specs = [
            "s:locale=sv", "-s:locale=fr-CA", "s:locale=de:nocase", "s:locale=und:fold", "s:locale=da:nocase:nulls-first", "s:locale=sv:natural", "s:nocase",
        ]
        // 70,000 rows sort on both cores: without blanks, words at the start put them in 16-bit
        // buckets; blanks, or one shared start, put them in one, sorted in halves and merged.
        // Thousands of "unknown"s tie by primaries in one group, ordered as a whole.
        let cases = [
            (300, false, true, false), (70_000, false, false, false), (70_000, false, true, false), (70_000, true, false, false),
            (70_000, false, false, true),
        ]
        for (rows, sameStart, blanks, unknowns) in cases {
            // (Numbers enough that most texts are distinct, so the column is not numbered.)
            let numbers = unknowns ? rows : rows / 12 + 1
            let texts = Self.texts(rows, numbers: numbers, sameStart: sameStart, blanks: blanks, unknowns: unknowns, using: &random)
            let values = [Self.arena(texts)]
            for text in specs {
                let key = try _CSVSortKey(try SortSpec(parsing: text), header: ["s"])
                let whole = _RunKeys(key: key, values: values)
                let primaries = _RunKeys(key: key, values: values, primariesFirst: true)
                let (byPrimaries, byWholeKeys) = (primaries.order(), whole.order())
                let difference = zip(byPrimaries, byWholeKeys).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                #expect(
                    difference == nil && byPrimaries.count == rows,
                    "spec \(text), \(rows) rows, same start \(sameStart), blanks \(blanks), unknowns \(unknowns): first difference at \(difference ?? -1) (seed \(seed))"
                )
                let (primaryBytes, wholeBytes) = (
                    primaries.sortKeys.parts.map(\.bytes.count).reduce(0, +), whole.sortKeys.parts.map(\.bytes.count).reduce(0, +)
                )
                if rows < 1_000 {
                    continue // few rows may repeat enough to be numbered: the order is what counts
                } else if text.contains("locale") && !text.contains("natural") {
                    #expect(primaryBytes * 10 < wholeBytes * 7, "spec \(text): \(primaryBytes) bytes of primaries against \(wholeBytes)")
                } else {
                    #expect(primaryBytes == wholeBytes, "spec \(text) keeps its whole keys")
                }
            }
        }
    }

    @Test("Keys by primaries give the whole keys' order in tables with implicit weights, long lists, contexts and shifted variables (zh, ja, ko, th; seeded)")
    func otherScripts() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 44
        var random = SplitMix64(seed: seed)
        // CJK letters of implicit weights that differ only in their trails, letters of zh's long
        // lists, kana with a length mark (ja's prefix contexts), Hangul, Thai with tone marks,
        // private use, and Latin beside them.
        let words = ["中", "丂", "花园", "花朵", "𠀀", "𠀁", "\u{E000}", "한국", "한", "カー", "かあ", "ー", "ไทย", "ก่า", "กา", "a", "Ä", "漢字", "汉字", "ab"]
        let texts = (0..<6_000).map { _ in
            (0..<Int.random(in: 0...3, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
        }
        let values = [Self.arena(texts)]
        for text in ["s:locale=zh", "s:locale=zh-u-co-stroke", "-s:locale=ja", "s:locale=ko:nocase", "s:locale=th", "s:locale=und:fold"] {
            let key = try _CSVSortKey(try SortSpec(parsing: text), header: ["s"])
            let (byPrimaries, byWholeKeys) = (
                _RunKeys(key: key, values: values, primariesFirst: true).order(), _RunKeys(key: key, values: values).order()
            )
            let difference = zip(byPrimaries, byWholeKeys).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(difference == nil && byPrimaries.count == texts.count, "spec \(text): first difference at \(difference ?? -1) (seed \(seed))")
        }
    }

    @Test("sortkit sort's in-memory path by primaries writes what the spilled runs (whole keys) and the in-memory table order write (seeded)")
    func fileSort() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 42
        var random = SplitMix64(seed: seed)
        let texts = Self.texts(20_000, numbers: 2_000, sameStart: false, using: &random)
        let records = texts.enumerated().map { "\"\($0.element)\",\($0.offset)" }
        let bytes = Array((["s,n"] + records).map { $0 + "\n" }.joined().utf8)
        let table = TextTable(columns: ["s", "n"], rows: texts.enumerated().map { [$0.element, String($0.offset)] })
        for text in ["s:locale=sv", "-s:locale=fr-CA", "s:locale=de-u-co-phonebk:nocase"] {
            let spec = try SortSpec(parsing: text)
            let expected = Array((["s,n"] + (try table.sortedRowIndices(by: spec)).map { records[$0] }).map { $0 + "\n" }.joined().utf8)
            for memory in [CSVFileSorter.defaultMaxMemory, 1 << 18] {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-primaries-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let input = folder.appendingPathComponent("in.csv"), output = folder.appendingPathComponent("out.csv")
                try Data(bytes).write(to: input)
                var sorter = CSVFileSorter(spec: spec, maxMemory: memory)
                sorter.temporaryDirectory = folder
                let summary = try sorter.sort(input, to: output)
                #expect(Array(try Data(contentsOf: output)) == expected, "spec \(text), memory \(memory), runs \(summary.runs) (seed \(seed))")
                #expect(memory == CSVFileSorter.defaultMaxMemory ? summary.runs == 0 : summary.runs > 1, "spec \(text), memory \(memory)")
            }
        }
    }
}
