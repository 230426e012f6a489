import Foundation
import NIOSSL
import PostgresNIO

extension PostgresClient.Configuration {
    /// A configuration from a libpq-style URL:
    /// `postgres://user:password@host:port/database?sslmode=disable` (also `postgresql://`).
    /// `sslmode` is `disable`, `prefer` (the default, as libpq) or `require`; a `host` query
    /// item naming a directory connects through the unix socket there.
    ///
    ///     let configuration = try PostgresClient.Configuration(url: "postgres://ci:ci@127.0.0.1:5432/ci")
    ///
    /// - Throws: ``TableStoreError`` naming the part of the URL that's wrong.
    public init(url text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw TableStoreError.invalid("the PostgreSQL URL must look like postgres://user:password@host:port/database, got '\(text)'")
        }
        let items = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        guard let user = url.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw TableStoreError.invalid("the PostgreSQL URL needs a user name (postgres://user@host/database)")
        }
        let password = url.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let path = url.percentEncodedPath.removingPercentEncoding ?? url.path
        let database = path.hasPrefix("/") && path.count > 1 ? String(path.dropFirst()) : nil
        if let socket = items["host"], socket.hasPrefix("/") {
            let port = url.port ?? 5432
            self.init(unixSocketPath: "\(socket)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            return
        }
        guard let host = url.host, !host.isEmpty else {
            throw TableStoreError.invalid("the PostgreSQL URL needs a host (postgres://user@host/database)")
        }
        let tls: TLS
        switch items["sslmode"] ?? "prefer" {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let mode: throw TableStoreError.invalid("sslmode must be disable, prefer or require, got '\(mode)'")
        }
        self.init(host: host, port: url.port ?? 5432, username: user, password: password, database: database, tls: tls)
    }
}
