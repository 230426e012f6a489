import Foundation
import Testing

/// Keeps DocC articles' code compiled: a test file marks regions with `// snippet: NAME` …
/// `// end snippet`, and ``check(article:source:)`` requires every Swift code block of the
/// article to be one of those regions, verbatim after dedenting, and every region to appear
/// in the article. A block whose first line is a `// Apple only:` comment is exempt — SwiftUI
/// and SwiftData don't exist here — and says so to the reader.
enum ArticleSnippets {
    static let appleOnlyMarker = "// Apple only:"

    /// The marked regions of a Swift source, dedented.
    static func regions(in source: String) -> [(name: String, code: String)] {
        var regions: [(String, String)] = []
        var current: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                current = (String(trimmed.dropFirst("// snippet: ".count)), [])
            } else if trimmed == "// end snippet", let region = current {
                regions.append((region.name, dedent(region.lines)))
                current = nil
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        return regions
    }

    /// The article's ```swift code blocks, dedented.
    static func codeBlocks(in article: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(dedent(current!))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    static func dedent(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    /// Records an issue for each article block that isn't a compiled region (or marked Apple
    /// only) and each region missing from the article.
    static func check(article relativePath: String, source: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let root = URL(fileURLWithPath: source).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
        let regions = regions(in: try String(contentsOfFile: source, encoding: .utf8))
        let blocks = codeBlocks(in: article)
        #expect(!regions.isEmpty, "no snippets in \(source)", sourceLocation: sourceLocation)
        for region in regions where !blocks.contains(region.code) {
            Issue.record("snippet '\(region.name)' is not a code block of \(relativePath):\n\(region.code)", sourceLocation: sourceLocation)
        }
        let compiled = Set(regions.map(\.code))
        for block in blocks where !compiled.contains(block) && !block.hasPrefix(appleOnlyMarker) {
            Issue.record("a code block of \(relativePath) is compiled by no test:\n\(block)", sourceLocation: sourceLocation)
        }
    }
}
