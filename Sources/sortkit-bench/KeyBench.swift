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
        var cases: [(String, Collation)] = [("natural", .natural), ("binary", .binary), ("folded", .folded)]
        for tag in locales.split(separator: ",") {
            let locale = try LocaleCollation(String(tag))
            cases.append(("locale=\(tag)", .locale(locale)))
            cases.append(("locale=\(tag):nocase", .locale(try LocaleCollation(String(tag), strength: .secondary))))
        }
        print("\(titles.count) titles (\(data.text.rawValue)), \(ProcessInfo.processInfo.activeProcessorCount) cores, one thread")
        print("| collation | median ms | ns per title | key bytes per title | × natural |")
        print("|---|---|---|---|---|")
        var natural = Double.nan
        for (name, collation) in cases {
            var bytes = 0
            let (measurement, problem) = measure(
                runs: runs,
                {
                    var key: [UInt8] = []
                    var total = 0
                    for title in titles {
                        key.removeAll(keepingCapacity: true)
                        collation.appendSortKey(for: title, to: &key)
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
    }
}
