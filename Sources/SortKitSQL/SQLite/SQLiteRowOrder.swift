import Foundation
import GRDB
import GRDBSQLite
import SortKit

extension SQLiteTableStore {
    /// Streams the rows `ids` selects (one column: the ids, in the view's order) from `table`
    /// as CSV records, `batchRows` a batch, read in row order (``_RecordsInOrder``) on a reader
    /// in one snapshot within ``streamLimit``; `nil` (having handed on nothing) where the view
    /// is too big, or its ids too sparse, to be put in order in memory.
    func streamInRowOrder(
        ids select: (sql: String, arguments: [SQLValue]), table: String, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd? {
        let database = database, limit = streamLimit
        let end = try await streams.stream(body) { sink, ahead in
            let read = try await _withDeadline(limit) {
                try await database.read { db in try Self.records(db, select, table: table, columns: columns, csv: export) }
            }
            guard let records = read ?? nil else {
                sink.finish()
                return .notStreamed
            }
            try await records.handOn(batchRows: batchRows, into: sink, ahead: ahead)
            sink.finish()
            return .finished
        }
        return end == .notStreamed ? nil : end
    }

    /// The records of the rows `select` names, read in row order; `nil` past the bounds.
    private static func records(
        _ db: Database, _ select: (sql: String, arguments: [SQLValue]), table: String, columns: Int, csv export: CSVExport
    ) throws -> _RecordsInOrder? {
        var order: [Int64] = []
        let ids = try Int64.fetchCursor(db, sql: select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
        while let id = try ids.next() {
            order.append(id)
            if order.count > _RecordsInOrder.maximumRows { return nil }
        }
        guard var records = _RecordsInOrder(order: order) else { return nil }
        guard let range = records.ids else { return records }
        let cells = (0..<columns).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(cells) FROM \(table) WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: [range.lowerBound, range.upperBound])
        let handle = statement.sqliteStatement
        while try rows.next() != nil {
            let fits = records.record(of: sqlite3_column_int64(handle, 0)) { bytes in
                for column in 0..<columns {
                    let text = sqlite3_column_text(handle, Int32(column + 1))
                    let cell = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(column + 1))))
                    export.appendCell(cell, column: column, count: columns, to: &bytes)
                }
            }
            guard fits else { return nil }
        }
        return records
    }
}
