import Foundation
import SortKit
import Testing

// snippet: model
struct Book: Identifiable, Sendable {
    enum Status: String, CaseIterable, Sendable { case todo, reading, done }

    var id: Int
    var title: String
    var author: String
    var price: Double?
    var status: Status
}
// end snippet

let shelf = [
    Book(id: 1, title: "Volume 10", author: "Ng", price: 3, status: .todo),
    Book(id: 2, title: "Dune", author: "Herbert", price: nil, status: .done),
    Book(id: 3, title: "Volume 2", author: "ng", price: 12.5, status: .reading),
    Book(id: 4, title: "Émile", author: "Rousseau", price: 9.99, status: .todo),
]

@Suite("Article: Sorting with Foundation and SwiftUI")
struct FoundationArticleTests {
    @Test("The article's code blocks are the code compiled here")
    func articleMatchesCode() throws {
        try ArticleSnippets.check(article: "Sources/SortKit/Documentation.docc/FoundationAndSwiftUI.md")
    }

    @Test("Keys where Foundation takes comparators")
    func sortedUsing() {
        let books = shelf
        // snippet: sorted-using
        let keys = [SortKey(\Book.price, .descending), SortKey(\Book.title)]
        let sorted = books.sorted(using: keys) // SortKit's engine, stable
        // sorted.map(\.title) == ["Volume 2", "Émile", "Volume 10", "Dune"]: nulls last
        // end snippet
        #expect(sorted.map(\.title) == ["Volume 2", "Émile", "Volume 10", "Dune"])
        #expect(sorted.map(\.id) == books.sorted(by: keys).map(\.id))
    }

    @Test("Order flips keep nulls last")
    func orderFlip() {
        let books = shelf
        // snippet: order-flip
        var byPrice = SortKey(\Book.price) // ascending, nulls last
        byPrice.order = .reverse // what a Table header click does
        let titles = books.sorted(using: byPrice).map(\.title)
        // ["Volume 2", "Émile", "Volume 10", "Dune"]: Dune has no price and stays last
        // end snippet
        #expect(titles == ["Volume 2", "Émile", "Volume 10", "Dune"])
        #expect(byPrice.direction == .descending)
    }

    @Test("One column, several keys")
    func sortKeysList() {
        let books = shelf
        // snippet: sortkeys
        let byStatus = SortKeys([SortKey(declaredOrderOf: \Book.status), SortKey(\Book.title)]).named("status")
        let titles = books.sorted(using: byStatus).map(\.title)
        // ["Émile", "Volume 10", "Volume 2", "Dune"]: to do, reading, done; then by title
        // end snippet
        #expect(titles == ["Émile", "Volume 10", "Volume 2", "Dune"])
        var reversed = byStatus
        reversed.order = .reverse
        #expect(books.sorted(using: reversed).map(\.title) == ["Dune", "Volume 2", "Volume 10", "Émile"])
    }

    @Test("Closure keys need a name")
    func namedClosure() {
        // snippet: named
        let byLength = SortKey<Book> { $0.title.count }.named("title-length")
        let rebuilt = SortKey<Book> { $0.title.count }.named("title-length")
        let found = byLength == rebuilt // true; unnamed, two closures are never equal
        // end snippet
        #expect(found)
        #expect(SortKey<Book> { $0.title.count } != SortKey<Book> { $0.title.count })
    }

    @Test("SortFields: specs to keys, comparators and descriptors")
    func fields() throws {
        let books = shelf
        // snippet: fields
        let fields = SortFields<Book>()
            .field("title", \.title)
            .field("author", \.author)
            .field("price", \.price)

        let spec = try SortSpec(parsing: "-price,title") // from a URL, a setting, a preset
        let keys = try fields.sortKeys(for: spec) // every modifier kept
        let sorted = books.sorted(using: keys)
        // end snippet
        #expect(sorted.map(\.id) == [3, 4, 1, 2])

        // snippet: conversions
        let comparators = try fields.keyPathComparators(for: spec) // for Table(sortOrder:)
        let descriptors = try fields.sortDescriptors(for: spec) // for @Query(sort:)
        for loss in descriptors.losses { print(loss) }
        // price: nulls-last — Foundation puts nil first ascending, last descending
        // title: natural collation — Foundation's comparator compares text lexically
        // end snippet
        #expect(comparators.losses == descriptors.losses)
        #expect(
            descriptors.losses.map(\.description) == [
                "price: nulls-last — Foundation puts nil first ascending, last descending",
                "title: natural collation — Foundation's comparator compares text lexically",
            ])

        // snippet: exact
        let exact = try fields.sortDescriptors(for: SortSpec(parsing: "-price:nulls-natural,title:binary"))
        let roundTrip = try fields.spec(from: exact.value).value // -price:nulls-natural,title:binary
        // end snippet
        #expect(exact.isExact)
        #expect(roundTrip.description == "-price:nulls-natural,title:binary")
    }

    @Test("Saving a Table's order as text")
    func saveOrder() throws {
        let fields = SortFields<Book>().field("title", \.title).field("price", \.price)
        // snippet: save-order
        var sortOrder = try fields.sortKeys(for: SortSpec(parsing: "title")) // restored
        sortOrder[0].order = .reverse // a header click
        let saved = try fields.spec(from: sortOrder).description // "-title"
        // end snippet
        #expect(saved == "-title")
    }
}
