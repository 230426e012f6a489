import Foundation
import NIOCore
import PostgresNIO
import SortKit

extension _PostgresSession {
    /// The smallest and largest id of the table `physical` and the bytes of its storage
    /// (`pg_table_size`: rows, TOAST); `nil` for a table without rows.
    func ids(of physical: String) async throws -> (low: Int64, high: Int64, bytes: Int64)? {
        let row = try await select("SELECT min(id), max(id), pg_table_size('\(physical)'::regclass) FROM \(physical)", [], long: false).first
        guard case .integer(let low) = row?[0], case .integer(let high) = row?[1], case .integer(let bytes) = row?[2] else { return nil }
        return (low, high, bytes)
    }

    /// Calls `body` with the terms of each row `query` scans (``PageQuery/scan(computing:)``:
    /// the order's terms, computed ones as their column's text, the id last), in one
    /// snapshot's statements: a range of ids at a time, each range's rows as one row of arrays,
    /// one per term, all the statements within `budget` (each one's `statement_timeout` is
    /// what is left of it).
    ///
    /// Read a row at a time, PostgresNIO spends about 2.5 µs of CPU on each (its state machine,
    /// a buffer and a cell per value): 2.5 s of a 1M-row scan for a first page by `title:len`,
    /// where PostgreSQL's own scan takes 0.3 s. The arrays are decoded here, an element at a
    /// time (``_PostgresArray``). A range holds `idsPerRead` ids, or by default about 32 MB
    /// of the table's storage (at most ``PostgresTableStore/rowsPerPart`` ids: a value is at
    /// most 1 GB, and PostgreSQL builds an array whole), in at most about twice as many
    /// statements as the rows need (ids left sparse by deletes); a filtered view or a kept
    /// order's page (few rows, and an index scan each statement would repeat) in one.
    ///
    ///     try await session.forEachScanned(query, computing: [0], budget: .seconds(5)) { terms in order.add(terms) }
    func forEachScanned(
        _ query: PageQuery, computing: Set<Int>, budget: Duration? = nil, idsPerRead: Int? = nil, _ body: ([SQLValue]) throws -> Void
    ) async throws {
        let started = ContinuousClock.now
        let physical = query.info.physical
        guard let (low, high, bytes) = try await ids(of: physical) else { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        var width = Int64.max
        if !overflow, span < Int64.max, query.isUnfiltered, query.only == nil {
            let rows = Int64(max(1, query.info.rowCount))
            let bytesPerRow = max(1, bytes / rows)
            let perRead = Int64(idsPerRead ?? Int(min(Int64(PostgresTableStore.rowsPerPart), max(1_024, (32 << 20) / bytesPerRow))))
            let statements = min((span + perRead) / perRead, 2 * ((rows + perRead - 1) / perRead) + 1)
            width = (span + statements) / statements
        }
        var start = low, first = true
        while true {
            let (end, overflow) = start.addingReportingOverflow(width - 1)
            let range = start...(overflow || end >= high ? Int64.max : end)
            if let budget, !first {
                let left = budget - (ContinuousClock.now - started)
                try await execute("SET LOCAL statement_timeout = \(max(1, left._nanoseconds / 1_000_000))", [], long: false)
            }
            first = false
            let scan = query.aggregatedScan(computing: computing, ids: range)
            for try await row in try await stream(scan.sql, scan.arguments) {
                let columns = try row.map { try _PostgresArray.values(in: $0.bytes) }
                let count = columns.first?.count ?? 0
                guard columns.allSatisfy({ $0.count == count }) else {
                    throw TableStoreError(.internal, "a scan of \(physical) arrived inconsistent; try again")
                }
                for index in 0..<count { try body(columns.map { $0[index] }) }
            }
            guard range.upperBound < Int64.max else { return }
            start = range.upperBound + 1
        }
    }
}
