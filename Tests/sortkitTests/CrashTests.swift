import Foundation
import OrderKeys
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `sortkit serve` killed with SIGKILL in the middle of a CSV import, a schema change (a preset
/// added to a stored table) and a burst of moves that forces relabels; after each kill the
/// database holds every row exactly once, every manual order is a permutation of the rows, and
/// the interrupted import or change is whole or absent. SQLite always; PostgreSQL with
/// `DATABASE_URL` (a SKIPPED line without it). Kill times are seeded: a failure prints the seed,
/// `SORTKIT_SEED=<seed>` replays the same times.
@Suite("Crash consistency (kill -9)", .serialized)
struct CrashTests {
    enum Backend: String, CaseIterable {
        case sqlite, postgres
        /// SQLite, and PostgreSQL where its database is set or required.
        static let available = allCases.filter { $0 == .sqlite || Service.postgres.shouldRun("kill -9 on PostgreSQL") }
    }

    static let rows = 40_000

    static var csv: String {
        var text = "k,title,n\n"
        for k in 0..<rows { text += "\(k),Title \(String(k * 7_919 % 100_003, radix: 36)),\(k % 97)\n" }
        return text
    }

    @Test("Import, schema change and a move burst survive kill -9", arguments: Backend.available)
    func killNine(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let table = "crash_" + UUID().uuidString.prefix(8).lowercased()
        let folder = try CommandRunner.folder(with: ["\(table).csv": Self.csv])
        let location: [String]
        switch backend {
        case .sqlite:
            location = ["--db", folder.appendingPathComponent("crash.sqlite").path]
        case .postgres:
            location = ["--postgres", try Service.postgres.value()]
        }
        let context = "\(backend) seed \(seed) (SORTKIT_SEED=\(seed) replays the kill times)"

        // 1. Import: killed at random moments while the server reads and stores the file.
        var midway = 0
        for attempt in 0..<3 {
            // The first kill comes the moment the server says it is importing, so one lands
            // mid-import whatever the machine's load; the others at random moments.
            let imported =
                if attempt == 0 {
                    try await Self.kill(["\(table).csv"] + location, in: folder, on: "importing", finished: "imported")
                } else {
                    try await ServeCommandTests.Server(["\(table).csv"] + location, in: folder)
                        .kill(after: .milliseconds(Int.random(in: 50...1_500, using: &random)), unless: "imported")
                }
            if !imported { midway += 1 }
            let schema = try await check(backend, location, table, context: "import")
            if imported { #expect(schema != nil, "the import had finished before the kill: \(context)") }
            if attempt == 0 { #expect(!imported && schema == nil, "a kill mid-import leaves no table: \(context)") }
        }
        print("kill -9 during the import: \(midway) of 3 kills landed before it finished (\(context))")
        #expect(midway >= 1, "no kill landed mid-import: \(context)")
        try await serveOnce(["\(table).csv"] + location, folder, table)
        #expect(try await check(backend, location, table, context: "import") != nil, "\(context)")

        // 2. A schema change: a preset (with its index) added to the stored table at start.
        let preset = ["--preset", "Reversed=-title,k"]
        var changing = 0
        for attempt in 0..<3 {
            let changed =
                if attempt == 0 {
                    try await Self.kill(["\(table).csv"] + location + preset, in: folder, on: "updating the presets", finished: "updated the presets")
                } else {
                    try await ServeCommandTests.Server(["\(table).csv"] + location + preset, in: folder)
                        .kill(after: .milliseconds(Int.random(in: 50...1_500, using: &random)), unless: "updated the presets")
                }
            if !changed { changing += 1 }
            let schema = try #require(try await check(backend, location, table, context: "schema change"), "\(context)")
            let reversed = try SortSpec(parsing: "-title,k")
            #expect(schema.presets.isEmpty || schema.presets == ["Reversed": reversed], "\(schema.presets): \(context)")
        }
        print("kill -9 during the schema change: \(changing) of 3 kills landed before it finished (\(context))")
        #expect(changing >= 1, "no kill landed mid-change: \(context)")
        try await serveOnce(["\(table).csv"] + location + preset, folder, table)
        #expect(try await check(backend, location, table, context: "schema change")?.presets.count == 1, "\(context)")

        // 3. Moves, each to index 1 (between the first row and the one moved before it): the keys
        // there grow until the list relabels; the server is killed mid-burst.
        for round in 0..<2 {
            let server = try ServeCommandTests.Server(["\(table).csv"] + location, in: folder)
            try await server.waitUntilServing("/api/tables/\(table)/rows?limit=1")
            let burst = Task {
                var moved = 0
                for id in (100 + round * 1_000)..<(1_100 + round * 1_000) {
                    guard let (_, status) = try? await server.send("POST", "/api/tables/\(table)/rows/\(id)/move", json: #"{"toIndex": 1}"#),
                        status == 200
                    else { break }
                    moved += 1
                }
                return moved
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...2_500, using: &random)))
            server.killNow()
            let moved = await burst.value
            print("kill -9 after \(moved) moves (\(context))")
            _ = try #require(try await check(backend, location, table, context: "moves"), "\(context)")
        }
    }

    /// Runs `sortkit serve arguments` and sends SIGKILL the moment its standard error shows
    /// `marker`: from a thread of its own blocked on the pipe, woken by the kernel, not from a
    /// task that may wait for a busy pool thread — so the kill lands microseconds after the
    /// marker, inside an operation that takes a second. Returns whether `finished` was shown by then.
    static func kill(_ arguments: [String], in folder: URL, on marker: String, finished: String) async throws -> Bool {
        let process = try SpawnedProcess(
            executable: CommandRunner.binary.path, arguments: ["serve"] + arguments + ["--port", String(ServeCommandTests.Server.freePort())],
            directory: folder.path, errorPipe: true)
        let reader = try #require(process.errorOutput)
        let output = await onOwnThread { () -> String in
            var output = ""
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                output += String(decoding: chunk, as: UTF8.self)
                if output.contains(marker) {
                    process.send(SIGKILL)
                    break
                }
            }
            process.waitUntilExit()
            return output
        }
        #expect(output.contains(marker), "the server never said '\(marker)': \(output.suffix(500))")
        return output.contains(finished)
    }

    /// Starts the server, waits until it serves the table, stops it gracefully.
    func serveOnce(_ arguments: [String], _ folder: URL, _ table: String) async throws {
        let server = try ServeCommandTests.Server(arguments, in: folder)
        defer { server.stop() }
        try await server.waitUntilServing("/api/tables/\(table)/rows?limit=1")
    }

    /// Opens the database in this process and checks the table: absent (`nil`), or every row
    /// exactly once (`k` is 0..<rows) with a manual order that is a permutation of the rows.
    func check(_ backend: Backend, _ location: [String], _ table: String, context: String) async throws -> TableSchema? {
        let store: any TableStore =
            switch backend {
            case .sqlite: try SQLiteTableStore(path: location[1], queryBudget: testQueryBudget)
            case .postgres: try await PostgresTableStore(url: location[1], queryBudget: testQueryBudget)
            }
        defer { if let store = store as? PostgresTableStore { Task { await store.close() } } }
        guard let schema = try await store.tables().first(where: { $0.name == table }) else { return nil }
        let byK = try await store.page(of: table, PageRequest(order: .spec(SortSpec(parsing: "k")), limit: Self.rows + 100))
        let ks = byK.rows.map { Int($0.cells[0]) }
        #expect(byK.total == Self.rows && ks == (0..<Self.rows).map { $0 }, "\(context): rows")
        let manual = try await store.page(of: table, PageRequest(order: .manual, limit: Self.rows + 100))
        #expect(manual.rows.count == Self.rows && Set(manual.rows.map(\.id)) == Set(byK.rows.map(\.id)), "\(context): manual order")
        for (name, spec) in schema.presets {
            let page = try await store.page(of: table, PageRequest(order: .spec(spec), limit: 3))
            #expect(page.rows.count == 3, "\(context): preset \(name)")
        }
        return schema
    }
}

extension ServeCommandTests.Server {
    /// Sends SIGKILL after `delay` and waits for the process; returns whether the log already
    /// held `marker` (the operation had finished) at that moment.
    func kill(after delay: Duration, unless marker: String) async throws -> Bool {
        try await Task.sleep(for: delay)
        let finished = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains(marker)
        killNow()
        return finished
    }

    /// SIGKILL now, and wait for the process to be gone.
    func killNow() {
        process.send(SIGKILL)
        process.waitUntilExit()
    }
}
