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
        let cells = titles.map { Array($0.utf8) }
        let cases: [(String, () -> Int64)] = [
            (
                "len (from UTF-8)",
                {
                    var total: Int64 = 0
                    for cell in cells { total &+= cell.withUnsafeBufferPointer { _lengthUnlessBlank($0) ?? 0 } }
                    return total
                }
            ),
            (
                "random=7, one title at a time",
                {
                    var total: Int64 = 0
                    for cell in cells { total &+= cell.withUnsafeBufferPointer { _randomNumberOfNFCText($0, seed: 7) ?? 0 } }
                    return total
                }
            ),
            (
                "random=7, four titles at a time",
                {
                    var total: Int64 = 0
                    var i = 0
                    while i + 4 <= cells.count {
                        let hashes = cells[i].withUnsafeBufferPointer { a in
                            cells[i + 1].withUnsafeBufferPointer { b in
                                cells[i + 2].withUnsafeBufferPointer { c in
                                    cells[i + 3].withUnsafeBufferPointer { d in _seededHash4(prefix: 0x30, a, b, c, d, seed: 7) }
                                }
                            }
                        }
                        total &+= hashes.0 &+ hashes.1 &+ hashes.2 &+ hashes.3
                        i += 4
                    }
                    return total
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
