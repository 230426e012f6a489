import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import Testing

@testable import SortKitServer

@Suite("DataTables server-side processing")
struct DataTablesTests {
    /// The parameters DataTables 1.10+ sends, form-encoded the way jQuery does it: brackets
    /// percent-encoded, spaces as `+`.
    static func form(draw: Int, order: [(Int, String)], start: Int, length: Int, search: String, columnSearch: [Int: String] = [:]) -> String {
        var pairs: [(String, String)] = [("draw", "\(draw)")]
        for (index, name) in ["title", "author", "status", "price", "published"].enumerated() {
            pairs += [
                ("columns[\(index)][data]", name), ("columns[\(index)][name]", ""), ("columns[\(index)][searchable]", "true"),
                ("columns[\(index)][orderable]", "true"), ("columns[\(index)][search][value]", columnSearch[index] ?? ""),
                ("columns[\(index)][search][regex]", "false"),
            ]
        }
        for (position, (column, dir)) in order.enumerated() {
            pairs += [("order[\(position)][column]", "\(column)"), ("order[\(position)][dir]", dir)]
        }
        pairs += [("start", "\(start)"), ("length", "\(length)"), ("search[value]", search), ("search[regex]", "false")]
        let allowed = CharacterSet.alphanumerics.subtracting(CharacterSet(charactersIn: "[]"))
        return pairs.map { key, value in
            key.addingPercentEncoding(withAllowedCharacters: allowed)! + "="
                + value.addingPercentEncoding(withAllowedCharacters: allowed.union(CharacterSet(charactersIn: " ")))!
                .replacingOccurrences(of: " ", with: "+")
        }.joined(separator: "&")
    }

    @Test("GET form-encoded, POST form-encoded and POST JSON give the same reply as the store")
    func threeEncodings() async throws {
        let server = try await makeServer()
        let expected = try await server.store.page(
            of: "books",
            PageRequest(
                order: .spec(SortSpec(parsing: "-price,title")), search: "le guin", offset: 5, limit: 10))
        let query = Self.form(draw: 3, order: [(3, "desc"), (0, "asc")], start: 5, length: 10, search: "le guin")
        #expect(query.contains("search%5Bvalue%5D=le+guin"))
        let json =
            #"{"draw":3,"columns":[{"data":"title","name":"","searchable":true,"orderable":true,"search":{"value":"","regex":false}},{"data":"author"},{"data":"status"},{"data":"price"},{"data":"published"}],"order":[{"column":3,"dir":"desc"},{"column":0,"dir":"asc"}],"start":5,"length":10,"search":{"value":"le guin","regex":false}}"#
        try await application(server).test(.router) { client in
            let replies = [
                try await client.execute(uri: "/datatables/books?" + query, method: .get) { $0 },
                try await client.execute(
                    uri: "/datatables/books", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded; charset=UTF-8"], body: ByteBuffer(string: query)
                ) { $0 },
                try await client.execute(
                    uri: "/datatables/books", method: .post,
                    headers: [.contentType: "application/json"], body: ByteBuffer(string: json)
                ) { $0 },
            ]
            for reply in replies {
                #expect(reply.status == .ok)
                #expect(reply.json?["draw"]?.int == 3)
                #expect(reply.json?["recordsTotal"]?.int == 200)
                #expect(reply.json?["recordsFiltered"]?.int == Int64(expected.filtered))
                #expect(reply.json?.ids == expected.rows.map(\.id))
                #expect(reply.text.contains(#""DT_RowId":"row_"#))
            }
        }
    }

    @Test("Per-column search, length -1, and errors in the protocol's error field")
    func columnsAndErrors() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            let zola = Self.form(draw: 1, order: [], start: 0, length: -1, search: "", columnSearch: [1: "ZOLA"])
            let expected = try await server.store.page(of: "books", PageRequest(columnSearch: ["author": "zola"], limit: 1_000))
            try await client.execute(uri: "/datatables/books?" + zola, method: .get) { reply in
                #expect(reply.json?.ids == expected.rows.map(\.id))
                #expect(reply.json?["recordsFiltered"]?.int == Int64(expected.rows.count) && expected.rows.count > 0)
            }
            // "zola" matches no title, so a title-only search for it finds nothing.
            let titleOnly = Self.form(draw: 2, order: [], start: 0, length: 10, search: "", columnSearch: [0: "zola"])
            try await client.execute(uri: "/datatables/books?" + titleOnly, method: .get) { #expect($0.json?["recordsFiltered"]?.int == 0) }
            let badDir = Self.form(draw: 7, order: [(0, "sideways")], start: 0, length: 10, search: "")
            try await client.execute(uri: "/datatables/books?" + badDir, method: .get) { reply in
                #expect(reply.json?["draw"]?.int == 7)
                #expect(reply.json?["error"]?.string == "order[0][dir] must be asc or desc, got 'sideways'")
            }
            let badColumn = Self.form(draw: 8, order: [(9, "asc")], start: 0, length: 10, search: "")
            try await client.execute(uri: "/datatables/books?" + badColumn, method: .get) { reply in
                #expect(reply.json?["error"]?.string?.contains("order[0][column] = '9'") == true)
            }
            try await client.execute(uri: "/datatables/films?draw=1", method: .get) { #expect($0.status == .notFound) }
        }
    }
}
