import Foundation
import SortKitTestSupport
import Testing

/// The page's ES modules (`Sources/SortKitServer/Assets/*.mjs`) have unit tests of their own in
/// `Tests/js`, run by node's test runner: the URL the controls build, the column layout, the
/// selection, storage keys, and the markup contract with the templates (`Assets/CONTRACT.md`).
/// This runs them as part of `swift test`; `.ci/run` installs node and requires it.
@Suite("Page modules")
struct PageModuleTests {
    @Test("node --test Tests/js passes", .needs(.node, for: "the page modules' node tests"))
    func nodeTests() async throws {
        let node = try Service.node.value()
        let (status, output) = try await BrowserTests.run(node, ["--test", Service.root.appendingPathComponent("Tests/js").path])
        #expect(status == 0, "node --test failed:\n\(output)")
        // The runner's summary: every test file ran, none failed.
        let passed = output.split(separator: "\n").first { $0.hasPrefix("# pass ") }.flatMap { Int($0.dropFirst(7)) } ?? 0
        #expect(passed >= 25, "node ran \(passed) tests:\n\(output)")
        #expect(output.contains("# fail 0"), "\(output)")
    }
}
