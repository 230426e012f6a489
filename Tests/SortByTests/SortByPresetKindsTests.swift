import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortBy

@Suite("Relevance and manual presets, and the index searcher")
struct SortByPresetKindsTests {
    let books = [
        Item(title: "Dune", price: 9, shelf: .todo), // 0
        Item(title: "Children of Dune", price: 8, shelf: .done), // 1
        Item(title: "Dunes of Mars", price: 7, shelf: .todo), // 2
        Item(title: "Emma", price: 5, shelf: .reading), // 3
        Item(title: "Redune", price: 4, shelf: .todo), // 4
    ]

    func index() -> SortByIndex<Item> {
        SortByIndex(
            presets: ["Title": .keys([SortKey(\.title)]), "Relevance": .relevance, "Mine": .manual],
            rows: books, searchable: { [$0.title, "\($0.shelf)"] })
    }

    @Test("Relevance: whole words, then word starts, then the middle of words; ties by id")
    func relevance() {
        let index = index()
        #expect(index.ids(preset: "Relevance", matching: SearchQuery("dune"), offset: 0, limit: 10) == [0, 1, 2, 4])
        #expect(index.ids(preset: "Relevance", matching: SearchQuery("dune"), offset: 1, limit: 2) == [1, 2])
        // "todo" is in the second field only: every todo row scores the same, in id order.
        #expect(index.ids(preset: "Relevance", matching: SearchQuery("todo dune"), offset: 0, limit: 10) == [0, 2, 4])
        #expect(index.ids(preset: "Relevance", offset: 0, limit: 3) == [0, 1, 2]) // blank query: id order
    }

    @Test("Manual: moves by id, new rows last, deletes leave the rest in order; a random walk matches OrderedList")
    func manual() {
        var index = index()
        #expect(index.ids(preset: "Mine", offset: 0, limit: 10) == [0, 1, 2, 3, 4])
        let moves = [index.move(4, after: nil, in: "Mine"), index.move(0, before: 3, in: "Mine"), index.move(0, after: 99, in: "Mine")]
        #expect(moves == [true, true, false])
        let id = index.insert(Item(title: "New", price: 1, shelf: .todo))
        #expect(index.ids(preset: "Mine", offset: 0, limit: 10) == [4, 1, 2, 0, 3, id])
        index.delete(2)
        #expect(index.ids(preset: "Mine", offset: 1, limit: 3) == [1, 0, 3])
        #expect(index.ids(preset: "Mine", matching: SearchQuery("todo"), offset: 0, limit: 10) == [4, 0, id])

        var random = IndexRandom(default: 0x3A)
        var model = index.ids(preset: "Mine", offset: 0, limit: 100)
        for _ in 0..<2_000 {
            let mover = model.randomElement(using: &random)!
            let anchor = model.randomElement(using: &random)!
            guard mover != anchor else { continue }
            model.removeAll { $0 == mover }
            let after = Bool.random(using: &random)
            let moved = after ? index.move(mover, after: anchor, in: "Mine") : index.move(mover, before: anchor, in: "Mine")
            #expect(moved)
            model.insert(mover, at: model.firstIndex(of: anchor)! + (after ? 1 : 0))
        }
        #expect(index.ids(preset: "Mine", offset: 0, limit: 100) == model, "\(random.replay)")
    }

    @MainActor
    @Test("The index searcher, wired by the connector: selection from code switches the replica and resets the page")
    func searcher() {
        let searcher = SortByIndexSearcher(index: index(), pageSize: 2)
        var pages: [[Int]] = []
        searcher.onResults = { pages.append($0.ids) }
        let interactor = SortByInteractor(
            presets: [
                SortPreset(id: "Title", label: "Title", order: .spec(try! SortSpec(parsing: "title"))),
                SortPreset(id: "Relevance", label: "Best match", order: .relevance),
                SortPreset(id: "Mine", label: "My order", order: .manual),
            ], selected: "Title")
        let connector = SortByConnector(interactor: interactor, searcher: searcher)
        connector.connect()
        #expect(pages == [[1, 0]]) // Children of Dune, Dune
        searcher.query = "dune"
        searcher.page = 1
        searcher.search()
        #expect(pages.last == [2, 4] && searcher.results.matches == 4)
        interactor.selected = "Relevance" // from code: switches, page 0, searches
        #expect(searcher.page == 0 && pages.last == [0, 1])
        connector.disconnect()
        interactor.selected = "Mine"
        #expect(pages.count == 3)
    }
}

@Suite("Presets from sort specs")
struct SortBySpecPresetTests {
    @Test("A spec preset orders as the spec does in memory, enum order and nulls included")
    func specs() throws {
        let items = [
            Item(title: "b", price: nil, shelf: .done), Item(title: "a", price: 2, shelf: .todo),
            Item(title: "C", price: 2, shelf: .reading), Item(title: "d", price: 1, shelf: .done),
        ]
        let columns: [String: @Sendable (Item) -> SortValue] = [
            "title": { .string($0.title) }, "price": { $0.price.map(SortValue.double) ?? .null }, "shelf": { .string("\($0.shelf)") },
        ]
        var index = try SortByIndex(
            specs: ["A": SortSpec(parsing: "shelf:enum=todo|reading|done,-price"), "B": SortSpec(parsing: "-price:nulls-first,title:nocase")],
            columns: columns, also: ["Mine": .manual], rows: items)
        #expect(index.ids(preset: "A", offset: 0, limit: 9) == [1, 2, 3, 0])
        #expect(index.ids(preset: "B", offset: 0, limit: 9) == [0, 1, 2, 3])
        index.update(1, to: Item(title: "a", price: 0.5, shelf: .todo))
        #expect(index.ids(preset: "B", offset: 0, limit: 9) == [0, 2, 3, 1])
        #expect(throws: SortSpecError.self) { try SortByIndex(specs: ["X": SortSpec(parsing: "colour")], columns: columns) }
    }
}
