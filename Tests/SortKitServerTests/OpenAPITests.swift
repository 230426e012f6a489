import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKitSQL
import Testing

@testable import SortKitServer

/// `GET /api/openapi.json`, kept true: every JSON route of the router is in it and nothing else,
/// the view's parameters are, and what each route answers is a documented status.
@Suite("OpenAPI document")
struct OpenAPITests {
    typealias Object = [String: Any]

    static func document() async throws -> Object {
        let server = try await makeServer(books: 20)
        let text = try await application(server).test(.router) { client in
            try await client.execute(uri: "/api/openapi.json", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("application/json") == true)
                return response.text
            }
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? Object)
    }

    /// The router's JSON routes as `METHOD /path/{parameter}`: every route but the pages and assets.
    static func routes(_ server: SortKitServer) -> Set<String> {
        let pages: Set<String> = ["/", "/tables/{table}", "/assets/{file}"]
        return Set(
            server.router().routes.compactMap { route in
                guard let path = RequestLogMiddleware<BasicRequestContext>.route("\(route.path)") else { return nil }
                return pages.contains(path) ? nil : "\(route.method.rawValue) \(path)"
            })
    }

    @Test("Every JSON route of the router is documented, and every documented route exists")
    func everyRoute() async throws {
        let document = try await Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Object])
        let documented = Set(
            paths.flatMap { path, item in
                item.keys.filter { ["get", "post", "patch", "delete", "put"].contains($0) }.map { "\($0.uppercased()) \(path)" }
            })
        let routed = Self.routes(try await makeServer(books: 1))
        #expect(routed.count >= 15, "\(routed.sorted())")
        #expect(routed.subtracting(documented).isEmpty, "routes missing from the document: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "documented routes that don't exist: \(documented.subtracting(routed).sorted())")
    }

    @Test("The rows and CSV routes document every view parameter the server reads")
    func parameters() async throws {
        let document = try await Self.document()
        let components = try #require((document["components"] as? Object)?["parameters"] as? [String: Object])
        func names(_ path: String, _ method: String) throws -> Set<String> {
            let operation = try #require(((document["paths"] as? [String: Object])?[path] as? Object)?[method] as? Object)
            return Set(
                (operation["parameters"] as? [Object] ?? []).compactMap { parameter in
                    if let reference = parameter["$ref"] as? String { return components[String(reference.split(separator: "/").last!)]?["name"] as? String }
                    return parameter["name"] as? String
                })
        }
        #expect(try names("/api/tables/{table}/rows", "get") == Set(ViewQuery.apiParameters))
        #expect(try names("/api/tables/{table}/rows.csv", "get") == Set(ViewQuery.csvParameters))
        #expect(try names("/api/tables", "post") == ["name", "delimiter"])
    }

    @Test("What each route answers, well-formed or not, is a status the document lists for it, with a JSON error body for errors")
    func statuses() async throws {
        let document = try await Self.document()
        let paths = try #require(document["paths"] as? [String: Object])
        let server = try await makeServer(books: 30)
        let json: HTTPFields = [.contentType: "application/json"], csv: HTTPFields = [.contentType: "text/csv"]
        let requests: [(HTTPRequest.Method, String, String, HTTPFields, String?)] = [
            (.get, "/api/tables", "/api/tables", [:], nil),
            (.get, "/api/tables/{table}/rows", "/api/tables/books/rows?sort=-price&limit=3&explain=1", [:], nil),
            (.get, "/api/tables/{table}/rows", "/api/tables/books/rows?sort=nope", [:], nil),
            (.get, "/api/tables/{table}/rows", "/api/tables/books/rows?limit=-1", [:], nil),
            (.get, "/api/tables/{table}/rows", "/api/tables/absent/rows", [:], nil),
            (.get, "/api/tables/{table}/rows.csv", "/api/tables/books/rows.csv?q=the&formulas=keep", [:], nil),
            (.get, "/api/tables/{table}/rows.csv", "/api/tables/books/rows.csv?formulas=maybe", [:], nil),
            (.post, "/api/tables/{table}/rows", "/api/tables/books/rows", json, #"{"title": "New", "price": "2.5"}"#),
            (.post, "/api/tables/{table}/rows", "/api/tables/books/rows", json, #"{"price": "cheap"}"#),
            (.post, "/api/tables/{table}/rows", "/api/tables/books/rows", csv, "title\nx\n"),
            (.patch, "/api/tables/{table}/rows/{id}", "/api/tables/books/rows/3", json, #"{"price": 4}"#),
            (.patch, "/api/tables/{table}/rows/{id}", "/api/tables/books/rows/999999", json, #"{"price": 4}"#),
            (.post, "/api/tables/{table}/rows/{id}/move", "/api/tables/books/rows/4/move", json, #"{"before": 1}"#),
            (.post, "/api/tables/{table}/rows/{id}/move", "/api/tables/books/rows/4/move", json, #"{"before": 1, "after": 2}"#),
            (.post, "/api/tables/{table}/rows/move", "/api/tables/books/rows/move", json, #"{"ids": [5, 6], "after": 1}"#),
            (.post, "/api/tables/{table}/rows/move", "/api/tables/books/rows/move", json, #"{"ids": "all"}"#),
            (.post, "/api/tables/{table}/rows/delete", "/api/tables/books/rows/delete", json, #"{"ids": [7, 8]}"#),
            (.post, "/api/tables/{table}/rows/delete", "/api/tables/books/rows/delete", json, #"{"ids": [123456789]}"#),
            (.delete, "/api/tables/{table}/rows/{id}", "/api/tables/books/rows/9", [:], nil),
            (.delete, "/api/tables/{table}/rows/{id}", "/api/tables/books/rows/9", [:], nil),
            (.get, "/datatables/{table}", "/datatables/books?draw=2&start=0&length=5&order[0][column]=1&order[0][dir]=desc", [:], nil),
            (.get, "/datatables/{table}", "/datatables/books?draw=x", [:], nil),
            (.post, "/datatables/{table}", "/datatables/books", [.contentType: "application/x-www-form-urlencoded"], "draw=3&start=0&length=2"),
            (.post, "/api/tables", "/api/tables?name=fresh", csv, "a,b\n1,x\n"),
            (.post, "/api/tables", "/api/tables?name=fresh", csv, "a,b\n1,x\n"),
            (.post, "/api/tables", "/api/tables?name=other", json, "{}"),
            (.post, "/api/tables", "/api/tables", csv, "a\n1\n"),
            (.delete, "/api/tables/{table}", "/api/tables/fresh", [:], nil),
            (.delete, "/api/tables/{table}", "/api/tables/fresh", [:], nil),
            (.get, "/metrics", "/metrics", [:], nil),
            (.get, "/api/openapi.json", "/api/openapi.json", [:], nil),
        ]
        // Per operation, its documented statuses (plain strings: the closure below is Sendable).
        var statuses: [String: Set<String>] = [:]
        for (path, item) in paths {
            for (method, operation) in item {
                statuses["\(method.uppercased()) \(path)"] = Set(((operation as? Object)?["responses"] as? Object)?.keys.map { $0 } ?? [])
            }
        }
        try await application(server).test(.router) { [statuses] client in
            for (method, path, uri, headers, body) in requests {
                let responses = statuses["\(method.rawValue) \(path)"] ?? []
                try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    let code = String(response.status.code)
                    #expect(
                        responses.contains(code), "\(method) \(uri) answered \(code), which the document doesn't list for \(path): \(response.text.prefix(200))"
                    )
                    if response.status.code >= 400 {
                        let error = (try? JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? Object)?["error"]
                        #expect(error is String, "\(method) \(uri): \(response.text.prefix(200))")
                    }
                }
            }
        }
    }

    @Test("A path some route answers, asked with another method, is 405 with Allow; an unknown path stays 404")
    func wrongMethod() async throws {
        let server = try await makeServer(books: 5)
        try await application(server).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .init("TRACE")!) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET, HEAD", "\(response.text)")
            }
            try await client.execute(uri: "/api/tables", method: .put) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "GET, HEAD, POST")
                #expect(response.json?["error"]?.string?.contains("use GET or HEAD or POST") == true, "\(response.text)")
            }
            try await client.execute(uri: "/api/tables/books/rows/3", method: .get) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "DELETE, PATCH")
            }
            try await client.execute(uri: "//api/tables", method: .put) { #expect($0.status == .methodNotAllowed) }
            // The router takes the literal path over the parameter one: only its methods.
            try await client.execute(uri: "/api/tables/books/rows/delete", method: .get) { response in
                #expect(response.status == .methodNotAllowed && response.headers[.allow] == "POST")
            }
            try await client.execute(uri: "/api/tables/books/rows/3/nowhere", method: .get) { #expect($0.status == .notFound) }
            // HEAD answers as GET does, without a body.
            try await client.execute(uri: "/api/tables", method: .head) { #expect($0.status == .ok && $0.body.readableBytes == 0) }
            try await client.execute(uri: "/nowhere/at/all", method: .put) { #expect($0.status == .notFound) }
        }
    }
}
