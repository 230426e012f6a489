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
