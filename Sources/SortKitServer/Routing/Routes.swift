import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SortKit
import SortKitSQL
import Synchronization

extension SortKitServer {
    /// The router: every route in the group of its `RoutePolicy`, behind the checks every
    /// request passes (`SiteMiddleware`) and a log line per request.
    ///
    /// | policy | routes |
    /// |---|---|
    /// | asset | `GET /assets/{file}` |
    /// | read | `GET /`, `GET /tables/{table}`, `GET /api/tables`, `GET /api/openapi.json`, `GET /metrics`, `GET /api/tables/{table}/rows`, `GET /api/tables/{table}/rows.csv`, `GET\|POST /datatables/{table}` |
    /// | write | `POST /api/tables/{table}/rows`, `PATCH\|DELETE /api/tables/{table}/rows/{id}`, `POST …/rows/{id}/move`, `POST …/rows/move`, `POST …/rows/delete`, `DELETE /api/tables/{table}` |
    /// | importing | `POST /api/tables` |
    public func router() -> Router<BasicRequestContext> {
        // HEAD answers as GET does, without the body (AccessPolicy treats it as a read).
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let methods = RouteMethods()
        router.add(middleware: RequestLogMiddleware(metrics: metrics))
        router.add(middleware: SiteMiddleware(access: access, metrics: metrics, methods: methods))
        let api = APIHandlers(server: self)
        let pages = Pages(server: self)
        let limits = limits

        router.group().add(middleware: RoutePolicyMiddleware(policy: .asset, access: access))
            .get("/assets/:file") { _, context in try Assets.response(context.parameters.require("file")) }

        router.group().add(middleware: RoutePolicyMiddleware(policy: .read, access: access))
            .get("/") { _, _ in try await pages.index().response }
            .get("/tables/:table") { request, context in
                try await pages.table(context.table(), query: api.viewQuery(request)).response
            }
            .get("/api/tables") { _, _ in try await api.tables().response }
            .get("/api/openapi.json") { _, _ in try Assets.response("openapi.json") }
            .get("/metrics") { _, _ in
                guard metrics.isEnabled else { throw APIError(status: .notFound, message: "metrics are off (sortkit serve --no-metrics)") }
                metrics.indexUsage(await api.indexUsage())
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
            }
            .get("/api/tables/:table/rows.csv") { request, context in
                try await api.csv(context.table(), query: api.viewQuery(request))
            }
            .get("/api/tables/:table/rows") { request, context in
                try await api.rows(context.table(), query: api.viewQuery(request)).response
            }
            .get("/datatables/:table") { request, context in
                try await api.dataTables(context.table(), form: FormParameters(request.uri.query ?? "", limit: limits.maxParameters)).response
            }
            .post("/datatables/:table") { request, context in
                let body = try await request.bodyBytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)
                let form =
                    try RoutePolicyMiddleware<BasicRequestContext>.mediaType(request.headers)?.contains("json") == true
                    ? DataTablesRequest.flatten(json: body, limit: limits.maxParameters)
                    : FormParameters(String(decoding: body, as: UTF8.self), limit: limits.maxParameters)
                return try await api.dataTables(context.table(), form: form).response
            }

        router.group().add(middleware: RoutePolicyMiddleware(policy: .write, access: access))
            .post("/api/tables/:table/rows") { request, context in
                try await api.insert(context.table(), body: request.bodyBytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)).response
            }
            .patch("/api/tables/:table/rows/:id") { request, context in
                try await api.update(
                    context.table(), id: context.parameters.require("id"),
                    body: request.bodyBytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)
                ).response
            }
            .delete("/api/tables/:table/rows/:id") { _, context in
                try await api.delete(context.table(), id: context.parameters.require("id")).response
            }
            .post("/api/tables/:table/rows/delete") { request, context in
                try await api.deleteRows(context.table(), body: request.bodyBytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)).response
            }
            .post("/api/tables/:table/rows/move") { request, context in
                try await api.moveRows(context.table(), body: request.bodyBytes(upTo: limits.maxBodyBytes, timeout: limits.bodyTimeout)).response
            }
            .post("/api/tables/:table/rows/:id/move") { request, context in
                try await api.move(
                    context.table(), id: context.parameters.require("id"),
                    body: request.bodyBytes(upTo: 1 << 16, timeout: limits.bodyTimeout)
                ).response
            }
            .delete("/api/tables/:table") { _, context in
                try await api.dropTable(context.table()).response
            }

        router.group().add(middleware: RoutePolicyMiddleware(policy: .importing, access: access))
            .post("/api/tables") { request, _ in
                try await api.importTable(query: request.uri.query ?? "", contentLength: request.headers[.contentLength].flatMap { Int($0) }) {
                    try await request.bodyBytes(upTo: limits.maxImportBytes, timeout: limits.bodyTimeout)
                }.response
            }
        methods.set(router.routes.map { ($0.method, "\($0.path)") })
        return router
    }
}

extension BasicRequestContext {
    /// The `{table}` path parameter, percent-decoded (`my%20data` is the table `my data`) and
    /// in NFC, as names are stored: any spelling of a name finds its table.
    func table() throws -> String {
        let raw = try parameters.require("table")
        return (raw.removingPercentEncoding ?? raw).precomposedStringWithCanonicalMapping
    }
}

extension RequestBody {
    /// The whole body: a 413 in the API's error shape when it is over `limit` bytes, a 408 when
    /// it hasn't all arrived within `timeout`, a 400 when its stream ends in an error (the
    /// connection closed inside it). A big body's announced length (`expected`, the
    /// `Content-Length`) sizes the array up front: collecting into a `ByteBuffer` doubles its
    /// storage as it grows and then copies it out, which held 128 + 71 MB at once for a 71 MB
    /// CSV upload. Only a body over 1 MiB is reserved for (an import's, which holds one of the
    /// few import slots meanwhile), and at most 256 MiB whatever the limit: a smaller body,
    /// or the rest of a bigger one, grows as it arrives, so a length announced and not sent
    /// holds little.
    func bytes(upTo limit: Int, expected: Int?, timeout: Duration) async throws -> [UInt8] {
        let body = self
        let reserve = expected.map { $0 > 1 << 20 ? Swift.min($0, limit, 1 << 28) : 0 } ?? 0
        let collect: @Sendable () async throws -> [UInt8] = {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(reserve)
            do {
                for try await chunk in body {
                    guard chunk.readableBytes <= limit - bytes.count else {
                        throw APIError(status: .contentTooLarge, message: "the body is over \(limit) bytes")
                    }
                    bytes.append(contentsOf: chunk.readableBytesView)
                }
            } catch {
                if error is APIError || error is CancellationError || error is any HTTPResponseError { throw error }
                // The stream's own error: the connection ended inside the body (NIO's
                // `invalidEOFState`, which would otherwise be a 500), or bytes that aren't HTTP.
                throw APIError.bodyEnded(after: bytes.count, announced: expected)
            }
            return bytes
        }
        do {
            guard let bytes = try await _withDeadline(timeout, collect) else {
                throw APIError(status: .requestTimeout, message: "the body didn't arrive within \(timeout._secondsText) s")
            }
            return bytes
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(status: .contentTooLarge, message: "the body is over \(limit) bytes")
        }
    }
}

extension APIError {
    /// A 400 for a body that ended before its end: before the length `announced`, or (chunked)
    /// before its last chunk.
    static func bodyEnded(after received: Int, announced: Int?) -> APIError {
        .badRequest("the body ended after \(received)" + (announced.map { " of the \($0) bytes Content-Length announced" } ?? " bytes, before its last chunk"))
    }
}

extension Request {
    /// ``RequestBody/bytes(upTo:expected:timeout:)``, and a 400 when the body ended before the
    /// length its `Content-Length` announced: a connection cut mid-upload (the server stopping,
    /// the client gone) must not import or write the part that arrived. A chunked body cut off
    /// ends like a whole one in Hummingbird's request stream, so it isn't caught here. A length
    /// announced over `limit` is a 413 before a byte is read (cut off at the limit, the body
    /// would otherwise have been a 400).
    func bodyBytes(upTo limit: Int, timeout: Duration) async throws -> [UInt8] {
        let announced = headers[.contentLength].flatMap { Int($0) }
        if let announced, announced > limit {
            throw APIError(status: .contentTooLarge, message: "the body is over \(limit) bytes")
        }
        let bytes = try await body.bytes(upTo: limit, expected: announced, timeout: timeout)
        if let announced, bytes.count < announced { throw APIError.bodyEnded(after: bytes.count, announced: announced) }
        return bytes
    }
}

/// Logs one line per request — method, path, status and milliseconds as the message, and as
/// metadata the fields a JSON log line carries (``JSONLogHandler``): `method`, `route` (the
/// matched pattern), `status`, `duration_ms` and `table` — and counts it in ``ServerMetrics``.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        metrics.started()
        @Sendable func log(_ status: HTTPResponse.Status) {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1_000
            let route = Self.route(context.endpointPath)
            metrics.finished(route: route, method: request.method.rawValue, status: Int(status.code), duration: elapsed)
            // Message and metadata are autoclosures: built only when the line is written.
            context.logger.info(
                "\(request.method) \(request.uri.path) \(status.code) \(Self.tenths(ms))ms",
                metadata: Self.metadata(request, status: status, milliseconds: ms, route: route))
        }
        do {
            var response = try await next(request, context)
            guard response.body.contentLength == nil else {
                log(response.status)
                return response
            }
            // A streamed body (a CSV download) is timed to its last byte, and one that fails
            // part way — the headers already said 200 — is logged and counted as a 500. A body
            // that is never written (HEAD drops it; a client gone before the head) is logged
            // with the response's status when it is let go: every request once, no more.
            let body = response.body
            let once = _LogOnce(status: response.status, log)
            response.body = ResponseBody { writer in
                do {
                    try await body.write(writer)
                    once.log()
                } catch {
                    context.logger.error("\(request.method) \(request.uri.path): the response stopped part way: \(error)")
                    once.log(.internalServerError)
                    throw error
                }
            }
            return response
        } catch let error as any HTTPResponseError {
            log(error.status)
            throw error
        }
    }

    /// `milliseconds` to one decimal, "12.3" (`String(format:)` goes through Foundation's
    /// formatter, the costliest part of a request's line).
    static func tenths(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds < 1e15 else { return String(milliseconds) }
        let tenths = Int((milliseconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A request's log fields: method, status, duration, and the route and table when a route
    /// matched.
    static func metadata(_ request: Request, status: HTTPResponse.Status, milliseconds: Double, route: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "status": .stringConvertible(Int(status.code)),
            "duration_ms": .stringConvertible((milliseconds * 10).rounded() / 10),
        ]
        if let route {
            metadata["route"] = .string(route)
            if let table = parameter("table", of: route, in: request.uri.path) { metadata["table"] = .string(table) }
        }
        return metadata
    }

    /// The matched route as `/api/tables/{table}/rows` (Hummingbird writes parameters as
    /// `{table}`; a `:table` is rewritten so); `nil` when no route matched (Hummingbird's
    /// endpoint is then a name such as `NotFound`, not a path).
    static func route(_ endpoint: String?) -> String? {
        guard let endpoint, endpoint.hasPrefix("/") else { return nil }
        guard endpoint.contains(":") else { return endpoint }
        return
            "/"
            + endpoint.split(separator: "/").map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
    }

    /// The path segment that `route`'s `{name}` matched, percent-decoded.
    /// Control characters become `?`: a text log prints metadata as it is, and a decoded
    /// `%0A` would start a forged line.
    static func parameter(_ name: String, of route: String, in path: String) -> String? {
        let pattern = route.split(separator: "/"), parts = path.split(separator: "/")
        guard let index = pattern.firstIndex(of: Substring("{\(name)}")), index < parts.count else { return nil }
        let segment = String(parts[parts.startIndex + index])
        let decoded = segment.utf8.contains(UInt8(ascii: "%")) ? segment.removingPercentEncoding ?? segment : segment
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) }
        guard decoded.unicodeScalars.contains(where: isControl) else { return decoded }
        return String(String.UnicodeScalarView(decoded.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }
}

/// Logs a streamed response once: when its body is written, or else when the body is let go.
final class _LogOnce: Sendable {
    let status: HTTPResponse.Status
    private let logged = Mutex(false)
    private let write: @Sendable (HTTPResponse.Status) -> Void

    init(status: HTTPResponse.Status, _ write: @escaping @Sendable (HTTPResponse.Status) -> Void) {
        self.status = status
        self.write = write
    }

    /// Logs the request with `status` (by default the response's), unless it was logged already.
    func log(_ status: HTTPResponse.Status? = nil) {
        let first = logged.withLock { logged in
            let first = !logged
            logged = true
            return first
        }
        if first { write(status ?? self.status) }
    }

    deinit { log() }
}

/// The methods each route path answers, to tell a wrong method (405, with `Allow`) from an
/// unknown path (404). Filled once the router's routes are added.
final class RouteMethods: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, segments: [Substring])]>([])

    /// The routes as added; a GET route answers HEAD too (the router generates those when it
    /// builds its responder, after this is set).
    func set(_ routes: [(HTTPRequest.Method, String)]) {
        let all = routes + routes.filter { $0.0 == .get }.map { (HTTPRequest.Method.head, $0.1) }
        self.routes.withLock { $0 = all.map { ($0.0, $0.1.split(separator: "/")) } }
    }

    /// The methods some route answers at `path`, sorted; empty when no route has this path.
    func allowed(at path: String) -> [String] {
        let parts = path.split(separator: "/")
        func isParameter(_ segment: Substring) -> Bool { segment.hasPrefix(":") || segment.hasPrefix("{") }
        let matches = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == parts.count
                    && zip(route.segments, parts).allSatisfy { pattern, part in isParameter(pattern) ? !part.isEmpty : pattern == part }
            }
        }
        // The router takes the most specific path (`…/rows/delete` over `…/rows/{id}`): only its
        // methods are allowed.
        let literals = { (route: (method: HTTPRequest.Method, segments: [Substring])) in route.segments.filter { !isParameter($0) }.count }
        let most = matches.map(literals).max()
        return Set(matches.filter { literals($0) == most }.map(\.method.rawValue)).sorted()
    }
}

/// The web page's script modules, style sheet and OpenAPI document, served from the module's
/// resources as they are (no build step). A name is one plain segment with a known extension,
/// so nothing outside `Assets/` and nothing but these types can be asked for.
enum Assets {
    static let types: [Substring: String] = [
        "mjs": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "json": "application/json; charset=utf-8",
    ]

    static func response(_ file: String) throws -> Response {
        let parts = file.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let type = types[parts[1]], !parts[0].isEmpty,
            parts[0].utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }),
            let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Assets"),
            let data = try? Data(contentsOf: url)
        else { return Reply.error(.notFound, "no asset '\(file.prefix(80))'") }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
