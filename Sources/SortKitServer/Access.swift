import Foundation
import HTTPTypes
import Hummingbird

/// Who may use a server: which `Host` names it answers to and the bearer token that writes
/// (and optionally reads) need.
///
/// On loopback (the default) only `127.0.0.1`, `localhost` and `[::1]` are served, so a page on
/// another site can't reach the server through DNS rebinding; bound beyond loopback, a token is
/// required (``SortKitServer/application(host:port:logger:)`` refuses to start without one).
///
///     let open = AccessPolicy.loopback
///     let shared = AccessPolicy.network(token: "s3cret-and-long", protectReads: true)
///     SortKitServer(store: store, access: shared)
///
/// A client sends the token as `Authorization: Bearer s3cret-and-long`. A browser opens any page
/// once with `?token=s3cret-and-long`: the server answers with a redirect to the same page
/// without it and an `HttpOnly`, `SameSite=Strict` cookie that later requests carry.
public struct AccessPolicy: Sendable, Hashable {
    /// The `Host` names (without the port) the server answers to; `nil` answers any. Others get
    /// 421 Misdirected Request.
    public var allowedHosts: Set<String>?
    /// The bearer token that writes need; `nil` for none.
    public var token: String?
    /// Whether reads (GET and HEAD, the DataTables POST) need the token too.
    public var protectReads: Bool

    /// A policy; see ``loopback`` and ``network(token:protectReads:hosts:)``.
    public init(allowedHosts: Set<String>?, token: String?, protectReads: Bool = false) {
        self.allowedHosts = allowedHosts.map { Set($0.map { $0.lowercased() }) }
        self.token = token
        self.protectReads = protectReads
    }

    /// The names a loopback address is reached by.
    public static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]

    /// Loopback only, no token: what `sortkit serve` uses on `127.0.0.1`.
    public static let loopback = AccessPolicy(allowedHosts: loopbackHosts, token: nil)

    /// Any `Host` (or only `hosts`), writes — and reads if `protectReads` — with `token`.
    public static func network(token: String, protectReads: Bool = false, hosts: Set<String>? = nil) -> AccessPolicy {
        AccessPolicy(allowedHosts: hosts, token: token, protectReads: protectReads)
    }

    /// Whether `host` (an address to bind) is a loopback address: `localhost`, an IPv4 address
    /// in 127.0.0.0/8 (four numbers, not a name that starts with "127."), or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    /// The Host names a server bound to `host` answers to: the loopback names, and `host` itself
    /// when it is another loopback address (`127.0.0.2`).
    public static func loopbackHosts(boundTo host: String) -> Set<String> {
        let own = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return loopbackHosts.union([own.lowercased()])
    }

    /// The host name of an authority (`Host` header): `"[::1]:8080"` → `"[::1]"`,
    /// `"LocalHost:80"` → `"localhost"`.
    static func hostName(of authority: String) -> String {
        let lower = authority.lowercased()
        if lower.hasPrefix("["), let close = lower.firstIndex(of: "]") { return String(lower[...close]) }
        if let colon = lower.lastIndex(of: ":") { return String(lower[..<colon]) }
        return lower
    }

    /// Whether `presented` is the token, compared in time that depends only on the token's
    /// length: not on where they differ, nor on how long the guess is.
    func accepts(_ presented: String?) -> Bool {
        guard let token, let presented else { return false }
        let a = Array(token.utf8), b = Array(presented.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in a.indices { difference |= a[index] ^ (index < b.count ? b[index] : 0) }
        return difference == 0
    }
}

/// The headers every response gets (see ``GuardMiddleware``), built once.
let securityHeaders: HTTPFields = [
    HTTPField.Name("Content-Security-Policy")!:
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'",
    HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    HTTPField.Name("Referrer-Policy")!: "same-origin",
    HTTPField.Name("X-Frame-Options")!: "SAMEORIGIN",
]

/// The cookie that carries a browser's token.
let tokenCookie = "sortkit-token"

/// The checks every request passes before a route sees it, and the headers every response gets:
///
/// 1. the `Host` is one the policy serves (421 otherwise: DNS rebinding);
/// 2. a request that isn't GET or HEAD — whatever its path — doesn't come from another site
///    (`Sec-Fetch-Site`, else `Origin` against the `Host`; 403);
/// 3. a JSON write (`POST`/`PATCH`/`PUT` under `/api/`) says `Content-Type: application/json`,
///    and a CSV import (`POST /api/tables`) `text/csv` (415), so a page elsewhere can't send
///    either as a "simple" request without a preflight (neither type is CORS-safelisted);
/// 4. the token, where the policy needs one (401);
/// 5. security headers: a Content-Security-Policy with no inline script and
///    `frame-ancestors 'self'`, `X-Content-Type-Options: nosniff`, a `Referrer-Policy`.
struct GuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: AccessPolicy


    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let misdirected = checkHost(request) {
            response = misdirected
        } else if let redirect = tokenRedirect(request) {
            // Before the token check: with protected reads, this visit is how a browser gets in.
            response = redirect
        } else if let refusal = check(request) {
            response = refusal
        } else {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // Hummingbird's own errors (an unknown route, a bad request line) in our shape.
                response = Reply.error(error.status, error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)"
                                                                                : "\(error.status.code) \(error.status.reasonPhrase)")
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
            return Reply.error(.misdirectedRequest,
                               "this server answers to \(allowed.sorted().joined(separator: ", ")), not Host '\(authority ?? "")'")
        }
        return nil
    }

    /// The refusal for a request that fails the origin, content-type or token check, or `nil`.
    func check(_ request: Request) -> Response? {
        let authority = Self.authority(request)
        let isRead = request.method == .get || request.method == .head
        if !isRead, !Self.isSameOrigin(request.headers, authority: authority) {
            return Reply.error(.forbidden, "cross-origin write requests are not allowed")
        }
        let path = Self.normalizedPath(request.uri.path)
        if [.post, .patch, .put].contains(request.method), path.hasPrefix("/api/") {
            let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            if request.method == .post, path == "/api/tables" || path == "/api/tables/" {
                guard type == "text/csv" else {
                    return Reply.error(.unsupportedMediaType, "a table is imported from CSV sent with Content-Type: text/csv, got '\(type ?? "none")'")
                }
            } else if type != "application/json" {
                return Reply.error(.unsupportedMediaType, "the body must be JSON sent with Content-Type: application/json, got '\(type ?? "none")'")
            }
        }
        let isDataTablesRead = request.method == .post && path.hasPrefix("/datatables/")
        if access.token != nil, !(isRead || isDataTablesRead) || access.protectReads {
            guard access.accepts(Self.presentedToken(request.headers)) else {
                var response = Reply.error(.unauthorized, (isRead ? "reading" : "writing") + " needs the server's token: send Authorization: Bearer TOKEN")
                response.headers[.wwwAuthenticate] = "Bearer realm=\"sortkit\""
                return response
            }
        }
        return nil
    }

    /// A page opened with the right `?token=` is answered by a redirect to itself without it,
    /// setting the cookie (so the token doesn't stay in the address bar or the history).
    func tokenRedirect(_ request: Request) -> Response? {
        guard access.token != nil, request.method == .get, let query = request.uri.query, query.contains("token=") else { return nil }
        let form = FormParameters(query)
        guard access.accepts(form["token"]) else { return nil }
        let rest = form.pairs.filter { $0.key != "token" }.map { HTML.query($0.key) + "=" + HTML.query($0.value) }
        // The normalized path (one leading slash, no backslash): `//evil.example/?token=…`
        // must not redirect to another site.
        let path = Self.normalizedPath(request.uri.path.replacingOccurrences(of: "\\", with: "/"))
        let location = path + (rest.isEmpty ? "" : "?" + rest.joined(separator: "&"))
        // Lax: a link from elsewhere opens the page with the cookie (reads may need it); writes
        // are refused cross-site by the origin check anyway, and Lax never sends it on them.
        return Response(status: .seeOther, headers: [
            .location: location,
            .setCookie: "\(tokenCookie)=\(HTML.query(access.token!)); Path=/; HttpOnly; SameSite=Lax",
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
}
