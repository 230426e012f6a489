import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SortKit
import SortKitSQL
import Synchronization
import UnixSignals

/// The web app, JSON API and DataTables endpoint over a `TableStore`.
///
///     let store = try SQLiteTableStore(path: "sortkit.sqlite")
///     try await DemoLibrary.install(in: store)
///     let server = SortKitServer(store: store)
///     try await server.application(host: "127.0.0.1", port: 8080).runService()
///
/// Routes (a fixed contract: each route's policy is tabled in `Routes.swift`, a request's path is
/// in docs/ARCHITECTURE.md): `GET /`, `GET /tables/{table}`, `GET /api/tables`,
/// `GET /api/tables/{table}/rows`, `POST /api/tables/{table}/rows`,
/// `PATCH|DELETE /api/tables/{table}/rows/{id}`, `POST /api/tables/{table}/rows/{id}/move`,
/// `POST /api/tables/{table}/rows/move` and `…/rows/delete` (blocks of rows, all or none),
/// `GET|POST /datatables/{table}`. Write requests from another origin get 403.
public struct SortKitServer: Sendable {
    /// The tables.
    public let store: any TableStore
    /// The most rows one request returns; larger `limit`/`length` values are clamped.
    public let maxPageSize: Int
    /// Per table and column, modifiers a header click sorts with (so a status column sorts in
    /// its declared order): `["books": ["status": "enum=todo|reading|done|abandoned"]]`.
    public let headerModifiers: [String: [String: String]]
    /// Which `Host` names are served and the token writes need (see ``AccessPolicy``).
    public let access: AccessPolicy
    /// Bounds on what one request may ask for (see ``RequestLimits``).
    public let limits: RequestLimits
    /// Whether the DataTables endpoint HTML-escapes cell text (the default: DataTables renders
    /// `data` as HTML, so raw text would let a cell run script in the page). `false` sends
    /// cells as stored, for tables that render them with `DataTable.render.text()`.
    public let dataTablesEscapesHTML: Bool
    /// Per table: fixed keys, columns that sort by others, pinned rows, header cycles and a key
    /// cap (see ``TableSortSettings``).
    public let sortSettings: [String: TableSortSettings]
    /// The settings of tables ``sortSettings`` doesn't name (a key cap for every table, say) —
    /// tables stored earlier or imported later included.
    public let defaultSortSettings: TableSortSettings
    /// What `GET /metrics` reports (requests, latency, imports, query-budget refusals).
    public let metrics: ServerMetrics
    /// The imports running now (at most ``RequestLimits/maxConcurrentImports``).
    let imports = _Slots()

    /// Throws a 400 when `spec` has more keys, or an `enum=` more values, than the limits allow.
    func checkLimits(_ spec: SortSpec, name: String) throws {
        guard spec.keys.count <= limits.maxSortKeys else {
            throw APIError.badRequest("\(name) has \(spec.keys.count) sort keys; the most is \(limits.maxSortKeys)")
        }
        for key in spec.keys {
            if let values = key.enumOrder, values.count > limits.maxEnumValues {
                throw APIError.badRequest("\(name): enum= of column '\(key.column)' lists \(values.count) values; the most is \(limits.maxEnumValues)")
            }
        }
    }

    /// The sort settings of `table`.
    func settings(for table: String) -> TableSortSettings {
        sortSettings[table] ?? defaultSortSettings
    }

    /// A server over `store`.
    public init(
        store: any TableStore, maxPageSize: Int = 1_000,
        headerModifiers: [String: [String: String]] = [
            DemoLibrary.tableName: ["status": "enum=" + DemoLibrary.statuses.joined(separator: "|")]
        ], access: AccessPolicy = .loopback, limits: RequestLimits = RequestLimits(), dataTablesEscapesHTML: Bool = true,
        sortSettings: [String: TableSortSettings] = [:], defaultSortSettings: TableSortSettings = TableSortSettings(),
        metrics: ServerMetrics = ServerMetrics()
    ) {
        self.metrics = metrics
        self.sortSettings = sortSettings
        self.defaultSortSettings = defaultSortSettings
        self.store = store
        self.maxPageSize = maxPageSize
        self.headerModifiers = headerModifiers
        self.access = access
        self.limits = limits
        self.dataTablesEscapesHTML = dataTablesEscapesHTML
    }

    /// Serves on `host:port` until SIGTERM or SIGINT, then stops gracefully and returns: it
    /// accepts no new connection, lets the requests in flight finish for up to `gracePeriod`, and
    /// then cancels what is left — a write or an import that hadn't committed rolls back, so a
    /// table is whole or absent. Throws ``ServerSetupError`` for a policy that can't be served
    /// on `host`.
    ///
    ///     try await server.run(port: 8080, gracePeriod: .seconds(10))   // returns after SIGTERM
    public func run(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil, gracePeriod: Duration = .seconds(10)) async throws {
        let logger = logger ?? Logger(label: "sortkit")
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: try application(host: host, port: port, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        // A handler that ignores cancellation can't hold the process for ever.
        configuration.maximumCancellationDuration = .seconds(10)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch is CancellationError {
            // The grace period ran out and the requests still running were cancelled.
            logger.notice("stopped: requests still running after the \(gracePeriod) grace period were cancelled")
        }
    }

    /// The application on `host:port`, with graceful shutdown on SIGINT and SIGTERM when run
    /// with `runService()`, and connections closed after ``RequestLimits/idleTimeout`` idle.
    ///
    /// Bound beyond loopback, the ``access`` policy must have a token (anyone on the network
    /// could otherwise write) and must name the `Host` names it answers to (any other is a
    /// DNS-rebinding site's, 421), none of them loopback-only: each throws ``ServerSetupError``.
    public func application(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil) throws -> some ApplicationProtocol {
        if !AccessPolicy.isLoopback(host) {
            guard access.token != nil else {
                throw ServerSetupError(
                    message:
                        "serving on \(host) would let anyone who can reach it change the tables; set a token (--token or SORTKIT_TOKEN) or serve on 127.0.0.1")
            }
            guard let hosts = access.allowedHosts, !hosts.isEmpty else {
                throw ServerSetupError(
                    message:
                        "serving on \(host) needs the Host names clients use (--allow-host NAME, e.g. --allow-host sortkit.example.org); any other Host is answered 421, as a DNS-rebinding site would send"
                )
            }
            if hosts.isSubset(of: AccessPolicy.loopbackHosts) {
                throw ServerSetupError(
                    message: "the access policy answers only to loopback names, which nobody reaches on \(host); name the Host clients use (--allow-host NAME)")
            }
        }
        // A request's line is logged at info: a logger at warning or above writes none.
        let logger = logger ?? Logger(label: "sortkit")
        let deadline = TimeAmount.nanoseconds(limits.requestTimeout._nanoseconds)
        return Application(
            router: router(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [_ContinueHandler(), _RequestDeadlineHandler(deadline: deadline)],
                    idleTimeout: .nanoseconds(limits.idleTimeout._nanoseconds))),
            configuration: .init(address: .hostname(host, port: port), serverName: "sortkit"),
            logger: logger)
    }
}

/// A server that can't start as configured, with the reason.
public struct ServerSetupError: Error, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public let message: String
    public var description: String { message }
}

/// Bounds on one request, each answered with a 400 (413 for a body) that names it.
///
///     SortKitServer(store: store, limits: RequestLimits(maxSearchTerms: 16))
public struct RequestLimits: Sendable, Hashable {
    /// The largest JSON or form body, in bytes (413 above).
    public var maxBodyBytes = 1 << 20
    /// Rows per read of a `rows.csv` download (each read is one page by cursor).
    public var exportBatchRows = 10_000
    /// The largest CSV body `POST /api/tables` imports (413 beyond).
    public var maxImportBytes = 256 << 20
    /// The most CSV imports (`POST /api/tables`) running at once. Each holds its body and
    /// builds its table's index in memory (about 1.3 GB for a 1M-row, 67 MB file), so a burst
    /// of them could exhaust memory; one more is refused with 503 before its body is read, and
    /// may be sent again once one has finished. At least 1.
    public var maxConcurrentImports = 2
    /// The most parameters in a query string or form body.
    public var maxParameters = 10_000
    /// The most words in a search (`q`, `search[value]`, a column search).
    public var maxSearchTerms = 32
    /// The most keys in a sort (`sort=` keys, DataTables `order[]` entries).
    public var maxSortKeys = 16
    /// The most `columns[]` entries of a DataTables request.
    public var maxDataTablesColumns = 500
    /// The most values of one `enum=` modifier.
    public var maxEnumValues = 1_000
    /// The longest sort spec or search text, in characters.
    public var maxTextLength = 8_192
    /// How long a connection may sit idle (between requests, or mid-request) before it is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a whole request may take to arrive, from when the connection waits for it to
    /// its last body byte — read by its route or not — before the connection is closed: a
    /// body trickled in a byte at a time holds no connection longer than this.
    public var requestTimeout: Duration = .seconds(60)
    /// How long a request body may take to arrive in all (a body trickled in a byte at a time
    /// keeps a connection from going idle; this bounds it): 408 after.
    public var bodyTimeout: Duration = .seconds(30)

    /// The default limits, with any changed through the properties.
    public init() {}
}

/// A count of running jobs with a ceiling, shared by every copy of a server.
///
///     guard slots.take(limit: 2) else { throw busy }
///     defer { slots.give() }
final class _Slots: Sendable {
    private let running = Mutex(0)

    /// Takes a slot if fewer than `limit` are taken.
    func take(limit: Int) -> Bool {
        running.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a slot ``take(limit:)`` took.
    func give() {
        running.withLock { $0 -= 1 }
    }

    /// Slots taken now.
    var taken: Int { running.withLock { $0 } }
}
