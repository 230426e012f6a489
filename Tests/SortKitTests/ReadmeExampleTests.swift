import Testing
import SortKit

/// The README's example, verbatim, so its printed output stays true.
@Suite("README")
struct ReadmeExampleTests {
    enum Status: CaseIterable { case todo, reading, done }
    struct Book { var title: String; var status: Status; var price: Double? }

    @Test("The README example prints what the README says")
    func example() {
        let books = [
            Book(title: "Volume 10", status: .todo, price: 3),
            Book(title: "Dune", status: .done, price: 12.5),
            Book(title: "Volume 2", status: .todo, price: 3),
            Book(title: "emma", status: .reading, price: nil),
            Book(title: "Émile", status: .todo, price: 9.99),
        ]
        let sorted = books.sorted(by: [
            SortKey(declaredOrderOf: \.status),  // todo < reading < done, not alphabetical
            SortKey(\.price, .descending),        // nulls last in both directions
            SortKey(\.title),                     // natural: "Volume 2" < "Volume 10"
        ])
        #expect(sorted.map(\.title) == ["Émile", "Volume 2", "Volume 10", "emma", "Dune"])
    }
}
