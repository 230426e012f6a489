import Foundation
import Testing

@testable import SortKit

@Suite("Search queries")
struct SearchQueryTests {
    /// The oracle: every term's bytes occur, by a naive scan, in one field folded on its own.
    static func oracle(_ query: String, _ fields: [String]) -> Bool {
        let terms = query.split(whereSeparator: \.isWhitespace).map { Array(SearchQuery.fold(String($0)).utf8) }
        let folded = fields.map { Array(SearchQuery.fold($0).utf8) }
        return terms.allSatisfy { term in
            folded.contains { field in
                term.isEmpty
                    || field.count >= term.count
                        && (0...(field.count - term.count)).contains { Array(field[$0..<$0 + term.count]) == term }
            }
        }
    }

    @Test("Folding is Unicode's: ẞ, ß and SS find each other; ı does not find i; accents are ignored")
    func folding() {
        #expect(SearchQuery("strasse").matches(["Große STRAẞE"]))
        #expect(SearchQuery("STRAẞE").matches(["die Strasse"]))
        #expect(!SearchQuery("istanbul").matches(["ıstanbul"]))
        #expect(SearchQuery("emile rouss").matches(["Émile", "Jean-Jacques Rousseau"]))
        #expect(SearchQuery("EMILE").matches(["E\u{301}mile"]), "decomposed text")
        #expect(SearchQuery("lodz").matches(["Łódź"]), "Ł folds as the root collation weighs it")
    }

    @Test("Blank queries match everything; a term never matches across two fields")
    func blankAndFieldEdges() {
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            #expect(SearchQuery(blank).isBlank, "\(blank.debugDescription)")
            #expect(SearchQuery(blank).matches([]))
        }
        #expect(!SearchQuery("ab").matches(["a", "b"]))
        // The separator in a query is folded to a space inside its term, so it can't reach across.
        #expect(!SearchQuery("a\u{1F}b").matches(["a", "b"]))
        #expect(SearchQuery("a\u{1F}b").matches(["xa by"]))
        #expect(!SearchQuery("x").matches([]))
    }

    @Test("A megabyte field and a NUL byte are searched like any text")
    func oddFields() {
        let big = String(repeating: "ab", count: 500_000) + "Zola"
        #expect(SearchQuery("zola").matches([big]))
        #expect(!SearchQuery("zolb").matches([big]))
        #expect(SearchQuery("b\u{0}c").matches(["ab\u{0}cd"]))
    }

    @Test("matches(_:), matches(folded:), matches(foldedBytes:) and the byte folding agree with a naive oracle (seeded)")
    func agreesWithOracle() {
        var random = SeededRandom.fromEnvironment(default: 0x5EA2_C401)
        for round in 0..<3_000 {
            let fields = (0..<Int.random(in: 0...3, using: &random)).map { _ in random.unicodeString(maxLength: 6) }
            let query = (0..<Int.random(in: 0...2, using: &random)).map { _ in random.unicodeString(maxLength: 2) }.joined(separator: " ")
            let search = SearchQuery(query)
            let expected = Self.oracle(query, fields)
            let folded = SearchQuery.foldedFields(fields)
            #expect(search.matches(fields) == expected, "round \(round): \(query.debugDescription) in \(fields), \(random.replay)")
            #expect(search.matches(folded: folded) == expected, "round \(round), \(random.replay)")
            var bytes: [UInt8] = []
            for (index, field) in fields.enumerated() {
                if index > 0 { bytes.append(0x1F) }
                var field = field
                field.withUTF8 { SearchQuery._appendFolded($0, to: &bytes) }
            }
            #expect(bytes == Array(folded.utf8), "round \(round): byte folding of \(fields), \(random.replay)")
            #expect(bytes.withUnsafeBufferPointer { search.matches(foldedBytes: $0) } == expected, "round \(round), \(random.replay)")
        }
    }
}
