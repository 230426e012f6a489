import Foundation
import GRDB
import GRDBSQLite
import SortKit
import Synchronization

/// A download of every row of a table served from the database, in an order its index keeps,
/// read in row order and put in order in memory.
///
/// Walking a column's index, SQLite looks each row up at its own place in the table (by title at
/// 1M rows: 2.0–2.6 s for the download, `COPY … TO` of the same rows 0.62 s). Instead the ids
/// are read in the view's order off the index alone (0.13 s), the table is read once in row
/// order with each row's CSV record written beside the others and its place noted, and the
/// records are handed on in the view's order. The records are the same bytes the index walk
/// writes (`_StreamBatch.append(sqlite:columns:csv:)`). They are held until handed on, so only a
/// view of at most ``rowOrderRows`` rows whose records fit in ``rowOrderBytes`` is read this
/// way (else `nil`: the index walk, which holds two batches); the store's stream slots bound
/// how many run at once.
extension SQLiteTableStore {
    /// The most rows of a download read in row order.
    static var rowOrderRows: Int { 2_000_000 }
    /// The most bytes of CSV records a download read in row order holds.
    static var rowOrderBytes: Int { 256 << 20 }

    /// Streams the rows `ids` selects (one column: the ids, in the view's order) from
    /// `table` as CSV records, `batchRows` a batch; `nil` (having handed on nothing) where the
    /// view is too big, or its ids too sparse, to be put in order in memory.
    func streamInRowOrder(
        ids select: (sql: String, arguments: [SQLValue]), table: String, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd? {
        let database = database, limit = streamLimit
        let end = try await streams.stream(body) { sink, ahead in
            // One snapshot for the ids and the rows, within the stream's limit.
            let read = try await _withDeadline(limit) {
                try await database.read { db in try Self.recordsInRowOrder(db, select, table: table, columns: columns, csv: export) }
            }
            guard let records = read ?? nil else {
                sink.finish()
                return .notStreamed
            }
            var batch = _StreamBatch()
            /// Hands the batch on once fewer than two are ahead of the client.
            func handOn() async throws {
                while ahead.count.load(ordering: .acquiring) >= 2 {
                    guard !ahead.gone.load(ordering: .acquiring) else { throw CancellationError() }
                    try await Task.sleep(for: .milliseconds(2))
                }
                ahead.count.add(1, ordering: .releasing)
                guard case .enqueued = sink.yield(batch) else { throw CancellationError() }
                batch = _StreamBatch()
            }
            for (start, length) in zip(records.starts, records.lengths) where length > 0 {
                if batch.csv == nil { batch.csv = [] }
                batch.csv!.append(contentsOf: records.bytes[start..<start + length])
                batch.count += 1
                if batch.count == batchRows { try await handOn() }
            }
            if batch.count > 0 { try await handOn() }
            sink.finish()
            return .finished
        }
        return end == .notStreamed ? nil : end
    }

    /// The CSV records of the rows `select` names, read in row order: `bytes` holds them in
    /// that order, and record `i` of the view is `lengths[i]` bytes from `starts[i]` (none for a
    /// row not found). `nil` when the view is too big or its ids too sparse.
    private static func recordsInRowOrder(
        _ db: Database, _ select: (sql: String, arguments: [SQLValue]), table: String, columns: Int, csv export: CSVExport
    ) throws -> (bytes: [UInt8], starts: [Int], lengths: [Int])? {
        var order: [Int64] = []
        let ids = try Int64.fetchCursor(db, sql: select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
        while let id = try ids.next() {
            order.append(id)
            if order.count > rowOrderRows { return nil }
        }
        guard let low = order.min(), let high = order.max() else { return ([], [], []) }
        // Each id's place in the view, by id: for ids no sparser than four per row.
        let span = Int(high - low) + 1
        guard span <= 4 * order.count + 1_024 else { return nil }
        var place = [Int32](repeating: -1, count: span)
        for (position, id) in order.enumerated() { place[Int(id - low)] = Int32(position) }
        var bytes: [UInt8] = [], starts = [Int](repeating: 0, count: order.count), lengths = [Int](repeating: 0, count: order.count)
        let cells = (0..<columns).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(cells) FROM \(table) WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: [low, high])
        let handle = statement.sqliteStatement
        while try rows.next() != nil {
            let id = sqlite3_column_int64(handle, 0)
            let position = Int(place[Int(id - low)])
            guard position >= 0 else { continue }
            let start = bytes.count
            for column in 0..<columns {
                let text = sqlite3_column_text(handle, Int32(column + 1))
                let cell = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(column + 1))))
                export.appendCell(cell, column: column, count: columns, to: &bytes)
            }
            bytes.append(0x0A)
            guard bytes.count <= rowOrderBytes else { return nil }
            (starts[position], lengths[position]) = (start, bytes.count - start)
        }
        return (bytes, starts, lengths)
    }
}
