import Foundation
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// PostgreSQL's downloads of every row by one key: the view's ids in one array, the table in
/// parts of cells run together (``PostgresTableStore/streamInRowOrder(ids:table:columns:csv:batchRows:_:)``),
/// against the records an in-memory index writes.
@Suite("PostgreSQL: a download read in parts of the table")
struct PostgresRowOrderTests {
    /// Cells a CSV writer must get right: quotes, separators, line breaks, formulas, blanks,
    /// text in both normal forms, a combining mark after a quote, other scripts, a long cell.
    static let titles = [
        "=1+2", "\"q\"\"", "a,b", "l\nb", "é", "", "e\u{301}", "\"\u{301}<", "日本", "-5", String(repeating: "ж", count: 40_000),
    ]

    /// `text` with each quote doubled, scalar by scalar: a quote a combining mark follows is
    /// one `Character` with it, which `replacingOccurrences(of: "\"", …)` passes over.
    static func quoted(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.flatMap { $0 == "\"" ? [$0, $0] : [$0] }))
    }

    /// A store in a schema of its own whose tables are all served from the database.
    static func served() async throws -> PostgresTableStore {
        try await PostgresTableStore(
            url: try Service.postgres.value(), schema: try Backend.postgres.newLocation(), queryBudget: testQueryBudget,
            indexLimits: IndexLimits(indexBytes: 1))
    }

    @Test(
        "Every row by one key, in 2 to 30 parts, is the in-memory index's CSV; NULL cells, stale catalogs, sparse ids and an empty table",
        .needs(.postgres, for: "PostgreSQL's downloads"))
    func partsAgreeWithMemory() async throws {
        let store = try await Self.served()
        let memory = try await PostgresTableStore(
            url: try Service.postgres.value(), schema: try Backend.postgres.newLocation(), queryBudget: testQueryBudget)
        defer {
            Task {
                await store.close(); await memory.close()
            }
        }
        var csv = "title,price\n"
        for row in 0..<3_000 {
            let title = Self.quoted(Self.titles[row % Self.titles.count]) + String(row % 13)
            csv += "\"\(title)\",\(row % 17)\n"
        }
        for store in [store, memory] { try await store.importCSV(Array(csv.utf8), as: "r", delimiter: UInt8(ascii: ","), presets: [:]) }
        // A column added after the import: NULL in every row, an empty cell in the CSV.
        // Then some notes written: empty, text, a quote a combining mark joins.
        for store in [store, memory] {
            _ = try await store.alter("r", [.addColumn("note", .string)])
            for id in stride(from: Int64(1), through: 600, by: 3) {
                try await store.update(id, in: "r", set: ["note": id % 2 == 0 ? "" : "n\"\u{301}\(id)"])
            }
        }
        let export = CSVExport(defusing: [.string, .integer, .string])

        /// The view's records read in parts of `rowsPerPart` rows (`nil` if not), in how many
        /// parts, and the in-memory index's; `stale`: with the catalog entry of before a write.
        func records(
            _ spec: String, table: String = "r", rowsPerPart: Int = PostgresTableStore.rowsPerPart, stale: _TableInfo? = nil, known: Bool = false,
            limits: _RecordsInOrder.Limits = .standard
        ) async throws -> (
            read: [UInt8]?, parts: Int, memory: [UInt8]
        ) {
            var info = try await store.read { try await PostgresTableStore.info(table, $0) }
            if let stale { info = stale }
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), limit: 10_000)
            let inMemory = try await memory.page(of: table, request).rows
            // Known: the ids in the in-memory index's order, as an order SortKit computes gives them.
            let ids: _ViewIDs =
                known
                ? .known(inMemory.map(\.id))
                : .query(try PageQuery(request, info: info, ordering: try PostgresTableStore.ordering(request.order, info)).ids(after: nil, offset: 0))
            let (read, parts) = try await store.records(
                ids, info, columns: info.schema.columns.count, csv: export, rowsPerPart: rowsPerPart, limits: limits)
            // Spilled: past the rows, or the bytes, memory holds (here, only as asked).
            #expect(read == nil || read!.spills == (limits.inMemoryRows == 0 || limits.inMemoryBytes < _RecordsInOrder.maximumBytes), "\(spec)")
            let handed = try await read?.handedOn(batchRows: 97)
            var expected: [UInt8] = []
            export.appendRecords(inMemory.map(\.cells), to: &expected)
            return (handed, parts, expected)
        }

        for spec in ["title", "-title", "price", "-price:nulls-first", "note"] {
            for rowsPerPart in [PostgresTableStore.rowsPerPart, 100] {
                let (read, parts, expected) = try await records(spec, rowsPerPart: rowsPerPart)
                #expect(read == expected, "\(spec) by \(rowsPerPart): \(read?.count ?? -1) bytes read, \(expected.count) in memory")
                #expect(parts == (rowsPerPart == 100 ? 30 : 2), "\(spec): \(parts) parts")
            }
        }
        // Past memory's bounds (here: every view), the records written to files in windows of
        // 64 places, 512 bytes held at once (the long titles alone), read back in order.
        let spilling = SpilledRecordsTests.spilling(window: 64, hold: 512, flush: 256)
        for (spec, known) in [("title", false), ("-price:nulls-first", false), ("note", false), ("title:len,-price", true)] {
            let (read, parts, expected) = try await records(spec, rowsPerPart: 100, known: known, limits: spilling)
            #expect(read == expected && parts == 30, "\(spec), spilled: \(read?.count ?? -1) bytes read, \(expected.count) in memory")
        }
        // A table whose storage passes four times the bytes memory holds spills from the
        // start; one whose records pass them is read again through files.
        let info = try await store.read { try await PostgresTableStore.info("r", $0) }
        let storage = try #require(try await store.readTransaction { try await $0.ids(of: info.physical) }).bytes
        for memoryBytes in [2_048, Int(storage / 4) + 1] {
            var narrow = _RecordsInOrder.Limits()
            narrow.inMemoryBytes = memoryBytes
            for spec in ["title", "-price:nulls-first"] {
                let (read, parts, expected) = try await records(spec, rowsPerPart: 100, limits: narrow)
                #expect(
                    read == expected && parts == 30, "\(spec), \(memoryBytes) bytes in memory: \(read?.count ?? -1) bytes read, \(expected.count) in memory")
            }
        }
        // Ids in an order SortKit computes, given in order.
        for spec in ["title:len,-price", "-price:abs,title:random=3"] {
            let (read, parts, expected) = try await records(spec, rowsPerPart: 100, known: true)
            #expect(read == expected && parts == 30, "\(spec): \(read?.count ?? -1) bytes read, \(expected.count) in memory")
        }
        // A download by such an order after its first page: the rest read in parts by the
        // ids after the cursor.
        var computed = PageRequest(order: .spec(try SortSpec(parsing: "title:len,-price")), limit: 700)
        computed.csv = export
        let first = try await store.page(of: "r", computed)
        var rest = computed
        let cursor: String = try #require(first.next)
        rest.after = cursor
        var whole = first.csv ?? []
        if first.csv == nil { export.appendRecords(first.rows.map(\.cells), to: &whole) }
        #expect(try await store.streamPages(of: try await store.table("r"), rest) { whole += $0.csv ?? [] } == .finished)
        #expect(whole == (try await records("title:len,-price", known: true).memory))
        // Through the store's download: the same bytes, in batches.
        var downloaded: [UInt8] = []
        var request = PageRequest(order: .spec(try SortSpec(parsing: "-title")), limit: 500)
        request.csv = export
        #expect(try await store.streamPages(of: try await store.table("r"), request) { downloaded += $0.csv ?? [] } == .finished)
        #expect(downloaded == (try await records("-title").memory))

        // Rows deleted: a third left is put in order by id; with the catalog entry of before
        // the delete each snapshot finds the table moved on, and it is read in one snapshot,
        // as it is now. Twenty left: ids too sparse to place, not read this way.
        for (kept, inParts) in [(1_000, true), (20, false)] {
            let before = try await store.read { try await PostgresTableStore.info("r", $0) }
            let remaining = Set(try await memory.page(of: "r", PageRequest(limit: 5_000)).rows.map(\.id))
            let gone = remaining.filter { $0 % Int64(3_000 / kept) != 0 }
            for store in [store, memory] { try await store.delete(Array(gone), from: "r") }
            let (read, _, expected) = try await records("title", rowsPerPart: 100)
            #expect((read != nil) == inParts && (read == nil || read == expected), "\(kept) rows")
            let (stale, parts, _) = try await records("title", rowsPerPart: 100, stale: before)
            #expect(!inParts || (parts == 1 && stale == expected), "\(kept) rows, stale: \(parts) parts")
            let (spilled, spilledParts, _) = try await records("title", rowsPerPart: 100, stale: before, limits: spilling)
            #expect(!inParts || (spilledParts == 1 && spilled == expected), "\(kept) rows, stale, spilled: \(spilledParts) parts")
        }
        // One row and two rows (fewer ids than parts): as many parts as ids.
        for rows in [1, 2] {
            let csv = "name,n\n" + (0..<rows).map { "é\($0),\($0)" }.joined(separator: "\n") + "\n"
            for store in [store, memory] { try await store.importCSV(Array(csv.utf8), as: "t\(rows)", delimiter: UInt8(ascii: ","), presets: [:]) }
            let (read, parts, expected) = try await records("-name", table: "t\(rows)")
            #expect(read == expected && parts == rows, "\(rows) rows: \(parts) parts")
        }
        // No rows: not read in parts.
        let all = try await memory.page(of: "r", PageRequest(limit: 5_000)).rows.map(\.id)
        try await store.delete(all, from: "r")
        #expect(try await records("title").read == nil)
    }

    @Test(
        "A scan read as arrays, a range of ids a statement, is the scan read row by row: computed and stored terms, NULLs, a search",
        .needs(.postgres, for: "PostgreSQL's scans"))
    func scanAsArrays() async throws {
        let store = try await Self.served()
        defer { Task { await store.close() } }
        var csv = "title,price\n"
        for row in 0..<1_000 { csv += "\"\(Self.quoted(Self.titles[row % Self.titles.count]))\",\(row % 7 == 0 ? "" : String((row % 17) - 8))\n" }
        try await store.importCSV(Array(csv.utf8), as: "s", delimiter: UInt8(ascii: ","), presets: [:])
        _ = try await store.alter("s", [.addColumn("note", .string)])
        for id in stride(from: Int64(1), through: 300, by: 7) { try await store.update(id, in: "s", set: ["note": id % 2 == 0 ? "" : "é\(id)"]) }
        try await store.delete(Array(Int64(400)...Int64(450)), from: "s")
        // Wide cells (a range of ids is sized by the table's bytes), most rows deleted.
        let wide = "text\n" + (0..<300).map { "\(String(repeating: "ж", count: 10_000 + $0))" }.joined(separator: "\n") + "\n"
        try await store.importCSV(Array(wide.utf8), as: "w", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.delete((1...300).map(Int64.init).filter { $0 % 10 != 0 }, from: "w")
        for (table, spec, search) in [
            ("s", "title:len,-price", ""), ("s", "-price:abs,title", "é"), ("s", "note:nocase,price", ""), ("s", "title,-price", ""), ("w", "-text:len", ""),
        ] {
            let info = try await store.read { try await PostgresTableStore.info(table, $0) }
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), search: search, limit: 10)
            let ordering = try PostgresTableStore.ordering(request.order, info)
            let (query, selection) = try PostgresTableStore.computedScan(request, cursor: nil, info, ordering, keep: nil)
            let computing = Set(selection.computing.keys)
            for idsPerRead in [100, 7, nil] {
                let (rowByRow, asArrays) = try await store.read { session in
                    var rows: [[SQLValue]] = [], arrays: [[SQLValue]] = []
                    let scan = query.scan(computing: computing)
                    try await session.forEachRow(scan.sql, scan.arguments) { row in rows.append(try row.map { try SQLValue($0) }) }
                    try await session.forEachScanned(query, computing: computing, idsPerRead: idsPerRead) { arrays.append($0) }
                    return (rows, arrays)
                }
                let byID = { (rows: [[SQLValue]]) in rows.sorted { ($0.last?.integer ?? 0) < ($1.last?.integer ?? 0) } }
                #expect(
                    !rowByRow.isEmpty && byID(asArrays) == byID(rowByRow),
                    "\(table) \(spec), '\(search)', \(idsPerRead.map(String.init) ?? "default") ids a read")
            }
        }
    }
}
