import ArgumentParser

/// The data set options every benchmark that generates books shares (`@OptionGroup`): how many
/// rows, and which text. Each command keeps its own default row count (``rows(default:)``).
struct DataSetOptions: ParsableArguments {
    @Option(help: "Rows in the data set (each command's default is in its abstract).")
    var rows: Int?

    @Option(
        help: """
            ascii: the English titles and authors (~5% non-ASCII authors); multilingual: about 65% of titles and authors in \
            accented Latin, Cyrillic, Greek, CJK and decomposed (combining-mark) text.
            """)
    var text: BenchData.TextKind = .ascii

    func validate() throws {
        if let rows, rows < 1 { throw ValidationError("--rows must be at least 1, got \(rows)") }
    }

    /// `--rows`, or the command's `count`.
    func rows(default count: Int) -> Int { rows ?? count }

    /// The books of the data set, `count` of them unless `--rows` says otherwise.
    func books(default count: Int) -> [BenchBook] {
        BenchData.books(count: rows(default: count), text: text)
    }
}

/// How many times each case runs (`@OptionGroup`); the median is reported.
struct RunOptions: ParsableArguments {
    @Option(help: "Runs per case (the median is reported; each command's default is in its abstract).")
    var runs: Int?

    func validate() throws {
        if let runs, runs < 1 { throw ValidationError("--runs must be at least 1, got \(runs)") }
    }

    /// `--runs`, or the command's `count`.
    func runs(default count: Int) -> Int { runs ?? count }
}

/// A benchmark's default size and runs, named once: its abstract states them, and `--rows`
/// and `--runs` fall back to them (``BookBench``).
struct BenchDefaults {
    var rows: Int?
    var runs: Int?

    /// The command's configuration, its abstract ending with the defaults:
    /// `… (1,000,000 rows, 5 runs).`
    func command(_ name: String, _ abstract: String) -> CommandConfiguration {
        let parts = [rows.map { "\(Self.grouped($0)) rows" }, runs.map { "\($0) runs" }].compactMap { $0 }
        return CommandConfiguration(commandName: name, abstract: abstract + (parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))") + ".")
    }

    /// `n` with commas between groups of three digits.
    static func grouped(_ n: Int) -> String {
        var digits = String(n)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return digits
    }
}

/// A benchmark over the generated books, with the data set and run options and its
/// ``BenchDefaults``.
protocol BookBench {
    static var defaults: BenchDefaults { get }
    var data: DataSetOptions { get }
}

extension BookBench {
    /// `--rows`, or the default.
    var rows: Int { data.rows(default: Self.defaults.rows ?? 1) }
    /// The books of the data set: `rows` of them.
    var books: [BenchBook] { BenchData.books(count: rows, text: data.text) }
}

/// A ``BookBench`` that times each case several times.
protocol TimedBookBench: BookBench {
    var timing: RunOptions { get }
}

extension TimedBookBench {
    /// `--runs`, or the default.
    var runs: Int { timing.runs(default: Self.defaults.runs ?? 1) }
}
