import Crypto
import Foundation
import Logging
import OrderKeys
import PostgresNIO
import SortKit

extension PostgresTableStore {
    /// The store's own tables, as a versioned list: a database at version `n` gets the
    /// migrations after `n`, each recorded in `sortkit_schema_version`, in one transaction.
    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (
            1, "ordered lists and the table catalog",
            [
                "CREATE TABLE ordered_list (list text PRIMARY KEY, moves bigint NOT NULL DEFAULT 0)",
                """
                CREATE TABLE ordered_item (
                  list text NOT NULL, id bigint NOT NULL, pos bigint NOT NULL,
                  PRIMARY KEY (list, id), UNIQUE (list, pos))
                """,
                """
                CREATE TABLE sortkit_table (
                  id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, schema text NOT NULL,
                  variants text NOT NULL DEFAULT '[]', version integer NOT NULL DEFAULT 0,
                  row_count bigint NOT NULL DEFAULT 0)
                """,
                "CREATE TABLE sortkit_meta (key text PRIMARY KEY, value bytea NOT NULL)",
            ]
        ),
        // Data versions and a change log keep every server's in-memory indexes current; a manual
        // order is written out at its first move (until then it is id order).
        (
            2, "data versions, change log, lazy manual order",
            [
                "ALTER TABLE sortkit_table ADD COLUMN data_version bigint NOT NULL DEFAULT 0, ADD COLUMN manual_ready boolean NOT NULL DEFAULT true",
                "CREATE TABLE sortkit_change (table_id bigint NOT NULL, version bigint NOT NULL, row_id bigint NOT NULL)",
                "CREATE INDEX sortkit_change_version ON sortkit_change (table_id, version)",
            ]
        ),
        // Tables served from the database's own indexes (`--index-memory`) record their collation.
        (3, "database indexes", ["ALTER TABLE sortkit_table ADD COLUMN db_index text"]),
    ]

    /// Applies the migrations the database lacks. Two servers starting at once serialize on
    /// the version table's lock.
    static func migrate(_ client: PostgresClient, _ logger: Logger) async throws {
        try await transaction(client, logger) { session in
            try await session.execute(
                """
                CREATE TABLE IF NOT EXISTS sortkit_schema_version (
                  version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
        }
        try await transaction(client, logger) { session in
            try await session.execute("LOCK TABLE sortkit_schema_version IN EXCLUSIVE MODE")
            let current = try await session.integer("SELECT coalesce(max(version), 0) FROM sortkit_schema_version") ?? 0
            for migration in migrations where migration.version > current {
                for statement in migration.statements { try await session.execute(statement) }
                try await session.execute(
                    "INSERT INTO sortkit_schema_version (version, name) VALUES ($1, $2)",
                    [.integer(Int64(migration.version)), .text(migration.name)])
            }
            let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            try await session.execute(
                "INSERT INTO sortkit_meta (key, value) VALUES ('cursor-secret', $1) ON CONFLICT (key) DO NOTHING", [.blob(secret)])
        }
    }

    // MARK: Transactions

    /// Runs `body` between `BEGIN` and `COMMIT` (`ROLLBACK` if it throws), retrying the whole
    /// transaction with a short random back-off when PostgreSQL reports a serialization
    /// failure, a deadlock or a unique violation that a concurrent writer caused (or, on a
    /// standby, a conflict with recovery: 40001 too).
    ///
    /// A connection that isn't leased within `connectionWait` (if any) is a
    /// ``TableStoreError/Kind/unavailable`` error. `ready` runs on the connection before
    /// `BEGIN`, `committed` after `COMMIT`.
    static func transaction<T: Sendable>(
        _ client: PostgresClient, _ logger: Logger, budget: Duration? = nil, connectionWait: Duration? = nil,
        ready: (_PostgresSession) async throws -> Void = { _ in }, committed: (_PostgresSession) async -> Void = { _ in },
        _ body: (_PostgresSession) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await leased(client, within: connectionWait) { connection in
                    let session = _PostgresSession(connection: connection, logger: logger)
                    try await ready(session)
                    try await session.execute("BEGIN")
                    let value: T
                    do {
                        value = try await body(session)
                        try await session.execute("COMMIT")
                    } catch {
                        // A connection lost part way has ended its transaction; PostgresNIO
                        // would wait forever for a query written to it.
                        if !connection.isClosed { try? await session.execute("ROLLBACK") }
                        throw error
                    }
                    await committed(session)
                    return value
                }
            } catch let error as PSQLError where attempt < 50 && isRetryable(error) {
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(200 * min(attempt, 20)))))
            } catch {
                throw describe(error, budget: budget)
            }
        }
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        ["40001", "40P01", "23505"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// A PostgreSQL error as a store error of the kind a client can act on. PostgresNIO hides
    /// the server's message from `description` (it may hold data); the store error keeps it
    /// for the log, with its SQLSTATE. Class 08 (connection), 53 (resources), 57P0x (shutdown)
    /// and a closed connection are `unavailable`; 57014 (`statement_timeout`) `timedOut`; 22
    /// (data) and 23 (integrity) the client's `invalid` input; anything else `internal`.
    static func describe(_ error: any Error, budget: Duration? = nil) -> any Error {
        guard let error = error as? PSQLError else {
            // The pool's own errors (shut down, no connection in time) come from a module
            // PostgresNIO doesn't export; they are known by their type's name.
            if String(reflecting: type(of: error)).contains("ConnectionPoolError") {
                return TableStoreError(.unavailable, "the PostgreSQL server can't be reached (\(error)); try again")
            }
            return error
        }
        guard let state = error.serverInfo?[.sqlState] else {
            let connection: [PSQLError.Code] = [
                .clientClosedConnection, .serverClosedConnection, .connectionError, .uncleanShutdown,
                .poolClosed, .sslUnsupported, .failedToAddSSLHandler, .queryCancelled,
            ]
            if connection.contains(error.code) {
                return TableStoreError(.unavailable, "the PostgreSQL server can't be reached (\(error.code.description)); try again")
            }
            return TableStoreError(.internal, "PostgreSQL: \(error.code.description)")
        }
        let message = "PostgreSQL: \(error.serverInfo?[.message] ?? "?") (SQLSTATE \(state))"
        if state == "57014", let budget { return TableStoreError.timedOut(budget) }
        switch state.prefix(2) {
        case "08", "53", "57": return TableStoreError(.unavailable, "the PostgreSQL server is unavailable (SQLSTATE \(state)); try again")
        // Data (22) and integrity (23) errors are the client's input, named without the
        // server's text (which can hold SQL, constraint names and data); anything else is a bug.
        case "22": return TableStoreError.invalid("the database can't store a value: \(dataProblems[state] ?? "invalid data") (SQLSTATE \(state))")
        case "23": return TableStoreError(.conflict, "the change conflicts with another row or write (SQLSTATE \(state)); try again")
        default: return TableStoreError(.internal, message)
        }
    }

    /// Client-safe descriptions of the data errors (SQLSTATE class 22) input can cause.
    static let dataProblems = [
        "22001": "text too long", "22003": "a number out of range", "22007": "an invalid date or time",
        "22008": "a date or time out of range", "22021": "text that isn't valid UTF-8 or holds a NUL character",
        "22P02": "text that isn't a valid number", "22P05": "text the database's encoding can't hold",
    ]
}
