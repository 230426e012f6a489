import Foundation
import GRDB
import GRDBSQLite
import SortKit

extension SQLiteTableStore {
    /// Streams the rows `ids` selects (one column: the ids, in the view's order) from `table`
    /// as CSV records, `batchRows` a batch, read in row order (``_RecordsInOrder``) within
    /// ``streamLimit``; `nil` (having handed on nothing) where the view is too big, or its ids
    /// too sparse, to be put in order in memory.
    ///
    /// The ids are read on one reader; the table in two halves of their range side by side,
    /// each on a reader of its own (a 1M-row table's read and CSV took 0.76–0.79 s on one
    /// core). Each reader has its own snapshot, so each reads the table's catalog entry in it:
    /// where one doesn't have `table`'s versions (a write came between), the whole read is done
    /// again on one reader, in one snapshot.
    func streamInRowOrder(
        ids select: (sql: String, arguments: [SQLValue]), table: _TableInfo, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd? {
        let database = database, limit = streamLimit
        let end = try await streams.stream(body) { sink, ahead in
            let read = try await _withDeadline(limit) {
                try await Self.records(database, select, table, columns: columns, csv: export, parts: 2).records
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

    /// What a read of a view's records found.
    private enum _RecordsRead: Sendable {
        /// The records, or `nil` past ``_RecordsInOrder``'s bounds.
        case read(_RecordsInOrder?)
        /// The reader's snapshot doesn't have the table's versions.
        case changed
    }

    /// The records of the rows `select` names, read in row order in `parts` ranges of ids on
    /// readers of their own (`nil` past the bounds), and in how many parts they were read.
    static func records(
        _ database: DatabasePool, _ select: (sql: String, arguments: [SQLValue]), _ table: _TableInfo, columns: Int, csv export: CSVExport,
        parts: Int
    ) async throws -> (records: _RecordsInOrder?, parts: Int) {
        @Sendable func current(_ db: Database) throws -> Bool {
            let row = try Row.fetchOne(db, sql: "SELECT version, data_version FROM sortkit_table WHERE id = ?", arguments: [table.id])
            return row.map { $0[0] as Int64 == table.schemaVersion && $0[1] as Int64 == table.dataVersion } ?? false
        }
        let ordered = try await database.read { db -> _RecordsRead in
            guard parts > 1, try current(db) else { return .changed }
            return .read(try Self.order(db, select))
        }
        if case .read(var records?) = ordered {
            let ranges = records.ids(in: parts), order = records
            let read = try await withThrowingTaskGroup(of: _RecordsInOrder.Part?.self) { group in
                for range in ranges {
                    group.addTask {
                        try await database.read { db in
                            guard try current(db) else { return nil }
                            return try Self.part(db, of: order, range, table: table.physical, columns: columns, csv: export)
                        }
                    }
                }
                var parts: [_RecordsInOrder.Part] = []
                for try await part in group {
                    guard let part else { return false }
                    parts.append(part)
                }
                return parts.allSatisfy { records.add($0) }
            }
            if read { return (records, ranges.count) }
        } else if case .read(nil) = ordered {
            return (nil, 0)
        }
        // In one snapshot: the catalog moved on between readers (or one part was asked for).
        let records = try await database.read { db -> _RecordsInOrder? in
            guard var records = try Self.order(db, select) else { return nil }
            guard let range = records.ids, let part = try Self.part(db, of: records, range, table: table.physical, columns: columns, csv: export),
                records.add(part)
            else { return records.ids == nil ? records : nil }
            return records
        }
        return (records, 1)
    }

    /// The view's ids in its order, as ``_RecordsInOrder``; `nil` past its bounds.
    private static func order(_ db: Database, _ select: (sql: String, arguments: [SQLValue])) throws -> _RecordsInOrder? {
        var order: [Int64] = []
        let ids = try Int64.fetchCursor(db, sql: select.sql, arguments: StatementArguments(select.arguments.map(\.databaseValue)))
        while let id = try ids.next() {
            order.append(id)
            if order.count > _RecordsInOrder.maximumRows { return nil }
        }
        return _RecordsInOrder(order: order)
    }

    /// The records of the view's rows among `ids`, read in row order; `nil` past the bounds.
    private static func part(
        _ db: Database, of records: _RecordsInOrder, _ ids: ClosedRange<Int64>, table: String, columns: Int, csv export: CSVExport
    ) throws -> _RecordsInOrder.Part? {
        var part = _RecordsInOrder.Part()
        let cells = (0..<columns).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(cells) FROM \(table) WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: [ids.lowerBound, ids.upperBound])
        let handle = statement.sqliteStatement
        while try rows.next() != nil {
            let fits = records.record(of: sqlite3_column_int64(handle, 0), into: &part) { bytes in
                for column in 0..<columns {
                    let text = sqlite3_column_text(handle, Int32(column + 1))
                    let cell = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(column + 1))))
                    export.appendCell(cell, column: column, count: columns, to: &bytes)
                }
            }
            guard fits else { return nil }
        }
        return part
    }
}
