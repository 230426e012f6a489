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
    public static func hostName(of authority: String) -> String {
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
