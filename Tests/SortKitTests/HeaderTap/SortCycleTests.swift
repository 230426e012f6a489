import Foundation
import Testing

@testable import SortKit

@Suite("Sort cycles, caps and removal")
struct SortCycleTests {
    @Test("Per-column cycles: descending first, one direction, with unsorted")
    func cycles() {
        var state = HeaderSortState(cycles: ["price": .descendingFirst, "id": .ascendingOnly, "date": SortCycle.descendingFirst.withUnsorted()])
        state.tap("price")
        #expect(state.spec.description == "-price")
        state.tap("price")
        #expect(state.spec.description == "price")
        let first = state.tap("id"), second = state.tap("id")
        #expect(first && !second, "a one-direction column doesn't change on a second tap")
        #expect(state.spec.description == "id")
        state.tap("date"); state.tap("date")
        #expect(state.spec.description == "date")
        state.tap("date")
        #expect(state.spec.isEmpty)
        state.tap("title")
        #expect(state.spec.description == "title")
        // A direction set from code that the cycle lacks steps to the cycle's first.
        state.spec = [SortSpec.Key("id", .descending)]
        state.tap("id")
        #expect(state.spec.description == "id")
    }

    @Test("A cap drops the oldest added key; the primary stays; a cap of 1 makes shift-taps plain")
    func cap() {
        var state = HeaderSortState(maxKeys: 3)
        for column in ["a", "b", "c", "d"] { state.tap(column, additive: true) }
        #expect(state.spec.description == "a,c,d")
        state.tap("e", additive: true)
        #expect(state.spec.description == "a,d,e")
        var single = HeaderSortState(maxKeys: 1)
        single.tap("a"); single.tap("b", additive: true)
        #expect(single.spec.description == "b")
        single.tap("b", additive: true)
        #expect(single.spec.description == "-b")
        #expect(HeaderSortState(SortSpec([.init("a"), .init("b"), .init("c")]), maxKeys: 2).spec.description == "a,b")
        #expect(HeaderSortState(maxKeys: 0).maxKeys == 1)
    }

    @Test("Removing one key keeps the others in order")
    func removal() throws {
        var state = HeaderSortState(try SortSpec(parsing: "a,-b:num,c"))
        let removed = state.remove("b"), absent = state.remove("zz")
        #expect(removed && !absent)
        #expect(state.spec.description == "a,c")
    }

    @Test("Cycles round-trip through text and Codable; bad text is refused")
    func text() throws {
        for cycle in [
            SortCycle.ascendingFirst, .descendingFirst, .ascendingOnly, .descendingOnly, SortCycle.descendingFirst.withUnsorted(),
            SortCycle.ascendingOnly.withUnsorted(),
        ] {
            #expect(SortCycle(cycle.description) == cycle)
        }
        for bad in ["", "none", "asc,asc", "up", "asc,none,desc", "asc,desc,asc"] { #expect(SortCycle(bad) == nil, "\(bad)") }
        let state = HeaderSortState(try SortSpec(parsing: "-price"), cycles: ["price": .descendingFirst.withUnsorted()], maxKeys: 2)
        let json = try JSONEncoder().encode(state)
        #expect(try JSONDecoder().decode(HeaderSortState.self, from: json) == state)
        #expect(String(decoding: json, as: UTF8.self).contains(#""desc,asc,none""#))
    }

    /// The tap rules (``HeaderSortState``; docs/SortSpecs.md) restated as the oracle.
    struct Model {
        var keys: [(column: String, direction: SortDirection)] = []
        let cycles: [String: [SortDirection?]] // the steps; a trailing nil is "unsorted"
        let cap: Int?

        func steps(_ column: String) -> [SortDirection?] { cycles[column] ?? [.ascending, .descending] }
        func next(_ column: String, after direction: SortDirection) -> SortDirection? {
            let steps = steps(column)
            guard let index = steps.firstIndex(of: direction) else { return steps[0] }
            let following = steps[(index + 1) % steps.count]
            return following
        }

        mutating func tap(_ column: String, additive: Bool) {
            let first = steps(column)[0]!
            if additive && cap != 1 {
                if let position = keys.firstIndex(where: { $0.column == column }) {
                    if let direction = next(column, after: keys[position].direction) { keys[position].direction = direction } else { keys.remove(at: position) }
                } else {
                    keys.append((column, first))
                    if let cap, keys.count > cap { keys.remove(at: 1) }
                }
            } else if keys.first?.column == column {
                keys = next(column, after: keys[0].direction).map { [(column, $0)] } ?? []
            } else {
                keys = [(column, first)]
            }
        }
    }

    @Test("Random taps with random cycles and caps follow the model; invariants hold (seeded)")
    func randomTaps() {
        var random = SeededRandom.fromEnvironment(default: 0xC1C1E)
        let columns = ["a", "b", "c", "d", "e"]
        let choices: [(SortCycle, [SortDirection?])] = [
            (.ascendingFirst, [.ascending, .descending]), (.descendingFirst, [.descending, .ascending]),
            (.ascendingOnly, [.ascending]), (.descendingOnly, [.descending]),
            (SortCycle.ascendingFirst.withUnsorted(), [.ascending, .descending, nil]),
            (SortCycle.descendingFirst.withUnsorted(), [.descending, .ascending, nil]),
            (SortCycle.descendingOnly.withUnsorted(), [.descending, nil]),
        ]
        for round in 0..<300 {
            var cycles: [String: SortCycle] = [:], steps: [String: [SortDirection?]] = [:]
            for column in columns where random.next() % 2 == 0 {
                let choice = choices[Int(random.next() % UInt64(choices.count))]
                cycles[column] = choice.0
                steps[column] = choice.1
            }
            let cap: Int? = random.next() % 3 == 0 ? nil : Int(random.next() % 4) + 1
            var state = HeaderSortState(cycles: cycles, maxKeys: cap)
            var model = Model(cycles: steps, cap: cap)
            for step in 0..<40 {
                let column = columns[Int(random.next() % UInt64(columns.count))]
                let additive = random.next() % 2 == 0
                state.tap(column, additive: additive)
                model.tap(column, additive: additive)
                let expected = model.keys.map { "\($0.direction == .descending ? "-" : "")\($0.column)" }.joined(separator: ",")
                #expect(state.spec.description == expected, "round \(round) step \(step): tap \(column) additive \(additive); \(random.replay)")
                #expect(state.keys.count <= (cap ?? .max))
                for key in state.keys { #expect(state.cycle(of: key.column).directions.contains(key.direction)) }
            }
        }
    }
}
