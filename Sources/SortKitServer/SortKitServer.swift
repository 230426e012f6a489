import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SortKit
import SortKitSQL

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
/// `GET|POST /datatables/{table}`. Write requests from another origin get 403.
public struct SortKitServer: Sendable {
    /// The tables.
    public let store: any TableStore
    /// The most rows one request returns; larger `limit`/`length` values are clamped.
    public let maxPageSize: Int
    /// Per table and column, modifiers a header click sorts with (so a status column sorts in
    /// its declared order): `["books": ["status": "enum=todo|reading|done|abandoned"]]`.
    public let headerModifiers: [String: [String: String]]

    /// A server over `store`.
    public init(store: any TableStore, maxPageSize: Int = 1_000, headerModifiers: [String: [String: String]] = [
        DemoLibrary.tableName: ["status": "enum=" + DemoLibrary.statuses.joined(separator: "|")],
    ]) {
        self.store = store
        self.maxPageSize = maxPageSize
        self.headerModifiers = headerModifiers
    }

    /// The router with every route and middleware.
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: SameOriginMiddleware())
        let api = APIHandlers(server: self)
        router.get("/") { _, _ in try await api.respond { try await Pages(server: self).index() } }
        router.get("/tables/:table") { request, context in
            try await api.respond { try await Pages(server: self).table(context.parameters.require("table"), query: request.uri.query ?? "") }
        }
        router.get("/assets/:file") { _, context in try Assets.response(context.parameters.require("file")) }
        router.get("/api/tables") { _, _ in try await api.respond { try await api.tables() } }
        router.get("/api/tables/:table/rows") { request, context in
            try await api.respond { try await api.rows(context.parameters.require("table"), query: request.uri.query ?? "") }
        }
        router.post("/api/tables/:table/rows") { request, context in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await api.respond { try await api.insert(context.parameters.require("table"), body: Array(buffer: body)) }
        }
        router.patch("/api/tables/:table/rows/:id") { request, context in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await api.respond {
                try await api.update(context.parameters.require("table"), id: context.parameters.require("id"), body: Array(buffer: body))
            }
        }
        router.delete("/api/tables/:table/rows/:id") { _, context in
            try await api.respond { try await api.delete(context.parameters.require("table"), id: context.parameters.require("id")) }
        }
        router.post("/api/tables/:table/rows/:id/move") { request, context in
            let body = try await request.body.collect(upTo: 1 << 16)
            return try await api.respond {
                try await api.move(context.parameters.require("table"), id: context.parameters.require("id"), body: Array(buffer: body))
            }
        }
        router.get("/datatables/:table") { request, context in
            try await api.respond { try await api.dataTables(context.parameters.require("table"), form: FormParameters(request.uri.query ?? "")) }
        }
        router.post("/datatables/:table") { request, context in
            let body = Array(buffer: try await request.body.collect(upTo: 1 << 20))
            let isJSON = request.headers[.contentType]?.lowercased().contains("json") ?? false
            return try await api.respond {
                let form = try isJSON ? DataTablesRequest.flatten(json: body) : FormParameters(String(decoding: body, as: UTF8.self))
                return try await api.dataTables(context.parameters.require("table"), form: form)
            }
        }
        return router
    }

    /// Serves on `host:port` until SIGINT or SIGTERM, then finishes in-flight requests and
    /// returns.
    public func run(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil) async throws {
        try await application(host: host, port: port, logger: logger).runService()
    }

    /// The application on `host:port`, with graceful shutdown on SIGINT and SIGTERM when run
    /// with `runService()`.
    public func application(host: String = "127.0.0.1", port: Int = 8080, logger: Logger? = nil) -> some ApplicationProtocol {
        var logger = logger ?? Logger(label: "sortkit")
        if logger.logLevel > .info { logger.logLevel = .info }
        return Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "sortkit"),
            logger: logger)
    }
}

/// An error with the HTTP status and message a client sees as `{"error": "..."}`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String

    static func badRequest(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }

    /// The status and message for any error the handlers throw.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as TableStoreError:
            let status: HTTPResponse.Status = switch error.kind {
            case .notFound: .notFound
            case .invalid: .badRequest
            case .conflict: .conflict
            }
            self.init(status: status, message: error.description)
        case let error as SortSpecError: self.init(status: .badRequest, message: error.description)
        case let error as CSVError: self.init(status: .badRequest, message: error.description)
        default: self.init(status: .internalServerError, message: "internal error: \(error)")
        }
    }

    init(status: HTTPResponse.Status, message: String) {
        self.status = status
        self.message = message
    }
}

/// A reply body and its type.
enum Reply {
    case json(JSON, status: HTTPResponse.Status = .ok)
    case html(String, status: HTTPResponse.Status = .ok)
    case empty

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

/// Rejects write requests (POST, PATCH, PUT, DELETE under `/api/`) that a browser says come
/// from another site: `Sec-Fetch-Site` other than `same-origin`/`none`, or an `Origin` that
/// isn't this host. Requests without either header (curl, scripts) aren't cross-site.
struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isWrite = [.post, .patch, .put, .delete].contains(request.method) && request.uri.path.hasPrefix("/api/")
        if isWrite, !Self.isSameOrigin(request.headers, authority: request.head.authority) {
            return Reply.json(.object([("error", .string("cross-origin write requests are not allowed"))]), status: .forbidden).response
        }
        return try await next(request, context)
    }

    static func isSameOrigin(_ headers: HTTPFields, authority: String?) -> Bool {
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!] {
            return site == "same-origin" || site == "none"
        }
        guard let origin = headers[.origin] else { return true }
        let host = authority ?? ""
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}

/// The web page's script and style sheet, served from the module's resources.
enum Assets {
    static func response(_ file: String) throws -> Response {
        let types = ["app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"]
        guard let type = types[file], let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Assets"),
              let data = try? Data(contentsOf: url)
        else { return Reply.json(.object([("error", .string("no asset '\(file)'"))]), status: .notFound).response }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
