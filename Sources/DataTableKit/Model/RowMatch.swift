/// How `setData`'s new rows match the old ones: where each old row went, which rows changed,
/// and the new id lookup.
///
/// Built in `setData`, which is inlinable so that this runs in the caller's specialized code:
/// in generic code every id hash and every row comparison goes through witness tables and copies
/// the row, which made matching 100,000 rows cost 60 ms; specialized it is a few.
///
///     let match = _RowMatch(old: rows, new: reloaded, positionOfID: positionOfID, same: ==)
///     match.newPosition[p]   // where old row p went, -1 when it is gone
@usableFromInline
struct _RowMatch<ID: Hashable> {
    /// Per old row: its new position, or -1 when it is gone (a duplicate id follows only its
    /// first row).
    @usableFromInline var newPosition: [Int]
    /// Per new row: the old position of the same, unchanged row, or -1 (new or changed).
    @usableFromInline var kept: [Int]
    /// Per old row: it is still here and changed.
    @usableFromInline var changed: [Bool]
    /// Per new row: it replaced an old row and changed.
    @usableFromInline var changedNew: [Bool]
    /// The new rows' ids by position and their lookup; `nil` when the ids and their order are
    /// the old ones.
    @usableFromInline var ids: (atPosition: [ID], positionOf: [ID: Int])?
    /// Every row kept its place (same ids, same order, no duplicates).
    @usableFromInline var identity: Bool

    @inlinable
    init<Row: Identifiable>(old: [Row], new: [Row], positionOfID: [ID: Int], same: (Row, Row) -> Bool) where Row.ID == ID {
        // Rows are read in place through the base pointers (an array's or a buffer's subscript
        // copies the row, retaining each of its fields).
        let matched = old.withUnsafeBufferPointer { oldBuffer in
            new.withUnsafeBufferPointer { newBuffer in
                Self.match(old: oldBuffer, new: newBuffer, positionOfID: positionOfID, same: same)
            }
        }
        (newPosition, kept, changed, changedNew, ids, identity) = matched
    }

    @inlinable
    static func match<Row: Identifiable>(
        old oldBuffer: UnsafeBufferPointer<Row>, new newBuffer: UnsafeBufferPointer<Row>, positionOfID: [ID: Int],
        same: (Row, Row) -> Bool
    ) -> ([Int], [Int], [Bool], [Bool], (atPosition: [ID], positionOf: [ID: Int])?, Bool) where Row.ID == ID {
        let oldCount = oldBuffer.count, newCount = newBuffer.count
        // Only read for positions under the counts, so an empty array's nil base is never read.
        let old = oldBuffer.baseAddress, new = newBuffer.baseAddress
        let unique = positionOfID.count == oldCount
        var newPosition = [Int](repeating: -1, count: oldCount)
        var ids: (atPosition: [ID], positionOf: [ID: Int])?
        var identity = false
        if oldCount == newCount && (0..<oldCount).allSatisfy({ old![$0].id == new![$0].id }) {
            for p in 0..<oldCount where unique || positionOfID[old![p].id] == p { newPosition[p] = p }
            identity = unique
        } else {
            var lookup = [ID: Int](minimumCapacity: newCount)
            var atPosition = [ID]()
            atPosition.reserveCapacity(newCount)
            for q in 0..<newCount {
                let id = new![q].id
                atPosition.append(id)
                if lookup.index(forKey: id) == nil { lookup[id] = q }
            }
            for p in 0..<oldCount {
                let id = old![p].id
                if unique || positionOfID[id] == p { newPosition[p] = lookup[id] ?? -1 }
            }
            ids = (atPosition, lookup)
        }
        var changed = [Bool](repeating: false, count: oldCount)
        var changedNew = [Bool](repeating: false, count: newCount)
        var kept = [Int](repeating: -1, count: newCount)
        for p in 0..<oldCount {
            let q = newPosition[p]
            guard q >= 0 else { continue }
            if same(old![p], new![q]) {
                kept[q] = p
            } else {
                changed[p] = true
                changedNew[q] = true
            }
        }
        return (newPosition, kept, changed, changedNew, ids, identity)
    }
}
