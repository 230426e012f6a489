import Foundation
import SortKit

/// One sort key's order over a table's rows, kept between sorts: the row positions in
/// ascending key order with a mark for each row that ties with the one before, and from those a
/// dense rank per row.
///
/// With every key of a sort ranked, sorting the table is an integer sort of rank tuples (a
/// radix sort, O(n)), whichever columns and directions the user taps; only the first sort by a
/// key pays for comparing its values. A data change or an edit updates a ranking by merging the
/// changed rows into the kept order — O(n + k log n) comparisons for k changed rows — instead
/// of sorting again.
struct _ColumnRanking<Row> {
    /// The key, ascending. Ranks don't depend on its null placement: nulls are one group at
    /// either end, placed by each sort.
    let key: SortKey<Row>
    /// Row positions in ascending key order (ties in position order).
    private(set) var order: [Int]
    /// Whether `order[i]` ties with `order[i - 1]` on the key.
    private(set) var tiesPrevious: [Bool]
    /// Per row position: its rank among the distinct non-null values, or ``null``.
    private(set) var ranks: [UInt32] = []
    /// How many distinct non-null values there are.
    private(set) var distinct = 0

    static var null: UInt32 { .max }

    /// Ranks `rows` by `key` (its direction is ignored).
    init(_ key: SortKey<Row>, rows: [Row]) {
        var ascending = key
        ascending.direction = .ascending
        self.key = ascending
        (order, tiesPrevious) = rows._sortedIndicesMarkingTies(by: [ascending])
        rerank(rows)
    }

    /// Dense ranks from the order and its tie marks; nulls, one group at one end, get ``null``.
    private mutating func rerank<Rows: RandomAccessCollection<Row>>(_ rows: Rows) where Rows.Index == Int {
        ranks = [UInt32](repeating: 0, count: order.count)
        distinct = 0
        guard let first = order.first, let last = order.last else { return }
        let nullsFirst = key.isNull(rows[first])
        let nullsLast = !nullsFirst && key.isNull(rows[last])
        var group = -1
        for (i, position) in order.enumerated() {
            if !tiesPrevious[i] { group += 1 }
            ranks[position] = UInt32(truncatingIfNeeded: group)
        }
        let groups = group + 1
        distinct = nullsFirst || nullsLast ? groups - 1 : groups
        if nullsFirst {
            for position in order {
                if ranks[position] == 0 { ranks[position] = Self.null } else { ranks[position] -= 1 }
            }
        } else if nullsLast {
            for position in order.reversed() {
                guard ranks[position] == UInt32(groups - 1) else { break }
                ranks[position] = Self.null
            }
        }
    }

    /// Integers that sort the rows as this key does in `direction` with `nulls`, and how many
    /// bits they use: ranks (reversed for descending) from 1, nulls at 0 or above the top.
    func sortWords(direction: SortDirection, nulls: NullPlacement) -> (words: [UInt32], bits: Int) {
        let top = UInt32(distinct)
        let nullWord: UInt32 = nulls.nullsFirst(direction) ? 0 : top + 1
        let descending = direction == .descending
        let words = ranks.map { rank in
            rank == Self.null ? nullWord : (descending ? top - rank : rank + 1)
        }
        return (words, UInt32.bitWidth - (top + 1).leadingZeroBitCount)
    }

    /// Follows a data change. `newPosition[p]` is the new position of old row `p`, or -1 when
    /// it is gone; `changed[p]` says old row `p`'s content may differ. Rows whose key value
    /// changed and new rows are merged into the kept order by binary search. `identity` says
    /// every row kept its position (no inserts, removes or reordering). Returns whether the
    /// ranking changed.
    @discardableResult
    mutating func update(old oldRows: [Row], new newRows: [Row], newPosition: [Int], changed: [Bool], identity: Bool) -> Bool {
        // Rows are read through pointers: this generic code would copy (and retain the fields
        // of) every row it reads from an array.
        oldRows.withUnsafeBufferPointer { old in
            newRows.withUnsafeBufferPointer { new in
                update(old: old, new: new, newPosition: newPosition, changed: changed, identity: identity)
            }
        }
    }

    private mutating func update(
        old oldRows: UnsafeBufferPointer<Row>, new newRows: UnsafeBufferPointer<Row>, newPosition: [Int], changed: [Bool], identity: Bool
    ) -> Bool {
        // Element access through the base pointers borrows rows in place (a buffer's subscript
        // returns a copy).
        guard let old = oldRows.baseAddress, let new = newRows.baseAddress else {
            self = _ColumnRanking(key, rows: Array(newRows))
            return true
        }
        // Plain loops, not closures per row: in this generic code a closure call per row was
        // a tenth of a `setData`.
        if identity {
            var keyChanged = false
            for p in changed.indices where changed[p] && key.compare(old[p], new[p]) != .orderedSame {
                keyChanged = true
                break
            }
            if !keyChanged { return false } // no row's key changed: the order, ties and ranks stand
        }
        var covered = [Bool](repeating: false, count: newRows.count)
        var keptOrder: [Int] = []
        var keptTies: [Bool] = []
        keptOrder.reserveCapacity(newRows.count)
        keptTies.reserveCapacity(newRows.count)
        // A kept row ties with the previous kept one when every step between them ties.
        var chain = true
        for (i, p) in order.enumerated() {
            if i > 0 { chain = chain && tiesPrevious[i] }
            let q = newPosition[p]
            guard q >= 0, !changed[p] || key.compare(old[p], new[q]) == .orderedSame else { continue }
            covered[q] = true
            keptTies.append(!keptOrder.isEmpty && chain)
            keptOrder.append(q)
            chain = true
        }
        var dirty: [Int] = []
        for q in covered.indices where !covered[q] { dirty.append(q) }
        if dirty.count > newRows.count / 8 {
            self = _ColumnRanking(key, rows: Array(newRows))
            return true
        }
        let dirtyOrder = dirty.map { new[$0] }._sortedIndicesMarkingTies(by: [key]).order.map { dirty[$0] }
        var merged: [Int] = []
        merged.reserveCapacity(newRows.count)
        var mergedTies: [Bool] = []
        mergedTies.reserveCapacity(newRows.count)
        var next = 0
        for q in dirtyOrder {
            // The first kept row after q (after its ties too, so q joins its group last); q's
            // value is read once, not per probe.
            let value = key.value(for: new[q])
            var low = next, high = keptOrder.count
            while low < high {
                let mid = (low + high) / 2
                let probe = keptOrder[mid]
                let order: ComparisonResult
                if let value {
                    order = key.compareValues(key.value(for: new[probe])!, value)
                } else {
                    order = key.compare(new[probe], new[q])
                }
                if order == .orderedDescending { high = mid } else { low = mid + 1 }
            }
            merged.append(contentsOf: keptOrder[next..<low])
            mergedTies.append(contentsOf: keptTies[next..<low])
            mergedTies.append(merged.last.map { key.compare(new[$0], new[q]) == .orderedSame } ?? false)
            merged.append(q)
            if low < keptOrder.count {
                // The kept row after q now follows q.
                keptTies[low] = key.compare(new[q], new[keptOrder[low]]) == .orderedSame
            }
            next = low
        }
        merged.append(contentsOf: keptOrder[next...])
        mergedTies.append(contentsOf: keptTies[next...])
        order = merged
        tiesPrevious = mergedTies
        rerank(newRows)
        return true
    }
}

/// Row positions sorted by rank tuples: stable least-significant-first radix passes, each over
/// as many keys' words as fit in 64 bits.
func _sortedPositions(_ keys: [(words: [UInt32], bits: Int)], count: Int) -> [Int] {
    var order = Array(0..<count)
    var end = keys.count
    while end > 0 {
        // The least significant keys that fit in one 64-bit composite.
        var start = end - 1
        var bits = keys[start].bits
        while start > 0, bits + keys[start - 1].bits <= 64 {
            start -= 1
            bits += keys[start].bits
        }
        let chunk = keys[start..<end]
        let composites = order.map { position in
            chunk.reduce(UInt64(0)) { composite, key in composite << UInt64(key.bits) | UInt64(key.words[position]) }
        }
        let sorted = _stableOrder(byComposite: composites)
        order = sorted.map { order[$0] }
        end = start
    }
    return order
}
