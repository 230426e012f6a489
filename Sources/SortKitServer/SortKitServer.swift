import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SortKit
import SortKitSQL
import Synchronization

/// The web app, JSON API and DataTables endpoint over a ``TableStore``.
///
///     let store = try SQLiteTableStore(path: "sortkit.sqlite")
///     try await DemoLibrary.install(in: store)
///     let server = SortKitServer(store: store)
///     try await server.application(host: "127.0.0.1", port: 8080).runService()
///
/// Routes (fixed in DESIGN.md): `GET /`, `GET /tables/{table}`, `GET /api/tables`,
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
    /// The imports running now (at most ``RequestLimits/maxConcurrentImports``).
    let imports = _Slots()

    /// The sort settings of `table`.
    func settings(for table: String) -> TableSortSettings {
        sortSettings[table] ?? defaultSortSettings
    }

    /// A server over `store`.
    public init(store: any TableStore, maxPageSize: Int = 1_000, headerModifiers: [String: [String: String]] = [
        DemoLibrary.tableName: ["status": "enum=" + DemoLibrary.statuses.joined(separator: "|")],
    ], access: AccessPolicy = .loopback, limits: RequestLimits = RequestLimits(), dataTablesEscapesHTML: Bool = true,
                sortSettings: [String: TableSortSettings] = [:], defaultSortSettings: TableSortSettings = TableSortSettings()) {
        self.sortSettings = sortSettings
        self.defaultSortSettings = defaultSortSettings
        self.store = store
        self.maxPageSize = maxPageSize
        self.headerModifiers = headerModifiers
        self.access = access
        self.limits = limits
        self.dataTablesEscapesHTML = dataTablesEscapesHTML
    }

    /// The router with every route and middleware.
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: GuardMiddleware(access: access))
        let api = APIHandlers(server: self)
        let limits = limits
        router.get("/") { _, context in try await api.respond(context) { try await Pages(server: self).index() } }
        router.get("/tables/:table") { request, context in
            try await api.respond(context) { try await Pages(server: self).table(context.table(), query: request.uri.query ?? "") }
        }
        router.get("/assets/:file") { _, context in try Assets.response(context.parameters.require("file")) }
        router.get("/api/tables") { _, context in try await api.respond(context) { try await api.tables() } }
        router.post("/api/tables") { request, context in
            try await api.respond(context) {
                try await api.importTable(query: request.uri.query ?? "") {
                    try await request.body.bytes(upTo: limits.maxImportBytes, timeout: limits.bodyTimeout)
                }
            }
        }
        router.get("/api/tables/:table/rows.csv") { request, context in
            do {
                return try await api.csv(context.table(), query: request.uri.query ?? "")
            } catch {
                return APIHandlers.errorResponse(error, logger: context.logger)
            }
        }
        router.get("/api/tables/:table/rows") { request, context in
            try await api.respond(context) { try await api.rows(context.table(), query: request.uri.query ?? "") }
        }
        router.post("/api/tables/:table/rows") { request, context in
            try await api.respond(context) {
                try await api.insert(context.table(), body: request.body.bytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout))
            }
        }
        router.patch("/api/tables/:table/rows/:id") { request, context in
            try await api.respond(context) {
                try await api.update(context.table(), id: context.parameters.require("id"), body: request.body.bytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout))
            }
        }
        router.delete("/api/tables/:table/rows/:id") { _, context in
            try await api.respond(context) { try await api.delete(context.table(), id: context.parameters.require("id")) }
        }
        router.post("/api/tables/:table/rows/delete") { request, context in
            try await api.respond(context) {
                try await api.deleteRows(context.table(), body: request.body.bytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout))
            }
        }
        router.post("/api/tables/:table/rows/move") { request, context in
            try await api.respond(context) {
                try await api.moveRows(context.table(), body: request.body.bytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout))
            }
        }
        router.post("/api/tables/:table/rows/:id/move") { request, context in
            try await api.respond(context) {
                try await api.move(context.table(), id: context.parameters.require("id"), body: request.body.bytes(upTo: 1 << 16, timeout: limits.bodyTimeout))
            }
        }
        router.get("/datatables/:table") { request, context in
            try await api.respond(context) {
                try await api.dataTables(context.table(), form: FormParameters(request.uri.query ?? "", limit: limits.maxParameters))
            }
        }
        router.post("/datatables/:table") { request, context in
            try await api.respond(context) {
                let body = try await request.body.bytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)
                let isJSON = request.headers[.contentType]?.lowercased().contains("json") ?? false
                let form = try isJSON ? DataTablesRequest.flatten(json: body, limit: limits.maxParameters)
                    : FormParameters(String(decoding: body, as: UTF8.self), limit: limits.maxParameters)
                return try await api.dataTables(context.table(), form: form)
            }
        }
        return router
    }

    /// Serves on `host:port` until SIGINT or SIGTERM, then finishes in-flight requests and
    /// returns. Throws ``ServerSetupError`` for a policy that can't be served on `host`.
    public func run(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil) async throws {
        try await application(host: host, port: port, logger: logger).runService()
    }

    /// The application on `host:port`, with graceful shutdown on SIGINT and SIGTERM when run
    /// with `runService()`, and connections closed after ``RequestLimits/idleTimeout`` idle.
    ///
    /// Bound beyond loopback, the ``access`` policy must have a token (anyone on the network
    /// could otherwise write) and must not limit `Host` to loopback names (nobody could reach
    /// it): both throw ``ServerSetupError``.
    public func application(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil) throws -> some ApplicationProtocol {
        if !AccessPolicy.isLoopback(host) {
            guard access.token != nil else {
                throw ServerSetupError(message: "serving on \(host) would let anyone who can reach it change the tables; set a token (--token or SORTKIT_TOKEN) or serve on 127.0.0.1")
            }
            if access.allowedHosts == AccessPolicy.loopbackHosts {
                throw ServerSetupError(message: "the access policy answers only to loopback names, which nobody reaches on \(host); use AccessPolicy.network(token:)")
            }
        }
        var logger = logger ?? Logger(label: "sortkit")
        if logger.logLevel > .info { logger.logLevel = .info }
        return Application(
            router: router(),
            server: .http1(configuration: .init(
                additionalChannelHandlers: [_ContinueHandler()], idleTimeout: .nanoseconds(limits.idleTimeout._nanoseconds))),
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
    /// How long a request body may take to arrive in all (a body trickled in a byte at a time
    /// keeps a connection from going idle; this bounds it): 408 after.
    public var bodyTimeout: Duration = .seconds(30)

    /// The default limits, with any changed through the properties.
    public init() {}
}

extension BasicRequestContext {
    /// The `{table}` path parameter, percent-decoded (`my%20data` is the table `my data`).
    func table() throws -> String {
        let raw = try parameters.require("table")
        return raw.removingPercentEncoding ?? raw
    }
}

extension RequestBody {
    /// The whole body: a 413 in the API's error shape when it is over `limit` bytes, a 408 when
    /// it hasn't all arrived within `timeout`.
    func bytes(upTo limit: Int, timeout: Duration) async throws -> [UInt8] {
        let body = self
        do {
            guard let bytes = try await _withDeadline(timeout, { Array(buffer: try await body.collect(upTo: limit)) }) else {
                throw APIError(status: .requestTimeout, message: "the body didn't arrive within \(timeout._secondsText) s")
            }
            return bytes
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(status: .contentTooLarge, message: "the body is over \(limit) bytes")
        }
    }
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

/// An error with the HTTP status and message a client sees as `{"error": "..."}`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String

    static func badRequest(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }

    /// Whether the error is a bug or a failure the client can't act on: its details go to the
    /// log, never to the client.
    var isInternal = false

    /// The status and message for any error the handlers throw. Messages of store and parser
    /// errors name the client's mistake; anything else is internal (500, no details).
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as TableStoreError:
            switch error.kind {
            case .notFound: self.init(status: .notFound, message: error.description)
            case .invalid: self.init(status: .badRequest, message: error.description)
            case .conflict: self.init(status: .conflict, message: error.description)
            case .timedOut, .unavailable: self.init(status: .serviceUnavailable, message: error.description)
            case .internal: self.init(status: .internalServerError, message: error.description, isInternal: true)
            }
        case let error as SortSpecError: self.init(status: .badRequest, message: error.description)
        case let error as CSVError: self.init(status: .badRequest, message: error.description)
        default:
            // A database library's error (a busy SQLite file, a lost connection) is the store
            // error it stands for; anything else is a bug.
            if let mapped = TableStoreError.classifying(error) {
                self.init(mapped)
            } else {
                self.init(status: .internalServerError, message: String(describing: error), isInternal: true)
            }
        }
    }

    init(status: HTTPResponse.Status, message: String, isInternal: Bool = false) {
        self.status = status
        self.message = message
        self.isInternal = isInternal
    }
}

/// A reply body and its type.
enum Reply {
    case json(JSON, status: HTTPResponse.Status = .ok)
    case html(String, status: HTTPResponse.Status = .ok)
    case empty

    /// `{"error": message}` with `status`.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Reply.json(.object([("error", .string(message))]), status: status).response
    }

    var response: Response {
        switch self {
        case .json(let json, let status):
            Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: json.text)))
        case .html(let html, let status):
            Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: html)))
        case .empty:
            Response(status: .noContent)
        }
    }
}

/// Logs one line per request: method, path, status and milliseconds.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        func log(_ status: HTTPResponse.Status) {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1_000
            context.logger.info("\(request.method) \(request.uri.path) \(status.code) \(String(format: "%.1f", ms))ms")
        }
        do {
            let response = try await next(request, context)
            log(response.status)
            return response
        } catch let error as any HTTPResponseError {
            log(error.status)
            throw error
        }
    }
}

/// The web page's script and style sheet, served from the module's resources.
enum Assets {
    static func response(_ file: String) throws -> Response {
        let types = ["app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"]
        guard let type = types[file], let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Assets"),
              let data = try? Data(contentsOf: url)
        else { return Reply.error(.notFound, "no asset '\(file)'") }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
