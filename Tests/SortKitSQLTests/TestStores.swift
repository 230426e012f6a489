import Foundation
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// The backends every table-store test runs on. PostgreSQL needs `DATABASE_URL` (and
/// `DATABASE_URL_ICU` for a database whose default collation is ICU's en-US), as `.ci/run` and
/// `.ci/pg.sh` export them; without it those cases are left out of ``available`` with a SKIPPED
/// line (not run, so not counted as passed), unless `SORTKIT_REQUIRE_POSTGRES=1` makes a missing
/// database a failure.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    /// SQLite answering pages by SQL (`ORDER BY`, keys computed in the query) instead of its
    /// in-memory index.
    case sqliteSQL
    case postgres
    case postgresICU

    var testDescription: String { rawValue }

    /// The backends to test here: both SQLite modes, and each PostgreSQL one whose database is
    /// set or required. Parameterized tests take these as arguments.
    static let available: [Backend] = allCases.filter { backend in
        switch backend {
        case .sqlite, .sqliteSQL: true
        case .postgres: Service.postgres.shouldRun("the table-store tests' postgres cases")
        case .postgresICU: Service.postgresICU.shouldRun("the table-store tests' postgresICU cases")
        }
    }

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
        url == nil && (self == .sqlite || self == .sqliteSQL)
            ? try temporaryDatabase() : "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Opens the store at `location`; throws ``Service/Missing`` when a required database isn't set.
    func open(_ location: String) async throws -> any TableStore {
        switch self {
        case .sqlite:
            return try SQLiteTableStore(path: location, queryBudget: testQueryBudget)
        case .sqliteSQL:
            return try SQLiteTableStore(path: location, inMemoryIndex: false, queryBudget: testQueryBudget)
        case .postgres, .postgresICU:
            let url = try (self == .postgres ? Service.postgres : Service.postgresICU).value()
            return try await PostgresTableStore(url: url, schema: location, queryBudget: testQueryBudget)
        }
    }

    /// A fresh, empty store.
    func makeStore() async throws -> any TableStore {
        try await open(newLocation())
    }
}
