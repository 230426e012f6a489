import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL
@testable import SortKitServer

/// The routes over an SQLite table served from the database, whose deletes mark rows gone
/// (`_Tombstones`): before and after the compactor removed them, a deleted row is missing for
/// every route, and a write naming one changes nothing.
@Suite("Routes over rows marked gone")
struct MarkedRowsRouteTests {
    @Test("Deleted rows of a table served from the database are gone for every route, marked or removed")
    func markedRows() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        store.compactor.pause()
        try await DemoLibrary.install(in: store, count: 50)
        #expect(try await store.placeIndexes() == ["books": .database])
        try await application(SortKitServer(store: store)).test(.router) { client in
            func send(_ method: HTTPRequest.Method, _ path: String, _ body: String = "") async throws -> (HTTPResponse.Status, String) {
                try await client.execute(uri: "/api/tables/books/\(path)", method: method, headers: jsonHeaders, body: ByteBuffer(string: body)) {
                    ($0.status, $0.text)
                }
            }
            func ids() async throws -> [Int64] {
                try await client.execute(uri: "/api/tables/books/rows?sort=manual&limit=100", method: .get) { $0.json?.ids ?? [] }
            }
            #expect(try await send(.post, "rows/delete", #"{"ids": [3, 4, 5]}"#).0 == .ok)
            let single = try await send(.delete, "rows/8").0
            #expect(single == .ok || single == .noContent, "\(single)")
            for round in ["marked", "removed"] {
                let expected = (1...50).filter { ![3, 4, 5, 8].contains($0) }.map(Int64.init)
                #expect(try await ids() == expected, "\(round)")
                // Each write naming a deleted row is refused, and changes nothing.
                let refused: [(HTTPRequest.Method, String, String)] = [
                    (.post, "rows/delete", #"{"ids": [6, 4]}"#), (.delete, "rows/4", ""), (.patch, "rows/5", #"{"title": "x"}"#),
                    (.post, "rows/move", #"{"ids": [7], "after": 3}"#), (.post, "rows/8/move", #"{"before": 1}"#),
                ]
                for (method, path, body) in refused {
                    let (status, text) = try await send(method, path, body)
                    #expect(status == .notFound && text.contains("books"), "\(round): \(method) \(path) → \(status) \(text)")
                }
                #expect(try await ids() == expected, "\(round): after the refusals")
                let csv = try await client.execute(uri: "/api/tables/books/rows.csv?sort=title&search=", method: .get) { $0.text }
                #expect(csv.split(separator: "\n").count == 1 + 46, "\(round)")
                let catalog = try await client.execute(uri: "/api/tables", method: .get) { $0.text }
                #expect(catalog.contains(#""rows":46"#), "\(round): \(catalog)")
                try await store.compactTombstones()
            }
        }
    }
}
