import Foundation
import SortKitTestSupport
import Testing
@testable import SortKitSQL

/// The backends every table-store test runs on. PostgreSQL needs `DATABASE_URL` (and
/// `DATABASE_URL_ICU` for a database whose default collation is ICU's en-US), as `.ci/run` and
/// `.ci/pg.sh` export them; without it those cases print a SKIPPED line and pass, unless
/// `SORTKIT_REQUIRE_POSTGRES=1` makes a missing database a failure.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    /// SQLite answering pages by SQL (`ORDER BY`, keys computed in the query) instead of its
    /// in-memory index.
    case sqliteSQL
    case postgres
    case postgresICU

    var testDescription: String { rawValue }

    /// The database URL, or `nil` for SQLite.
    var url: String? {
        let environment = ProcessInfo.processInfo.environment
        switch self {
        case .sqlite, .sqliteSQL: return nil
        case .postgres: return environment["DATABASE_URL"]
        case .postgresICU: return environment["DATABASE_URL_ICU"]
        }
    }

    /// A place for a fresh store: a new SQLite file, or a new PostgreSQL schema.
    func newLocation() throws -> String {
        url == nil && (self == .sqlite || self == .sqliteSQL) ? try temporaryDatabase() : "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Opens the store at `location`; `nil` (after printing why) when the backend isn't here.
    func open(_ location: String) async throws -> (any TableStore)? {
        switch self {
        case .sqlite:
            return try SQLiteTableStore(path: location, queryBudget: testQueryBudget)
        case .sqliteSQL:
            return try SQLiteTableStore(path: location, inMemoryIndex: false, queryBudget: testQueryBudget)
        case .postgres, .postgresICU:
            guard let url else {
                let variable = self == .postgres ? "DATABASE_URL" : "DATABASE_URL_ICU"
                if ProcessInfo.processInfo.environment["SORTKIT_REQUIRE_POSTGRES"] == "1" {
                    Issue.record("\(variable) is not set but SORTKIT_REQUIRE_POSTGRES=1")
                } else {
                    print("SKIPPED \(rawValue) case: \(variable) is not set (.ci/run starts a PostgreSQL and sets it)")
                }
                return nil
            }
            return try await PostgresTableStore(url: url, schema: location, queryBudget: testQueryBudget)
        }
    }

    /// A fresh, empty store; `nil` when the backend isn't here.
    func makeStore() async throws -> (any TableStore)? {
        try await open(newLocation())
    }
}
