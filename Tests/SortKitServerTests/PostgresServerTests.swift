import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// `sortkit serve --postgres`: the same routes over PostgreSQL give the same replies as over
/// SQLite. Needs `DATABASE_URL` (set by `.ci/run`); skipped with a SKIPPED line without it.
@Suite("Serving from PostgreSQL", .needs(.postgres, for: "serving from PostgreSQL"))
struct PostgresServerTests {
    @Test("Every read route replies as over SQLite; writes and moves work")
    func sameReplies() async throws {
        let url = try Service.postgres.value()
        let schema = "srv_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try await PostgresTableStore(url: url, schema: schema, queryBudget: testQueryBudget)
        try await DemoLibrary.install(in: store, count: 200)
        let postgres = SortKitServer(store: store)
        let sqlite = try await makeServer()
        let reads = [
            "/api/tables", "/api/tables/books/rows?sort=-price,title&limit=7&offset=3",
            "/api/tables/books/rows?preset=Status&q=zola+the&limit=5", "/api/tables/books/rows?sort=manual&limit=4",
            "/api/tables/books/rows?sort=published:nulls-first,author:nocase&limit=20",
            "/datatables/books?draw=3&start=10&length=5&order[0][column]=1&order[0][dir]=desc&columns[1][data]=author&search[value]=the",
            "/tables/books?sort=-title&q=a", "/api/tables/nope/rows", "/api/tables/books/rows?sort=colour",
        ]
        for uri in reads {
            let expected = try await application(sqlite).test(.router) { client in
                try await client.execute(uri: uri, method: .get) { ($0.status, $0.text) }
            }
            let reply = try await application(postgres).test(.router) { client in
                try await client.execute(uri: uri, method: .get) { ($0.status, $0.text) }
            }
            #expect(reply.0 == expected.0, "\(uri)")
            // Cursors are signed with each database's own secret; compare replies without them
            // (and without the index's allocated bytes).
            #expect(Self.withoutCursor(reply.1) == Self.withoutCursor(expected.1), "\(uri)")
        }
        try await application(postgres).test(.router) { client in
            try await client.execute(uri: "/api/tables/books/rows/5/move", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"before": 1}"#)) {
                #expect($0.status == .ok, "\($0.text)")
            }
            let first = try await client.execute(uri: "/api/tables/books/rows?sort=manual&limit=1", method: .get) { $0.json?.ids }
            #expect(first == [5])
            try await client.execute(uri: "/api/tables/books/rows/5", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: #"{"price": "cheap"}"#)) {
                response in
                #expect(response.status == .badRequest && response.text.contains("column 'price' needs a float"), "\(response.text)")
            }
        }
        await store.close()
    }

    @Test("A lost database is a 503 naming no SQL; a query over the budget (statement_timeout) is a 503 too")
    func unavailable() async throws {
        let url = try Service.postgres.value()
        let schema = "srv_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try await PostgresTableStore(url: url, schema: schema, inMemoryIndex: false, queryBudget: .milliseconds(1))
        try await DemoLibrary.install(in: store, count: 20_000)
        try await application(SortKitServer(store: store)).test(.router) { client in
            // Five substring searches on 20,000 rows, counted: over a 1 ms statement_timeout.
            try await client.execute(uri: "/api/tables/books/rows?sort=price&q=e+a+i+o+n", method: .get) { response in
                #expect(response.status == .serviceUnavailable, "\(response.text)")
                #expect(response.json?["error"]?.string?.contains("ran over its 0.001 s budget") == true, "\(response.text)")
            }
            await store.close()
            try await client.execute(uri: "/api/tables/books/rows?limit=1", method: .get) { response in
                #expect(response.status == .serviceUnavailable, "\(response.text)")
                #expect(response.json?["error"]?.string?.contains("PostgreSQL server can't be reached") == true, "\(response.text)")
                #expect(response.json?["request"] != nil && !response.text.contains("SELECT"))
            }
        }
    }

    static func withoutCursor(_ text: String) -> String {
        text.replacingOccurrences(of: #""next":"[^"]*""#, with: #""next":"…""#, options: .regularExpression)
            .replacingOccurrences(of: #"after=[^"&]*"#, with: "after=…", options: .regularExpression)
            // What the index's arrays have allocated depends on how they grew (the rows read
            // from one database or the other), not on what they hold.
            .replacingOccurrences(of: #""bytes":\{[^}]*\}"#, with: #""bytes":{…}"#, options: .regularExpression)
    }
}
