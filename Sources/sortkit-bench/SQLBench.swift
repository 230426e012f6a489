import ArgumentParser
import Foundation
import SortKit
import SortKitSQL

/// `sortkit-bench sql`: the table stores on a 1M-row table — import, first pages, search, and
/// a deep page by offset versus by keyset cursor — on SQLite and, with a URL, PostgreSQL.
struct SQLBench: AsyncParsableCommand, TimedBookBench {
    static let defaults = BenchDefaults(rows: 1_000_000, runs: 7)
    static let configuration = defaults.command("sql", "Table stores: CSV import, first pages by preset and by a column without an index, search, deep pages")

    @OptionGroup var data: DataSetOptions
    @OptionGroup var timing: RunOptions

    @Option(help: ArgumentHelp("PostgreSQL URL (default: $DATABASE_URL); without one only SQLite runs.", valueName: "URL"))
    var postgres: String?

    static let presets = ["Cheapest": "price,title", "Status": "status:enum=todo|reading|done|abandoned,author,-price"]

    func run() async throws {
        let books = self.books
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-bench-sql-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("books.csv")
        try BenchData.writeCSV(books, to: file)
        let csv = try [UInt8](Data(contentsOf: file))
        print("data: \(rows) rows, \(csv.count / 1_000_000) MB of CSV; \(runs) runs per case, median")
        var memory: TextTable? = nil
        var backends: [(String, any TableStore)] = [("SQLite", try SQLiteTableStore(path: folder.appendingPathComponent("bench.sqlite").path))]
        if let url = postgres ?? ProcessInfo.processInfo.environment["DATABASE_URL"] {
            let schema = "bench_\(getpid())"
            backends.append(("PostgreSQL", try await PostgresTableStore(url: url, schema: schema)))
        } else {
            print("SKIPPED PostgreSQL: no --postgres URL and DATABASE_URL is not set")
        }
        for (name, store) in backends {
            print("\n## \(name)")
            var start = DispatchTime.now().uptimeNanoseconds
            try await store.importCSV(csv, as: "books", delimiter: UInt8(ascii: ","), presets: try Self.presets.mapValues(SortSpec.init(parsing:)))
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print(String(format: "import: %.1f s, %.0f rows/s (one transaction, presets indexed)", seconds, Double(rows) / seconds))
            if memory == nil { memory = try TextTable(csv: csv) }
            let cheapest = try SortSpec(parsing: Self.presets["Cheapest"]!)
            let unindexed = try SortSpec(parsing: "pages,-title")
            let expectedCheapest = try Array(memory!.sortedRowIndices(by: cheapest).prefix(50)).map { Int64($0 + 1) }
            let expectedUnindexed = try Array(memory!.sortedRowIndices(by: unindexed).prefix(50)).map { Int64($0 + 1) }
            start = DispatchTime.now().uptimeNanoseconds
            let firstUse = try await store.page(of: "books", PageRequest(order: .spec(unindexed), limit: 50))
            print(
                String(
                    format: "first use of a column without an index (adds its key column if the store needs one): %.0f ms",
                    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6))
            try check(firstUse.rows.map(\.id) == expectedUnindexed, "unindexed order differs from memory")

            let first = try await time("page 1, indexed preset (price,title)", store, PageRequest(order: .spec(cheapest), limit: 50)) {
                try check($0.rows.map(\.id) == expectedCheapest, "preset order differs from memory")
            }
            _ = try await time("page 1, column without an index (pages,-title)", store, PageRequest(order: .spec(unindexed), limit: 50)) {
                try check($0.rows.map(\.id) == expectedUnindexed, "unindexed order differs from memory")
            }
            _ = try await time("page 1, preset + search \"garden\"", store, PageRequest(order: .spec(cheapest), search: "garden", limit: 50)) {
                try check($0.rows.count == 50 && $0.filtered < rows, "search returned no page")
            }
            let deep = (rows / 100) * 50 // page 10,000 of 50 at 1M rows
            let byOffset = try await time("page \(deep / 50 + 1) by offset", store, PageRequest(order: .spec(cheapest), offset: deep, limit: 50)) { _ in }
            let before = try await store.page(of: "books", PageRequest(order: .spec(cheapest), offset: deep - 50, limit: 50))
            let byCursor = try await time("page \(deep / 50 + 1) by cursor", store, PageRequest(order: .spec(cheapest), limit: 50, after: before.next)) {
                try check($0.rows == byOffset.page.rows, "cursor page differs from offset page")
            }
            print(
                String(
                    format: "cursor page costs %.1f× page 1; offset page %.1f× page 1",
                    byCursor.median / first.median, byOffset.median / first.median))
        }
    }

    /// Runs `request` `runs` times after one warm-up; prints the median; checks the result.
    func time(
        _ label: String, _ store: any TableStore, _ request: PageRequest, verify: (TablePage) throws -> Void
    ) async throws -> (median: Double, page: TablePage) {
        var page = try await store.page(of: "books", request)
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            page = try await store.page(of: "books", request)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        try verify(page)
        let median = times.sorted()[times.count / 2]
        print(String(format: "%@: %.2f ms median (min %.2f)", label, median, times.min()!))
        return (median, page)
    }

    func check(_ condition: Bool, _ message: String) throws {
        guard condition else { throw ValidationError("wrong result: \(message)") }
    }
}

/// `sortkit-bench data`: writes the benchmark data set as CSV (for the load script and for
/// external tools).
struct DataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "data", abstract: "Write the benchmark data set as CSV (1,000,000 rows).")

    @OptionGroup var data: DataSetOptions

    @Option(help: ArgumentHelp("The CSV file to write.", valueName: "FILE"))
    var out: String

    func run() throws {
        try BenchData.writeCSV(data.books(default: 1_000_000), to: URL(fileURLWithPath: out))
    }
}
