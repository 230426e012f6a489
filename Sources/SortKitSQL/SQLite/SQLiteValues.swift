import Foundation
import GRDB
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
