import Foundation
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// Drives the web app in headless Chromium (Tests/e2e/browser_e2e.py, Selenium) against a live
/// server on a free loopback port, and checks jQuery DataTables' server-side mode against
/// `/datatables`. Needs Chromium, chromedriver, Debian's libjs-jquery-datatables and a Python
/// with Selenium (`SORTKIT_E2E_PYTHON`, else `.venv-e2e/bin/python`); `.ci/run` installs them
/// and sets `SORTKIT_REQUIRE_E2E=1`, which turns a missing piece into a failure, not a skip.
@Suite("Browser end to end")
struct BrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("Sort, multi-sort, search, page, presets, drag and keyboard moves, inline edit; DataTables interop", .needs(.browser, for: "the browser e2e test"))
    func browser() async throws {
        let python = try Service.browser.value()
        // Books, and a people table with every sort setting: a fixed key, a pinned row, a
        // descending-first column and a column sorted by two others.
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await DemoLibrary.install(in: store, count: 300)
        var people = "name,first,last,status,price\n"
        for index in 0..<60 {
            people += "P\(index) L\(index % 7),P\(index),L\(index % 7),\(["todo", "done"][index % 2]),\(index * 37 % 50)\n"
        }
        try await store.importCSV(Array(people.utf8), as: "people", delimiter: UInt8(ascii: ","), presets: [:])
        let server = SortKitServer(
            store: store,
            sortSettings: [
                "people": TableSortSettings(
                    rules: SortRules(before: try SortSpec(parsing: "status:enum=todo|done"), sortsBy: ["name": try SortSpec(parsing: "last,first")]),
                    pinned: PinnedRows([42]), cycles: ["price": .descendingFirst], maxKeys: 3)
            ])
        let app = Application(router: server.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let (status, output) = try await Self.run(python, [Self.root.appendingPathComponent("Tests/e2e/browser_e2e.py").path, "http://127.0.0.1:\(port)"])
            print(output)
            #expect(status == 0, "browser e2e failed:\n\(output)")
        }
    }

    /// Runs a program to completion without blocking a concurrency thread; returns its status
    /// and combined output.
    static func run(_ program: String, _ arguments: [String]) async throws -> (Int32, String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-run-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let child = try SpawnedProcess(executable: program, arguments: arguments, stdout: output.path, stderr: output.path)
        let status = await child.exitStatus()
        return (status, String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self))
    }
}
