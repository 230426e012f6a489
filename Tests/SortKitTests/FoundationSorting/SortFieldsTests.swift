import Foundation
import Testing
@testable import SortKit

@Suite("SortFields: specs to SortKit keys and Foundation comparators, and back")
struct SortFieldsTests {
    let fields = SortFields<ShelfItem>()
        .field("title", \.title)
        .field("note", \.note)
        .field("price", \.price)
        .field("count", \.count)
        .field("status", declaredOrderOf: \.status, storedRank: \.statusRank)

    /// The keys a spec means, built by hand: the oracle for `sortKeys(for:)`.
    func handKeys(_ spec: SortSpec) -> [SortKey<ShelfItem>] {
        spec.keys.flatMap { key -> [SortKey<ShelfItem>] in
            let reading: @Sendable (ShelfItem) -> SortValue = switch key.column {
            case "title": { .string($0.title) }
            case "note": { $0.note.map(SortValue.string) ?? .null }
            case "price": { $0.price.map(SortValue.double) ?? .null }
            case "count": { .integer(Int64($0.count)) }
            default: { .integer(Int64($0.statusRank)) }
            }
            return key.sortKeys(reading: reading)
        }
    }

    /// A random spec over the fields; `exact` keeps to what Foundation can express.
    func randomSpec(_ random: inout SeededRandom, exact: Bool) -> SortSpec {
        SortSpec((0..<Int.random(in: 1...3, using: &random)).map { _ in
            let column = ["title", "note", "price", "count", "status"].randomElement(using: &random)!
            let direction = SortDirection.allCases.randomElement(using: &random)!
            var modifiers: [SortSpec.Modifier] = []
            if exact {
                if column == "title" || column == "note" { modifiers.append(.collation(.binary)) }
                if column == "note" || column == "price" { modifiers.append(.nulls(.natural)) }
            } else {
                if Bool.random(using: &random) { modifiers.append(.collation(Collation.allCases.randomElement(using: &random)!)) }
                if Bool.random(using: &random) { modifiers.append(.nulls(NullPlacement.allCases.randomElement(using: &random)!)) }
            }
            return SortSpec.Key(column, direction, modifiers)
        })
    }

    /// Whether two specs mean the same order (modifiers compared by meaning, not spelling; a
    /// collation only matters on text).
    func same(_ a: SortSpec, _ b: SortSpec) -> Bool {
        a.keys.count == b.keys.count && zip(a.keys, b.keys).allSatisfy { x, y in
            let text = x.column == "title" || x.column == "note"
            return x.column == y.column && x.direction == y.direction && (!text || x.collation == y.collation) && x.nulls == y.nulls
                && x.enumOrder == y.enumOrder && x.interpretation == y.interpretation
        }
    }

    @Test("sortKeys(for:) sorts as the spec's keys built by hand, and comes back as the spec after order flips")
    func sortKeysMatchHandKeys() throws {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0025)
        for round in 0..<150 {
            let rows = (0..<Int.random(in: 0...80, using: &random)).map { ShelfItem.random(id: $0, &random) }
            let spec = randomSpec(&random, exact: false)
            let keys = try fields.sortKeys(for: spec)
            let expected = insertionSorted(rows) { handKeys(spec).compare($0, $1) }.map(\.id)
            #expect(rows.sorted(using: keys).map(\.id) == expected, "round \(round), spec \(spec), \(random.replay)")
            #expect(same(try fields.spec(from: keys), spec), "round \(round), spec \(spec), \(random.replay)")

            // A header click in a SwiftUI Table flips one key's order; the saved spec follows.
            var flipped = keys
            let index = Int.random(in: 0..<keys.count, using: &random)
            flipped[index].order = flipped[index].order == .forward ? .reverse : .forward
            var flippedSpec = spec
            flippedSpec.keys[index] = spec.keys[index].reversed
            #expect(same(try fields.spec(from: flipped), flippedSpec), "round \(round), spec \(spec), \(random.replay)")
        }
    }

    @Test("Exact specs: Foundation comparators and descriptors sort as SortKit does and round-trip to the same spec")
    func exactRoundTrips() throws {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0026)
        for round in 0..<150 {
            // ASCII text: Foundation's lexical comparator and Swift's `<` agree there (they
            // differ on a few canonically equivalent sequences).
            let rows = (0..<Int.random(in: 0...80, using: &random)).map { ShelfItem.random(id: $0, &random, ascii: true) }
            let spec = randomSpec(&random, exact: true)
            let context = "round \(round), spec \(spec), \(random.replay)"
            let comparators = try fields.keyPathComparators(for: spec)
            let descriptors = try fields.sortDescriptors(for: spec)
            #expect(comparators.isExact, "\(comparators.losses) — \(context)")
            #expect(descriptors.isExact, "\(descriptors.losses) — \(context)")
            let expected = rows.sorted(using: try fields.sortKeys(for: spec)).map(\.id)
            #expect(rows.sorted(using: comparators.value).map(\.id) == expected, "\(context)")
            #expect(rows.sorted(using: descriptors.value).map(\.id) == expected, "\(context)")
            #expect(same(try fields.spec(from: comparators.value), spec), "\(context)")
            #expect(same(try fields.spec(from: descriptors.value), spec), "\(context)")
        }
    }

    @Test("What Foundation can't express is reported, one loss per modifier, naming the field")
    func lossesReported() throws {
        let spec = try SortSpec(parsing: "status:enum=done|todo,title,note:num:binary:nulls-last,-price:nulls-first,count:nulls-first")
        let converted = try fields.sortDescriptors(for: spec)
        #expect(converted.losses == [
            SortConversionLoss(column: "status", kind: .enumOrder(["done", "todo"])),
            SortConversionLoss(column: "title", kind: .collation(.natural)),
            SortConversionLoss(column: "note", kind: .interpretation(.number)),
            SortConversionLoss(column: "note", kind: .nulls(.last)),
            SortConversionLoss(column: "price", kind: .nulls(.first)),
        ])
        #expect(converted.value.count == 5)
        #expect(try fields.keyPathComparators(for: spec).losses == converted.losses)
        #expect(converted.losses[0].description == "status: enum=done|todo — Foundation sorts by the value, not an explicit order")
        #expect(converted.losses[3].description == "note: nulls-last — Foundation puts nil first ascending, last descending")
        // A non-optional field has no nulls to place: nothing lost.
        #expect(try fields.sortDescriptors(for: SortSpec(parsing: "count:nulls-first")).isExact)
    }

    @Test("An enum field sorts in declared order in memory and by its stored rank in Foundation")
    func declaredOrderThroughStoredRank() throws {
        var item = ShelfItem(id: 0, title: "", note: nil, price: nil, count: 0, status: .done)
        #expect(item.statusRank == 2)
        item.status = .todo
        #expect(item.statusRank == 0)
        let rows = [ShelfItem.Status.done, .todo, .reading].enumerated().map {
            ShelfItem(id: $0, title: "", note: nil, price: nil, count: 0, status: $1)
        }
        let spec = try SortSpec(parsing: "status")
        #expect(rows.sorted(using: try fields.sortKeys(for: spec)).map(\.status) == [.todo, .reading, .done])
        #expect(rows.sorted(using: try fields.sortDescriptors(for: spec).value).map(\.status) == [.todo, .reading, .done])
        // By raw value a store would give done, reading, todo.
        #expect(rows.sorted(using: KeyPathComparator(\.status.rawValue)).map(\.status) == [.done, .reading, .todo])
        #expect(try fields.spec(from: [KeyPathComparator(\ShelfItem.statusRank, order: .reverse)]).description == "-status")
        #expect(try fields.spec(from: [SortKey(declaredOrderOf: \ShelfItem.status)]).description == "status")
    }

    @Test("Unknown fields and key paths are errors that name them")
    func unknownNamesAreErrors() throws {
        #expect(throws: SortSpecError.self) { try fields.sortKeys(for: SortSpec(parsing: "isbn")) }
        do {
            _ = try fields.sortDescriptors(for: SortSpec(parsing: "-isbn"))
            Issue.record("expected an error")
        } catch let error as SortSpecError {
            #expect(error.description == "unknown column 'isbn' (columns: 'title', 'note', 'price', 'count', 'status')")
        }
        do {
            _ = try fields.spec(from: [KeyPathComparator(\ShelfItem.id)])
            Issue.record("expected an error")
        } catch let error as SortSpecError {
            #expect(error.isUnknownColumn)
            #expect(error.description.hasPrefix("no sort field for key path"))
        }
        #expect(throws: SortSpecError.self) { try fields.spec(from: [SortKey<ShelfItem> { $0.id }]) }
        // Names match ignoring case when only one field does.
        #expect(try fields.sortKeys(for: SortSpec(parsing: "TITLE")).first?.name == "title")
        // Odd names: non-ASCII, non-normalized and long ones are just names.
        let odd = SortFields<ShelfItem>().field("Ti\u{301}tulo", \.title).field(String(repeating: "x", count: 100_000), \.count)
        #expect(try odd.sortKeys(for: SortSpec([SortSpec.Key("Título")])).count == 1)
        #expect(try odd.sortKeys(for: SortSpec([SortSpec.Key(String(repeating: "x", count: 100_000))])).count == 1)
        #expect(throws: SortSpecError.self) { try odd.sortKeys(for: SortSpec([SortSpec.Key("")])) }
    }

    @Test("Conversions between SortDirection and SortOrder")
    func directions() {
        #expect(SortDirection(SortOrder.forward) == .ascending)
        #expect(SortDirection(SortOrder.reverse) == .descending)
        #expect(SortDirection.descending.order == .reverse)
        enum Level: String, CaseIterable { case low = "z", mid = "a", high = "m" }
        #expect(Level.allCases.map(\.declaredOrderRank) == [0, 1, 2])
    }
}
