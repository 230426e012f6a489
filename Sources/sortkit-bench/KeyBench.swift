import ArgumentParser
import Foundation
import SortKit

/// `sortkit-bench keys`: what one string's sort key costs to build, per collation, on the
/// benchmark's titles, against the `natural` key of the same titles in the same run (issue #36:
/// a locale key should cost under twice a `natural` one).
struct KeyBench: ParsableCommand, TimedBookBench {
    static let defaults = BenchDefaults(rows: 1_000_000, runs: 5)
    static let configuration = defaults.command("keys", "Sort key building per string: binary, natural, folded and locale collations on the titles")

    @OptionGroup var data: DataSetOptions
    @OptionGroup var timing: RunOptions

    @Option(help: "Locale tags to measure, comma-separated.")
    var locales: String = "und,sv,de-u-co-phonebk,ja"

    func run() throws {
        let titles = books.map(\.title)
        // `natural` first: every other case is divided by it.
        // `natural` and each locale case twice: one key at a time, and as sorts build them (`_SortKeyPieces`:
        // a word's levels kept per thread, a cache started empty in every run).
        var cases: [(String, Collation, Bool)] = [
            ("natural", .natural, false), ("natural, words cached", .natural, true), ("binary", .binary, false), ("folded", .folded, false),
        ]
        for tag in locales.split(separator: ",") {
            for strength in [LocaleCollation.Strength.tertiary, .secondary] {
                let collation = Collation.locale(try LocaleCollation(String(tag), strength: strength))
                let name = "locale=\(tag)\(strength == .secondary ? ":nocase" : "")"
                cases += [(name, collation, false), ("\(name), words cached", collation, true)]
            }
        }
        print("\(titles.count) titles (\(data.text.rawValue)), \(ProcessInfo.processInfo.activeProcessorCount) cores, one thread")
        print("| collation | median ms | ns per title | key bytes per title | × natural |")
        print("|---|---|---|---|---|")
        var natural = Double.nan
        for (name, collation, cached) in cases {
            var bytes = 0
            let (measurement, problem) = measure(
                runs: runs,
                {
                    var key: [UInt8] = []
                    var total = 0
                    var pieces = _SortKeyPieces(collation)
                    for title in titles {
                        key.removeAll(keepingCapacity: true)
                        if cached { pieces.appendSortKey(for: title, to: &key) } else { collation.appendSortKey(for: title, to: &key) }
                        total += key.count
                    }
                    bytes = total
                    return total
                }, verify: { $0 > 0 ? nil : "no key bytes" })
            if let problem { throw ValidationError("\(name): \(problem)") }
            if name == "natural" { natural = measurement.median }
            let perTitle = measurement.median * 1e6 / Double(titles.count)
            print(
                "| \(name) | \(String(format: "%.0f", measurement.median)) | \(String(format: "%.0f", perTitle)) | "
                    + "\(String(format: "%.1f", Double(bytes) / Double(titles.count))) | \(String(format: "%.2f×", measurement.median / natural)) |")
        }
        try integerKeys(titles, natural: natural)
    }

    /// The integers `len` and `random=` read from a cell's UTF-8, as a first page by a new key
    /// kind reads every row's: the character count, and the seeded hash one title at a time
    /// and four at a time (``_seededHash4``).
    func integerKeys(_ titles: [String], natural: Double) throws {
        // The titles' bytes side by side, as a served table's cells are.
        var cells = _ByteArena()
        for title in titles {
            cells.bytes += title.utf8
            cells.close()
        }
        /// `body`'s total over every cell, each read as a buffer into the arena.
        func total(_ body: ((Int) -> UnsafeBufferPointer<UInt8>) -> Int64) -> Int64 {
            cells.bytes.withUnsafeBufferPointer { all in body { UnsafeBufferPointer(rebasing: all[cells.range($0)]) } }
        }
        let cases: [(String, () -> Int64)] = [
            (
                "len (from UTF-8)",
                { total { cell in (0..<cells.count).reduce(0) { $0 &+ (_lengthUnlessBlank(cell($1)) ?? 0) } } }
            ),
            (
                "random=7, one title at a time",
                { total { cell in (0..<cells.count).reduce(0) { $0 &+ (_randomNumberOfNFCText(cell($1), seed: 7) ?? 0) } } }
            ),
            (
                "random=7, four titles at a time",
                {
                    total { cell in
                        stride(from: 0, to: cells.count - 3, by: 4).reduce(0) { sum, i in
                            let hashes = _seededHash4(prefix: 0x30, cell(i), cell(i + 1), cell(i + 2), cell(i + 3), seed: 7)
                            return sum &+ hashes.0 &+ hashes.1 &+ hashes.2 &+ hashes.3
                        }
                    }
                }
            ),
        ]
        for (name, body) in cases {
            let (measurement, problem) = measure(runs: runs, body, verify: { _ in nil })
            if let problem { throw ValidationError("\(name): \(problem)") }
            let perTitle = measurement.median * 1e6 / Double(titles.count)
            print(
                "| \(name) | \(String(format: "%.0f", measurement.median)) | \(String(format: "%.0f", perTitle)) | — | "
                    + "\(String(format: "%.2f×", measurement.median / natural)) |")
        }
    }
}
