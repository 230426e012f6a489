import ArgumentParser
import Foundation
import SortKit

/// `sortkit-bench engine`: the fast engine against a hand-written closure and Foundation.
struct EngineBench: ParsableCommand, TimedBookBench {
    static let defaults = BenchDefaults(runs: 5)
    static let configuration = defaults.command("engine", "Sort 100k and 1M books: SortKit vs a hand-written closure vs Foundation's KeyPathComparator")

    @Option(help: "Row counts, comma-separated (--rows N runs N only).")
    var sizes: String = "100000,1000000"

    @OptionGroup var data: DataSetOptions
    @OptionGroup var timing: RunOptions

    @Option(help: "Runs per case for the slow Foundation anchors (0 skips them).")
    var foundationRuns: Int = 1

    @Option(help: "Write each data set as CSV into this folder, for external tools.")
    var csv: String?

    @Option(help: "A Python with the duckdb package: time DuckDB's ORDER BY of the same rows (2 threads and 1) for the 3-key case.")
    var duckdb: String?

    @Option(help: "Case groups to run, comma-separated: 3keys (with top-50), numbers, strings.")
    var cases: String = "3keys,numbers,strings"

    @Flag(help: "Print the results again as a Markdown table at the end.")
    var markdown = false

    func validate() throws {
        let unknown = caseGroups.subtracting(["3keys", "numbers", "strings"])
        if let group = unknown.sorted().first {
            throw ValidationError("--cases: unknown group '\(group)' (expected 3keys, numbers or strings)")
        }
    }

    private var caseGroups: Set<String> { Set(cases.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }

    func run() throws {
        var report = Report()
        print("SortKit engine benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date().formatted(.iso8601))")
        print(report.rows[0].joined(separator: " | "))
        for size in data.rows.map({ [$0] }) ?? sizes.split(separator: ",").compactMap({ Int($0) }) {
            let books = BenchData.books(count: size, text: data.text)
            let folder = csv ?? (duckdb == nil ? nil : NSTemporaryDirectory() + "sortkit-bench-\(getpid())")
            var file: URL?
            if let folder {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                file = URL(fileURLWithPath: folder).appendingPathComponent("books-\(size).csv")
                try BenchData.writeCSV(books, to: file!)
            }
            try runCases(books, &report, csv: file)
            if csv == nil, let folder { try? FileManager.default.removeItem(atPath: folder) }
        }
        if markdown { print("\n" + report.markdown()) }
    }

    func runCases(_ books: [BenchBook], _ report: inout Report, csv: URL?) throws {
        if caseGroups.contains("3keys") { try runThreeKeys(books, &report, csv: csv) }
        if caseGroups.contains("numbers") { try runNumbers(books, &report) }
        if caseGroups.contains("strings") { try runStrings(books, &report) }
    }

    func runThreeKeys(_ books: [BenchBook], _ report: inout Report, csv: URL?) throws {
        let n = books.count
        let threeKeys: [SortKey<BenchBook>] = [SortKey(declaredOrderOf: \.status), SortKey(\.author), SortKey(\.price, .descending)]

        // 3 keys: status in declared order, author, price descending.
        let closure3 = try time("3 keys", n, "closure", &report) {
            books.sorted { a, b in
                if a.statusRank != b.statusRank { return a.statusRank < b.statusRank }
                if a.author != b.author { return a.author < b.author }
                return a.price > b.price
            }
        } verify: {
            checkSorted($0) { a, b in (a.statusRank, a.author, b.price) < (b.statusRank, b.author, a.price) }
        }
        let foundation3 = try time("3 keys", n, "Foundation", &report, runs: foundationRuns, optional: true) {
            books.sorted(using: [
                KeyPathComparator(\BenchBook.statusRank), KeyPathComparator(\BenchBook.author),
                KeyPathComparator(\BenchBook.price, order: .reverse),
            ])
        } verify: {
            checkSorted($0) { a, b in (a.statusRank, a.author, b.price) < (b.statusRank, b.author, a.price) }
        }
        let full3 = try time("3 keys", n, "SortKit", &report, closure: closure3, foundation: foundation3) {
            books.sorted(by: threeKeys)
        } verify: {
            checkSortKit($0, threeKeys)
        }
        // The same keys through Foundation's spelling: SortKit's overload runs the same engine.
        let using3 = try time("3 keys", n, "SortKit sorted(using:)", &report, closure: closure3, foundation: foundation3) {
            books.sorted(using: threeKeys)
        } verify: {
            checkSortKit($0, threeKeys)
        }
        print(String(format: "3 keys | \(n) | sorted(using: SortKit keys) / sorted(by:): %.2f×", using3.median / full3.median))
        if let duckdb, let csv {
            for (threads, measurement) in try duckDBTimes(python: duckdb, csv: csv) {
                report.add("3 keys", n, "DuckDB ORDER BY, \(threads) thread\(threads == 1 ? "" : "s")", measurement, closure: closure3, foundation: foundation3)
                print(
                    String(format: "3 keys | \(n) | SortKit vs DuckDB (\(threads) thread\(threads == 1 ? "" : "s")): %.2f×", measurement.median / full3.median))
            }
        }
        let footprint = books._sortEngineFootprint(by: threeKeys)
        print("3 keys | \(n) | SortKit keys + indices: \(footprint / n) bytes per row")

        // Top 50 of the 3-key order, against the full sort.
        let top = try time("top-50 of 3 keys", n, "SortKit min(count: 50)", &report, closure: closure3, foundation: foundation3) {
            books.min(count: 50, sortedBy: threeKeys)
        } verify: { result in
            let expected = books.sorted(by: threeKeys).prefix(50).map(\.id)
            return result.map(\.id) == expected ? nil : "top-50 differs from the full sort's first page"
        }
        print(String(format: "top-50 of 3 keys | \(n) | %.1f× faster than SortKit's full sort", full3.median / top.median))
    }

    func runNumbers(_ books: [BenchBook], _ report: inout Report) throws {
        // Single keys; every anchor is a literal closure, as a tuned hand-written sort would be.
        try runSingleKey("Int (pages)", books, \.pages, SortKey(\.pages), &report, less: { $0.pages < $1.pages }) {
            books.sorted { $0.pages < $1.pages }
        }
        try runSingleKey("Double (price)", books, \.price, SortKey(\.price), &report, less: { $0.price < $1.price }) {
            books.sorted { $0.price < $1.price }
        }
    }

    func runStrings(_ books: [BenchBook], _ report: inout Report) throws {
        let n = books.count
        let plain = try runSingleKey(
            "String (title, binary)", books, \.title, SortKey(\.title, collation: .binary), &report, less: { $0.title < $1.title }
        ) {
            books.sorted { $0.title < $1.title }
        }
        // Natural and case-insensitive titles: SortKit's collations against plain `<` (which
        // knows neither) and against Foundation's options that do.
        let standard = try time("natural title", n, "Foundation localizedStandardCompare", &report, runs: foundationRuns, optional: true) {
            books.sorted { $0.title.localizedStandardCompare($1.title) == .orderedAscending }
        } verify: { _ in
            nil
        }
        try time("natural title", n, "SortKit natural", &report, closure: plain, foundation: standard) {
            books.sorted(by: [SortKey(\.title)])
        } verify: {
            checkSortKit($0, [SortKey(\.title)])
        }
        let caseless = try time("nocase title", n, "Foundation compare(.caseInsensitive)", &report, runs: foundationRuns, optional: true) {
            books.sorted { $0.title.compare($1.title, options: .caseInsensitive) == .orderedAscending }
        } verify: { _ in
            nil
        }
        try time("nocase title", n, "SortKit caseInsensitive", &report, closure: plain, foundation: caseless) {
            books.sorted(by: [SortKey(\.title, collation: .caseInsensitive)])
        } verify: {
            checkSortKit($0, [SortKey(\.title, collation: .caseInsensitive)])
        }
    }

    /// One key three ways: `closureSort` (the anchor: a sort by a literal closure, written at
    /// the call so it is specialized as a tuned hand-written sort would be), Foundation's
    /// `KeyPathComparator` on `path`, and SortKit's `key`; each result checked by `less`.
    /// Returns the anchor's measurement.
    @discardableResult
    func runSingleKey<Value: Comparable>(
        _ name: String, _ books: [BenchBook], _ path: any KeyPath<BenchBook, Value> & Sendable, _ key: SortKey<BenchBook>, _ report: inout Report,
        less: (BenchBook, BenchBook) -> Bool, _ closureSort: () -> [BenchBook]
    ) throws -> Measurement {
        let n = books.count
        let closure = try time(name, n, "closure", &report, closureSort) { checkSorted($0, less) }
        let foundation = try time(name, n, "Foundation", &report, runs: foundationRuns, optional: true) {
            books.sorted(using: KeyPathComparator(path))
        } verify: {
            checkSorted($0, less)
        }
        try time(name, n, "SortKit", &report, closure: closure, foundation: foundation) {
            books.sorted(by: [key])
        } verify: {
            checkSortKit($0, [key])
        }
        return closure
    }

    @discardableResult
    func time<T>(
        _ name: String, _ n: Int, _ method: String, _ report: inout Report, runs: Int? = nil,
        closure: Measurement? = nil, foundation: Measurement? = nil,
        _ body: () -> T, verify: (T) -> String?
    ) throws -> Measurement {
        try time(name, n, method, &report, runs: runs, closure: closure, foundation: foundation, optional: false, body, verify: verify)!
    }

    /// An `optional` anchor is skipped (nil) when its runs are 0.
    @discardableResult
    func time<T>(
        _ name: String, _ n: Int, _ method: String, _ report: inout Report, runs: Int? = nil,
        closure: Measurement? = nil, foundation: Measurement? = nil, optional: Bool,
        _ body: () -> T, verify: (T) -> String?
    ) throws -> Measurement? {
        if optional, runs == 0 { return nil }
        let (measurement, problem) = measure(runs: runs ?? self.runs, body, verify: verify)
        if let problem { throw ValidationError("\(name), \(method): result is not sorted: \(problem)") }
        report.add(name, n, method, measurement, closure: closure, foundation: foundation)
        return measurement
    }
}

extension EngineBench {
    /// DuckDB sorting the same rows (loaded from `csv` into a table first, status as an ENUM in
    /// declared order): `CREATE TABLE … AS SELECT * … ORDER BY status, author, price DESC`, timed
    /// in Python around the query, with 2 threads and with 1. The script checks the stored order.
    func duckDBTimes(python: String, csv: URL) throws -> [(threads: Int, Measurement)] {
        let script = """
            import duckdb, sys, time
            csv, runs = sys.argv[1], int(sys.argv[2])
            con = duckdb.connect()
            con.execute("SET enable_progress_bar = false")
            con.execute("CREATE TYPE status AS ENUM ('todo', 'reading', 'done', 'abandoned')")
            con.execute(f"CREATE TABLE books AS SELECT id, title, author, status::status AS status, price, published, pages FROM read_csv('{csv}', header=true)")
            rank = {'todo': 0, 'reading': 1, 'done': 2, 'abandoned': 3}
            for threads in (2, 1):
                con.execute(f"SET threads = {threads}")
                times = []
                for _ in range(runs):
                    start = time.perf_counter()
                    con.execute("CREATE OR REPLACE TEMP TABLE sorted AS SELECT * FROM books ORDER BY status, author, price DESC")
                    times.append((time.perf_counter() - start) * 1000)
                rows = [(rank[s], a, -p) for s, a, p in con.execute("SELECT status::VARCHAR, author, price FROM sorted").fetchall()]
                ok = all(x <= y for x, y in zip(rows, rows[1:]))
                print(threads, "ok" if ok else "unsorted", *times)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, csv.path, String(runs)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError("DuckDB script failed (exit \(process.terminationStatus))") }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            let times = fields.dropFirst(2).compactMap { Double($0) }
            guard fields.count > 2, fields[1] == "ok", let threads = Int(fields[0]), !times.isEmpty
            else { throw ValidationError("DuckDB: \(line)") }
            return (threads, Measurement(wall: times))
        }
    }
}

/// nil if no adjacent pair is out of order by `less`.
func checkSorted(_ rows: [BenchBook], _ less: (BenchBook, BenchBook) -> Bool) -> String? {
    for i in rows.indices.dropFirst() where less(rows[i], rows[i - 1]) {
        return "rows \(i - 1) and \(i)"
    }
    return nil
}

/// nil if the rows are in SortKit order and stable (ties keep ascending ids).
func checkSortKit(_ rows: [BenchBook], _ keys: [SortKey<BenchBook>]) -> String? {
    for i in rows.indices.dropFirst() {
        switch keys.compare(rows[i - 1], rows[i]) {
        case .orderedDescending: return "rows \(i - 1) and \(i) out of order"
        case .orderedSame where rows[i - 1].id > rows[i].id: return "rows \(i - 1) and \(i) not stable"
        default: continue
        }
    }
    return nil
}
