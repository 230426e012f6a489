import Foundation
import SortKitTestSupport
import Testing

@testable import SortKit

/// Rows that must not be read from other threads: a class with state, not `Sendable`.
private final class Item {
    let group: Int
    let price: Int
    init(group: Int, price: Int) {
        self.group = group
        self.price = price
    }
}

@Suite("Threads")
struct ThreadTests {
    @Test("Key closures run on the calling thread when rows aren't Sendable, also for large inputs and top-k")
    func callingThread() {
        let recorder = ThreadRecorder()
        // Above the parallel thresholds: 50,000 rows for several keys, two 65,536-row slices for top-k.
        let items = (0..<140_000).map { Item(group: $0 % 7, price: ($0 &* 7_919) % 10_007) }
        let keys = [
            SortKey<Item> { item -> Int in
                recorder.note()
                return item.group
            },
            SortKey<Item>(.descending) { item -> Int in
                recorder.note()
                return item.price
            },
        ]
        let here = "\(pthread_self())"
        let sorted = items.sorted(by: keys)
        let indices = items.sortedIndices(by: keys)
        let top = items.indices(ofMin: 20, sortedBy: keys)
        let first = items.min(count: 20, sortedBy: keys)
        let window = items.indices(ofRanks: 70_000..<70_020, sortedBy: keys)
        var inPlace = items
        inPlace.sort(by: keys)
        #expect(recorder.threads == [here])
        // And the answers are right.
        let expected = items.indices.sorted { a, b in
            (items[a].group, -items[a].price, a) < (items[b].group, -items[b].price, b)
        }
        #expect(indices == expected)
        #expect(sorted.map { ObjectIdentifier($0) } == expected.map { ObjectIdentifier(items[$0]) })
        #expect(top == Array(expected.prefix(20)))
        #expect(first.map { ObjectIdentifier($0) } == top.map { ObjectIdentifier(items[$0]) })
        #expect(window == Array(expected[70_000..<70_020]))
        #expect(inPlace.map { ObjectIdentifier($0) } == sorted.map { ObjectIdentifier($0) })
    }
}
