import Foundation
import HTTPTypes
import Hummingbird

/// What a group of routes allows, checked before its handlers run (after the checks every
/// request passes, `SiteMiddleware`). Each route is declared in the group of its policy
/// (``SortKitServer/router()``), so a route's rules are read where it is declared, never
/// worked out again from its path.
///
/// | policy | token | cross-site | body |
/// |---|---|---|---|
/// | ``asset`` | if reads are protected | any | — |
/// | ``read`` | if reads are protected | top-level navigations only | — |
/// | ``write`` | always (when the server has one) | never | `application/json` (415) |
/// | ``importing`` | always | never | `text/csv` (415) |
enum RoutePolicy: Sendable {
    /// The page's script and style sheet.
    case asset
    /// Pages and data reads: `GET /`, `/tables/…`, `/api/tables[/…/rows[.csv]]`, DataTables.
    /// Another site may link to them (a top-level navigation), but not fetch, embed or frame
    /// them: that would let any page a user visits time searches of a private table, or
    /// drive its work (403).
    case read
    /// Changes with a JSON body (or none: `DELETE`).
    case write
    /// `POST /api/tables`, a CSV body.
    case importing
}

/// The middleware that enforces a group's `RoutePolicy`.
struct RoutePolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: RoutePolicy
    let access: AccessPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = check(request) { return refusal }
        return try await next(request, context)
    }

    /// The refusal for `request` under this policy, or `nil`.
    func check(_ request: Request) -> Response? {
        let headers = request.headers
        switch policy {
        case .asset:
            return tokenRefusal(headers, reading: true, needed: access.protectReads)
        case .read:
            if !SiteMiddleware<Context>.isSameOrigin(headers, authority: SiteMiddleware<Context>.authority(request)),
                !(request.method == .get && SiteMiddleware<Context>.isTopLevelNavigation(headers))
            {
                return Reply.error(.forbidden, "another site may link to this server's pages, but not read its data")
            }
            return tokenRefusal(headers, reading: true, needed: access.protectReads)
        case .write:
            if request.method != .delete, Self.mediaType(headers) != "application/json" {
                return Reply.error(
                    .unsupportedMediaType,
                    "the body must be JSON sent with Content-Type: application/json, got '\(Self.mediaType(headers)?.prefix(80) ?? "none")'")
            }
            return tokenRefusal(headers, reading: false, needed: true)
        case .importing:
            if Self.mediaType(headers) != "text/csv" {
                return Reply.error(
                    .unsupportedMediaType,
                    "a table is imported from CSV sent with Content-Type: text/csv, got '\(Self.mediaType(headers)?.prefix(80) ?? "none")'")
            }
            return tokenRefusal(headers, reading: false, needed: true)
        }
    }

    /// A 401 when the server has a token, the request needs it, and didn't present it.
    private func tokenRefusal(_ headers: HTTPFields, reading: Bool, needed: Bool) -> Response? {
        guard access.token != nil, needed, !access.accepts(SiteMiddleware<Context>.presentedToken(headers)) else { return nil }
        var response = Reply.error(.unauthorized, (reading ? "reading" : "writing") + " needs the server's token: send Authorization: Bearer TOKEN")
        response.headers[.wwwAuthenticate] = "Bearer realm=\"sortkit\""
        return response
    }

    /// The body's media type, lowercased, without parameters: `Application/JSON; charset=utf-8` → `application/json`.
    static func mediaType(_ headers: HTTPFields) -> String? {
        headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
