import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import SortKitServer

/// `--log-format json`: every line one JSON object, read back by Foundation's JSON parser.
@Suite("JSON logs")
struct LoggingTests {
    /// Lines a handler wrote.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func handler(label: String) -> JSONLogHandler {
            JSONLogHandler(label: label) { line in self.lines.withLock { $0.append(line) } }
        }
        /// Each line parsed as a JSON object; an issue for a line that isn't one.
        func objects(sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
            all.compactMap { line in
                #expect(
                    line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one line: \(line.debugDescription)", sourceLocation: sourceLocation)
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "not a JSON object: \(line)", sourceLocation: sourceLocation)
                return object
            }
        }
    }

    @Test("A line is one JSON object: time, level, label, message, typed metadata; line ends, quotes, control characters and a combining mark escaped or kept")
    func lines() throws {
        let lines = Lines()
        var logger = Logger(label: "sortkit") { lines.handler(label: $0) }
        logger[metadataKey: "hb.request.id"] = "abc123"
        let hostile = "a \"quoted\"\nsecond line\r\t\u{1}\u{7F}\\ e\u{301} 𝄞 \u{2028}"
        logger.info(
            "\(hostile)",
            metadata: [
                "status": .stringConvertible(404), "duration_ms": .stringConvertible(1.5), "table": .string(hostile),
                "message": "a metadata key that would repeat a field", "tags": ["x", "y"], "nested": ["k": "v"],
            ])
        logger.debug("below the level: not written")
        let objects = lines.objects()
        try #require(objects.count == 1)
        let object = objects[0]
        #expect(object["level"] as? String == "info" && object["label"] as? String == "sortkit")
        #expect(object["message"] as? String == hostile && object["table"] as? String == hostile)
        #expect(object["status"] as? Int == 404 && object["duration_ms"] as? Double == 1.5)
        #expect(object["request_id"] as? String == "abc123" && object["hb.request.id"] == nil)
        #expect(object["meta.message"] as? String == "a metadata key that would repeat a field")
        #expect(object["tags"] as? [String] == ["x", "y"] && (object["nested"] as? [String: String]) == ["k": "v"])
        let time = try #require(object["time"] as? String)
        #expect(try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)).timeIntervalSinceNow.magnitude < 60)
        #expect(!lines.all[0].contains("\u{1}") && !lines.all[0].contains("\u{2028}") && !lines.all[0].contains("\r"))
    }

    @Test("A request's line names its method, route, status, duration, table and request id; an unmatched path has no route")
    func requestLines() async throws {
        let lines = Lines()
        let server = try await makeServer()
        let logger = Logger(label: "sortkit") { lines.handler(label: $0) }
        try await Application(router: server.router(), logger: logger).test(.router) { client in
            try await client.execute(uri: "/api/tables/books/rows?sort=-price&limit=2", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/tables/no%20such/rows", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/nowhere", method: .get) { #expect($0.status == .notFound) }
        }
        let requests = lines.objects().filter { $0["method"] != nil }
        try #require(requests.count == 3, "\(lines.all)")
        #expect(requests[0]["route"] as? String == "/api/tables/{table}/rows" && requests[0]["table"] as? String == "books")
        #expect(requests[0]["status"] as? Int == 200 && requests[0]["method"] as? String == "GET")
        #expect((requests[0]["duration_ms"] as? Double).map { $0 >= 0 } == true && requests[0]["request_id"] is String)
        #expect(requests[1]["table"] as? String == "no such" && requests[1]["status"] as? Int == 404)
        #expect(requests[2]["route"] == nil && requests[2]["table"] == nil && requests[2]["status"] as? Int == 404, "\(lines.all[2])")
    }

    @Test("Routes and parameters read from Hummingbird's endpoint paths")
    func routes() {
        #expect(RequestLogMiddleware<BasicRequestContext>.route("/api/tables/:table/rows") == "/api/tables/{table}/rows")
        #expect(RequestLogMiddleware<BasicRequestContext>.route("/api/tables/{table}/rows.csv") == "/api/tables/{table}/rows.csv")
        #expect(RequestLogMiddleware<BasicRequestContext>.route(nil) == nil && RequestLogMiddleware<BasicRequestContext>.route("NotFound") == nil)
        #expect(RequestLogMiddleware<BasicRequestContext>.parameter("table", of: "/datatables/{table}", in: "/datatables/caf%C3%A9") == "café")
        #expect(RequestLogMiddleware<BasicRequestContext>.parameter("table", of: "/", in: "/") == nil)
        // A decoded line end can't forge a text log line; empty segments are dropped, as the router does.
        #expect(RequestLogMiddleware<BasicRequestContext>.parameter("table", of: "/api/tables/{table}/rows", in: "/api/tables/x%0Afake%0D/rows") == "x?fake?")
        #expect(RequestLogMiddleware<BasicRequestContext>.parameter("table", of: "/api/tables/{table}/rows", in: "//api/tables/books/rows") == "books")
    }
}
