import Foundation
import Testing

@testable import OrderKeys

/// The randomized tests' generator; the seed is in every failure message.
struct TestRandom: RandomNumberGenerator {
    private var generator: SplitMix64
    init(default seed: UInt64) {
        generator = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? seed)
    }
    mutating func next() -> UInt64 { generator.next() }
    var replay: String { "seed \(generator.seed) (replay with SORTKIT_SEED=\(generator.seed))" }
}

/// The oracle: SwiftUI's `onMove` on a plain array.
func arrayMove<T>(_ array: inout [T], fromOffsets offsets: Set<Int>, toOffset destination: Int) {
    let moved = array.indices.filter { offsets.contains($0) }.map { array[$0] }
    let before = array[..<destination].indices.filter { !offsets.contains($0) }.count
    array = array.indices.filter { !offsets.contains($0) }.map { array[$0] }
    array.insert(contentsOf: moved, at: before)
}

@Suite("Ordered list of 64-bit labels")
struct OrderedListTests {
    @Test("First item at 2^61, appends +2^32, prepends −2^32, one write each")
    func basics() throws {
        var list = OrderedList<String>()
        #expect(try list.append("b") == [LabelWrite(id: "b", label: 1 << 61)])
        #expect(try list.append("c") == [LabelWrite(id: "c", label: (1 << 61) + (1 << 32))])
        #expect(try list.prepend("a") == [LabelWrite(id: "a", label: (1 << 61) - (1 << 32))])
        let writes = try list.insert("bb", after: "b")
        #expect(writes.count == 1)
        let label = writes[0].label
        let (low, high): (UInt64, UInt64) = ((1 << 61) + (1 << 30), (1 << 61) + 3 * (1 << 30))
        #expect(label >= low && label <= high, "a random label in the middle half of the gap")
        #expect(list.ids == ["a", "b", "bb", "c"])
        #expect(list.verify())
        #expect(list.neighbours(of: "a")! == (nil, "b"))
        #expect(list.neighbours(of: "bb")! == ("b", "c"))
        #expect(list.neighbours(of: "c")! == ("bb", nil))
        #expect(list.neighbours(of: "zz") == nil)
    }

    @Test(
        "SwiftUI onMove cases",
        arguments: [
            (Set([1]), 3, ["a", "c", "b", "d", "e"]),
            (Set([1, 3]), 2, ["a", "b", "d", "c", "e"]),
            (Set([0, 2, 4]), 5, ["b", "d", "a", "c", "e"]),
            (Set([3, 4]), 0, ["d", "e", "a", "b", "c"]),
            (Set([2]), 2, ["a", "b", "c", "d", "e"]),
            (Set([2]), 3, ["a", "b", "c", "d", "e"]),
            (Set([0, 1, 2, 3, 4]), 2, ["a", "b", "c", "d", "e"]),
            (Set([4]), 1, ["a", "e", "b", "c", "d"]),
        ])
    func onMove(offsets: Set<Int>, destination: Int, expected: [String]) throws {
        var list = OrderedList<String>()
        for id in ["a", "b", "c", "d", "e"] { try list.append(id) }
        var model = list.ids
        arrayMove(&model, fromOffsets: offsets, toOffset: destination)
        #expect(model == expected, "the oracle itself")
        let writes = try list.move(fromOffsets: offsets, toOffset: destination)
        #expect(list.ids == expected)
        #expect(list.verify())
        #expect(writes.count <= offsets.count, "a move writes the moved rows, no more, when gaps are wide")
    }

    @Test("Errors name the id or offset and change nothing")
    func errors() throws {
        var list = OrderedList<String>()
        for id in ["a", "b"] { try list.append(id) }
        let before = list.entries.map(\.label)
        #expect(throws: OrderKeyError.unknownID("x")) { try list.move("x", after: "a") }
        #expect(throws: OrderKeyError.unknownID("x")) { try list.move("a", after: "x") }
        #expect(throws: OrderKeyError.duplicateID("a")) { try list.append("a") }
        #expect(throws: OrderKeyError.offset(5, count: 2)) { try list.move(fromOffsets: [5], toOffset: 0) }
        #expect(throws: OrderKeyError.offset(3, count: 2)) { try list.move(fromOffsets: [0], toOffset: 3) }
        #expect(list.ids == ["a", "b"] && list.entries.map(\.label) == before)
        #expect(try list.move("a", after: "a") == [])
    }

    @Test("Random inserts, moves and removes agree with an array model after every operation")
    func randomOperations() throws {
        var random = TestRandom(default: 0x5EED_0100)
        for round in 0..<40 {
            var list = OrderedList<Int>(seed: random.next())
            var model: [Int] = []
            var nextID = 0
            for step in 0..<400 {
                let context = "round \(round) step \(step), \(random.replay)"
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1, 2:
                    // Insert after a random item, often the same one (the hardest gap).
                    let after = model.isEmpty || Bool.random(using: &random) ? model.first : model.randomElement(using: &random)
                    try list.insert(nextID, after: after)
                    model.insert(nextID, at: after.map { model.firstIndex(of: $0)! + 1 } ?? 0)
                    nextID += 1
                case 3:
                    try list.append(nextID); model.append(nextID); nextID += 1
                case 4:
                    try list.prepend(nextID); model.insert(nextID, at: 0); nextID += 1
                case 5 where !model.isEmpty, 6 where !model.isEmpty:
                    let id = model.randomElement(using: &random)!
                    let anchor = Bool.random(using: &random) ? nil : model.randomElement(using: &random)
                    try list.move(id, before: anchor)
                    if id != anchor {
                        model.removeAll { $0 == id }
                        model.insert(id, at: anchor.map { model.firstIndex(of: $0)! } ?? model.count)
                    }
                case 7 where !model.isEmpty:
                    let offsets = Set((0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0..<model.count, using: &random) })
                    let destination = Int.random(in: 0...model.count, using: &random)
                    try list.move(fromOffsets: offsets, toOffset: destination)
                    arrayMove(&model, fromOffsets: offsets, toOffset: destination)
                case 8 where !model.isEmpty:
                    let id = model.randomElement(using: &random)!
                    let removed = list.remove(id)
                    #expect(removed)
                    model.removeAll { $0 == id }
                default:
                    continue
                }
                #expect(list.ids == model, "\(context)")
                #expect(list.verify(), "\(context)")
                if list.ids != model { return }
            }
        }
    }

    @Test("10,000 inserts right after the first item: labels stay 8 bytes, writes stay few")
    func crowdedGap() throws {
        var list = OrderedList<Int>(seed: 7)
        try list.append(0)
        try list.append(1)
        var written = 0
        for id in 2..<10_002 {
            written += try list.insert(id, after: 0).count
        }
        #expect(list.verify())
        #expect(list.ids.first == 0 && list.ids[1] == 10_001 && list.ids.last == 1)
        let mean = Double(written) / 10_000
        #expect(mean <= 13, "mean rows written per insert: \(mean)")
    }

    @Test("Large lists by offsets: blocks split and the order holds")
    func largeList() throws {
        var list = OrderedList<Int>(seed: 3)
        for id in 0..<5_000 { try list.append(id) }
        try list.move(fromOffsets: [4_999], toOffset: 1)
        #expect(list[1] == 4_999 && list[2] == 1 && list.count == 5_000)
        #expect(list.count(in: 0...OrderLabels.limit) == 5_000)
        #expect(list.verify())
    }
}

@Suite("OrderedList and SwiftUI's onMove")
struct OrderedListOnMoveTests {
    @Test("List's onMove(IndexSet, Int) maps straight onto move(fromOffsets:toOffset:)")
    func onMoveWithIndexSet() throws {
        var list = OrderedList<String>(seed: 7)
        for id in ["a", "b", "c", "d", "e"] { try list.append(id) }
        // .onMove { offsets, destination in try? list.move(fromOffsets: offsets, toOffset: destination) }
        let offsets: IndexSet = [1, 3]
        let writes = try list.move(fromOffsets: offsets, toOffset: 0)
        #expect(list.ids == ["b", "d", "a", "c", "e"])
        #expect(!writes.isEmpty)
        try list.move(fromOffsets: IndexSet(integer: 0), toOffset: 5)
        #expect(list.ids == ["d", "a", "c", "e", "b"])
        #expect(throws: OrderKeyError.self) { try list.move(fromOffsets: IndexSet(integer: 5), toOffset: 0) }
        #expect(list.ids == ["d", "a", "c", "e", "b"])
    }
}
