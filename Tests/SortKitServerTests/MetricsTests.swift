import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// `GET /metrics`, read back by the Prometheus project's own text-format parser.
@Suite("Prometheus metrics")
struct MetricsTests {
    /// One sample: a metric name, its labels and its value.
    struct Sample: Decodable, Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// The samples of `exposition`, parsed by `prometheus_client.parser` (which raises on text
    /// that isn't the exposition format).
    static func parse(_ exposition: String) async throws -> [Sample] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("metrics.txt"), output = folder.appendingPathComponent("samples.json")
        try Data(exposition.utf8).write(to: input)
        let process = try SpawnedProcess(
            executable: try Service.prometheusParser.value(),
            arguments: [
                "-c",
                """
                import json, sys
                from prometheus_client.parser import text_string_to_metric_families
                text = open(sys.argv[1], encoding="utf-8").read()
                samples = [{"name": s.name, "labels": s.labels, "value": s.value} for f in text_string_to_metric_families(text) for s in f.samples]
                json.dump(samples, open(sys.argv[2], "w"))
                """,
                input.path, output.path,
            ])
        let status = await process.exitStatus()
        try #require(status == 0, "prometheus_client could not parse:\n\(exposition)")
        return try JSONDecoder().decode([Sample].self, from: Data(contentsOf: output))
    }

    @Test(
        "Requests by route, method and status with a latency histogram, requests in flight, import rows and seconds, query-budget refusals; under the data routes' trust rules",
        .needs(.prometheusParser, for: "the /metrics parser check"))
    func exposition() async throws {
        // A one-nanosecond budget: a search's scan is refused, a page from a ranking is not.
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: .nanoseconds(1))
        try await DemoLibrary.install(in: store, count: 300)
        let server = SortKitServer(store: store)
        let text = try await application(server).test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/api/tables/books/rows?sort=-price&limit=3", method: .get) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/api/tables/books/rows?sort=title&q=the", method: .get) { #expect($0.status == .serviceUnavailable) }
            try await client.execute(uri: "/nowhere", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(
                uri: "/api/tables?name=imported", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: "a,b\n1,x\n2,y\n3,z\n")
            ) { #expect($0.status == .created, "\($0.text)") }
            return try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                return response.text
            }
        }
        // Under the data routes' trust rules: with protected reads, no token, no metrics.
        let token = String(repeating: "t", count: 24)
        try await application(SortKitServer(store: store, access: .network(token: token, protectReads: true))).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer " + token]) { #expect($0.status == .ok) }
        }
        let samples = try await Self.parse(text)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }?.value
        }
        let rows = ["route": "/api/tables/{table}/rows", "method": "GET"]
        #expect(value("sortkit_http_requests_total", rows.merging(["status": "200"]) { $1 }) == 2, "\(text)")
        #expect(value("sortkit_http_requests_total", rows.merging(["status": "503"]) { $1 }) == 1)
        #expect(value("sortkit_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
        #expect(value("sortkit_http_request_duration_seconds_count", rows.merging(["status": "200"]) { $1 }) == 2)
        #expect(value("sortkit_http_request_duration_seconds_bucket", rows.merging(["status": "200", "le": "+Inf"]) { $1 }) == 2)
        #expect(value("sortkit_http_requests_in_flight") == 1, "the /metrics request itself is in flight")
        #expect(value("sortkit_query_budget_refusals_total") == 1)
        #expect(value("sortkit_import_rows_total", ["table": "imported"]) == 3)
        #expect(value("sortkit_import_duration_seconds_count", ["table": "imported"]) == 1)
        #expect(value("sortkit_index_rows", ["table": "books"]) == 300, "\(text)")
        #expect((value("sortkit_index_ranking_bytes", ["table": "books"]) ?? 0) >= 300 * 4, "a ranking of -price")
    }

    @Test("A dropped table's index and import series go away at the next scrape; a DataTables search over the budget counts as a refusal")
    func droppedTables() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: .nanoseconds(1))
        try await DemoLibrary.install(in: store, count: 50)
        let server = SortKitServer(store: store)
        try await application(server).test(.router) { client in
            try await client.execute(uri: "/api/tables/books/rows?sort=-price&limit=2", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/datatables/books?draw=1&start=0&length=5&search[value]=the", method: .get) {
                #expect($0.status == .serviceUnavailable)
            }
            try await client.execute(
                uri: "/api/tables?name=gone", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: "a\n1\n2\n")
            ) { #expect($0.status == .created, "\($0.text)") }
            let before = try await client.execute(uri: "/metrics", method: .get) { $0.text }
            #expect(before.contains("sortkit_index_rows{table=\"books\"} 50") && before.contains("sortkit_query_budget_refusals_total 1"), "\(before)")
            #expect(before.contains("sortkit_import_rows_total{table=\"gone\"} 2"), "\(before)")
            try await client.execute(uri: "/api/tables/books", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/tables/gone", method: .delete) { #expect($0.status == .noContent) }
            let after = try await client.execute(uri: "/metrics", method: .get) { $0.text }
            #expect(!after.contains("sortkit_index_rows{table=\"books\"}"), "\(after)")
            #expect(!after.contains("table=\"gone\""), "\(after)")
        }
    }

    @Test("Metrics off: GET /metrics answers 404 and nothing is counted")
    func disabled() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath())
        try await DemoLibrary.install(in: store, count: 20)
        let server = SortKitServer(store: store, metrics: ServerMetrics(enabled: false))
        try await application(server).test(.router) { client in
            try await client.execute(uri: "/api/tables/books/rows?limit=2", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/tables?name=t", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: "a\n1\n")) {
                #expect($0.status == .created)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .notFound && response.text.contains("--no-metrics"), "\(response.text)")
            }
        }
        #expect(!server.metrics.exposition().contains("sortkit_http_requests_total{"), "\(server.metrics.exposition())")
        #expect(!server.metrics.exposition().contains("sortkit_import_rows_total{"))
    }

    @Test("A streamed body is timed to its last byte; one that fails part way is counted and logged as a 500, not the 200 its headers said")
    func streamedBodies() async throws {
        struct Cut: Error {}
        let metrics = ServerMetrics()
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestLogMiddleware(metrics: metrics))
        router.get("/slow") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "a,b\n"))
                    try await Task.sleep(for: .milliseconds(300))
                    try await writer.write(ByteBuffer(string: "1,2\n"))
                    try await writer.finish(nil)
                })
        }
        router.get("/cut") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "a,b\n"))
                    throw Cut()
                })
        }
        try await Application(router: router).test(.live) { client in
            try await client.execute(uri: "/slow", method: .get) { #expect($0.status == .ok && $0.text == "a,b\n1,2\n") }
            _ = try? await client.execute(uri: "/cut", method: .get) { $0.status }
        }
        let text = metrics.exposition()
        #expect(text.contains(#"sortkit_http_requests_total{route="/cut",method="GET",status="500"} 1"#), "\(text)")
        #expect(!text.contains(#"route="/cut",method="GET",status="200""#), "\(text)")
        // Timed past the 300 ms the body waits before its last bytes.
        #expect(text.contains(#"sortkit_http_request_duration_seconds_bucket{route="/slow",method="GET",status="200",le="0.25"} 0"#), "\(text)")
        // Only the lower bound: on a loaded machine the request may take longer than asked.
        #expect(text.contains(#"sortkit_http_request_duration_seconds_count{route="/slow",method="GET",status="200"} 1"#), "\(text)")
    }

    @Test("A streamed body that is never written (HEAD of a CSV download) is still counted once, and leaves nothing in flight")
    func droppedBodies() async throws {
        let server = try await makeServer(books: 30)
        let text = try await application(server).test(.router) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/api/tables/books/rows.csv?sort=title", method: .head) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/api/tables/books/rows.csv?sort=title", method: .get) { #expect($0.status == .ok) }
            return try await client.execute(uri: "/metrics", method: .get) { $0.text }
        }
        let csv = #"route="/api/tables/{table}/rows.csv""#
        #expect(text.contains("sortkit_http_requests_total{\(csv),method=\"HEAD\",status=\"200\"} 3"), "\(text)")
        #expect(text.contains("sortkit_http_requests_total{\(csv),method=\"GET\",status=\"200\"} 1"), "\(text)")
        #expect(text.contains("sortkit_http_requests_in_flight 1"), "only the /metrics request itself: \(text)")
    }

    @Test("Two servers in one process count apart")
    func separateRegistries() async throws {
        let first = try await makeServer(books: 10), second = try await makeServer(books: 10)
        try await application(first).test(.router) { client in
            try await client.execute(uri: "/api/tables", method: .get) { #expect($0.status == .ok) }
        }
        #expect(first.metrics.exposition().contains("sortkit_http_requests_total{"))
        #expect(!second.metrics.exposition().contains("sortkit_http_requests_total{"))
    }
}
