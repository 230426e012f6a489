import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortBy

enum Shelf: CaseIterable, Sendable { case todo, reading, done }

struct Item: Sendable, Equatable {
    var title: String
    var price: Double?
    var shelf: Shelf
}

/// The shared SplitMix64, seeded from SORTKIT_SEED or a default, with the seed in every failure.
struct IndexRandom: RandomNumberGenerator {
    private var generator: SplitMix64
    init(default seed: UInt64) {
        generator = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? seed)
    }
    mutating func next() -> UInt64 { generator.next() }
    var replay: String { "seed \(generator.seed) (replay with SORTKIT_SEED=\(generator.seed))" }
}

let itemPresets: [String: [SortKey<Item>]] = [
    "title": [SortKey(\.title)],
    "price-desc": [SortKey(\.price, .descending)],
    "shelf-then-title": [SortKey(declaredOrderOf: \.shelf), SortKey(\.title, collation: .caseInsensitive)],
]

/// The oracle: the ids of a fresh stable sort of the live rows, taken in id order.
func freshOrder<Row>(_ live: [Int: Row], _ keys: [SortKey<Row>]) -> [Int] {
    let ids = live.keys.sorted()
    return ids.map { live[$0]! }.sortedIndices(by: keys).map { ids[$0] }
}

@Suite("Sort-by index with replicas")
struct SortByIndexTests {
    func randomItem(_ random: inout IndexRandom) -> Item {
        let words = ["Dune", "emma", "Émile", "Volume 2", "Volume 10", "zorba", "Anna", "anna"]
        return Item(
            title: words.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : " \(Int.random(in: 1...20, using: &random))"),
            price: Int.random(in: 0..<5, using: &random) == 0 ? nil : Double(Int.random(in: 1...30, using: &random)) / 2,
            shelf: Shelf.allCases.randomElement(using: &random)!)
    }

    /// (initial rows, steps, how many of every 4 steps insert): the second grows blocks past
    /// 1,024 ids so they split, and its deletes empty some.
    @Test("After random inserts, updates and deletes every replica equals a fresh full sort", arguments: [(300, 1_500, 1), (1_000, 3_000, 2)])
    func replicasStayCurrent(_ shape: (initial: Int, steps: Int, inserts: Int)) {
        var random = IndexRandom(default: 0x5EED_0200)
        let initial = (0..<shape.initial).map { _ in randomItem(&random) }
        var index = SortByIndex(presets: itemPresets, rows: initial)
        var live: [Int: Item] = Dictionary(uniqueKeysWithValues: initial.enumerated().map { ($0.offset, $0.element) })
        var nextID = initial.count
        for step in 0..<shape.steps {
            let roll = Int.random(in: 0..<4, using: &random)
            switch roll < shape.inserts ? 0 : roll == 3 ? 2 : 1 {
            case 0:
                let item = randomItem(&random)
                #expect(index.insert(item) == nextID)
                live[nextID] = item
                nextID += 1
            case 1 where !live.isEmpty:
                let id = live.keys.randomElement(using: &random)!
                let item = randomItem(&random)
                let updated = index.update(id, to: item)
                #expect(updated)
                live[id] = item
            case 2 where !live.isEmpty:
                let id = live.keys.randomElement(using: &random)!
                let deleted = index.delete(id)
                #expect(deleted)
                live[id] = nil
            default:
                continue
            }
            if step % 100 == 99 {
                for (name, keys) in itemPresets {
                    #expect(index.ids(preset: name, offset: 0, limit: .max) == freshOrder(live, keys), "preset \(name), step \(step), \(random.replay)")
                }
            }
        }
        #expect(index.count == live.count)
    }

    /// Enough rows for a dozen blocks, so updates search them by their fences: titles that
    /// share their first 8 key bytes and more (fences tie), decomposed and precomposed spellings
    /// of one title (equal under the collation, different bytes), numbers whose fences round
    /// (huge integers), zero and minus zero, infinities, nulls, NaN.
    @Test("Fenced replicas: after random inserts, updates and deletes over many blocks, each equals a fresh sort and its fences are current (seeded)")
    func fencedReplicas() {
        var random = IndexRandom(default: 0x5EED_0F3C)
        struct Row: Sendable {
            var title: String
            var price: Double?
            var count: Int64
        }
        let titles = ["Volume Volume Volume", "Volume Volume Volumf", "Émile", "E\u{301}mile", "émile", "서울", "Ωmega", "zorba", "", "Anna 2", "Anna 10"]
        let prices: [Double?] = [nil, 0, -0.0, 1, -1, .infinity, -.infinity, .nan, 1e300, 0.5, 2]
        let counts: [Int64] = [0, -1, 1, Int64.max, Int64.max - 1, -(1 << 62), 1 << 53, (1 << 53) + 1]
        func row() -> Row {
            Row(
                title: titles.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : " \(Int.random(in: 1...300, using: &random))"),
                price: prices.randomElement(using: &random)!, count: counts.randomElement(using: &random)!)
        }
        let presets: [String: [SortKey<Row>]] = [
            "title": [SortKey(\.title)],
            "title-desc-folded": [SortKey(\.title, .descending, collation: .folded)],
            "price": [SortKey(\.price), SortKey(\.title)],
            "price-desc": [SortKey(\.price, .descending)],
            "count-desc": [SortKey(\.count, .descending)],
        ]
        let initial = (0..<4_000).map { _ in row() }
        var index = SortByIndex(presets: presets, rows: initial)
        var live: [Int: Row] = Dictionary(uniqueKeysWithValues: initial.enumerated().map { ($0.offset, $0.element) })
        var nextID = initial.count
        #expect(index._fencesAreCurrent(), "\(random.replay)")
        for step in 0..<4_000 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                var item = row()
                // Now and then past every row in title and count-desc order: appended at the
                // end of the last block, whose fence changes.
                if Int.random(in: 0..<6, using: &random) == 0 {
                    item.title = "zzzz \(nextID)"
                    item.count = -(1 << 62) - 1 - Int64(nextID)
                }
                index.insert(item)
                live[nextID] = item
                nextID += 1
            case 2:
                let id = live.keys.randomElement(using: &random)!
                var item = live[id]!
                // One field changed at a time: the others' presets keep the row in place.
                switch Int.random(in: 0..<3, using: &random) {
                case 0: item.title = row().title
                case 1: item.price = row().price
                default: item.count = row().count
                }
                index.update(id, to: item)
                live[id] = item
            default:
                // Now and then the last row in count-desc order: its block's fence changes.
                let last = Bool.random(using: &random) ? index.ids(preset: "count-desc", offset: index.count - 1, limit: 1).first : nil
                let id = last ?? live.keys.randomElement(using: &random)!
                index.delete(id)
                live[id] = nil
            }
            if !index._fencesAreCurrent() {
                Issue.record("a fence is stale after step \(step), \(random.replay)")
                return
            }
            if step % 500 == 499 {
                for (name, keys) in presets {
                    let expected = freshOrder(live, keys)
                    let got = index.ids(preset: name, offset: 0, limit: .max)
                    if got != expected {
                        Issue.record(
                            "preset \(name), step \(step): first difference at \(got.indices.first { $0 >= expected.count || got[$0] != expected[$0] } ?? got.count), \(random.replay)"
                        )
                    }
                }
            }
        }
    }

    @Test("Pages come straight from the replica; unknown ids are reported")
    func pages() {
        var index = SortByIndex(presets: itemPresets)
        for (title, price) in [("b", 3.0), ("a", 1.0), ("c", 2.0), ("d", 5.0)] {
            index.insert(Item(title: title, price: price, shelf: .todo))
        }
        #expect(index.page(preset: "title", offset: 1, limit: 2).map(\.title) == ["b", "c"])
        #expect(index.page(preset: "price-desc", offset: 0, limit: 2).map(\.title) == ["d", "b"])
        #expect(index.page(preset: "title", offset: 10, limit: 5).isEmpty)
        let results = [
            index.update(99, to: Item(title: "x", price: nil, shelf: .done)), index.delete(-1), index.delete(1), index.delete(1),
        ]
        #expect(results == [false, false, true, false])
        #expect(index.page(preset: "title", offset: 0, limit: 10).map(\.title) == ["b", "c", "d"])
    }

    @Test("Blocked permutations split and stay in order at scale")
    func largeIndex() {
        var random = IndexRandom(default: 0x5EED_0201)
        var index = SortByIndex(presets: ["price-desc": [SortKey(\Item.price, .descending)]])
        for _ in 0..<5_000 { index.insert(randomItem(&random)) }
        let all = index.page(preset: "price-desc", offset: 0, limit: .max)
        #expect(all.count == 5_000)
        let prices = all.map(\.price)
        let nonNull = prices.compactMap { $0 }
        #expect(nonNull == nonNull.sorted(by: >), "\(random.replay)")
        #expect(prices.drop { $0 != nil }.allSatisfy { $0 == nil }, "nulls last")
    }
}

@Suite("Search in the index")
struct SortByIndexSearchTests {
    @Test("Multi-term, folded search in preset order, with offsets and counts")
    func search() {
        var index = SortByIndex(presets: itemPresets, searchable: { [$0.title, "\($0.shelf)"] })
        for (title, price, shelf) in [("Émile", 3.0, Shelf.todo), ("emma", 1.0, .done), ("Emil und die Detektive", 2.0, .todo), ("Dune", 5.0, .done)] {
            index.insert(Item(title: title, price: price, shelf: shelf))
        }
        let emil = SearchQuery("EMIL")
        #expect(index.ids(preset: "price-desc", matching: emil, offset: 0, limit: 10) == [0, 2])
        #expect(index.ids(preset: "title", matching: SearchQuery("emil todo"), offset: 1, limit: 10) == [0])
        #expect(index.ids(preset: "title", matching: SearchQuery("emma todo"), offset: 0, limit: 10).isEmpty)
        #expect(index.count(matching: emil) == 2 && index.count(matching: SearchQuery("  ")) == 4)
        index.update(3, to: Item(title: "Émilie", price: 0.5, shelf: .done))
        #expect(index.ids(preset: "price-desc", matching: emil, offset: 0, limit: 10) == [0, 2, 3])
    }

    /// Past ``SortByIndex/_inOrderTests`` rows a search tests the rest in id order into a
    /// bitmap: pages of sparse, dense and absent terms, after updates and deletes, equal a
    /// filter of the preset's order.
    @Test("Searches whose pages lie past the in-order tests equal a filter of the preset's order (seeded)")
    func sparseSearch() {
        var random = IndexRandom(default: 0x5EED_0203)
        let words = ["alpha", "Beta", "gämma", "delta", "ÉPSILON", "zeta", "eta", "theta"]
        func item(_ random: inout IndexRandom) -> Item {
            // "needle" in about one title in 5,000: sparse; "alpha" in one in eight: dense.
            let rare = Int.random(in: 0..<5_000, using: &random) == 0 ? " Needle" : ""
            return Item(
                title: words.randomElement(using: &random)! + " \(Int.random(in: 0..<1_000, using: &random))" + rare,
                price: Double(Int.random(in: 0..<500, using: &random)), shelf: Shelf.allCases.randomElement(using: &random)!)
        }
        let count = 3 * SortByIndex<Item>._inOrderTests
        var index = SortByIndex(presets: itemPresets, rows: (0..<count).map { _ in item(&random) }, searchable: { [$0.title, "\($0.shelf)"] })
        for _ in 0..<300 {
            let id = Int.random(in: 0..<count, using: &random)
            if Bool.random(using: &random) { index.update(id, to: item(&random)) } else { index.delete(id) }
        }
        for preset in itemPresets.keys.sorted() {
            let order = index.ids(preset: preset, offset: 0, limit: .max)
            for text in ["needle", "NEEDLE todo", "alpha 7", "gamma", "epsilon done", "absent"] {
                let query = SearchQuery(text)
                let expected = order.filter { query.matches([index[$0]!.title, "\(index[$0]!.shelf)"]) }
                for (offset, limit) in [(0, 10), (3, 5), (expected.count - 2, 10), (0, .max), (5, 0)] where offset >= 0 {
                    let page = index.ids(preset: preset, matching: query, offset: offset, limit: limit)
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    #expect(page == wanted, "\(preset) '\(text)' offset \(offset) limit \(limit): \(random.replay)")
                }
            }
        }
    }

    @Test("SearchQuery folds case and diacritics and never matches across fields")
    func query() {
        #expect(SearchQuery("straße ÉCLAIR").matches(["STRASSE", "eclair"]))
        #expect(!SearchQuery("ab").matches(["a", "b"]))
        #expect(SearchQuery("").matches([]))
        #expect(SearchQuery(" a  b ").terms == ["a", "b"])
        #expect(SearchQuery("aab").matches(["aaab"]) && SearchQuery("ab").matches(["xxab"]))
        #expect(!SearchQuery("abc").matches(["ab"]) && !SearchQuery("aba").matches(["aab"]))
        #expect(SearchQuery("é").matches(["caf\u{65}\u{301}"]))
    }
}

@Suite("SortByIndex with a locale collation")
struct SortByIndexLocaleTests {
    @Test("A preset keyed by a Swedish title keeps Swedish order through inserts, updates and deletes")
    func swedishPreset() throws {
        let swedish = Collation.locale(try LocaleCollation("sv"))
        let titles = ["öl", "Örn", "apa", "ål", "zebra", "äpple", "wasa", "vas"]
        var index = SortByIndex(
            presets: ["title": [SortKey(\Item.title, collation: swedish)]],
            rows: titles.map { Item(title: $0, price: nil, shelf: .todo) })
        func order() -> [String] { index.page(preset: "title", offset: 0, limit: 100).map(\.title) }
        #expect(order() == ["apa", "vas", "wasa", "zebra", "ål", "äpple", "öl", "Örn"])
        let id = index.insert(Item(title: "Äng", price: nil, shelf: .todo))
        #expect(order() == ["apa", "vas", "wasa", "zebra", "ål", "Äng", "äpple", "öl", "Örn"])
        index.update(id, to: Item(title: "aaa", price: nil, shelf: .todo))
        #expect(order().first == "aaa")
        index.delete(id)
        #expect(order() == ["apa", "vas", "wasa", "zebra", "ål", "äpple", "öl", "Örn"])
    }
}

@Suite("Sort-by index memory")
struct SortByIndexMemoryTests {
    /// The stated bytes per row of a preset's replica (ids, block numbers, per block its
    /// header, number and fence): a test that fails if the structure grows past it.
    @Test("A preset's replica holds at most 8.11 bytes per row at 100,000 rows (8 per id, 52 per block of 512)")
    func replicaBytes() {
        let rows = (0..<100_000).map { Item(title: "Title \($0 % 977)", price: Double($0 % 313), shelf: .todo) }
        let index = SortByIndex(presets: itemPresets, rows: rows)
        for preset in itemPresets.keys {
            let perRow = Double(index._replicaBytes(preset: preset)) / Double(rows.count)
            #expect(perRow >= 8 && perRow <= 8.11, "\(preset): \(perRow) bytes per row")
        }
    }
}
