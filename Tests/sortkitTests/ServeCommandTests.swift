import Foundation
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `sortkit serve` as processes: two servers over one PostgreSQL database, each with its own
/// in-memory index of the table, answer alike, and a write through one is seen by the next read
/// through the other. Needs `DATABASE_URL` (set by `.ci/run`); skipped with a SKIPPED line without it.
@Suite("sortkit serve processes")
struct ServeCommandTests {
    /// A running `sortkit serve`, stopped (SIGTERM, then waited for) by ``stop()``.
    final class Server: @unchecked Sendable {
        let process: SpawnedProcess
        let port: Int
        let log: URL

        /// A port from 20,000–32,000 that nothing is bound to on 127.0.0.1 now: PostgreSQL, its
        /// standby and PgBouncer in CI, and other tests' servers, listen in that range too (a
        /// random pick once landed on one: the server failed with "Address already in use").
        static func freePort() -> Int {
            for _ in 0..<200 {
                let port = Int.random(in: 20_000...32_000)
                let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard descriptor >= 0 else { continue }
                defer { close(descriptor) }
                let bound = withLoopbackAddress(port: port) { bind(descriptor, $0, $1) }
                if bound == 0 { return port }
            }
            return Int.random(in: 20_000...32_000)
        }

        init(_ arguments: [String], in folder: URL) throws {
            port = Self.freePort()
            log = folder.appendingPathComponent("server-\(port).log")
            process = try SpawnedProcess(
                executable: CommandRunner.binary.path, arguments: ["serve"] + arguments + ["--port", String(port)], directory: folder.path,
                stdout: log.path, stderr: log.path)
        }

        /// Waits until `path` answers 200: at most 180 s, for an import or a reopened table in a
        /// debug build beside CPU-heavy tests on a 2-core machine (60 s was once too short in CI).
        func waitUntilServing(_ path: String) async throws {
            for _ in 0..<1_800 {
                guard process.isRunning else { break }
                if let (_, status) = try? await get(path), status == 200 { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw CommandFailure("sortkit serve on port \(port) didn't serve \(path): \(output)")
        }

        func get(_ path: String) async throws -> (String, Int) {
            try await send(URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!))
        }

        func send(_ method: String, _ path: String, csv: String) async throws -> (String, Int) {
            try await send(method, path, body: csv, type: "text/csv")
        }

        func send(_ method: String, _ path: String, json: String) async throws -> (String, Int) {
            try await send(method, path, body: json, type: "application/json")
        }

        private func send(_ method: String, _ path: String, body: String, type: String) async throws -> (String, Int) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            request.setValue(type, forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            return try await send(request)
        }

        private func send(_ request: URLRequest) async throws -> (String, Int) {
            let (data, response) = try await URLSession.shared.data(for: request)
            return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct CommandFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("Sort settings flags: bad values are refused naming the flag; a setting for a table or column that isn't served stops the start")
    func sortSettingFlags() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cases: [([String], String)] = [
            (["--pin", "books=3,x"], "--pin books: 'x' is not a row id"),
            (["--pin", "=3"], "--pin needs TABLE=ID"),
            (["--cycle", "books:price=up"], "--cycle books:price: 'up' is not a cycle"),
            (["--cycle", "books=asc"], "--cycle needs TABLE:COLUMN=CYCLE"),
            (["--fixed", "books=a:bad"], "--fixed books: unknown modifier 'bad'"),
            (["--sorts-by", "books:title"], "--sorts-by needs TABLE:COLUMN=SPEC"),
            (["--max-sort-keys", "0"], "--max-sort-keys must be 1 or more"),
            (["--pin", "books=" + (1...101).map(String.init).joined(separator: ",")], "--pin books: at most 100 rows"),
            (["--pin", "books=" + String(repeating: "9", count: 100_000)], "is not a row id"),
            (["--fixed", "books=" + String(repeating: "a", count: 1 << 16) + ":nope"], "unknown modifier 'nope'"),
            (["--fixed", "nosuch=title", "--db", "x.sqlite", "--port", "1"], "a sort setting names table 'nosuch', which isn't served"),
            (["--cycle", "books:pages=desc", "--db", "y.sqlite", "--port", "1"], "sort settings of 'books': "),
        ]
        for (arguments, message) in cases {
            let result = try await CommandRunner.run(["serve"] + arguments, in: folder)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("--index-memory: a table that doesn't fit is served from the database's indexes and says so; bad sizes are refused naming the flag")
    func indexMemory() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("index-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for size in ["abc", "0", "-5", "12X", "99999999999T", "", "６４M"] {
            let result = try await CommandRunner.run(["serve", "--index-memory", size, "--db", "bad.sqlite", "--port", "1"], in: folder)
            #expect(result.status != 0 && result.stderr.contains("--index-memory"), "'\(size)': \(result.stderr)")
        }
        try Data("name,n\nÉmile,2\nAda,10\nzoë,1\n".utf8).write(to: folder.appendingPathComponent("people.csv"))
        // One byte: the import is served from the database (and no demo library is added to a
        // database served for its own files).
        let server = try Server(["people.csv", "--db", "people.sqlite", "--index-memory", "1"], in: folder)
        defer { server.stop() }
        try await server.waitUntilServing("/api/tables/people/rows?sort=-n")
        let (body, status) = try await server.get("/api/tables/people/rows?sort=-n&q=e")
        #expect(status == 200 && body.contains("\"filtered\":2") && body.range(of: "Émile")!.lowerBound < body.range(of: "zoë")!.lowerBound, "\(body)")
        // A term of three letters goes through the trigram index, folded.
        let (folded, _) = try await server.get("/api/tables/people/rows?q=ZOE")
        #expect(folded.contains("\"filtered\":1") && folded.contains("zoë"), "\(folded)")
        let (tables, _) = try await server.get("/api/tables")
        #expect(tables.contains("\"served\":\"database\"") && !tables.contains("\"served\":\"memory\""), "\(tables)")
        #expect(!tables.contains("\"books\""), "\(tables)")
        let log = try String(contentsOf: server.log, encoding: .utf8)
        #expect(log.contains("imported people.csv as table 'people'") && log.contains("; served from the database's indexes)"), "\(log)")
        server.stop()
        // Served again: the stored table is placed under the budget at startup.
        let again = try Server(["people.csv", "--db", "people.sqlite", "--index-memory", "1"], in: folder)
        defer { again.stop() }
        try await again.waitUntilServing("/api/tables/people/rows?sort=-n")
        let placed = try String(contentsOf: again.log, encoding: .utf8)
        #expect(placed.contains("--index-memory 1: serving 'people' from the database's indexes"), "\(placed)")
    }

    @Test("serve FILE.csv imports it and says how many rows at what rate; an empty, missing or directory FILE stops the start naming it")
    func importedFiles() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Read straight into the import's buffer: a last line without a line end, non-ASCII text.
        try Data("name,n\nÉmile,2\nAda,10\nzoë,1".utf8).write(to: folder.appendingPathComponent("people.csv"))
        let server = try Server(["people.csv", "--db", "people.sqlite"], in: folder)
        defer { server.stop() }
        try await server.waitUntilServing("/api/tables/people/rows?sort=n")
        let (body, status) = try await server.get("/api/tables/people/rows?sort=n")
        #expect(status == 200 && body.contains("\"zoë\"") && body.contains("\"total\":3"), "\(body)")
        let log = try String(contentsOf: server.log, encoding: .utf8)
        #expect(log.contains("sortkit: imported people.csv as table 'people' (2 columns, 3 rows in ") && log.contains(" rows/s)"), "\(log)")

        try Data().write(to: folder.appendingPathComponent("empty.csv"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.csv"), withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            ("empty.csv", "empty.csv: the CSV file is empty"),
            ("missing.csv", "cannot read 'missing.csv'"),
            ("folder.csv", "cannot read 'folder.csv'"),
        ]
        for (file, message) in cases {
            let result = try await CommandRunner.run(["serve", file, "--db", "other.sqlite", "--port", "1"], in: folder)
            #expect(result.status != 0 && result.stderr.contains(message), "\(file): \(result.stderr)")
        }
    }

    @Test("--log-format json: every line the process writes is one JSON object, startup and import lines included; a request's line names its route and table")
    func jsonLogs() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("jsonlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("name,n\n\"a \"\"quoted\"\"\nname\",2\n".utf8).write(to: folder.appendingPathComponent("people.csv"))
        let server = try Server(["people.csv", "--db", "people.sqlite", "--log-format", "json"], in: folder)
        try await server.waitUntilServing("/api/tables/people/rows?sort=n")
        _ = try await server.get("/api/tables/people/rows?sort=-n")
        // The startup import is counted in /metrics too.
        let (metrics, metricsStatus) = try await server.get("/metrics")
        #expect(metricsStatus == 200 && metrics.contains("sortkit_import_rows_total{table=\"people\"} 1"), "\(metrics)")
        server.stop()
        let lines = try String(contentsOf: server.log, encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!lines.isEmpty && objects.count == lines.count, "lines that aren't JSON: \(lines.filter { !$0.hasPrefix("{") })")
        #expect(objects.contains { ($0["message"] as? String)?.hasPrefix("imported people.csv") == true }, "\(lines)")
        let request = objects.first { $0["route"] as? String == "/api/tables/{table}/rows" }
        #expect(request?["table"] as? String == "people" && request?["status"] as? Int == 200 && request?["request_id"] is String, "\(lines)")
        let bad = try await CommandRunner.run(["serve", "--log-format", "xml", "--port", "1"], in: folder)
        #expect(bad.status != 0 && bad.stderr.contains("log-format"), "\(bad.stderr)")
        for grace in ["-1", "99999", "nan", ""] {
            let refused = try await CommandRunner.run(["serve", "--grace-period", grace, "--port", "1"], in: folder)
            #expect(refused.status != 0 && refused.stderr.contains("grace-period"), "--grace-period '\(grace)': \(refused.stderr)")
        }
    }

    @Test("--log-level notice writes no request lines, --no-metrics answers /metrics 404; a failed start under JSON logs is a JSON line too")
    func quietServer() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("quiet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("name,n\nÉmile,2\n".utf8).write(to: folder.appendingPathComponent("people.csv"))
        let server = try Server(
            ["people.csv", "--db", "people.sqlite", "--log-format", "json", "--log-level", "notice", "--no-metrics"], in: folder)
        try await server.waitUntilServing("/api/tables/people/rows")
        let (_, status) = try await server.get("/metrics")
        #expect(status == 404)
        server.stop()
        let lines = try String(contentsOf: server.log, encoding: .utf8).split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count && objects.contains { ($0["message"] as? String)?.hasPrefix("serving http://") == true }, "\(lines)")
        #expect(!objects.contains { $0["route"] != nil }, "request lines at --log-level notice: \(lines)")

        let failed = try await CommandRunner.run(["serve", "missing.csv", "--db", "other.sqlite", "--port", "1", "--log-format", "json"], in: folder)
        let errorLines = failed.stderr.split(separator: "\n")
        let errors = errorLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(failed.status != 0 && !errorLines.isEmpty && errors.count == errorLines.count, "\(failed.stderr)")
        #expect(errors.contains { $0["level"] as? String == "critical" && ($0["message"] as? String)?.contains("missing.csv") == true }, "\(failed.stderr)")
        let level = try await CommandRunner.run(["serve", "--log-level", "loud", "--port", "1"], in: folder)
        #expect(level.status != 0 && level.stderr.contains("log-level"), "\(level.stderr)")
    }

    @Test(
        "SIGTERM stops gracefully: no new connections, a request in flight finishes within the grace period, an upload still running after it is cut and leaves no table, exit 0"
    )
    func gracefulStop() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("graceful-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // 40,000 rows (about 1.2 MB) sent at 20 KB/s: a minute, far beyond the 1 s grace
        // period even when a loaded machine starves the server for a while after SIGTERM (at
        // 100 KB/s a CI run once received the whole body before the grace period ran out).
        var csv = "k,title\n"
        for k in 0..<40_000 { csv += "\(k),Title number \(k * 7_919 % 100_003)\n" }
        try Data(csv.utf8).write(to: folder.appendingPathComponent("slow.csv"))
        let server = try Server(["--db", "graceful.sqlite", "--grace-period", "1"], in: folder)
        try await server.waitUntilServing("/api/tables")
        let upload = try SpawnedProcess(
            executable: "/usr/bin/curl",
            arguments: [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--limit-rate", "20K", "-H", "Content-Type: text/csv",
                "--data-binary", "@slow.csv", "http://127.0.0.1:\(server.port)/api/tables?name=cut",
            ], directory: folder.path)
        try await Task.sleep(for: .milliseconds(1_500))
        let signalled = ContinuousClock.now
        server.process.terminate()
        try await Task.sleep(for: .milliseconds(200))
        // Stopped accepting: a new request is refused while the upload is still in flight.
        let refused = await (try? server.get("/api/tables")) == nil
        let status = await server.process.exitStatus()
        let stoppedAfter = ContinuousClock.now - signalled
        _ = await upload.exitStatus()
        let log = try String(contentsOf: server.log, encoding: .utf8)
        #expect(refused, "a connection made after SIGTERM was served: \(log)")
        #expect(status == 0, "exit status \(status): \(log)")
        #expect(stoppedAfter < .seconds(20), "stopped \(stoppedAfter) after SIGTERM")
        #expect(log.contains("sortkit: stopped"), "\(log)")
        // Whole or absent: the cut upload left no table, and the database opens clean.
        let store = try SQLiteTableStore(path: folder.appendingPathComponent("graceful.sqlite").path)
        #expect(try await !store.tables().map(\.name).contains("cut"))

        // A request that finishes within the grace period is served to its end.
        let again = try Server(["--db", "graceful.sqlite", "--grace-period", "30"], in: folder)
        try await again.waitUntilServing("/api/tables")
        let small = Task { try await again.send("POST", "/api/tables?name=small", csv: "k,title\n1,a\n2,b\n") }
        try await Task.sleep(for: .milliseconds(50))
        again.process.terminate()
        let reply = try? await small.value
        #expect(await again.process.exitStatus() == 0)
        if let reply {
            #expect(reply.1 == 201, "\(reply)")
            let after = try SQLiteTableStore(path: folder.appendingPathComponent("graceful.sqlite").path)
            #expect(try await after.page(of: "small", PageRequest(limit: 10)).total == 2)
        }
    }

    @Test("sortkit backup copies the database while the server serves it; the copy serves the same table; it never overwrites and names a missing database")
    func backupWhileServing() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let server = try Server(["--db", "live.sqlite"], in: folder)
        defer { server.stop() }
        try await server.waitUntilServing("/api/tables/books/rows?limit=1")
        let backup = try await CommandRunner.run(["backup", "--db", "live.sqlite", "copy.sqlite"], in: folder)
        #expect(backup.status == 0 && backup.stderr.contains("backed up live.sqlite to copy.sqlite"), "\(backup.stderr)")
        let again = try await CommandRunner.run(["backup", "--db", "live.sqlite", "copy.sqlite"], in: folder)
        #expect(again.status == 2 && again.stderr.contains("never overwrites"), "\(again.stderr)")
        let missing = try await CommandRunner.run(["backup", "--db", "absent.sqlite", "other.sqlite"], in: folder)
        #expect(missing.status == 2 && missing.stderr.contains("no database at 'absent.sqlite'"), "\(missing.stderr)")
        let (live, _) = try await server.get("/api/tables/books/rows?sort=-price,title&limit=5")
        let copy = try SQLiteTableStore(path: folder.appendingPathComponent("copy.sqlite").path)
        let page = try await copy.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "-price,title")), limit: 5))
        #expect(page.total == 3_000 && page.rows.allSatisfy { live.contains("\"id\":\($0.id),") }, "\(live.prefix(300))")
    }

    @Test("Beyond loopback, serve refuses to start without a token, and a short token, with messages that say what to do")
    func tokenRequired() async throws {
        let folder = CommandRunner.processFolder.appendingPathComponent("token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bare = try await CommandRunner.run(["serve", "--host", "0.0.0.0", "--port", "1"], in: folder)
        #expect(bare.status != 0 && bare.stderr.contains("set a token with --token or SORTKIT_TOKEN"), "\(bare.stderr)")
        let short = try await CommandRunner.run(["serve", "--host", "0.0.0.0", "--token", "abc"], in: folder)
        #expect(short.status != 0 && short.stderr.contains("at least 16 characters"), "\(short.stderr)")
        let reads = try await CommandRunner.run(["serve", "--protect-reads"], in: folder)
        #expect(reads.status != 0 && reads.stderr.contains("--protect-reads needs a token"), "\(reads.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("sortkit.sqlite").path))
    }

    @Test(
        "Two servers over one PostgreSQL agree; a write through one is read through the other",
        .needs(.postgres, for: "two sortkit serve processes over PostgreSQL"))
    func twoServersOnePostgres() async throws {
        let url = try Service.postgres.value()
        // A table name of its own, so runs never meet in the shared database.
        let table = "books_" + UUID().uuidString.prefix(8).lowercased()
        var csv = "title,author,price\n"
        for index in 0..<500 { csv += "Book \(index),Author \(index % 37),\(Double(index % 91) + 0.5)\n" }
        let folder = try CommandRunner.folder(with: ["\(table).csv": csv])
        let first = try Server(["\(table).csv", "--postgres", url, "--preset", "Cheapest=price,title"], in: folder)
        defer { first.stop() }
        try await first.waitUntilServing("/api/tables/\(table)/rows?limit=1")
        let second = try Server(["--postgres", url], in: folder)
        defer { second.stop() }
        try await second.waitUntilServing("/api/tables/\(table)/rows?limit=1")

        let reads = [
            "/api/tables/\(table)/rows?sort=-price,title&limit=10&offset=3", "/api/tables/\(table)/rows?preset=Cheapest&q=book%201&limit=5",
            "/api/tables/\(table)/rows?sort=author:nocase,-title&limit=7&offset=200",
        ]
        for path in reads {
            let (a, b) = (try await first.get(path), try await second.get(path))
            #expect(a.1 == 200 && a == b, "\(path)\n\(a.0)\n\(b.0)")
        }
        // A write through the first is seen by the next read through the second, in order and counts.
        let (created, status) = try await first.send("POST", "/api/tables/\(table)/rows", json: #"{"title": "Aardvark", "author": "Zed", "price": "0.25"}"#)
        #expect(status == 201 || status == 200, "\(created)")
        let (cheapest, _) = try await second.get("/api/tables/\(table)/rows?preset=Cheapest&limit=1")
        #expect(cheapest.contains("Aardvark"), "\(cheapest)")
        let (counted, _) = try await second.get("/api/tables/\(table)/rows?limit=0")
        #expect(counted.contains("\"total\":501"), "\(counted)")
        // And the other way: an edit through the second moves the row for the first.
        let id = try #require(created.firstMatch(of: /"id":(\d+)/).map { String($0.1) })
        let (_, edited) = try await second.send("PATCH", "/api/tables/\(table)/rows/\(id)", json: #"{"price": "999"}"#)
        #expect(edited == 200)
        let (dearest, _) = try await first.get("/api/tables/\(table)/rows?sort=-price&limit=1")
        #expect(dearest.contains("Aardvark"), "\(dearest)")
        for path in reads + ["/api/tables/\(table)/rows?sort=title&q=aard&limit=3"] {
            let (a, b) = (try await first.get(path), try await second.get(path))
            #expect(a == b, "after the writes: \(path)")
        }
    }

    @Test(
        "--read-replica: a server reading from a hot standby serves its own writes in its next reads",
        .needs(.postgres, for: "sortkit serve --read-replica"), .needs(.postgresStandby, for: "sortkit serve --read-replica"))
    func readReplica() async throws {
        let table = "replica_" + UUID().uuidString.prefix(8).lowercased()
        let folder = try CommandRunner.folder(with: ["\(table).csv": "title,price\nDune,9.99\nEmma,4.5\n"])
        let server = try Server(
            ["\(table).csv", "--postgres", try Service.postgres.value(), "--read-replica", try Service.postgresStandby.value()], in: folder)
        defer { server.stop() }
        try await server.waitUntilServing("/api/tables/\(table)/rows?limit=1")
        let output = try String(contentsOf: server.log, encoding: .utf8)
        #expect(output.contains("from PostgreSQL (reads from 1 replica)"), "\(output)")
        for round in 1...5 {
            let (_, status) = try await server.send("PATCH", "/api/tables/\(table)/rows/1", json: #"{"price": "\#(round * 100)"}"#)
            #expect(status == 200)
            let (dearest, _) = try await server.get("/api/tables/\(table)/rows?sort=-price&limit=1")
            #expect(dearest.contains(#""price":\#(round * 100)"#), "round \(round): \(dearest)")
        }
    }
}
