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

    /// The oracle: the order a spec means for two items, computed directly from the spec's
    /// text semantics (no SortKeys), as a comparison.
    func oracleCompare(_ spec: SortSpec, _ a: ShelfItem, _ b: ShelfItem) -> ComparisonResult {
        func text(_ item: ShelfItem, _ column: String) -> String? {
            switch column {
            case "title": item.title
            case "note": item.note
            case "price": item.price.map { String(describing: $0) }
            case "count": String(item.count)
            default: String(describing: item.status)
            }
        }
        func value(_ item: ShelfItem, _ key: SortSpec.Key) -> SortValue {
            switch key.column {
            case "title", "note":
                guard let text = text(item, key.column) else { return .null }
                if key.interpretation == .number {
                    return text.trimmingCharacters(in: .whitespaces).isEmpty ? .null : LenientNumber.parse(text) ?? .string(text)
                }
                return .string(text)
            case "price": return item.price.map(SortValue.double) ?? .null
            case "count": return .integer(Int64(item.count))
            default: return .integer(Int64(ShelfItem.Status.allCases.firstIndex(of: item.status)!))
            }
        }
        func compare(_ x: SortValue, _ y: SortValue, _ key: SortSpec.Key, collation: Collation) -> ComparisonResult {
            if x.isNull || y.isNull {
                if x.isNull == y.isNull { return .orderedSame }
                return x.isNull == key.nulls.nullsFirst(key.direction) ? .orderedAscending : .orderedDescending
            }
            let raw = SortValue.compare(x, y, collation: collation)
            return key.direction == .ascending ? raw : raw.reversed
        }
        for key in spec.keys {
            if let order = key.enumOrder {
                func rank(_ item: ShelfItem) -> SortValue {
                    guard let text = text(item, key.column) else { return .null }
                    return .integer(Int64(order.firstIndex { key.collation.comparePrimary($0, text) == .orderedSame } ?? order.count))
                }
                let byRank = compare(rank(a), rank(b), key, collation: .natural)
                if byRank != .orderedSame { return byRank }
            }
            let result = compare(value(a, key), value(b, key), key, collation: key.collation)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// A random spec over the fields; `exact` keeps to what Foundation can express.
    func randomSpec(_ random: inout SeededRandom, exact: Bool) -> SortSpec {
        let columns = ["title", "note", "price", "count", "status"].shuffled(using: &random)
        return SortSpec(
            columns.prefix(Int.random(in: 1...3, using: &random)).map { column in
                let direction = SortDirection.allCases.randomElement(using: &random)!
                var modifiers: [SortSpec.Modifier] = []
                if exact {
                    if column == "title" || column == "note" { modifiers.append(.collation(.binary)) }
                    if column == "note" || column == "price" { modifiers.append(.nulls(.natural)) }
                } else {
                    if Bool.random(using: &random) { modifiers.append(.collation(Collation.allCases.randomElement(using: &random)!)) }
                    if Bool.random(using: &random) { modifiers.append(.nulls(NullPlacement.allCases.randomElement(using: &random)!)) }
                    if (column == "title" || column == "note") && Int.random(in: 0..<4, using: &random) == 0 {
                        modifiers.append(.interpretation(.number))
                    }
                    // (`enum=` reads text, so the parser refuses it beside `num`.)
                    if !modifiers.contains(.interpretation(.number)) && Int.random(in: 0..<4, using: &random) == 0 {
                        let pool = column == "status" ? ["done", "todo", "Reading"] : ["b", "A", "1", "2.0", "é", "z"]
                        modifiers.append(.enumOrder(Array(pool.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)))))
                    }
                }
                return SortSpec.Key(column, direction, modifiers)
            })
    }

    /// Whether two specs mean the same order (modifiers compared by meaning, not spelling; a
    /// collation only matters on text).
    func same(_ a: SortSpec, _ b: SortSpec) -> Bool {
        a.keys.count == b.keys.count
            && zip(a.keys, b.keys).allSatisfy { x, y in
                let text = x.column == "title" || x.column == "note" || x.enumOrder != nil
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
            let expected = insertionSorted(rows) { oracleCompare(spec, $0, $1) }.map(\.id)
            #expect(rows.sorted(using: keys).map(\.id) == expected, "round \(round), spec \(spec), \(random.replay)")
            #expect(same(try fields.spec(from: keys), spec), "round \(round), spec \(spec), \(random.replay)")

            // A header click in a SwiftUI Table flips one key's order; the saved spec follows.
            // (An `enum=` spec key gives two keys; the click flips the first.)
            let index = Int.random(in: 0..<spec.keys.count, using: &random)
            let keyIndex = spec.keys[..<index].reduce(0) { $0 + ($1.enumOrder == nil ? 1 : 2) }
            var flipped = keys
            flipped[keyIndex].order = flipped[keyIndex].order == .forward ? .reverse : .forward
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
            #expect(same(try fields.spec(from: comparators.value).value, spec), "\(context)")
            #expect(same(try fields.spec(from: descriptors.value).value, spec), "\(context)")
            #expect(try fields.spec(from: comparators.value).isExact, "\(context)")
        }
    }

    @Test("What Foundation can't express is reported, one loss per modifier, naming the field")
    func lossesReported() throws {
        let spec = try SortSpec(parsing: "status:enum=done|todo,title,note:num:binary:nulls-last,-price:nulls-first,count:nulls-first")
        let converted = try fields.sortDescriptors(for: spec)
        #expect(
            converted.losses == [
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
        #expect(try fields.spec(from: [KeyPathComparator(\ShelfItem.statusRank, order: .reverse)]).value.description == "-status")
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

    @Test("Back from Foundation, a text comparator that isn't lexical is reported; a Table's reordered keys keep the first of each field")
    func backFromFoundation() throws {
        struct ByLength: SortComparator {
            var order = SortOrder.forward
            func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
                let result = lhs.count == rhs.count ? ComparisonResult.orderedSame : lhs.count < rhs.count ? .orderedAscending : .orderedDescending
                return order == .forward ? result : result.reversed
            }
        }
        let converted = try fields.spec(from: [KeyPathComparator(\ShelfItem.title, comparator: ByLength()), KeyPathComparator(\ShelfItem.count)])
        #expect(converted.value.description == "title,count")
        #expect(converted.losses == [SortConversionLoss(column: "title", kind: .textComparator)])
        #expect(converted.losses[0].description == "title: Foundation's text comparator isn't lexical — read as the natural collation")
        #expect(try fields.spec(from: [SortDescriptor(\ShelfItem.title, comparator: .lexical)]).isExact)

        // A Table puts the clicked column first and leaves its old key behind.
        var keys = try fields.sortKeys(for: SortSpec(parsing: "price,title:num,status:enum=done|todo:nocase"))
        var clicked = keys[1]
        clicked.order = .reverse
        keys.insert(clicked, at: 0)
        let saved = try fields.spec(from: keys).description
        #expect(saved == "-title:num,price,status:enum=done|todo:nocase")
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
