import ArgumentParser
import DataTableKit
import DataTableKitSQL
import Foundation
import SortKit
import SortKitSQL

/// `sortkit-bench lazy`: a ``LazyDataTable`` over a SQLite table read by SQL (no in-memory
/// index) — first page, a tap, a search, a deep page — and the process's memory, next to the
/// in-memory ``DataTable`` of the same rows measured in the same run.
struct LazyBench: AsyncParsableCommand, TimedBookBench {
    static let defaults = BenchDefaults(rows: 1_000_000, runs: 5)
    static let configuration = defaults.command("lazy", "A lazy table over SQLite (pages read by SQL) against the in-memory DataTable of the same rows")

    @OptionGroup var data: DataSetOptions
    @OptionGroup var timing: RunOptions

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-bench-lazy-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("books.csv")
        try BenchData.writeCSV(books, to: file)
        let path = folder.appendingPathComponent("lazy.sqlite").path
        do {
            // Imported by a store without the in-memory index; the import's buffers go with it.
            let importer = try SQLiteTableStore(path: path, inMemoryIndex: false)
            try await importer.importCSV(
                try [UInt8](Data(contentsOf: file)), as: "books", delimiter: UInt8(ascii: ","),
                presets: ["Cheapest": try SortSpec(parsing: "price,title")])
        }
        print("data: \(rows) rows in SQLite; \(runs) runs per case, median; resident memory from /proc/self/status")
        let before = Self.residentMB()
        let store = try SQLiteTableStore(path: path, inMemoryIndex: false)
        var lazy = LazyDataTable(
            source: TableStoreSource(store: store, table: "books"),
            headers: try await store.schema(of: "books").columns.map(\.name), pageSize: 50, cachedPages: 0)
        func timed(_ label: String, _ body: () async throws -> Void) async rethrows {
            var times: [Double] = []
            for _ in 0..<runs {
                let start = DispatchTime.now().uptimeNanoseconds
                try await body()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print(String(format: "lazy: %@: %.1f ms median (min %.1f)", label, times.sorted()[times.count / 2], times.min()!))
        }
        try await timed("first page") { try await lazy.load() }
        try await timed("sort by the indexed preset's key (price, then title)") { try await lazy.setSort(try SortSpec(parsing: "price,title")) }
        var deep = 9_998
        try await timed("page 10,000 of that order (offset; no page kept, so each is read)") {
            deep = deep == 9_998 ? 9_999 : 9_998
            try await lazy.goToPage(deep)
        }
        try await timed("search \"garden\" (every row's text scanned by SQL)") { try await lazy.setSearch("garden") }
        try await lazy.setSearch("")
        var filter = "lem"
        try await timed("filter author \"lem\" / \"le\" (the column folded per row by SQL)") {
            filter = filter == "lem" ? "le" : "lem"
            try await lazy.setFilter(filter, forColumn: "author")
        }
        print(
            String(
                format: "lazy: holds %d pages of %d rows; resident memory %d MB → %d MB (SQLite's page cache included)",
                lazy.heldPages, lazy.pageSize, before, Self.residentMB()))

        // The anchor: the whole table in memory.
        let start = DispatchTime.now().uptimeNanoseconds
        var table = DataTable(csv: try TextTable(csv: try [UInt8](Data(contentsOf: file))), pageSize: 50)
        print(
            String(
                format: "in-memory DataTable: built in %.0f ms; resident memory %d MB",
                Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, Self.residentMB()))
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            table.setSort(try SortSpec(parsing: "price,title"))
            table.setPage(9_999)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        print(String(format: "in-memory DataTable: sort by price,title and page 10,000: %.1f ms median", times.sorted()[times.count / 2]))
    }

    /// The process's resident memory now, in MB.
    static func residentMB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return -1 }
        return kilobytes / 1024
    }
}
