import Foundation
import SortKit

/// A failure of a table store, with a message that names the table, column, row or line.
public struct TableStoreError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure; servers map it to a status code.
    public enum Kind: Sendable, Hashable {
        /// The request names a table, row or column that doesn't exist (HTTP 404).
        case notFound
        /// The request is malformed or a value is invalid (HTTP 400).
        case invalid
        /// The name is taken (HTTP 409).
        case conflict
        /// A query ran over the store's time budget (HTTP 503); the store keeps serving.
        case timedOut
        /// The database can't be reached: a lost connection, a shutdown, no free resources
        /// (HTTP 503).
        case unavailable
        /// The database rejected a statement the store wrote (a bug, HTTP 500). The message may
        /// hold SQL and data: log it, don't show it to a client.
        case `internal`
    }

    /// What kind of failure.
    public let kind: Kind
    /// The message.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// No table named `name`.
    public static func unknownTable(_ name: String) -> TableStoreError {
        TableStoreError(.notFound, "unknown table '\(name)'")
    }

    /// No row with id `id` in `table`.
    public static func unknownRow(_ id: Int64, table: String) -> TableStoreError {
        TableStoreError(.notFound, "table '\(table)' has no row \(id)")
    }

    /// No column named `name` in `table`.
    public static func unknownColumn(_ name: String, table: String, known: [String]) -> TableStoreError {
        TableStoreError(.notFound, "table '\(table)' has no column '\(name)' (columns: \(known.joined(separator: ", ")))")
    }

    /// `value` isn't a valid `type` for `column`; `line` when it came from a CSV import.
    public static func invalidValue(_ value: String, column: String, type: ColumnType, line: Int? = nil) -> TableStoreError {
        let place = line.map { "line \($0): " } ?? ""
        return TableStoreError(.invalid, "\(place)column '\(column)' needs \(type == .integer ? "an" : "a") \(type.rawValue), got '\(value)'")
    }

    /// Any other bad input, described by `message`.
    public static func invalid(_ message: String) -> TableStoreError {
        TableStoreError(.invalid, message)
    }

    /// The store error a database library's error stands for, or `nil` for an error that isn't
    /// one: GRDB's (busy, locked, read-only, full, I/O, can't open → `unavailable`; an
    /// interrupt → `timedOut`; anything else `internal`), PostgresNIO's (see the PostgreSQL
    /// store), a cancelled task (`unavailable`).
    ///
    ///     catch { let error = TableStoreError.classifying(error) ?? error }
    public static func classifying(_ error: any Error) -> TableStoreError? {
        switch error {
        case let error as TableStoreError: return error
        case is CancellationError: return TableStoreError(.unavailable, "the request was cancelled")
        default: return _classifyDatabaseError(error)
        }
    }

    /// A query ran over `budget`.
    public static func timedOut(_ budget: Duration) -> TableStoreError {
        TableStoreError(.timedOut, "the query ran over its \(budget._secondsText) s budget; narrow the search or try again")
    }

    /// A table (or a CSV header) with more columns than ``TableSchema/maxColumns``.
    public static func tooManyColumns(_ count: Int) -> TableStoreError {
        TableStoreError(.invalid, "line 1: the table has \(count) columns; the most is \(TableSchema.maxColumns)")
    }

    /// A table named `name` exists already.
    public static func tableExists(_ name: String) -> TableStoreError {
        TableStoreError(.conflict, "a table named '\(name)' exists already")
    }
}
