import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// A new SQLite file's path in a folder of its own.

func temporaryDatabasePath() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-server-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("db.sqlite").path
}

/// A server over a fresh database holding the demo library (200 books).
func makeServer(books: Int = 200) async throws -> SortKitServer {
    let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
    try await DemoLibrary.install(in: store, count: books)
    return SortKitServer(store: store)
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: JSON? { JSON.parse(Array(buffer: body)) }
}

extension JSON {
    var ids: [Int64] {
        guard case .array(let rows)? = self["rows"] ?? self["data"] else { return [] }
        return rows.compactMap { if case .integer(let id)? = $0["id"] { id } else { nil } }
    }
    var int: Int64? { if case .integer(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var elements: [JSON]? { if case .array(let values) = self { values } else { nil } }
}

/// The header a JSON write needs (415 without it).
let jsonHeaders: HTTPFields = [.contentType: "application/json"]

func application(_ server: SortKitServer) -> some ApplicationProtocol {
    Application(router: server.router())
}

@Suite("JSON API")
struct APITests {
    @Test("Cells in JSON are typed as the column sorts them; text that doesn't parse stays text")
    func typedCells() {
        #expect(JSON.cell(" 42 ", type: .integer) == .integer(42))
        #expect(JSON.cell("4.5", type: .integer) == .string("4.5"))
        #expect(JSON.cell("9223372036854775808", type: .integer) == .string("9223372036854775808"), "past Int64")
        #expect(JSON.cell("2.5", type: .float) == .number(2.5))
        #expect(JSON.cell("1e400", type: .float) == .string("1e400"), "not a finite number")
        #expect(JSON.cell("TRUE", type: .bool) == .bool(true))
        #expect(JSON.cell("false", type: .bool) == .bool(false))
        #expect(JSON.cell("maybe", type: .bool) == .string("maybe"), "not false")
        #expect(JSON.cell("2026-11-26", type: .date) == .string("2026-11-26"))
        for blank in ["", "  ", "\t"] { #expect(JSON.cell(blank, type: .integer) == .null) }
        #expect(JSON.cell(" b ", type: .string) == .string(" b "))
    }

    @Test("Rows: sort, preset, search, limit and offset, as the store orders them")
    func rows() async throws {
        let server = try await makeServer()
        let store = server.store
        try await application(server).test(.router) { client in
            try await client.execute(uri: "/api/tables/books/rows?sort=-price,title&limit=5&offset=2", method: .get) { response in
                #expect(response.status == .ok)
                let expected = try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "-price,title")), offset: 2, limit: 5))
                #expect(response.json?.ids == expected.rows.map(\.id))
                #expect(response.json?["total"]?.int == 200 && response.json?["filtered"]?.int == 200)
            }
            try await client.execute(uri: "/api/tables/books/rows?preset=Status&q=zola+the&limit=3", method: .get) { response in
                let expected = try await store.page(of: "books", PageRequest(order: .spec(DemoLibrary.presets["Status"]!), search: "zola the", limit: 3))
                #expect(response.json?.ids == expected.rows.map(\.id))
                #expect(response.json?["filtered"]?.int == Int64(expected.filtered))
                // Columns in schema order, the id first.
                let text = response.text
                let positions = ["{\"id\":", "\"title\":", "\"author\":", "\"status\":", "\"price\":", "\"published\":"]
                    .map { text.range(of: $0)?.lowerBound }
                #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted(), "\(text)")
            }
            try await client.execute(uri: "/api/tables/books/rows?limit=100000", method: .get) { response in
                #expect(response.json?.ids.count == 200) // clamped to the cap (1,000), all 200 rows
            }
        }
    }

    @Test("Cursor pages concatenate to the full order; sort=manual reads My order")
    func cursorPaging() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            let all = try await client.execute(uri: "/api/tables/books/rows?sort=author,-published&limit=1000", method: .get) { $0.json?.ids ?? [] }
            var seen: [Int64] = []
            var uri = "/api/tables/books/rows?sort=author,-published&limit=64"
            while true {
                let json = try await client.execute(uri: uri, method: .get) { $0.json }
                seen += json?.ids ?? []
                guard let next = json?["next"]?.string else { break }
                uri = "/api/tables/books/rows?sort=author,-published&limit=64&after=" + URLText.query(next)
            }
            #expect(seen == all && all.count == 200)
            let manual = try await client.execute(uri: "/api/tables/books/rows?sort=manual&limit=3", method: .get) { $0.json?.ids }
            #expect(manual == [1, 2, 3])
        }
    }

    @Test("Bad input is a 400 or 404 JSON error that names the problem")
    func errors() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("/api/tables/books/rows?limit=-1", .badRequest, "limit must be a whole number"),
                ("/api/tables/books/rows?offset=ten", .badRequest, "offset must be a whole number"),
                ("/api/tables/books/rows?offset=9223372036854775807", .badRequest, "offset must be at most"),
                ("/api/tables/books/rows?offset=99999999999999999999999", .badRequest, "offset must be a whole number"),
                ("/api/tables/books/rows?sort=title:shiny", .badRequest, "shiny"),
                ("/api/tables/books/rows?sort=colour", .notFound, "no column 'colour'"),
                ("/api/tables/books/rows?preset=Fancy", .badRequest, "unknown preset 'Fancy'"),
                ("/api/tables/films/rows", .notFound, "unknown table 'films'"),
                ("/api/tables/books/rows?after=forged", .badRequest, "invalid cursor"),
                ("/tables/films", .notFound, "unknown table"),
            ]
            for (uri, status, message) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    #expect(response.json?["error"]?.string?.contains(message) == true, "\(uri): \(response.text)")
                }
            }
            // A page number far past the end shows the last page, without overflow.
            try await client.execute(uri: "/tables/books?page=9223372036854775807&size=500", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("page 1 of 1"), "\(response.text.suffix(600))")
            }
        }
    }

    @Test("Add, edit, delete and move rows; validation messages; cross-origin writes are refused")
    func writes() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            let body = ByteBuffer(string: #"{"title": "<script>alert(1)</script>", "price": 1.5, "status": "todo"}"#)
            let id = try await client.execute(uri: "/api/tables/books/rows", method: .post, headers: jsonHeaders, body: body) { response in
                #expect(response.status == .created)
                #expect(response.json?["price"] == .number(1.5))
                return response.json?["id"]?.int
            }
            #expect(id == 201)
            try await client.execute(uri: "/api/tables/books/rows/201", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: #"{"price": "cheap"}"#))
            { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["error"]?.string == "column 'price' needs a float, got 'cheap'")
            }
            try await client.execute(uri: "/api/tables/books/rows/201", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: #"{"price": 2}"#)) {
                response in
                // An integral value of a float column stays exact: 2 (#35; the same JSON number as 2.0).
                #expect(response.status == .ok && response.text.contains(#""price":2"#) && !response.text.contains(#""price":2.0"#))
            }
            try await client.execute(uri: "/tables/books?q=alert", method: .get) { response in
                #expect(response.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(!response.text.contains("<script>alert"))
            }
            for (uri, destination) in [
                ("/api/tables/books/rows/201/move", #"{"toIndex": 0}"#),
                ("/api/tables/books/rows/3/move", #"{"before": 1}"#),
                ("/api/tables/books/rows/2/move", #"{"after": 201}"#),
            ] {
                try await client.execute(uri: uri, method: .post, headers: jsonHeaders, body: ByteBuffer(string: destination)) { #expect($0.status == .ok) }
            }
            let manual = try await client.execute(uri: "/api/tables/books/rows?sort=manual&limit=4", method: .get) { $0.json?.ids }
            #expect(manual == [201, 2, 3, 1])
            try await client.execute(uri: "/api/tables/books/rows/2/move", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"after": 9999}"#)) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/tables/books/rows/2/move", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"up": 1}"#)) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/tables/books/rows/201", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/tables/books/rows/201", method: .delete) { #expect($0.status == .notFound) }
            for headers: HTTPFields in [[.origin: "http://evil.example"], [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]] {
                try await client.execute(uri: "/api/tables/books/rows/1", method: .delete, headers: headers) { response in
                    #expect(response.status == .forbidden)
                }
            }
            try await client.execute(uri: "/api/tables/books/rows/1", method: .delete, headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]) {
                #expect($0.status == .noContent)
            }
        }
    }
}

@Suite("Pages")
struct PageTests {
    @Test("The table page works without JavaScript: aria-sort, sort links, search form, pager")
    func tablePage() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.text.contains(#"<a href="/tables/books">books</a>"#))
            }
            try await client.execute(uri: "/tables/books?sort=-price,title&size=10&page=2", method: .get) { response in
                let html = response.text
                #expect(response.status == .ok)
                #expect(html.contains(#"aria-sort="descending" data-column="price""#))
                #expect(html.contains(#"aria-sort="none" data-column="author""#))
                // Clicking price again flips it; shift-clicking author adds it as a key.
                #expect(html.contains(#"href="/tables/books?sort=price,title&amp;size=10""#))
                #expect(html.contains(#"data-add-href="/tables/books?sort=-price,title,author&amp;size=10""#))
                #expect(html.contains("rows 11–20 of 200"))
                #expect(html.contains(#"price<span class="ind" aria-hidden="true">▼1</span>"#))
                #expect(html.contains(#"title<span class="ind" aria-hidden="true">▲2</span>"#))
                #expect(html.contains(#"<form class="controls" id="controls" method="get" action="/tables/books">"#))
                // A filter box under each header, in the controls form; the download of this view.
                #expect(
                    html.contains(
                        #"<input type="search" form="controls" class="filter" name="filter[author]" value="" placeholder="Filter" aria-label="Filter author" autocomplete="off">"#
                    ))
                #expect(html.contains(#"<a class="download" href="/api/tables/books/rows.csv?sort=-price,title&amp;size=10" download>Download CSV</a>"#))
                // Selection: a grid with a checkbox per row and one for all matching rows.
                #expect(html.contains(#"<table class="grid" role="grid" aria-multiselectable="true">"#))
                #expect(html.contains(#"aria-label="Select all 200 matching rows""#))
                #expect(
                    html.contains(#"aria-selected="false"><td class="select"><input type="checkbox" class="select-row" tabindex="-1" aria-label="Select row "#))
                #expect(!html.contains("move-here"))
            }
            try await client.execute(uri: "/tables/books?q=zzzz-no-match", method: .get) { response in
                #expect(response.text.contains(#"<td class="empty" colspan="7">No rows match.</td>"#))
                #expect(response.text.contains(#"aria-label="Select all 0 matching rows""#))
            }
            try await client.execute(uri: "/tables/books?preset=My+order", method: .get) { response in
                #expect(response.text.contains(#"draggable="true""#))
                #expect(response.text.contains(#"aria-label="Move the selected rows after row "#))
                #expect(response.text.contains("<option selected>My order</option>"))
            }
            try await client.execute(uri: "/tables/books", method: .get) { response in
                // The status header sorts in declared order, not alphabetically.
                #expect(response.text.contains("?sort=" + URLText.query("status:enum=todo|reading|done|abandoned") + "\""))
            }
            try await client.execute(uri: "/assets/app.mjs", method: .get) { response in
                #expect(response.status == .ok && response.text.contains("addEventListener"))
            }
            // Every module the entry imports, directly or not, is served as JavaScript (a module
            // script with another type is refused by the browser).
            var pending = ["app.mjs"], served: Set<String> = []
            while let module = pending.popLast() {
                guard served.insert(module).inserted else { continue }
                let text = try await client.execute(uri: "/assets/" + module, method: .get) { response in
                    #expect(response.status == .ok, "\(module)")
                    #expect(response.headers[.contentType] == "text/javascript; charset=utf-8", "\(module)")
                    return response.text
                }
                let imports = try Regex(#"(?:from|import) "\./([a-z-]+\.mjs)""#)
                pending += text.matches(of: imports).compactMap { $0.output[1].substring.map(String.init) }
            }
            #expect(served.count >= 8 && served.contains("selection.mjs"), "\(served.sorted())")
            // Only plain names with a served extension: not the contract, the old script, nor
            // anything that could reach outside the folder.
            for name in ["CONTRACT.md", "app.js", "App.mjs", ".mjs", "app.mjs.map", "a.b.mjs", "%2e%2e%2fPackage.swift", "..%2FPackage.swift", "app%2Emjs"] {
                try await client.execute(uri: "/assets/" + name, method: .get) { response in
                    #expect(response.status == .notFound, "\(name)")
                }
            }
        }
    }
}

@Suite("One catalog read per request")
struct CatalogReadTests {
    /// Runs `body` and returns how many times it read a table's catalog entry.
    func catalogReads(_ body: () async throws -> Void) async throws -> Int {
        let reads = _CatalogReads()
        try await _CatalogReads.$counter.withValue(reads) { try await body() }
        return reads.count
    }

    @Test("A JSON page, an HTML page, a DataTables page and a download each read the catalog once, pins and SQL orders too")
    func once() async throws {
        let server = try await makeServer(books: 120)
        let api = APIHandlers(server: server)
        func view(_ query: String) throws -> ViewQuery {
            try ViewQuery(FormParameters(query, limit: server.limits.maxParameters), limits: server.limits)
        }
        // The index is built first, so the reads counted are the requests' own.
        _ = try await api.rows("books", query: view("sort=title"))
        for query in ["sort=title", "sort=-price,title&q=the", "preset=manual", "sort=title&offset=40"] {
            #expect(try await catalogReads { _ = try await api.rows("books", query: view(query)) } == 1, "\(query)")
        }
        #expect(try await catalogReads { _ = try await Pages(server: server).table("books", query: view("sort=-price")) } == 1)
        let form = FormParameters("draw=1&start=0&length=10&columns%5B0%5D%5Bdata%5D=title&order%5B0%5D%5Bcolumn%5D=0")
        #expect(try await catalogReads { _ = try await api.dataTables("books", form: form) } == 1)
        #expect(try await catalogReads { _ = try await api.csv("books", query: view("sort=title")) } == 1)
        // Pinned rows are read as rows of the table already read.
        let pinning = APIHandlers(server: SortKitServer(store: server.store, sortSettings: ["books": TableSortSettings(pinned: PinnedRows([5, 9]))]))
        #expect(try await catalogReads { _ = try await pinning.rows("books", query: view("sort=title")) } == 1)
        // A write is counted too: its own read, not a second one.
        #expect(try await catalogReads { _ = try await server.store.move(3, in: "books", to: .after(1)) } == 1)
    }
}
