import Foundation
import SortKit
import Testing

@Suite("README")
struct ReadmeTests {
    /// The README's "In Swift:" example, compiled and run here; the test checks that README.md
    /// holds this code as its Swift block (after its `import SortKit` line) and that the
    /// `// [...]` comment under it is what the code prints.
    static func example() -> [String] {
        // snippet: readme
        enum Status: CaseIterable { case todo, reading, done }
        struct Book { var title: String; var status: Status; var price: Double? }

        let books = [
            Book(title: "Volume 10", status: .todo, price: 3),
            Book(title: "Dune", status: .done, price: 12.5),
            Book(title: "Volume 2", status: .todo, price: 3),
            Book(title: "emma", status: .reading, price: nil),
            Book(title: "Émile", status: .todo, price: 9.99),
        ]
        let sorted = books.sorted(by: [
            SortKey(declaredOrderOf: \.status), // todo < reading < done, not alphabetical
            SortKey(\.price, .descending), // nulls last in both directions
            SortKey(\.title), // natural: "Volume 2" < "Volume 10"
        ])
        print(sorted.map(\.title))
        // end snippet
        return sorted.map(\.title)
    }

    @Test("The README's Swift example is the code compiled here, and prints what the README says")
    func example() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let region = try #require(ArticleSnippets.regions(in: String(contentsOfFile: #filePath, encoding: .utf8)).first { $0.name == "readme" })
        let block = try #require(ArticleSnippets.codeBlocks(in: readme).first { $0.contains("books.sorted(by:") }, "README.md has no Swift block sorting books")
        var lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "import SortKit", "the README's example starts with its import")
        lines.removeFirst()
        while lines.first == "" { lines.removeFirst() }
        let output = try #require(lines.last.map(String.init), "the README's example ends with its output")
        lines.removeLast()
        #expect(lines.joined(separator: "\n") == region.code, "README.md's example differs from the compiled one:\n\(block)")
        #expect(output == "// \(Self.example())", "the README says \(output)")
    }

    @Test("Every relative link of the README, docs/, Benchmarks/README.md and CHANGELOG.md names a file that exists")
    func links() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path).filter { $0.hasSuffix(".md") }.map {
            "docs/" + $0
        }
        let pages = ["README.md", "Benchmarks/README.md", "CHANGELOG.md"] + docs
        #expect(docs.count >= 5, "docs/ holds the reference pages the README links to")
        let link = /\]\(([^)\s]+)\)/
        var checked = 0
        for page in pages {
            let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
            let folder = root.appendingPathComponent(page).deletingLastPathComponent()
            for match in text.matches(of: link) {
                let target = String(match.1)
                guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:") else { continue }
                let path = String(target.split(separator: "#", maxSplits: 1).first ?? "")
                checked += 1
                #expect(
                    FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).standardizedFileURL.path),
                    "\(page) links to \(target), which doesn't exist")
            }
        }
        #expect(checked > 20)
    }
}
