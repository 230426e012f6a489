import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL
@testable import SortKitServer

/// The server trusts nothing, second pass (#34): escaping that survives grapheme clusters,
/// cross-site reads, formula-safe downloads, wide imports, Host names, trickled bodies and
/// table names. Each test is a finding of the review that the server got wrong.
@Suite("Trust, second pass")
struct TrustTests {
    static let hostileCell = "\u{600}<img src=x onerror=alert(document.domain) \u{600}>"
    static let hostileColumn = "\u{600}<img src=x onerror=alert(2) \u{600}>"
    static let joinedQuote = "x\"\u{301} autofocus onfocus=alert(3) \"\u{301}"
    static let rawQuoteAttribute = "\"\u{301} autofocus"

    @Test("A < or \" joined to a mark is escaped on the pages and in the DataTables cells")
    func joinedMarks() async throws {
        let server = try await makeServer()
        // Quotes doubled by scalar: Foundation's replacingOccurrences matches Characters and
        // would miss the quote a mark joins.
        let quoted = String(String.UnicodeScalarView(Self.joinedQuote.unicodeScalars.flatMap { $0 == "\"" ? [$0, $0] : [$0] }))
        let csv = "title,\"\(Self.hostileColumn)\"\n\(Self.hostileCell),1\n\"\(quoted)\",2\n"
        try await server.store.importCSV(Array(csv.utf8), as: "evil", delimiter: UInt8(ascii: ","), presets: [:])
        try await application(server).test(.router) { client in
            for uri in ["/", "/tables/evil", "/tables/evil?sort=title", "/tables/evil?q=img", "/tables/evil?filter%5Btitle%5D=x"] {
                let html = try await client.execute(uri: uri, method: .get) { $0.text }
                #expect(!html.contains("<img"), "\(uri): a raw <img>")
                let rawQuote = html.contains(Self.rawQuoteAttribute)
                #expect(!rawQuote, "\(uri): a raw quote before the mark")
            }
            let page = try await client.execute(uri: "/tables/evil", method: .get) { $0.text }
            #expect(page.contains("\u{600}&lt;img src=x onerror=alert(document.domain) \u{600}&gt;"))
            // DataTables renders `data` as HTML: every string cell arrives escaped.
            let reply = try await client.execute(uri: "/datatables/evil?draw=1&columns%5B0%5D%5Bdata%5D=title", method: .get) { $0.json }
            guard case .array(let rows)? = reply?["data"] else { Issue.record("no data"); return }
            let cells = rows.compactMap { $0["title"]?.string }
            #expect(cells.count == 2)
            for cell in cells {
                #expect(!cell.contains("<") && !cell.contains(">") && !cell.contains("\""), "\(cell.unicodeScalars.map { $0.value })")
            }
        }
    }

    @Test("Every page template names the escaping content type first and has no unescaped value")
    func templatesEscape() throws {
        let folder = PageTemplates.templatesDirectory()
        let names = try PageTemplates.templateNames(in: folder)
        #expect(names.count >= 3)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name + ".mustache"), encoding: .utf8)
            #expect(text.hasPrefix(PageTemplates.pragma), "\(name).mustache must start with \(PageTemplates.pragma)")
            #expect(!text.contains("{{{") && !text.contains("{{&"), "\(name).mustache writes a value unescaped")
        }
        // And the content type is SortKit's scalar-safe one, not swift-mustache's HTML.
        let rendered = PageTemplates.shared.render(IndexModel(title: "\u{600}<b>", tables: []), template: "index")
        #expect(rendered.contains("<title>\u{600}&lt;b&gt;</title>"))
    }

    @Test("DELETE /api/tables/{table}: the table goes, all of it, under the write rules; its id is never reused")
    func dropTable() async throws {
        let path = try temporaryDatabasePath()
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        try await DemoLibrary.install(in: store, count: 20)
        try await store.importCSV(Array("a,b\n1,x\n2,y\n".utf8), as: "doomed", delimiter: UInt8(ascii: ","), presets: [:])
        // A second process on the same file has the table's index loaded.
        let other = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        #expect(try await other.page(of: "doomed", PageRequest(order: .spec(SortSpec(parsing: "a")))).rows.map(\.cells) == [["1", "x"], ["2", "y"]])
        let server = SortKitServer(store: store)
        try await application(server).test(.router) { client in
            // Another site can't, whatever it sends.
            try await client.execute(uri: "/api/tables/doomed", method: .delete, headers: [.origin: "http://evil.example"]) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/api/tables/doomed", method: .delete, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/api/tables/doomed", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/tables/doomed", method: .delete) { response in
                #expect(response.status == .notFound && response.json?["error"]?.string?.contains("doomed") == true)
            }
            try await client.execute(uri: "/api/tables/doomed/rows", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/tables/doomed", method: .get) { #expect($0.status == .notFound) }
            #expect(try await client.execute(uri: "/", method: .get) { $0.text }.contains("doomed") == false)
            // The start page offers Delete for each table.
            #expect(try await client.execute(uri: "/", method: .get) { $0.text }.contains("class=\"delete-table"))
        }
        // A new table of the same name is new, in this process and in the other one.
        try await store.importCSV(Array("a,b\n9,z\n".utf8), as: "doomed", delimiter: UInt8(ascii: ","), presets: [:])
        #expect(try await other.page(of: "doomed", PageRequest(order: .spec(SortSpec(parsing: "a")))).rows.map(\.cells) == [["9", "z"]])
        #expect(try await store.catalog().map(\.schema.name) == ["books", "doomed"])
        // Beyond loopback a drop needs the token.
        let guarded = SortKitServer(store: store, access: .network(token: "0123456789abcdef-token", hosts: ["localhost"]))
        try await application(guarded).test(.router) { client in
            try await client.execute(uri: "/api/tables/doomed", method: .delete) { #expect($0.status == .unauthorized) }
        }
        #expect(try await store.catalog().count == 2)
    }

    @Test("Data routes and pages refuse cross-site reads that aren't top-level navigations, and say CORP same-origin")
    func crossSiteReads() async throws {
        let server = try await makeServer()
        try await application(server).test(.router) { client in
            let noCORS: HTTPFields = [
                HTTPField.Name("Sec-Fetch-Site")!: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "no-cors",
                HTTPField.Name("Sec-Fetch-Dest")!: "empty",
            ]
            let sameSite: HTTPFields = [HTTPField.Name("Sec-Fetch-Site")!: "same-site", HTTPField.Name("Sec-Fetch-Mode")!: "cors"]
            let image: HTTPFields = [
                HTTPField.Name("Sec-Fetch-Site")!: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "no-cors",
                HTTPField.Name("Sec-Fetch-Dest")!: "image",
            ]
            let frame: HTTPFields = [
                HTTPField.Name("Sec-Fetch-Site")!: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "navigate",
                HTTPField.Name("Sec-Fetch-Dest")!: "iframe",
            ]
            let oldBrowser: HTTPFields = [.origin: "http://evil.example"]
            let link: HTTPFields = [
                HTTPField.Name("Sec-Fetch-Site")!: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "navigate",
                HTTPField.Name("Sec-Fetch-Dest")!: "document",
            ]
            let ownPage: HTTPFields = [HTTPField.Name("Sec-Fetch-Site")!: "same-origin", HTTPField.Name("Sec-Fetch-Mode")!: "cors"]
            let reads = [
                "/api/tables", "/api/tables/books/rows?q=tolkien", "/api/tables/books/rows.csv?q=x",
                "/datatables/books?draw=1&columns%5B0%5D%5Bdata%5D=title&search%5Bvalue%5D=zola", "/tables/books?q=zola", "/",
            ]
            for uri in reads {
                for headers in [noCORS, sameSite, image, frame, oldBrowser] {
                    try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == .forbidden, "\(uri) \(headers)")
                        #expect(!response.text.contains("Tolkien") && !response.text.contains("title,author"))
                    }
                }
                for headers in [ownPage, [:]] {
                    try await client.execute(uri: uri, method: .get, headers: headers) { response in
                        #expect(response.status == .ok, "\(uri)")
                        #expect(response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] == "same-origin", "\(uri)")
                    }
                }
            }
            // A link from another site still opens a page and a download.
            for uri in ["/tables/books?sort=title", "/", "/api/tables/books/rows.csv"] {
                try await client.execute(uri: uri, method: .get, headers: link) { #expect($0.status == .ok, "\(uri)") }
            }
            // DataTables by POST from another site: refused (it's not a navigation either).
            try await client.execute(uri: "/datatables/books", method: .post, headers: noCORS, body: ByteBuffer(string: "draw=1")) {
                #expect($0.status == .forbidden)
            }
        }
    }

    @Test("rows.csv defuses formulas in text cells; numbers keep their sign; formulas=keep is exact")
    func formulas() async throws {
        let server = try await makeServer(books: 0)
        let csv =
            "name,n,note\n\"=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\",-5,@SUM(A1)\n\"=cmd|' /C calc'!A0\",3,+1.5e3\n"
            + "\"\tTAB\",-2.5,\"\rCR\"\nplain,7,-x\n"
        try await server.store.importCSV(Array(csv.utf8), as: "sheet", delimiter: UInt8(ascii: ","), presets: [:])
        try await application(server).test(.router) { client in
            let safe = try await client.execute(uri: "/api/tables/sheet/rows.csv", method: .get) { $0.text }
            let rows = try CSV.parse(Array(safe.utf8))
            #expect(rows[0] == ["name", "n", "note"])
            #expect(rows[1] == ["'=HYPERLINK(\"http://evil.example\",\"x\")", "-5", "'@SUM(A1)"])
            #expect(rows[2] == ["'=cmd|' /C calc'!A0", "3", "+1.5e3"])
            #expect(rows[3] == ["'\tTAB", "-2.5", "'\rCR"])
            #expect(rows[4] == ["plain", "7", "'-x"])
            let exact = try await client.execute(uri: "/api/tables/sheet/rows.csv?formulas=keep", method: .get) { $0.text }
            #expect(try CSV.parse(Array(exact.utf8)) == CSV.parse(Array(csv.utf8)))
            try await client.execute(uri: "/api/tables/sheet/rows.csv?formulas=run", method: .get) { response in
                #expect(response.status == .badRequest && response.json?["error"]?.string?.contains("formulas") == true)
            }
            // The page's Download link takes the safe default.
            let page = try await client.execute(uri: "/tables/sheet", method: .get) { $0.text }
            #expect(page.contains("href=\"/api/tables/sheet/rows.csv\"") && !page.contains("formulas="))
        }
        #expect(CSVExport.defused("-1234.50", type: .float) == "-1234.50")
        #expect(CSVExport.defused("-$1,234.50", type: .float) == "'-$1,234.50", "not a number of a float column")
        #expect(CSVExport.defused("-1+2") == "'-1+2")
        #expect(CSVExport.defused("1e5") == "1e5" && CSVExport.defused("-.5") == "-.5" && CSVExport.defused("-") == "'-")
    }

    @Test("A CSV wider than the column cap is refused before it is indexed, naming the cap and the count")
    func wideImports() async throws {
        let server = try await makeServer(books: 0)
        try await application(server).test(.router) { client in
            func post(_ name: String, columns: Int) async throws -> (HTTPResponse.Status, String) {
                let header = (0..<columns).map { "c\($0)" }.joined(separator: ",")
                let row = (0..<columns).map { "v\($0 % 7)" }.joined(separator: ",")
                return try await client.execute(
                    uri: "/api/tables?name=\(name)", method: .post, headers: [.contentType: "text/csv"],
                    body: ByteBuffer(string: header + "\n" + row + "\n" + row + "\n")
                ) {
                    ($0.status, $0.json?["error"]?.string ?? "")
                }
            }
            for count in [1_001, 501, 5_000] {
                let (status, message) = try await post("wide\(count)", columns: count)
                #expect(
                    status == .badRequest && message.contains("\(count) columns") && message.contains("most is \(TableSchema.maxColumns)"),
                    "\(count): \(status) \(message)")
            }
            let (status, message) = try await post("widest", columns: TableSchema.maxColumns)
            #expect(status == .created, "\(message)")
        }
        #expect(try await server.store.catalog().map(\.schema.name) == ["books", "widest"])
    }

    @Test("Table names: NFC; control, format and edge spaces refused; another spelling of a name is 409")
    func names() async throws {
        let server = try await makeServer(books: 5)
        try await application(server).test(.router) { client in
            func importing(_ name: String) async throws -> (HTTPResponse.Status, String) {
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
                return try await client.execute(
                    uri: "/api/tables?name=\(encoded)", method: .post, headers: [.contentType: "text/csv"],
                    body: ByteBuffer(string: "a\n1\n")
                ) { ($0.status, $0.json?["error"]?.string ?? "") }
            }
            for name in ["books\u{200B}", "\u{202E}gnp.exe", " books", "books ", "bo\u{2028}oks", "a\u{FEFF}", "x\u{E000}"] {
                let (status, message) = try await importing(name)
                #expect(status == .badRequest, "\(name.unicodeScalars.map { $0.value }): \(status) \(message)")
            }
            // Café in NFC, then in NFD: one name.
            #expect(try await importing("Caf\u{E9}").0 == .created)
            let (status, message) = try await importing("Cafe\u{301}")
            #expect(status == .conflict && message.contains("exists"), "\(message)")
            // An NFD name is stored NFC, and found by either spelling.
            #expect(try await importing("Nai\u{308}ve").0 == .created)
            #expect(try await server.store.catalog().map(\.schema.name).contains("Na\u{EF}ve"))
            try await client.execute(uri: "/api/tables/Nai%CC%88ve/rows", method: .get) { #expect($0.status == .ok) }
        }
        #expect(try await server.store.catalog().map(\.schema.name) == ["books", "Caf\u{E9}", "Na\u{EF}ve"])
    }

    @Test("The start page counts rows from the catalog: after a restart it loads no table's index")
    func startPageFromCatalog() async throws {
        let path = try temporaryDatabasePath()
        let first = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        try await DemoLibrary.install(in: first, count: 300)
        try await first.importCSV(Array("a\n1\n2\n3\n".utf8), as: "three", delimiter: UInt8(ascii: ","), presets: [:])
        let restarted = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        try await application(SortKitServer(store: restarted)).test(.router) { client in
            let html = try await client.execute(uri: "/", method: .get) { $0.text }
            #expect(html.contains("300 rows") && html.contains("3 rows"))
        }
        #expect(restarted.indexes.loadedTables == 0)
    }

    @Test("Beyond loopback only the named Host names are served (421 otherwise); the token cookie is SameSite=Strict")
    func allowedHosts() async throws {
        let plain = try await makeServer(books: 5)
        let token = "0123456789abcdef-token"
        let server = SortKitServer(store: plain.store, access: .network(token: token, hosts: ["sortkit.example", "192.168.1.5"]))
        _ = try server.application(host: "0.0.0.0", port: 0)
        try await application(server).test(.live) { client in
            let port = try #require(client.port)
            // A long read timeout: the full suite can hold both cores for a while.
            let raw = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(120)))
            raw.connect()
            for (authority, status) in [
                ("sortkit.example", HTTPResponse.Status.ok), ("SORTKIT.example:\(port)", .ok), ("192.168.1.5:8080", .ok),
                ("evil.example", .misdirectedRequest), ("127.0.0.1:\(port)", .misdirectedRequest),
                ("sortkit.example.evil.example", .misdirectedRequest),
            ] {
                let response = try await raw.execute(TestClient.Request("/api/tables", method: .get, authority: authority, headers: [:], body: nil))
                #expect(response.status == status, "\(authority)")
            }
            let visit = try await raw.execute(TestClient.Request("/?token=" + token, method: .get, authority: "sortkit.example", headers: [:], body: nil))
            #expect(visit.headers[.setCookie]?.contains("SameSite=Strict") == true)
            try await raw.shutdown()
        }
    }

    @Test("A JSON body announced over its limit is a 413 before it is read, even one cut off at exactly the limit; at the limit it is written")
    func announcedOverLimit() async throws {
        let plain = try await makeServer(books: 5)
        var limits = RequestLimits()
        limits.maxBodyBytes = 64
        let server = SortKitServer(store: plain.store, limits: limits)
        try await server.application(host: "127.0.0.1", port: 0).test(.live) { client in
            let port = try #require(client.port)
            // 64 bytes of JSON, non-ASCII included: a row the route would insert.
            let json = #"{"title":"Émile l'été","author":"Zoë","status":"todo""#
            let body = json + String(repeating: " ", count: 64 - json.utf8.count - 1) + "}"
            #expect(body.utf8.count == 64)
            func post(announcing length: Int, _ sent: String, cut: Bool) async throws -> String {
                let connection = try ContinueTests.Connection(port: port)
                connection.send(
                    "POST /api/tables/books/rows HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n" + sent)
                if cut { shutdown(connection.socket, Int32(SHUT_WR)) }
                return await connection.read(until: "}")
            }
            // Cut off at the limit, one byte short of its announced length: a 400 before.
            for (length, sent, cut) in [(65, body, true), (65, body + " ", false), (Int.max, "", true), (1 << 40, body, true)] {
                let answer = try await post(announcing: length, sent, cut: cut)
                #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("the body is over 64 bytes"), "\(length): \(answer)")
            }
            #expect(try await plain.store.page(of: "books", PageRequest(search: "zoë")).rows.isEmpty)
            // Cut off below its announced length, within the limit: a 400, nothing written.
            let short = try await post(announcing: 64, String(body.utf8.prefix(40))!, cut: true)
            #expect(short.hasPrefix("HTTP/1.1 400") && short.contains("the body ended after 40 of the 64 bytes"), "\(short)")
            let fits = try await post(announcing: 64, body, cut: false)
            #expect(fits.hasPrefix("HTTP/1.1 201"), "\(fits)")
        }
        #expect(try await plain.store.page(of: "books", PageRequest(search: "zoë")).rows.count == 1)
    }

    @Test("A body trickled into a route that answered early closes the connection at the request deadline")
    func trickledBody() async throws {
        let plain = try await makeServer(books: 5)
        var limits = RequestLimits()
        limits.requestTimeout = .seconds(5)
        let server = SortKitServer(store: plain.store, limits: limits)
        try await server.application(host: "127.0.0.1", port: 0).test(.live) { client in
            let port = try #require(client.port)
            // A route that refuses the request (415) without reading its body; the declared
            // 100 bytes then trickle in, a byte every 300 ms: 30 s, past the 5 s deadline.
            let connection = try ContinueTests.Connection(port: port)
            connection.send("POST /api/tables/books/rows HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n")
            let start = ContinuousClock.now
            var closed = false
            for _ in 0..<100 {
                connection.send("x")
                try await Task.sleep(for: .milliseconds(300))
                if connection.isClosed() {
                    closed = true
                    break
                }
            }
            #expect(closed, "the connection stayed open while the body trickled")
            #expect(ContinuousClock.now - start < .seconds(25), "closed by the deadline, not by the body's end")
            // Headers trickled the same way are cut too.
            let slow = try ContinueTests.Connection(port: port)
            var cut = false
            for byte in "GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 200) {
                slow.send(String(byte))
                try await Task.sleep(for: .milliseconds(200))
                if slow.isClosed() {
                    cut = true
                    break
                }
            }
            #expect(cut, "trickled headers kept the connection")
            // A request that arrives in time on the same kind of connection is answered.
            let quick = try ContinueTests.Connection(port: port)
            quick.send("GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            await #expect(quick.read(until: "\"tables\"").hasPrefix("HTTP/1.1 200"))
        }
    }
}
