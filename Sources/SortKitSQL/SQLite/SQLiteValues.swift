import Foundation
import GRDB
import GRDBSQLite
import OrderKeys
import SortKit

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let double): self = .double(double)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .double(let double): double.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}

extension Database {
    /// Every row of `sql` with `arguments` bound, as ``SQLValue``s read column by column from
    /// SQLite. GRDB's `Row.fetchAll` copies each row with its column names and converts each
    /// cell twice (to `DatabaseValue`, then to `SQLValue`): for a database-served download of
    /// 10,000-row pages that was most of the time (allocations, reference counting). A
    /// `cached` statement stays prepared on the connection for the next call. With `csv`, the
    /// cells of its first rows are appended to `records` as CSV from SQLite's bytes and come
    /// back `.null`: a download's page makes no `String` per cell.
    func sqlValueRows(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> [[SQLValue]] {
        var none: [UInt8] = []
        return try sqlValueRows(sql, arguments, cached: cached, csv: nil, into: &none)
    }

    func sqlValueRows(_ sql: String, _ arguments: [SQLValue], cached: Bool, csv: _PageCSV?, into records: inout [UInt8]) throws -> [[SQLValue]] {
        let statement = try cached ? cachedStatement(sql: sql) : makeStatement(sql: sql)
        // GRDB steps the statement (its checks for a cancelled read, its error reports); the
        // cells are read from the row it stands on.
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments.map(\.databaseValue)))
        let handle = statement.sqliteStatement
        let width = Int32(statement.columnCount)
        var rows: [[SQLValue]] = []
        while try cursor.next() != nil {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(width))
            var first: Int32 = 0
            if let csv, rows.count < csv.records {
                row.append(.integer(sqlite3_column_int64(handle, 0)))
                for cell in 0..<csv.columns {
                    let text = sqlite3_column_text(handle, Int32(cell + 1))
                    let bytes = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(cell + 1))))
                    csv.export.appendCell(bytes, column: cell, count: csv.columns, to: &records)
                    row.append(.null)
                }
                records.append(0x0A)
                first = Int32(csv.columns + 1)
            }
            _appendValues(handle, first..<width, to: &row)
            rows.append(row)
        }
        return rows
    }
}

/// Appends the values of `columns` of the row `handle` (a stepped statement) stands on.
func _appendValues(_ handle: OpaquePointer?, _ columns: Range<Int32>, to row: inout [SQLValue]) {
    for column in columns {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(handle, column)))
        case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(handle, column)))
        case SQLITE_TEXT:
            // The text, then its length (SQLite's order): all its bytes, a NUL among them.
            let text = sqlite3_column_text(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            row.append(.text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""))
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            row.append(.blob(blob.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []))
        default: row.append(.null)
        }
    }
}

extension _StreamBatch {
    /// Adds the row `handle` stands on (an id, then `columns` text cells): as CSV written from
    /// the cells' bytes, or as a row.
    mutating func append(sqlite handle: OpaquePointer?, columns: Int, csv export: CSVExport?) {
        if let export {
            if csv == nil { csv = [] }
            for column in 0..<columns {
                let text = sqlite3_column_text(handle, Int32(column + 1))
                let bytes = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(column + 1))))
                export.appendCell(bytes, column: column, count: columns, to: &csv!)
            }
            csv!.append(0x0A)
        } else {
            var cells: [SQLValue] = []
            _appendValues(handle, 1..<Int32(1 + columns), to: &cells)
            rows.append(TableRow(id: sqlite3_column_int64(handle, 0), cells: cells.map(\.cell)))
        }
        count += 1
    }
}

/// GRDB's and PostgresNIO's errors as store errors (see ``TableStoreError/classifying(_:)``).
func _classifyDatabaseError(_ error: any Error) -> TableStoreError? {
    if let error = error as? DatabaseError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_NOMEM, .SQLITE_PROTOCOL:
            return TableStoreError(.unavailable, "the SQLite database is unavailable (\(error.resultCode)); try again")
        case .SQLITE_INTERRUPT:
            return TableStoreError(.timedOut, "the query was interrupted; try again")
        default:
            return TableStoreError(.internal, "SQLite: \(error)")
        }
    }
    if let mapped = PostgresTableStore.describe(error) as? TableStoreError { return mapped }
    return nil
}
