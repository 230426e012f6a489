import Foundation
import HTTPTypes
import Hummingbird

/// The headers every response gets, built once: a Content-Security-Policy with no inline
/// script and `frame-ancestors 'self'`, `nosniff`, a `Referrer-Policy`, and
/// `Cross-Origin-Resource-Policy: same-origin` (no other site may embed a response: a
/// `<script>`, `<img>` or `no-cors` fetch of the API is blocked by the browser).
let securityHeaders: HTTPFields = [
    HTTPField.Name("Content-Security-Policy")!:
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'",
    HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    HTTPField.Name("Referrer-Policy")!: "same-origin",
    HTTPField.Name("X-Frame-Options")!: "SAMEORIGIN",
    HTTPField.Name("Cross-Origin-Resource-Policy")!: "same-origin",
]

/// The cookie that carries a browser's token.
let tokenCookie = "sortkit-token"

/// The checks every request passes, whatever its route (known or not), and the headers every
/// response gets:
///
/// 1. the `Host` is one the policy serves (421 otherwise: DNS rebinding);
/// 2. a page opened with the right `?token=` is answered by a redirect that sets the cookie;
/// 3. a request that isn't GET or HEAD — whatever its path, `//api/…` included — doesn't come
///    from another site (`Sec-Fetch-Site`, else `Origin` against the `Host`; 403);
/// 4. the security headers (``securityHeaders``), and `Cache-Control: no-store` when reads
///    need the token.
///
/// What each route allows beyond that — the token, content types, cross-site reads — is its
/// group's `RoutePolicy`, declared where the routes are (``SortKitServer/router()``).
struct SiteMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: AccessPolicy
    let metrics: ServerMetrics
    let methods: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let misdirected = checkHost(request) {
            response = misdirected
        } else if let redirect = tokenRedirect(request) {
            // Before the token check: with protected reads, this visit is how a browser gets in.
            response = redirect
        } else if request.method != .get, request.method != .head, !Self.isSameOrigin(request.headers, authority: Self.authority(request)) {
            response = Reply.error(.forbidden, "cross-origin write requests are not allowed")
        } else {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // Hummingbird's own errors (an unknown route, a bad request line) in our shape; a
                // path some route answers with another method is 405 with what it allows.
                let allowed = error.status == .notFound ? methods.allowed(at: request.uri.path) : []
                if !allowed.isEmpty {
                    response = Reply.error(
                        .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path.prefix(200)); use \(allowed.joined(separator: " or "))")
                    response.headers[.allow] = allowed.joined(separator: ", ")
                } else {
                    response = Reply.error(
                        error.status,
                        error.status == .notFound
                            ? "no such route: \(request.method) \(request.uri.path.prefix(200))"
                            : "\(error.status.code) \(error.status.reasonPhrase)")
                }
            } catch {
                // Everything a handler throws: a client's mistake named, a bug behind a request id.
                let apiError = APIError(error)
                if apiError.isBudgetRefusal { metrics.refused() }
                response = apiError.response(logger: context.logger)
            }
        }
        for field in securityHeaders where response.headers[field.name] == nil { response.headers.append(field) }
        if access.protectReads, response.headers[.cacheControl] == nil {
            // Replies only token holders may read stay out of shared and disk caches.
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    static func authority(_ request: Request) -> String? {
        request.head.authority ?? request.headers[HTTPField.Name("Host")!]
    }

    /// A 421 for a `Host` the policy doesn't serve, or `nil`.
    func checkHost(_ request: Request) -> Response? {
        guard let allowed = access.allowedHosts else { return nil }
        let authority = Self.authority(request)
        guard let authority, allowed.contains(AccessPolicy.hostName(of: authority)) else {
            return Reply.error(
                .misdirectedRequest,
                "this server answers to \(allowed.sorted().joined(separator: ", ")), not Host '\(authority?.prefix(100) ?? "")'")
        }
        return nil
    }

    /// A page opened with the right `?token=` is answered by a redirect to itself without it,
    /// setting the cookie (so the token doesn't stay in the address bar or the history).
    func tokenRedirect(_ request: Request) -> Response? {
        guard let token = access.token, request.method == .get, let query = request.uri.query, query.contains("token=") else { return nil }
        let form = FormParameters(query)
        guard access.accepts(form["token"]) else { return nil }
        let rest = form.pairs.filter { $0.key != "token" }.map { URLText.query($0.key) + "=" + URLText.query($0.value) }
        // The normalized path (one leading slash, no backslash): `//evil.example/?token=…`
        // must not redirect to another site.
        let path = Self.normalizedPath(request.uri.path.replacingOccurrences(of: "\\", with: "/"))
        let location = path + (rest.isEmpty ? "" : "?" + rest.joined(separator: "&"))
        // Strict: the cookie is never sent on a request another site starts, links included;
        // a link from elsewhere opens a page without it (reads that need the token then ask
        // for it), and writes are refused cross-site anyway.
        return Response(
            status: .seeOther,
            headers: [
                .location: location,
                .setCookie: "\(tokenCookie)=\(URLText.query(token)); Path=/; HttpOnly; SameSite=Strict",
            ])
    }

    static func presentedToken(_ headers: HTTPFields) -> String? {
        if let authorization = headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        for cookies in headers[values: .cookie] {
            for cookie in cookies.split(separator: ";") {
                let parts = cookie.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == tokenCookie {
                    return String(parts[1]).removingPercentEncoding
                }
            }
        }
        return nil
    }

    /// The path as the router matches it: empty segments dropped (`//api/x` is `/api/x`).
    static func normalizedPath(_ path: String) -> String {
        "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// Whether a browser says the request comes from this site: `Sec-Fetch-Site` of
    /// `same-origin` or `none`; without it, an `Origin` equal to this host. Requests with
    /// neither header (curl, scripts) aren't cross-site.
    static func isSameOrigin(_ headers: HTTPFields, authority: String?) -> Bool {
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!] {
            return site == "same-origin" || site == "none"
        }
        guard let origin = headers[.origin] else { return true }
        let host = (authority ?? "").lowercased()
        return origin.lowercased() == "http://\(host)" || origin.lowercased() == "https://\(host)"
    }

    /// Whether a browser says the request is a top-level navigation: the user followed a link
    /// or typed the address (`Sec-Fetch-Mode: navigate` to a `document`), which may come from
    /// another site; a fetch, an `<img>`, a `<script>` or a frame is not.
    static func isTopLevelNavigation(_ headers: HTTPFields) -> Bool {
        headers[HTTPField.Name("Sec-Fetch-Mode")!] == "navigate"
            && (headers[HTTPField.Name("Sec-Fetch-Dest")!].map { $0 == "document" } ?? true)
    }
}
