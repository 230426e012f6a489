/// How the displayed rows changed, by identity: what a table view animates.
///
///     let diff = DataTableDiff(from: [1, 2, 3, 4], to: [4, 1, 3, 5], updated: [3])
///     diff.removed   // [(id: 2, index: 1)]       — indices in the old list
///     diff.inserted  // [(id: 5, index: 3)]       — indices in the new list
///     diff.moved     // [(id: 4, from: 3, to: 0)] — the fewest moves (outside a longest
///                    //   increasing run of kept rows)
///     diff.updated   // [3]
public struct DataTableDiff<ID: Hashable>: CustomStringConvertible {
    /// Rows no longer shown, with their old index.
    public var removed: [(id: ID, index: Int)] = []
    /// Rows newly shown, with their new index.
    public var inserted: [(id: ID, index: Int)] = []
    /// Kept rows that moved, old and new index; every other kept row keeps its relative order.
    public var moved: [(id: ID, from: Int, to: Int)] = []
    /// Kept rows whose content changed.
    public var updated: [ID] = []
    /// Selected rows that left the data, and with it the selection (`DataTable.setData(_:)`).
    public var deselected: [ID] = []

    /// Whether nothing changed.
    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty && deselected.isEmpty }

    /// The diff from `old` to `new` (each without duplicates); `updated` lists changed rows.
    public init(from old: [ID], to new: [ID], updated: [ID] = []) {
        // The ids' positions are the lists' indices: the position diff below does the work.
        var newIndex: [ID: Int] = [:]
        for (index, id) in new.enumerated() { newIndex[id] = index }
        self.init(
            oldDisplayed: Array(old.indices), newDisplayed: Array(new.indices),
            newPosition: old.map { newIndex[$0] ?? -1 }, newCount: new.count,
            changed: { _ in false }, oldID: { old[$0] }, newID: { new[$0] })
        let kept = Set(old).intersection(new)
        self.updated = updated.filter { kept.contains($0) }
    }

    /// The diff computed on row positions with arrays instead of id dictionaries (what a table
    /// uses for `setData` on large data, and what the id initializer maps onto). `newPosition[p]` is old row `p`'s position in the
    /// new rows (-1: gone); `changed` tells which new positions hold updated rows.
    init(
        oldDisplayed: [Int], newDisplayed: [Int], newPosition: [Int], newCount: Int,
        changed: (Int) -> Bool, oldID: (Int) -> ID, newID: (Int) -> ID
    ) {
        var newIndex = [Int](repeating: -1, count: newCount)
        for (index, q) in newDisplayed.enumerated() { newIndex[q] = index }
        var oldIndex = [Int](repeating: -1, count: newCount)
        for (index, p) in oldDisplayed.enumerated() {
            let q = newPosition[p]
            if q >= 0, newIndex[q] >= 0 { oldIndex[q] = index } else { removed.append((oldID(p), index)) }
        }
        var kept: [(position: Int, from: Int, to: Int)] = []
        kept.reserveCapacity(newDisplayed.count)
        for (index, q) in newDisplayed.enumerated() {
            if oldIndex[q] < 0 { inserted.append((newID(q), index)) } else { kept.append((q, oldIndex[q], index)) }
        }
        // Usually nothing moved; the longest increasing run is needed only when something did.
        if zip(kept, kept.dropFirst()).contains(where: { $0.from > $1.from }) {
            let stays = Self.longestIncreasing(kept.map(\.from))
            for (offset, row) in kept.enumerated() where !stays.contains(offset) {
                moved.append((newID(row.position), row.from, row.to))
            }
        }
        updated = kept.filter { changed($0.position) }.map { newID($0.position) }
    }

    /// Offsets of one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = [] // offsets of the smallest tail of each length
        var previous = Array(repeating: -1, count: values.count)
        for (offset, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[offset] = tails[low - 1] }
            if low == tails.count { tails.append(offset) } else { tails[low] = offset }
        }
        var result = Set<Int>()
        var offset = tails.last ?? -1
        while offset >= 0 {
            result.insert(offset)
            offset = previous[offset]
        }
        return result
    }

    public var description: String {
        "removed \(removed.map(\.id)), inserted \(inserted.map(\.id)), moved \(moved.map { "\($0.id): \($0.from)→\($0.to)" }), updated \(updated)"
            + (deselected.isEmpty ? "" : ", deselected \(deselected)")
    }
}
