import Foundation
import Synchronization
import Testing

/// What some tests need that a fresh machine may lack: a PostgreSQL database, a browser, GNU time, Node.js.
/// `.ci/run` installs and starts all of them and sets the `SORTKIT_REQUIRE_…` variables, so in CI a
/// missing one fails the tests that need it. Run by hand without it, those tests are *skipped*
/// (Swift Testing reports them as skipped, not passed) with a SKIPPED line naming what is missing.
///
/// ```swift
/// @Test("Two servers over one PostgreSQL agree", .needs(.postgres))
/// func twoServers() async throws {
///     let url = try Service.postgres.value()
/// }
/// ```
public enum Service: String, Sendable, CaseIterable {
    /// `DATABASE_URL`: a PostgreSQL database (`.ci/pg.sh` starts one).
    case postgres
    /// `DATABASE_URL_ICU`: a PostgreSQL database whose default collation is ICU's en-US.
    case postgresICU
    /// `DATABASE_URL_STANDBY`: database `ci` on a hot standby streaming from `DATABASE_URL`'s
    /// server (`.ci/pg.sh` makes it with `pg_basebackup -R`).
    case postgresStandby
    /// `DATABASE_URL_BOUNCER`: database `ci_bouncer` through PgBouncer in transaction mode, also
    /// as `ci_bouncer_lost` (for a test to cut off) and `ci_bouncer_standby` (the standby);
    /// `SORTKIT_PSQL`: the psql that reaches its console.
    case pgbouncer
    /// Chromium, its driver, DataTables.js from Debian and a Python with selenium.
    case browser
    /// GNU time at `/usr/bin/time`, to measure a child's peak memory.
    case gnuTime
    /// The Prometheus project's own text-format parser (PyPI `prometheus_client`), in the e2e
    /// Python.
    case prometheusParser
    /// Node.js (Debian's `nodejs`), whose test runner runs the page modules' unit tests.
    case node

    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The variable that makes this service's absence a failure (set by `.ci/run`).
    public var requirement: String {
        switch self {
        case .postgres, .postgresICU, .postgresStandby, .pgbouncer: "SORTKIT_REQUIRE_POSTGRES"
        case .browser, .prometheusParser: "SORTKIT_REQUIRE_E2E"
        case .gnuTime: "SORTKIT_REQUIRE_TIME"
        case .node: "SORTKIT_REQUIRE_NODE"
        }
    }

    /// The Python with selenium the browser test drives Chromium from.
    public static var e2ePython: String {
        environment["SORTKIT_E2E_PYTHON"] ?? root.appendingPathComponent(".venv-e2e/bin/python").path
    }

    /// What is missing, with how to get it; `nil` when the service is here.
    public var missing: String? {
        switch self {
        case .postgres:
            return Self.environment["DATABASE_URL"] == nil ? "DATABASE_URL is not set (.ci/run starts a PostgreSQL and sets it)" : nil
        case .postgresICU:
            return Self.environment["DATABASE_URL_ICU"] == nil ? "DATABASE_URL_ICU is not set (.ci/run starts a PostgreSQL and sets it)" : nil
        case .postgresStandby:
            return Self.environment["DATABASE_URL_STANDBY"] == nil
                ? "DATABASE_URL_STANDBY is not set (.ci/run starts a PostgreSQL with a hot standby and sets it)" : nil
        case .pgbouncer:
            return Self.environment["DATABASE_URL_BOUNCER"] == nil || Self.environment["SORTKIT_PSQL"] == nil
                ? "DATABASE_URL_BOUNCER or SORTKIT_PSQL is not set (.ci/run starts PgBouncer and sets them)" : nil
        case .browser:
            let needs = [
                ("/usr/bin/chromium", "chromium"), ("/usr/bin/chromedriver", "chromium-driver"),
                ("/usr/share/javascript/jquery-datatables/jquery.dataTables.min.js", "libjs-jquery-datatables"),
                (Self.e2ePython, "a Python with selenium (python3 -m venv .venv-e2e && .venv-e2e/bin/pip install selenium)"),
            ]
            let absent = needs.filter { !FileManager.default.fileExists(atPath: $0.0) }.map(\.1)
            return absent.isEmpty ? nil : "not installed here: \(absent.joined(separator: ", ")); .ci/run installs them"
        case .gnuTime:
            return FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? nil : "/usr/bin/time is missing (apt-get install time; .ci/run installs it)"
        case .prometheusParser:
            let python = URL(fileURLWithPath: Self.e2ePython)
            let lib = python.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
            let found = versions.contains { FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/prometheus_client").path) }
            return found ? nil : "prometheus_client is not installed in \(Self.e2ePython) (pip install prometheus_client; .ci/run installs it)"
        case .node:
            return FileManager.default.isExecutableFile(atPath: Self.nodePath)
                ? nil : "\(Self.nodePath) is missing (apt-get install nodejs; .ci/run installs it)"
        }
    }

    /// Whether its absence must fail the tests (`SORTKIT_REQUIRE_…=1`).
    public var isRequired: Bool { Self.environment[requirement] == "1" }

    /// Whether a test that needs the service runs: it is here, or required (and the test then
    /// fails on its absence). Prints the SKIPPED line otherwise.
    public func shouldRun(_ what: String) -> Bool {
        guard let missing, !isRequired else { return true }
        // Once per line: a suite's condition is evaluated for the suite and for each test.
        let line = "SKIPPED \(what): \(missing)"
        if Self.printed.withLock({ $0.insert(line).inserted }) { print(line) }
        return false
    }

    private static let printed = Mutex<Set<String>>([])

    /// The service's value (the database URL, the Python's path, the time binary), or an error
    /// naming what is missing: a test that runs without it (because it is required) fails here.
    public func value() throws -> String {
        if let missing { throw Missing(description: "\(rawValue): \(missing), but \(requirement)=1") }
        return switch self {
        case .postgres: Self.environment["DATABASE_URL"]!
        case .postgresICU: Self.environment["DATABASE_URL_ICU"]!
        case .postgresStandby: Self.environment["DATABASE_URL_STANDBY"]!
        case .pgbouncer: Self.environment["DATABASE_URL_BOUNCER"]!
        case .browser, .prometheusParser: Self.e2ePython
        case .gnuTime: "/usr/bin/time"
        case .node: Self.nodePath
        }
    }

    private static var nodePath: String { environment["SORTKIT_NODE"] ?? "/usr/bin/node" }

    /// A required service that isn't here.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where `service` is (or must be): `.enabled(if:)` with the SKIPPED line.
    public static func needs(_ service: Service, for what: String? = nil) -> Self {
        .enabled("needs \(service.rawValue)") { service.shouldRun(what ?? "a test that needs \(service.rawValue)") }
    }
}
