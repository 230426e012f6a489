import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import Testing

@testable import SortKitServer

@Suite("Bulk routes: rows/delete and rows/move")
struct BulkRouteTests {
    @Test("Delete and move blocks of rows; odd and hostile bodies get a 400 or 404 and change nothing")
    func bulk() async throws {
        let server = try await makeServer(books: 20)
        try await application(server).test(.router) { client in
            func post(_ path: String, _ body: String, headers: HTTPFields = jsonHeaders) async throws -> (HTTPResponse.Status, JSON?) {
                try await client.execute(uri: "/api/tables/books/rows/\(path)", method: .post, headers: headers, body: ByteBuffer(string: body)) {
                    ($0.status, $0.json)
                }
            }
            func manual() async throws -> [Int64] {
                try await client.execute(uri: "/api/tables/books/rows?sort=manual&limit=100", method: .get) { $0.json?.ids ?? [] }
            }
            let start = try await manual()
            #expect(start.count == 20)

            // A block, in the order listed, after a row.
            let (status, reply) = try await post("move", #"{"ids": [9, 2, 15], "after": 4}"#)
            #expect(status == .ok && reply?["moved"]?.int == 3)
            var model = start.filter { ![9, 2, 15].contains($0) }
            model.insert(contentsOf: [9, 2, 15], at: model.firstIndex(of: 4)! + 1)
            #expect(try await manual() == model)
            #expect(try await post("move", #"{"ids": [1], "before": 9}"#).0 == .ok)
            model.removeAll { $0 == 1 }
            model.insert(1, at: model.firstIndex(of: 9)!)
            #expect(try await manual() == model)

            // keepOrder: the block as it stands in the manual order.
            #expect(try await post("move", #"{"ids": [15, 9], "before": 1, "keepOrder": true}"#).0 == .ok)
            let standing = model.filter { [15, 9].contains($0) }
            model.removeAll { [15, 9].contains($0) }
            model.insert(contentsOf: standing, at: model.firstIndex(of: 1)!)
            #expect(try await manual() == model)

            // Odd and hostile bodies: each refused, nothing moved.
            let refused: [(String, String, HTTPResponse.Status, String?)] = [
                ("move", #"{"ids": [3, 999], "after": 4}"#, .notFound, "table 'books' has no row 999"),
                ("move", #"{"ids": [3, 5], "after": 999}"#, .notFound, "table 'books' has no row 999"),
                ("move", #"{"ids": [], "after": 4}"#, .badRequest, "ids is empty: name at least one row"),
                ("move", #"{"ids": [3, 3], "after": 4}"#, .badRequest, "ids names row 3 twice"),
                ("move", #"{"ids": [3, 4], "after": 4}"#, .badRequest, "row 4 is in the block; it can't be its anchor"),
                ("move", #"{"ids": [3], "after": 4, "before": 5}"#, .badRequest, nil),
                ("move", #"{"ids": [3]}"#, .badRequest, nil),
                ("move", #"{"ids": [3], "after": "4"}"#, .badRequest, nil),
                ("move", #"{"ids": ["3"], "after": 4}"#, .badRequest, #""ids" must hold only row ids (integers); got "3""#),
                ("move", #"{"ids": [3.5], "after": 4}"#, .badRequest, nil),
                ("move", #"{"ids": [99999999999999999999], "after": 4}"#, .badRequest, nil),
                ("move", #"{"ids": 3, "after": 4}"#, .badRequest, nil),
                ("move", #"[3, 4]"#, .badRequest, nil),
                ("move", "", .badRequest, nil),
                ("move", #"{"ids": [3], "after": 4"#, .badRequest, nil),
                ("move", #"{"ids": [3], "after": 4, "keepOrder": 1}"#, .badRequest, #""keepOrder" must be true or false"#),
                ("delete", #"{"ids": [3, 999]}"#, .notFound, "table 'books' has no row 999"),
                ("delete", #"{"ids": [3, 3]}"#, .badRequest, "ids names row 3 twice"),
                ("delete", #"{"ids": null}"#, .badRequest, nil),
                ("delete", #"{"ids": [3], "ids": [4]}"#, .badRequest, #"the body names "ids" twice; send an object such as {"ids": [3, 7]}"#),
                ("delete", #"{"ids": [3], "\u0069ds": [4]}"#, .badRequest, nil),
                ("move", #"{"ids": [3], "after": 4, "after": 5}"#, .badRequest, nil),
            ]
            for (route, body, expected, message) in refused {
                let (status, reply) = try await post(route, body)
                #expect(status == expected, "\(route) \(body)")
                if let message { #expect(reply?["error"]?.string == message, "\(route) \(body)") }
            }
            // A megabyte-sized id string is refused without being echoed back; non-ASCII too.
            let (long, longReply) = try await post("move", "{\"ids\": [\"" + String(repeating: "é", count: 400_000) + "\"], \"after\": 4}")
            #expect(long == .badRequest && (longReply?["error"]?.string?.count ?? .max) < 120)
            #expect(try await manual() == model)
            // Too many ids: over 10,000 for a move, 100,000 for a delete (a bigger body is 413).
            let many = "{\"ids\": [" + (2...10_002).map(String.init).joined(separator: ",") + "], \"after\": 1}"
            let (tooMany, manyReply) = try await post("move", many)
            #expect(tooMany == .badRequest && manyReply?["error"]?.string == "ids names 10001 rows; the most is 10000")
            let huge = "{\"ids\": [" + (1...100_001).map(String.init).joined(separator: ",") + "]}"
            #expect([.badRequest, .contentTooLarge].contains(try await post("delete", huge).0))
            // Another origin, no JSON content type: refused as every write is.
            #expect(try await post("delete", #"{"ids": [3]}"#, headers: [.contentType: "application/json", .origin: "http://evil.example"]).0 == .forbidden)
            #expect(try await post("delete", #"{"ids": [3]}"#, headers: [.contentType: "text/plain"]).0 == .unsupportedMediaType)
            #expect(try await manual() == model)

            // Delete: all named rows at once.
            let (deleted, count) = try await post("delete", #"{"ids": [3, 9, 20]}"#)
            #expect(deleted == .ok && count?["deleted"]?.int == 3)
            model.removeAll { [3, 9, 20].contains($0) }
            #expect(try await manual() == model)
            let total = try await client.execute(uri: "/api/tables/books/rows?limit=1", method: .get) { $0.json?["total"]?.int }
            #expect(total == 17)
            #expect(try await post("delete", #"{"ids": [3]}"#).0 == .notFound)
            let unknownTable = try await client.execute(
                uri: "/api/tables/nope/rows/delete", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"ids": [1]}"#)
            ) { $0.status }
            #expect(unknownTable == .notFound)
        }
    }

    @Test("Repeated JSON keys are found at any depth, escaped or not, and never inside strings")
    func repeatedKeys() {
        func repeated(_ text: String) -> String? { JSON.repeatedKey(in: Array(text.utf8)) }
        #expect(repeated(#"{"a": 1, "a": 2}"#) == "a")
        #expect(repeated(#"{"a": {"b": 1, "b": [1]}}"#) == "b")
        #expect(repeated(#"[{"a": 1}, {"a": 2}]"#) == nil)
        #expect(repeated(#"{"a": {"a": 1}}"#) == nil)
        #expect(repeated(#"{"a": "{\"a\": 1, \"a\": 2}", "b": "a"}"#) == nil)
        #expect(repeated(#"{"\u00e9": 1, "é": 2}"#) == "é")
        #expect(repeated("{\"e\u{301}\": 1, \"é\": 2}") != nil)
        #expect(repeated(#"{"a\"": 1, "a": 2}"#) == nil)
        #expect(repeated(#"{"x": [1, 2, {"y": 1}], "y": 2}"#) == nil)
        #expect(repeated(#"{"#) == nil)
        #expect(repeated("") == nil)
        #expect(JSON.parse(Array(#"{"title": "a", "title": "b"}"#.utf8)) == nil)
        #expect(JSON.problem(Array(#"{"title": "a", "title": "b"}"#.utf8)) == #"the body names "title" twice"#)
        #expect(JSON.problem(Array("{".utf8)) == "the body isn't JSON")
    }
}
