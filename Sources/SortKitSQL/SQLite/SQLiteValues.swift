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
    /// `cached` statement stays prepared on the connection for the next call.
    func sqlValueRows(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> [[SQLValue]] {
        let statement = try cached ? cachedStatement(sql: sql) : makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments.map(\.databaseValue)))
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        let width = Int32(statement.columnCount)
        var rows: [[SQLValue]] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql)
            }
            var row: [SQLValue] = []
            row.reserveCapacity(Int(width))
            for column in 0..<width {
                switch sqlite3_column_type(handle, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(handle, column)))
                case SQLITE_FLOAT: row.append(.double(sqlite3_column_double(handle, column)))
                case SQLITE_TEXT:
                    // The length first: the text may hold any bytes, `sqlite3_column_bytes` counts them all.
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
            rows.append(row)
        }
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
