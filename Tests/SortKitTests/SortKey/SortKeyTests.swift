import Foundation
import Testing

@testable import SortKit

enum Status: CaseIterable, Sendable { case todo, reading, done }

struct Version: Comparable, Sendable {
    var parts: [Int]
    static func < (a: Version, b: Version) -> Bool { a.parts.lexicographicallyPrecedes(b.parts) }
}

struct Book: Sendable, Equatable {
    var title: String
    var author: String
    var status: Status
    var price: Double?
    var due: Date?
    var quantity: Int = 1
    var priority: String = "low"
    var version: Version = Version(parts: [1])
    var optionalStatus: Status? = nil
}

let library = [
    Book(title: "Dune", author: "Frank Herbert", status: .done, price: 9.99, due: nil),
    Book(title: "emma", author: "Jane Austen", status: .todo, price: nil, due: Date(timeIntervalSince1970: 200)),
    Book(title: "Anna Karenina", author: "Leo Tolstoy", status: .reading, price: 12, due: Date(timeIntervalSince1970: 100)),
    Book(title: "Persuasion", author: "Jane Austen", status: .done, price: 9.99, due: nil),
    Book(title: "Zorba", author: "Nikos Kazantzakis", status: .todo, price: 7.5, due: Date(timeIntervalSince1970: 300)),
]

@Suite("Typed sort keys")
struct SortKeyTests {
    @Test("Key path keys pick the encodable path for SortValueConvertible types")
    func overloadResolution() {
        #expect(SortKey<Book>(\.title).isValueKey)
        #expect(SortKey<Book>(\.price).isValueKey)
        #expect(SortKey<Book>(\.quantity).isValueKey)
        #expect(!SortKey<Book>(comparable: \.version).isValueKey)
        #expect(SortKey<Book>(\.due).isValueKey)
        #expect(SortKey<Book>(declaredOrderOf: \.status).isValueKey)
    }

    @Test("Enum in declared order, not alphabetical")
    func enumDeclaredOrder() {
        let titles = library.sorted(by: [SortKey(declaredOrderOf: \.status)]).map(\.title)
        #expect(titles == ["emma", "Zorba", "Anna Karenina", "Dune", "Persuasion"])
        let reversed = library.sorted(by: [SortKey(declaredOrderOf: \.status, .descending)]).map(\.title)
        #expect(reversed == ["Dune", "Persuasion", "Anna Karenina", "emma", "Zorba"], "descending keeps ties in input order")
    }

    @Test("Explicit value order, unknown values after the listed ones")
    func explicitOrder() {
        var books = library
        books[0].priority = "high"; books[1].priority = "urgent"; books[2].priority = "medium"
        let titles = books.sorted(by: [SortKey(\.priority, order: ["high", "medium", "low"])]).map(\.title)
        #expect(titles == ["Dune", "Anna Karenina", "Persuasion", "Zorba", "emma"])
    }

    /// One-byte values are ranked by a table of their byte (`_Ranks`); values the table
    /// doesn't hold take the scan. Both must agree with a scan by `==` everywhere.
    @Test("Explicit order of one-byte values: the byte table agrees with a scan by ==")
    func oneByteOrders() {
        struct Parity: Equatable { var bits: UInt8; static func == (a: Self, b: Self) -> Bool { a.bits % 2 == b.bits % 2 } }
        struct Row { var id: Int; var status: Status; var flag: Bool; var tag: UInt8; var parity: Parity }
        var random = SeededRandom.fromEnvironment(default: 0xB17E)
        let rows = (0..<3_000).map { id in
            Row(
                id: id, status: Status.allCases.randomElement(using: &random)!, flag: Bool.random(using: &random),
                tag: UInt8.random(in: 0...7, using: &random), parity: Parity(bits: UInt8.random(in: 0...9, using: &random)))
        }
        func check<V: Equatable & SendableMetatype>(_ path: any KeyPath<Row, V> & Sendable, _ order: [V], _ name: String) {
            let rank = { (row: Row) in order.firstIndex(of: row[keyPath: path]) ?? order.count }
            let expected = rows.sorted { (rank($0), $0.id) < (rank($1), $1.id) }.map(\.id)
            let keys = [SortKey<Row>(path, order: order), SortKey(\.id)]
            #expect(rows.sorted(by: keys).map(\.id) == expected, "\(name), \(random.replay)")
            #expect(rows.min(count: 40, sortedBy: keys).map(\.id) == Array(expected.prefix(40)), "\(name) top-40, \(random.replay)")
        }
        check(\.status, [.done, .todo], "enum, a case unlisted")
        check(\.status, Status.allCases.reversed(), "enum, every case")
        check(\.flag, [true], "Bool")
        check(\.tag, [5, 3, 5, 0], "UInt8 with a duplicate")
        check(\.parity, [Parity(bits: 3)], "== that isn't bitwise")
    }

    @Test("Optional enum: nil is null, placed by the null policy")
    func optionalEnum() {
        var books = library
        books[1].optionalStatus = .done; books[3].optionalStatus = .todo
        let titles = books.sorted(by: [SortKey(declaredOrderOf: \.optionalStatus, nulls: .first)]).map(\.title)
        #expect(titles == ["Dune", "Anna Karenina", "Zorba", "Persuasion", "emma"])
    }

    @Test("Multi-key: status, author, price descending")
    func multiKey() {
        let titles = library.sorted(by: [
            SortKey(declaredOrderOf: \.status), SortKey(\.author), SortKey(\.price, .descending),
        ]).map(\.title)
        #expect(titles == ["emma", "Zorba", "Anna Karenina", "Dune", "Persuasion"])
    }

    @Test("Nulls last in both directions by default; first and natural on request")
    func nullPlacement() {
        let ascending = library.sorted(by: [SortKey(\.due)]).map(\.title)
        #expect(ascending == ["Anna Karenina", "emma", "Zorba", "Dune", "Persuasion"])
        let descending = library.sorted(by: [SortKey(\.due, .descending)]).map(\.title)
        #expect(descending == ["Zorba", "emma", "Anna Karenina", "Dune", "Persuasion"])
        let first = library.sorted(by: [SortKey(\.due, .descending, nulls: .first)]).map(\.title)
        #expect(first == ["Dune", "Persuasion", "Zorba", "emma", "Anna Karenina"])
        let natural = library.sorted(by: [SortKey(\.due, .descending, nulls: .natural)]).map(\.title)
        #expect(natural == ["Zorba", "emma", "Anna Karenina", "Dune", "Persuasion"])
    }

    @Test("Extractor closure: computed value")
    func extractor() {
        var books = library
        books[4].quantity = 3
        let titles = books.sorted(by: [SortKey(.descending) { ($0.price ?? 0) * Double($0.quantity) }]).map(\.title)
        #expect(titles == ["Zorba", "Anna Karenina", "Dune", "Persuasion", "emma"])
    }

    @Test("Full name sorted by last name")
    func lastName() {
        let titles = library.sorted(by: [SortKey { $0.author.split(separator: " ").last.map(String.init) ?? "" }, SortKey(\.title)]).map(\.author)
        #expect(titles == ["Jane Austen", "Jane Austen", "Frank Herbert", "Nikos Kazantzakis", "Leo Tolstoy"])
    }

    @Test("Full comparator and Comparable key paths")
    func comparators() {
        var books = library
        books[0].version = Version(parts: [1, 10]); books[1].version = Version(parts: [1, 9]); books[2].version = Version(parts: [2])
        let byVersion = books.sorted(by: [SortKey(comparable: \.version, .descending)]).map(\.title)
        #expect(byVersion == ["Anna Karenina", "Dune", "emma", "Persuasion", "Zorba"])
        let byLength = books.sorted(by: [SortKey(comparing: { _compare($0.title.count, $1.title.count) })]).map(\.title)
        #expect(byLength == ["Dune", "emma", "Zorba", "Persuasion", "Anna Karenina"])
    }

    @Test("Collation per key: case-insensitive titles")
    func caseInsensitiveTitles() {
        let binary = library.sorted(by: [SortKey(\.title, collation: .binary)]).map(\.title)
        #expect(binary == ["Anna Karenina", "Dune", "Persuasion", "Zorba", "emma"])
        let folded = library.sorted(by: [SortKey(\.title, collation: .caseInsensitive)]).map(\.title)
        #expect(folded == ["Anna Karenina", "Dune", "emma", "Persuasion", "Zorba"])
    }

    @Test("Sort in place and sorted indices")
    func inPlace() {
        var names = ["file10", "file2", "File1"]
        names.sort(by: [SortKey(\.self)])
        #expect(names == ["File1", "file2", "file10"])
        #expect(["b", "a", "B"].sortedIndices(by: [SortKey(\.self, collation: .caseInsensitive)]) == [1, 2, 0])
    }
}
