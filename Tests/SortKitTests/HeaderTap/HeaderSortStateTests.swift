import Testing

@testable import SortKit

@Suite("Header tap cycle")
struct HeaderSortStateTests {
    @Test("Two-state cycle: unsorted → ascending → descending → ascending")
    func twoState() {
        var state = HeaderSortState()
        #expect(state.direction(of: "title") == nil)
        let changed = state.tap("title")
        #expect(changed)
        #expect(state.direction(of: "title") == .ascending)
        state.tap("title")
        #expect(state.direction(of: "title") == .descending)
        state.tap("title")
        #expect(state.direction(of: "title") == .ascending)
    }

    @Test("Three-state cycle returns to unsorted")
    func threeState() {
        var state = HeaderSortState(allowsUnsorted: true)
        state.tap("title"); state.tap("title"); state.tap("title")
        #expect(state.keys.isEmpty)
    }

    @Test("Another column becomes the only key; shift adds it as the next key")
    func additive() {
        var state = HeaderSortState()
        state.tap("title"); state.tap("title")
        state.tap("author", additive: true)
        #expect(state.spec.description == "-title,author")
        #expect(state.priority(of: "author") == 2)
        state.tap("author", additive: true)
        #expect(state.spec.description == "-title,-author")
        state.tap("author")
        #expect(state.spec.description == "author", "a plain tap on a secondary key makes it the only key, ascending")
        state.tap("price")
        #expect(state.spec.description == "price")
    }

    @Test("A plain tap on the primary key turns it and drops the secondary keys, as DataTables does")
    func plainTapOnPrimary() throws {
        var state = HeaderSortState(try SortSpec(parsing: "title,-author,price"))
        state.tap("title")
        #expect(state.spec.description == "-title")
        state.tap("title")
        #expect(state.spec.description == "title")
    }

    @Test("Additive tap in three-state mode removes the key after descending")
    func additiveThreeState() {
        var state = HeaderSortState(try! SortSpec(parsing: "a,-b"), allowsUnsorted: true)
        state.tap("b", additive: true)
        #expect(state.spec.description == "a")
    }

    @Test("A tap on a non-sortable column changes nothing — order and indicators alike")
    func nonSortable() {
        var state = HeaderSortState(try! SortSpec(parsing: "-title"))
        let before = state
        let notes = state.tap("notes", isSortable: false)
        let title = state.tap("title", isSortable: false)
        #expect(!notes && !title)
        #expect(state == before)
    }

    @Test(
        "Sortability priority: user override, then column definition, then sortable",
        arguments: [
            (nil as Bool?, nil as Bool?, true), (nil, false, false), (true, false, true), (false, true, false), (false, nil, false),
        ])
    func sortability(override: Bool?, definition: Bool?, expected: Bool) {
        #expect(HeaderSortState.isSortable(userOverride: override, columnDefinition: definition) == expected)
    }

    @Test("Modifiers survive taps and convert to and from a spec")
    func modifiersKept() throws {
        var state = HeaderSortState()
        state.tap("price", modifiers: [.interpretation(.number)])
        state.tap("price")
        #expect(state.spec.description == "-price:num")
        state.spec = try SortSpec(parsing: "status:enum=a|b,title")
        state.tap("status")
        #expect(state.spec.description == "-status:enum=a|b")
    }
}
