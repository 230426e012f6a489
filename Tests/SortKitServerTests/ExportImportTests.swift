import Foundation
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL
@testable import SortKitServer

/// `GET …/rows.csv` (the view, streamed) and `POST /api/tables` (a CSV import), with odd and
/// hostile input.
@Suite("CSV download and import")
struct ExportImportTests {
    static let csvHeaders: HTTPFields = [.contentType: "text/csv"]

    /// A server whose downloads read 7 rows at a time, so every download spans many reads.
    static func server(exportBatch: Int = 7) async throws -> SortKitServer {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await DemoLibrary.install(in: store, count: 200)
        var limits = RequestLimits()
        limits.exportBatchRows = exportBatch
        limits.maxImportBytes = 1 << 20
        return SortKitServer(store: store, limits: limits, sortSettings: ["books": TableSortSettings(pinned: PinnedRows([5]))])
    }

    @Test("A download is the view: the same rows in the same order as the API, for sorts, presets, searches and filters, pinned rows included")
    func download() async throws {
        let server = try await Self.server()
        try await application(server).test(.router) { client in
            for query in [
                "sort=-price,title", "preset=Cheapest", "q=the&sort=author", "filter[status]=done&sort=title", "sort=title:random=9",
                "filter[author]=le+guin&filter[status]=", "sort=manual", "",
            ] {
                let (status, headers, text) = try await client.execute(uri: "/api/tables/books/rows.csv?" + query, method: .get) {
                    ($0.status, $0.headers, $0.text)
                }
                #expect(status == .ok && headers[.contentType] == "text/csv; charset=utf-8", "\(query)")
                #expect(headers[.contentDisposition] == #"attachment; filename="books.csv"; filename*=UTF-8''books.csv"#)
                let records = try CSV.parse(Array(text.utf8))
                let json = try await client.execute(uri: "/api/tables/books/rows?limit=1000&" + query, method: .get) { $0.json }
                guard case .array(let rows)? = json?["rows"] else { Issue.record("no rows for \(query)"); continue }
                let schema = try await server.store.schema(of: "books")
                #expect(records.first == schema.columns.map(\.name), "\(query): the header is the table's columns")
                #expect(records.count - 1 == rows.count && rows.count > 0, "\(query): every row of the view")
                for (record, row) in zip(records.dropFirst(), rows) {
                    guard case .integer(let id)? = row["id"] else { continue }
                    let stored = try await server.store.row(id, in: "books")
                    #expect(record == stored.cells, "\(query): row \(id) as stored, in the API's order")
                }
            }
        }
    }

    /// A table with odd cells: formulas, quotes, separators and line breaks inside cells,
    /// decomposed and other scripts' text, blanks, a 100 KB cell and numbers past 2^53.
    static let oddCSV: String = {
        let titles = [
            "=1+2", "-5", "@SUM(A1)", "+1.5e3", "\"quoted\"", "a,b", "line\nbreak", "Zoë", "Zoe\u{301}", "Örn", "ключ", "東京", "", " ",
            "\t tab", String(repeating: "é", count: 50_000),
        ]
        var lines = ["title,price,count"]
        for index in 0..<230 {
            let title = titles[index % titles.count]
            let quoted = "\"" + title.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let price = index % 11 == 0 ? "" : index % 13 == 0 ? "-\(index).5" : "\(index % 17).25"
            lines.append("\(quoted),\(price),\(index % 7 == 0 ? "9007199254740993" : String(index % 5))")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    /// The backends a database-served download is checked on.
    static let downloadBackends = ["sqlite", "postgres"].filter { $0 == "sqlite" || Service.postgres.shouldRun("downloads served from PostgreSQL") }

    @Test(
        "A download of a table served from the database (PostgreSQL: one read after the first page) is byte for byte the in-memory one",
        arguments: downloadBackends)
    func databaseServedDownload(_ backend: String) async throws {
        /// A server whose store holds `odd` in memory (budget nil) or serves it from the database (budget 1).
        func server(budget: Int?) async throws -> SortKitServer {
            let limits = IndexLimits(indexBytes: budget)
            let store: any TableStore =
                backend == "postgres"
                ? try await PostgresTableStore(
                    url: try Service.postgres.value(), schema: "dl" + UUID().uuidString.lowercased().prefix(8), queryBudget: testQueryBudget,
                    indexLimits: limits)
                : try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget, indexLimits: limits)
            // The same rows twice: "odd" with pinned rows (its download comes as rows), "plain" without (as CSV bytes).
            for name in ["odd", "plain"] {
                try await store.importCSV(Array(Self.oddCSV.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
                #expect(try await store.indexPlacement(of: name) == (budget == nil ? .memory : .database))
            }
            var requestLimits = RequestLimits()
            requestLimits.exportBatchRows = 9
            return SortKitServer(store: store, limits: requestLimits, sortSettings: ["odd": TableSortSettings(pinned: PinnedRows([40, 3, 999]))])
        }
        let memory = try await server(budget: nil), database = try await server(budget: 1)
        for table in ["odd", "plain"] {
            for query in [
                "sort=title", "sort=-price,title", "sort=count,-title&formulas=keep", "q=zoe&sort=title", "q=e&sort=-count", "filter[title]=o&sort=price",
                "sort=manual", "", "q=nothing-matches&sort=title",
                // Orders without key columns: computed in SQLite's query, as PostgreSQL scans.
                "sort=title:len,-price", "q=e&sort=price:abs,title:random=5", "sort=title:locale=sv:nocase&formulas=keep",
            ] {
                var downloads: [String] = []
                for server in [memory, database] {
                    let text = try await application(server).test(.router) { client in
                        let (status, text) = try await client.execute(uri: "/api/tables/\(table)/rows.csv?" + query, method: .get) { ($0.status, $0.text) }
                        #expect(status == .ok, "\(backend) \(query): \(text.prefix(200))")
                        return text
                    }
                    downloads.append(text)
                }
                #expect(downloads[0] == downloads[1], "\(backend) \(table) \(query): the database-served download differs from memory's")
                let records = try CSV.parse(Array(downloads[1].utf8)).count - 1
                #expect(query.contains("nothing") ? records == 0 : records > 9, "\(backend) \(table) \(query): \(records) records")
            }
        }
    }

    @Test("Imports beyond maxConcurrentImports are refused with 503 before their body is read; a slot given back lets the next one in")
    func concurrentImportLimit() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        var limits = RequestLimits()
        limits.maxConcurrentImports = 1
        let server = SortKitServer(store: store, limits: limits)
        try await application(server).test(.router) { client in
            // An import that is running holds the slot.
            #expect(server.imports.take(limit: 1))
            let (busy, json) = try await client.execute(
                uri: "/api/tables?name=second", method: .post, headers: Self.csvHeaders,
                body: ByteBuffer(string: "a\n1\n")
            ) { ($0.status, $0.json) }
            #expect(busy == .serviceUnavailable && json?["error"]?.string?.contains("an import is running") == true, "\(busy) \(String(describing: json))")
            #expect(try await store.tables().contains { $0.name == "second" } == false, "nothing imported")
            server.imports.give()
            let done = try await client.execute(
                uri: "/api/tables?name=second", method: .post, headers: Self.csvHeaders,
                body: ByteBuffer(string: "a\n1\n")
            ) { $0.status }
            #expect(done == .created)
            // Refused and failed imports give their slot back too.
            let bad = try await client.execute(
                uri: "/api/tables?name=third", method: .post, headers: Self.csvHeaders,
                body: ByteBuffer(string: "a,b\n1\n")
            ) { $0.status }
            #expect(bad == .badRequest)
            #expect(server.imports.taken == 0)
        }
    }

    @Test("Odd and hostile downloads: errors before the first byte, quoting, a name that needs escaping, a megabyte filter")
    func hostileDownloads() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        let name = "rapport \"final\"/é"
        try await store.importCSV(Array("a,b\n\"x,\"\"y\"\"\",\n\"line\nbreak\",2\n,\n".utf8), as: "q", delimiter: UInt8(ascii: ","), presets: [:])
        try await store.importCSV(Array("a\n1\n".utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
        let server = SortKitServer(store: store)
        try await application(server).test(.router) { client in
            let text = try await client.execute(uri: "/api/tables/q/rows.csv", method: .get) { $0.text }
            #expect(text == "a,b\n\"x,\"\"y\"\"\",\n\"line\nbreak\",2\n,\n")
            // A comma or quote followed by a combining mark is still quoted: the download reads
            // back as the rows it came from.
            let marks = "a,b\n\"x,\u{301}y\",\"q\"\"\u{301}\"\n"
            try await server.store.importCSV(Array(marks.utf8), as: "marks", delimiter: UInt8(ascii: ","), presets: [:])
            let download = try await client.execute(uri: "/api/tables/marks/rows.csv", method: .get) { $0.text }
            #expect(try CSV.parse(Array(download.utf8)) == [["a", "b"], ["x,\u{301}y", "q\"\u{301}"]], "\(download.debugDescription)")
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let disposition = try await client.execute(uri: "/api/tables/\(encoded)/rows.csv", method: .get) { $0.headers[.contentDisposition] }
            #expect(disposition == #"attachment; filename="rapport _final_/_.csv"; filename*=UTF-8''rapport%20%22final%22%2F%C3%A9.csv"#)
            for (uri, status, message) in [
                ("/api/tables/nope/rows.csv", HTTPResponse.Status.notFound, "nope"),
                ("/api/tables/q/rows.csv?sort=zz", .notFound, "zz"),
                ("/api/tables/q/rows.csv?sort=a:bad", .badRequest, "unknown modifier 'bad'"),
                ("/api/tables/q/rows.csv?filter[zz]=1", .badRequest, "filter[zz]: table 'q' has no such column"),
                ("/api/tables/q/rows.csv?filter[a]=" + String(repeating: "%C3%A9", count: 600_000), .badRequest, "filter[a] is 1200000 bytes long"),
            ] {
                let (got, json) = try await client.execute(uri: uri, method: .get) { ($0.status, $0.json) }
                #expect(got == status && json?["error"]?.string?.contains(message) == true, "\(uri.prefix(60)): \(got) \(String(describing: json))")
            }
        }
    }

    @Test("Import: a new table with types inferred; a bad line is named and nothing is created; a taken name is 409")
    func importCSV() async throws {
        let server = try await Self.server()
        try await application(server).test(.router) { client in
            func post(_ query: String, _ body: String, headers: HTTPFields = Self.csvHeaders) async throws -> (HTTPResponse.Status, JSON?) {
                try await client.execute(uri: "/api/tables" + query, method: .post, headers: headers, body: ByteBuffer(string: body)) { ($0.status, $0.json) }
            }
            let csv = "name,score,joined\nÉmile,10,2024-01-02\nemma,9,\nZoë,,2023-12-31\n"
            let (created, json) = try await post("?name=people", csv)
            #expect(created == .created && json?["rows"]?.int == 3 && json?["url"]?.string == "/tables/people")
            #expect(json?["columns"].map { "\($0)" }?.contains("\"integer\"") == true)
            let rows = try await client.execute(uri: "/api/tables/people/rows?sort=-score", method: .get) { $0.json?.ids }
            #expect(rows == [1, 2, 3], "ids 1…n in file order; the blank score last")
            // Odd files: a BOM, CRLF, non-ASCII headers and cells, an empty last field and no
            // final line end; a non-ASCII name; a repeated name parameter (the first counts).
            let odd = try await post("?name=donn%C3%A9es&name=other", "\u{FEFF}nom,r\u{E9}sum\u{E9}\r\n\u{C9}mile,\"a,\u{301}b\"\r\nZo\u{EB},")
            #expect(odd.0 == .created && odd.1?["rows"]?.int == 2 && odd.1?["name"]?.string == "données", "\(String(describing: odd.1))")
            let oddRows = try await client.execute(uri: "/api/tables/donn%C3%A9es/rows.csv", method: .get) { $0.text }
            #expect(try CSV.parse(Array(oddRows.utf8)) == [["nom", "résumé"], ["Émile", "a,\u{301}b"], ["Zoë", ""]], "\(oddRows.debugDescription)")
            let semicolons = try await post("?name=semi&delimiter=%3B", "a;b\n1;x\n")
            #expect(semicolons.0 == .created)
            let tab = try await post("?name=tabs&delimiter=tab", "a\tb\n1\tx\n")
            #expect(tab.0 == .created)

            let tables = { try await client.execute(uri: "/api/tables", method: .get) { $0.text } }
            for (query, body, status, message) in [
                ("?name=bad", "a,b\n1,2\n\"open,3\n", HTTPResponse.Status.badRequest, "line 3"),
                ("?name=people", "a\n1\n", .conflict, "exists already"),
                ("", "a\n1\n", .badRequest, "name the new table"),
                ("?name=%20", "a\n1\n", .badRequest, "name the new table"),
                ("?name=a%2Fb", "a\n1\n", .badRequest, "no control characters or '/'"),
                ("?name=ctl%07", "a\n1\n", .badRequest, "no control characters"),
                ("?name=" + String(repeating: "x", count: 129), "a\n1\n", .badRequest, "at most 128 characters"),
                ("?name=e" + String(repeating: "%CC%81", count: 200), "a\n1\n", .badRequest, "at most 128 characters"),
                ("?name=.", "a\n1\n", .badRequest, "can't name a table"),
                ("?name=..", "a\n1\n", .badRequest, "can't name a table"),
                ("?name=empty", "", .badRequest, "the CSV is empty"),
                ("?name=delim&delimiter=%22", "a\n1\n", .badRequest, "delimiter must be one ASCII character"),
                ("?name=dup", "a,a\n1,2\n", .badRequest, "a"),
            ] {
                let (got, json) = try await post(query, body)
                #expect(got == status && json?["error"]?.string?.contains(message) == true, "\(query.prefix(40)): \(got) \(String(describing: json))")
            }
            let listed = try await tables()
            #expect(!listed.contains(#""name":"bad""#) && !listed.contains(#""name":"empty""#), "nothing is created on error")
            // The media type, the origin and the size are checked before anything is read.
            let asJSON = try await post("?name=j", "a\n1\n", headers: jsonHeaders)
            #expect(asJSON.0 == .unsupportedMediaType)
            let evil = try await post("?name=evil", "a\n1\n", headers: [.contentType: "text/csv", .origin: "http://evil.example"])
            #expect(evil.0 == .forbidden)
            let huge = try await post("?name=huge", "a\n" + String(repeating: "1\n", count: 600_000))
            #expect(huge.0 == .contentTooLarge)
            let unnamed = try await post("", "a\n" + String(repeating: "1\n", count: 600_000))
            #expect(unnamed.0 == .badRequest, "the name is checked before the body is read")
            let after = try await tables()
            #expect(!after.contains(#""name":"j""#) && !after.contains(#""name":"evil""#) && !after.contains(#""name":"huge""#))
        }
    }

    @Test("Under an index budget an upload that doesn't fit is served from the database: GET /api/tables says so, pages and downloads agree")
    func databaseServedUpload() async throws {
        let store = try SQLiteTableStore(
            path: try temporaryDatabasePath(), queryBudget: testQueryBudget,
            indexLimits: IndexLimits(indexBytes: IndexPlacement.estimatedBytes(rows: 200, textBytes: 40_000, columns: 7)))
        try await DemoLibrary.install(in: store, count: 200)
        #expect(try await store.placeIndexes() == ["books": .memory])
        // Its indexes are made after the import (`_IndexBuilder`): held back until the pages
        // were read without them.
        store.builder.pause()
        let server = SortKitServer(store: store)
        try await application(server).test(.router) { client in
            let csv = "title,price\n" + (1...2_000).map { "Zoë’s <b>book</b> \($0),\($0 % 89)" }.joined(separator: "\n") + "\n"
            let created = try await client.execute(uri: "/api/tables?name=big", method: .post, headers: Self.csvHeaders, body: ByteBuffer(string: csv)) {
                $0.status
            }
            #expect(created == .created)
            let tables = try await client.execute(uri: "/api/tables", method: .get) { $0.json }
            let served = tables?["tables"]?.elements?.map { ($0["name"]?.string ?? "", $0["served"]?.string ?? "") }
            #expect(served?.map(\.0) == ["books", "big"] && served?.map(\.1) == ["memory", "database"], "\(String(describing: served))")
            func indexing() async throws -> [Bool?] {
                try await client.execute(uri: "/api/tables", method: .get) { $0.json }?["tables"]?.elements?.map { $0["indexing"]?.bool } ?? []
            }
            #expect(try await indexing() == [false, true])
            for indexed in [false, true] {
                // A folded search (the title matches "19", or the price is 19), sorted by two keys.
                let page = try await client.execute(uri: "/api/tables/big/rows?sort=-price,title&q=ZOE%E2%80%99S%20BOOK%2019&limit=3", method: .get) {
                    $0.json
                }
                #expect(
                    page?["filtered"]?.int == 159 && page?["rows"]?.elements?.first?["title"]?.string == "Zoë’s <b>book</b> 1957",
                    "indexed: \(indexed), \(String(describing: page))")
                let download = try await client.execute(uri: "/api/tables/big/rows.csv?sort=-title&q=book%2019", method: .get) { $0.text }
                let rows = try CSV.parse(Array(download.utf8)).dropFirst()
                #expect(rows.count == 159 && rows.first?[0] == "Zoë’s <b>book</b> 1999", "indexed: \(indexed), \(rows.prefix(2))")
                // SQLite computes an order it keeps no index for.
                let shortest = try await client.execute(uri: "/api/tables/big/rows?sort=title:len,-price&limit=1", method: .get) { $0.json }
                #expect(shortest?["rows"]?.elements?.first?["title"]?.string == "Zoë’s <b>book</b> 9", "\(String(describing: shortest))")
                if !indexed {
                    store.builder.resume()
                    try await store.buildIndexes()
                    #expect(try await indexing() == [false, false])
                }
            }
        }
    }
}

@Suite("Expect: 100-continue")
struct ContinueTests {
    /// A blocking TCP connection with a 60 s read timeout (so a missing answer fails the test
    /// instead of hanging it; the whole suite on 2 cores can take seconds to answer).
    /// A raw HTTP connection. Its reads block (with a 60-second timeout), so ``read(until:)``
    /// runs them on a thread of their own, never on the concurrency pool the server needs.
    final class Connection: @unchecked Sendable {
        let socket: Int32

        init(port: Int) throws {
            socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = withLoopbackAddress(port: port) { connect(socket, $0, $1) }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(socket) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                // MSG_NOSIGNAL: a write to a connection the server closed fails instead of
                // killing the test process with SIGPIPE.
                let count = bytes[sent...].withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                sent += count
            }
        }

        /// Whether the server closed the connection: what has arrived is read (and dropped)
        /// without waiting, until the connection's end or nothing more is there yet.
        func isClosed() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
            }
        }

        /// What arrives until `marker` has (or the timeout, or the connection's end).
        func read(until marker: String) async -> String {
            await onOwnThread { self.blockingRead(until: marker) }
        }

        private func blockingRead(until marker: String) -> String {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while !String(decoding: received, as: UTF8.self).contains(marker) {
                let count = recv(socket, &chunk, chunk.count, 0)
                // A thread of our own doesn't block signals as Dispatch's do: the SIGCHLD of
                // other tests' children interrupts the read, which then starts again.
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                received += chunk[..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    @Test("An upload that asks first gets 100 Continue before sending its body, then its answer; one that doesn't ask gets none")
    func continueBeforeBody() async throws {
        let server = try await makeServer()
        try await server.application(host: "127.0.0.1", port: 0).test(.live) { client in
            let port = try #require(client.port)
            let csv = "name,n\nÉmile,2\nAda,10\n"
            let head =
                "POST /api/tables?name=asked HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                + "Content-Type: text/csv\r\nContent-Length: \(csv.utf8.count)\r\n"
            let asking = try Connection(port: port)
            asking.send(head + "Expect: 100-Continue\r\n\r\n")
            let interim = await asking.read(until: "\r\n\r\n")
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim)")
            asking.send(csv)
            let answer = await asking.read(until: "\"rows\":2")
            #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer)")
            // Without the expectation: no interim answer, just the final one.
            let plain = try Connection(port: port)
            plain.send(head.replacingOccurrences(of: "name=asked", with: "name=plain") + "\r\n" + csv)
            let direct = await plain.read(until: "\"rows\":2")
            #expect(direct.hasPrefix("HTTP/1.1 201") && !direct.contains(" 100 "), "\(direct)")
            // Odd expectations: an unknown one is ignored (no interim answer); a repeated one
            // gets one 100.
            let unknown = try Connection(port: port)
            unknown.send(head.replacingOccurrences(of: "name=asked", with: "name=unknown") + "Expect: 200-ok\r\n\r\n" + csv)
            let ignored = await unknown.read(until: "\"rows\":2")
            #expect(ignored.hasPrefix("HTTP/1.1 201") && !ignored.contains(" 100 "), "\(ignored)")
            let repeated = try Connection(port: port)
            repeated.send(
                head.replacingOccurrences(of: "name=asked", with: "name=repeated")
                    + "Expect: 100-continue\r\nExpect: 100-continue\r\n\r\n")
            _ = await repeated.read(until: "\r\n\r\n")
            repeated.send(csv)
            let once = await repeated.read(until: "\"rows\":2")
            #expect(once.hasPrefix("HTTP/1.1 201") && !once.contains(" 100 "), "\(once)")
            // A hostile upload that asks is still refused (another origin), after its 100.
            let hostile = try Connection(port: port)
            hostile.send(
                head.replacingOccurrences(of: "Origin: http://127.0.0.1:\(port)", with: "Origin: http://evil.example")
                    .replacingOccurrences(of: "name=asked", with: "name=evil") + "Expect: 100-continue\r\n\r\n")
            // (The refusal may come before the body is sent: read both answers as they come.)
            let refusal = await hostile.read(until: "cross-origin")
            #expect(refusal.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 403"), "\(refusal)")
            // Pipelined behind a streamed download: its 100 Continue comes after the whole
            // download (the chunked body's last chunk), never inside it.
            let pipelined = try Connection(port: port)
            pipelined.send(
                "GET /api/tables/books/rows.csv?sort=title HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
                    + head.replacingOccurrences(of: "name=asked", with: "name=queued") + "Expect: 100-continue\r\n\r\n")
            let before = await pipelined.read(until: "HTTP/1.1 100 Continue\r\n\r\n")
            let download = before.components(separatedBy: "HTTP/1.1 100 Continue\r\n\r\n")[0]
            #expect(
                download.hasPrefix("HTTP/1.1 200") && download.hasSuffix("\r\n0\r\n\r\n") && download.contains("title,author"),
                "\(download.prefix(300)) … \(download.suffix(100))")
            pipelined.send(csv)
            await #expect(pipelined.read(until: "\"rows\":2").contains("HTTP/1.1 201"))
        }
        #expect(try await server.store.tables().map(\.name).sorted() == ["asked", "books", "plain", "queued", "repeated", "unknown"])
    }

    @Test("An upload whose connection ends before its Content-Length is refused and leaves no table")
    func cutUpload() async throws {
        let server = try await makeServer()
        try await server.application(host: "127.0.0.1", port: 0).test(.live) { client in
            let port = try #require(client.port)
            let csv = "name,n\nÉmile,2\nAda,10\n"
            let cut = try Connection(port: port)
            cut.send(
                "POST /api/tables?name=cut HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                    + "Content-Type: text/csv\r\nContent-Length: \(csv.utf8.count + 5_000)\r\n\r\n" + csv)
            shutdown(cut.socket, Int32(SHUT_WR))
            let answer = await cut.read(until: "}")
            // A 400 that says so (the stream's end inside the body was a 500 before).
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("the body ended after 23 of the 5023 bytes"), "\(answer)")
            let listed = try await client.execute(uri: "/api/tables", method: .get) { String(buffer: $0.body) }
            #expect(listed.contains(#""name":"books""#) && !listed.contains(#""name":"cut""#), "\(listed)")
        }
    }
}
