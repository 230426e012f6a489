import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// `sortkit serve --postgres PRIMARY --read-replica URL`: reads from a streaming standby, writes
/// to the primary, a server's own writes visible to its next read, reads going on without the
/// primary; directly and through PgBouncer in transaction mode. `.ci/pg.sh` starts the standby
/// (`pg_basebackup -R`) and PgBouncer; without them the suite is skipped with a SKIPPED line.
@Suite(
    "Read replicas", .needs(.postgres, for: "read replicas"), .needs(.postgresStandby, for: "read replicas"),
    .needs(.pgbouncer, for: "read replicas through PgBouncer"), .serialized)
struct ReplicaServerTests {
    static func csv(_ rows: Int) -> [UInt8] {
        Array(("title,author,price\n" + (1...rows).map { "Book \($0),Author \($0 % 7),\($0 % 50).5\n" }.joined()).utf8)
    }

    /// `url` with its database replaced by `database`.
    static func url(_ url: String, database: String) -> String {
        String(url[..<url.lastIndex(of: "/")!]) + "/" + database
    }

    static func unique(_ prefix: String) -> String {
        prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// Runs `commands` with psql on the database at `url`.
    static func psql(_ url: String, _ commands: [String]) async throws {
        let process = try SpawnedProcess(
            executable: ProcessInfo.processInfo.environment["SORTKIT_PSQL"]!, arguments: ["-X", "-q", url] + commands.flatMap { ["-c", $0] })
        #expect(await process.exitStatus() == 0, "psql \(commands)")
    }

    /// Runs `commands` on PgBouncer's console.
    static func console(_ commands: String...) async throws {
        try await psql(url(try Service.pgbouncer.value(), database: "pgbouncer"), commands)
    }

    /// The ids of `uri`'s page.
    static func ids(_ client: some TestClientProtocol, _ uri: String) async throws -> [Int64] {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == .ok, "\(uri): \(response.text)")
            return response.json?.ids ?? []
        }
    }

    static func rename(_ client: some TestClientProtocol, _ table: String, _ id: Int64, _ title: String) async throws {
        try await client.execute(
            uri: "/api/tables/\(table)/rows/\(id)", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: #"{"title": "\#(title)"}"#)
        ) { #expect($0.status == .ok, "\($0.text)") }
    }

    @Test("Two servers on a primary and its standby: reads from the standby, each server's writes in its next read, the other's soon after")
    func twoServers() async throws {
        let primary = try Service.postgres.value(), standby = try Service.postgresStandby.value()
        let schema = Self.unique("rep_")
        let a = try await PostgresTableStore(url: primary, schema: schema, queryBudget: testQueryBudget, readReplicas: [standby])
        let b = try await PostgresTableStore(url: primary, schema: schema, queryBudget: testQueryBudget, readReplicas: [standby])
        try await a.importCSV(Self.csv(300), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        try await application(SortKitServer(store: a)).test(.router) { first in
            try await application(SortKitServer(store: b)).test(.router) { second in
                for round in 1...12 {
                    let (writer, other) = round.isMultiple(of: 2) ? (first, second) : (second, first)
                    try await Self.rename(writer, "books", Int64(round), "Round\(round)x")
                    // Its own write, in the very next read: the read waited for the standby.
                    #expect(try await Self.ids(writer, "/api/tables/books/rows?q=round\(round)x") == [Int64(round)], "round \(round)")
                    // The other server's, once the standby has replayed it.
                    var seen: [Int64] = []
                    for _ in 0..<250 where seen != [Int64(round)] {
                        seen = try await Self.ids(other, "/api/tables/books/rows?q=round\(round)x")
                        if seen != [Int64(round)] { try await Task.sleep(for: .milliseconds(20)) }
                    }
                    #expect(seen == [Int64(round)], "round \(round) on the other server")
                }
                // A write through one server, the manual order read through the other.
                try await first.execute(
                    uri: "/api/tables/books/rows/7/move", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"before": 1}"#)
                ) { #expect($0.status == .ok, "\($0.text)") }
                #expect(try await Self.ids(first, "/api/tables/books/rows?sort=manual&limit=2") == [7, 1])
            }
        }
        // Most reads on the standby (under a loaded machine's stalls a lease can outlast the
        // replica wait, which leaves the standby out for a while: still correct, from the primary).
        let reads = (a._replicaReads, b._replicaReads)
        #expect(reads.0.replica > 0 && reads.1.replica > 0, "reads on the standby: \(reads)")
        await a.close()
        await b.close()
    }

    @Test("A standby that stopped replaying: a server's own write is read from the primary, the standby's readers catch up later")
    func replicaBehind() async throws {
        let primary = try Service.postgres.value(), standby = try Service.postgresStandby.value()
        let schema = Self.unique("behind_")
        let writer = try await PostgresTableStore(
            url: primary, schema: schema, queryBudget: testQueryBudget, readReplicas: [standby], replicaWait: .milliseconds(300))
        let reader = try await PostgresTableStore(url: primary, schema: schema, queryBudget: testQueryBudget, readReplicas: [standby])
        try await writer.importCSV(Self.csv(100), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        try await application(SortKitServer(store: writer)).test(.router) { first in
            try await application(SortKitServer(store: reader)).test(.router) { second in
                // The reader has the table once the standby has replayed the import.
                var seen: [Int64] = []
                for _ in 0..<250 where seen.count != 3 {
                    seen = (try? await Self.ids(second, "/api/tables/books/rows?limit=3")) ?? []
                    if seen.count != 3 { try await Task.sleep(for: .milliseconds(20)) }
                }
                try await Self.replay(standby, "pg_wal_replay_pause()")
                do {
                    try await Self.rename(first, "books", 2, "Paused")
                    #expect(try await Self.ids(first, "/api/tables/books/rows?q=paused") == [2], "its own write, from the primary")
                    // Read from the primary because the standby was behind (or, on a loaded
                    // machine, gave no connection in time: left out, the primary all the same).
                    #expect(writer._replicaReads.behind + writer._replicaReads.unreachable >= 1, "\(writer._replicaReads)")
                    #expect(try await Self.ids(second, "/api/tables/books/rows?q=paused") == [], "the standby hasn't replayed it")
                } catch {
                    try await Self.replay(standby, "pg_wal_replay_resume()")
                    throw error
                }
                try await Self.replay(standby, "pg_wal_replay_resume()")
                for _ in 0..<250 where seen != [2] {
                    seen = try await Self.ids(second, "/api/tables/books/rows?q=paused")
                    if seen != [2] { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(seen == [2], "replayed")
            }
        }
        await writer.close()
        await reader.close()
    }

    /// Pauses or resumes the standby's replay (`.ci/pg.sh` grants both functions to the test role).
    static func replay(_ standby: String, _ call: String) async throws {
        try await psql(standby, ["SELECT \(call)"])
    }

    @Test("A replica that can't be reached: reads go to the primary, and the replica is left out for a while")
    func replicaUnreachable() async throws {
        let primary = try Service.postgres.value()
        // Port 1: nothing listens there.
        let closed = Self.url(primary, database: "ci").replacingOccurrences(of: #":\d+/"#, with: ":1/", options: .regularExpression)
        let store = try await PostgresTableStore(
            url: primary, schema: Self.unique("down_"), queryBudget: testQueryBudget, readReplicas: [closed],
            replicaWait: .milliseconds(500))
        try await store.importCSV(Self.csv(50), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
        let started = ContinuousClock.now
        try await application(SortKitServer(store: store)).test(.router) { client async throws in
            for _ in 0..<10 { #expect(try await Self.ids(client, "/api/tables/books/rows?sort=title&limit=2") == [1, 2]) }
        }
        #expect(store._replicaReads.unreachable == 1 && store._replicaReads.replica == 0, "\(store._replicaReads)")
        #expect(ContinuousClock.now - started < .seconds(20), "one wait of 5 s, then the primary")
        await store.close()
    }

    @Test("With the primary lost, reads go on from the standby and writes answer 503 within the connection wait")
    func primaryLost() async throws {
        // The primary through PgBouncer under a name this test alone uses, so cutting it off
        // (DISABLE, KILL) leaves the other tests' primary alone; the standby directly.
        let bouncer = try Service.pgbouncer.value()
        let standby = Self.url(try Service.postgresStandby.value(), database: "ci_bouncer")
        let store = try await PostgresTableStore(
            url: Self.url(bouncer, database: "ci_bouncer_lost"), queryBudget: testQueryBudget, readReplicas: [standby],
            connectionWait: .seconds(10))
        let table = Self.unique("lost_")
        try await store.importCSV(Self.csv(200), as: table, delimiter: UInt8(ascii: ","), presets: [:])
        try await application(SortKitServer(store: store)).test(.router) { client in
            try await Self.rename(client, table, 3, "Before the loss")
            #expect(try await Self.ids(client, "/api/tables/\(table)/rows?q=before+the+loss") == [3])
            try await Self.console("DISABLE ci_bouncer_lost", "KILL ci_bouncer_lost")
            do {
                #expect(try await Self.ids(client, "/api/tables/\(table)/rows?q=before+the+loss") == [3])
                #expect(try await Self.ids(client, "/api/tables/\(table)/rows?sort=-price,title&limit=3").count == 3)
                try await client.execute(uri: "/api/tables", method: .get) { #expect($0.status == .ok, "\($0.text)") }
                let started = ContinuousClock.now
                try await client.execute(
                    uri: "/api/tables/\(table)/rows/4", method: .patch, headers: jsonHeaders, body: ByteBuffer(string: #"{"title": "After"}"#)
                ) { response in
                    #expect(response.status == .serviceUnavailable, "\(response.text)")
                    #expect(response.text.contains("can't be reached") && !response.text.contains("UPDATE"), "\(response.text)")
                }
                #expect(ContinuousClock.now - started < .seconds(40), "a write waits for the connection wait, not the pool's minute")
                // Reads still go on after the failed write.
                #expect(try await Self.ids(client, "/api/tables/\(table)/rows?q=before+the+loss") == [3])
            } catch {
                try await Self.console("RESUME ci_bouncer_lost", "ENABLE ci_bouncer_lost")
                throw error
            }
            try await Self.console("RESUME ci_bouncer_lost", "ENABLE ci_bouncer_lost")
        }
        #expect(store._replicaReads.replica > 0, "\(store._replicaReads)")
        await store.close()
    }

    @Test("Through PgBouncer in transaction mode: imports, writes, moves and pages on both stores' paths, reads on the standby")
    func throughPgBouncer() async throws {
        let bouncer = try Service.pgbouncer.value()
        // Two replicas, taken in turn: the standby through PgBouncer and directly.
        let standbys = [Self.url(bouncer, database: "ci_bouncer_standby"), Self.url(try Service.postgresStandby.value(), database: "ci_bouncer")]
        let store = try await PostgresTableStore(url: bouncer, queryBudget: testQueryBudget, readReplicas: standbys)
        // The SQL path (no in-memory index): pages run `SET LOCAL statement_timeout` in their
        // transaction, which transaction pooling keeps to one server connection.
        let sql = try await PostgresTableStore(url: bouncer, inMemoryIndex: false, queryBudget: testQueryBudget, readReplicas: standbys)
        let table = Self.unique("bouncer_")
        try await store.importCSV(Self.csv(300), as: table, delimiter: UInt8(ascii: ","), presets: [:])
        // Concurrent writes to one table: each transaction holds one server connection, and
        // none deadlocks (they did, and PostgreSQL's retries took minutes, before the catalog
        // row was locked for writing first).
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Row 1 is "Concurrent p", row 16 "Concurrent a".
            for id in Int64(1)...16 {
                let letter = String(UnicodeScalar(UInt8(ascii: "q") - UInt8(id)))
                group.addTask { try await store.update(id, in: table, set: ["title": "Concurrent \(letter)"]) }
            }
            try await group.waitForAll()
        }
        #expect(ContinuousClock.now - started < .seconds(30), "16 concurrent updates")
        try await application(SortKitServer(store: store)).test(.router) { client in
            #expect(try await Self.ids(client, "/api/tables/\(table)/rows?q=concurrent&sort=title&limit=3") == [16, 15, 14])
            try await client.execute(
                uri: "/api/tables/\(table)/rows/9/move", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"before": 2}"#)
            ) { #expect($0.status == .ok, "\($0.text)") }
            #expect(try await Self.ids(client, "/api/tables/\(table)/rows?sort=manual&limit=3") == [1, 9, 2])
        }
        try await application(SortKitServer(store: sql)).test(.router) { client async throws in
            #expect(try await Self.ids(client, "/api/tables/\(table)/rows?sort=manual&limit=3") == [1, 9, 2])
            #expect(try await Self.ids(client, "/api/tables/\(table)/rows?q=concurrent&sort=-title&limit=2") == [1, 2])
        }
        #expect(store._replicaReads.replica > 0 && sql._replicaReads.replica > 0, "\(store._replicaReads) \(sql._replicaReads)")
        try await store.dropTable(table)
        await store.close()
        await sql.close()
    }
}

/// Several servers starting at once on one empty database each install the demo library.
@Suite("Servers starting together")
struct DemoInstallTests {
    @Test("Concurrent installs of the demo library: one table, no error")
    func concurrentInstalls() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await DemoLibrary.install(in: store, count: 400) } }
            try await group.waitForAll()
        }
        #expect(try await store.tables().map(\.name) == ["books"])
        #expect(try await store.page(of: "books", PageRequest(limit: 0)).total == 400)
    }
}
