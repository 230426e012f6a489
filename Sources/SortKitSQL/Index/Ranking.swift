import Foundation
import SortKit

/// One sort variant's order of a table's rows: the live slots in ascending order of their
/// values (ties in slot order, nulls last), where each group of equal values starts, and each
/// slot's dense rank — what every page sorted by the variant reads.
///
///     order        [4, 0, 2, 1, 3]        values: 4 "a", 0 "b", 2 "b", 1 "c", 3 null
///     groupStarts  [0, 1, 3, 4]           groups "a", "b", "c"; non-null rows end at 4
///     ranks        [1, 2, 1, null, 0]     per slot
///
/// A page sorted by one column in either direction is a slice of `order` walked group by
/// group (descending walks the groups backwards, each still in slot order: stable); several
/// columns pack their ranks into one integer per row.
struct _Ranking: Sendable {
    /// Live non-null slots ascending by value, ties by slot; then live null slots by slot.
    var order: [UInt32]
    /// Where each group of equal values starts in `order`, and where the nulls start.
    var groupStarts: [UInt32]
    /// Per slot, its group; ``null`` for null (and for a slot that isn't live). In the
    /// narrowest width that holds the groups (``_NarrowRanks``).
    var ranks: _NarrowRanks

    static let null = UInt32.max

    /// Writes recorded and not applied yet: a write marks every kept ranking stale, and a
    /// ranking is brought up to date when a request reads it (``resolved(live:slotCount:_:collation:)``),
    /// so a bulk delete pays for the order the next page uses, not for every kept order.
    var pending: _PendingRows? = nil

    /// Slots that left (or changed) and slots that joined (or changed) since the ranking was
    /// current. A slot changed twice is in both once: it leaves by its rank, which is the
    /// ranking's own, and joins with the value its cells have when the ranking is resolved.
    struct _PendingRows: Sendable {
        var removed: Set<UInt32> = []
        var added: Set<UInt32> = []
        var count: Int { removed.count + added.count }
    }

    /// Whether the ranking has no pending writes.
    var isCurrent: Bool { pending == nil }

    /// The bytes the ranking's arrays take.
    var byteCount: Int { (order.count + groupStarts.count) * MemoryLayout<UInt32>.stride + ranks.byteCount + (pending?.count ?? 0) * 8 }

    /// Groups of equal non-null values.
    var distinct: Int { groupStarts.count - 1 }
    /// Live non-null slots.
    var nonNullCount: Int { Int(groupStarts[groupStarts.count - 1]) }

    /// The slots of group `group`, in slot order.
    func group(_ group: Int) -> ArraySlice<UInt32> { order[Int(groupStarts[group])..<Int(groupStarts[group + 1])] }
    /// The live null slots, in slot order.
    var nulls: ArraySlice<UInt32> { order[nonNullCount...] }

    /// Ranks the live slots of a table by `variant`: by length, by distinct values, by text keys
    /// (``byTextKeys(_:cells:live:type:)``), or else with SortKit's engine.
    init(_ variant: KeyVariant, cells: _Cells, live: [Bool], schema: TableSchema) {
        let type = schema.columns[variant.column].type
        let key = variant.key // built once, not per cell
        if variant.transform == .length, let ranking = Self.byLength(variant.column, of: cells, live: live) {
            self = ranking
            return
        }
        if let ranking = Self.byDistinctValues(
            variant.column, of: cells, live: live, collation: variant.collation,
            { first in
                key.sortValue(of: cells.text(first, variant.column), columnType: type)
            })
        {
            self = ranking
            return
        }
        if let ranking = Self.byTextKeys(variant, cells: cells, live: live, type: type) {
            self = ranking
            return
        }
        let slots = live.indices.filter { live[$0] }
        // The values (a parse, a length, a hash per cell) on every core.
        let parts = max(1, min(_scanCores, slots.count / 65_536))
        let results = _ResultSlots<[SortValue]>(count: parts)
        let value = cells.reader(variant.column, key, type: type, distinct: false)
        _concurrentPerform(
            iterations: parts,
            _UncheckedBox { part in
                let range = (slots.count * part / parts)..<(slots.count * (part + 1) / parts)
                results.set(part, slots[range].map(value))
            })
        let values = parts == 1 ? results.values[0] : Array(results.values.joined())
        self.init(values: values, slots: slots, slotCount: live.count, collation: variant.collation)
    }

    /// Ranks rows by their `values`: slot `i` has `values[i]` (or `slots[i]`, with
    /// `slotCount` slots in all).
    init(values: [SortValue], slots: [Int]? = nil, slotCount: Int? = nil, collation: Collation) {
        // Integers already strictly ascending (an id column) are their own order: one pass.
        if Self.strictlyAscendingIntegers(values) {
            self.init(
                slotCount: slotCount ?? values.count, sorted: values.indices.map { UInt32(slots?[$0] ?? $0) },
                ties: [Bool](repeating: false, count: values.count), isNull: { _ in false })
            return
        }
        let key = SortKey<Int>(collation: collation, nulls: .last) { values[$0] }
        let (positions, ties) = values.indices._sortedIndicesMarkingTies(by: [key])
        self.init(
            slotCount: slotCount ?? values.count, sorted: positions.map { UInt32(slots?[$0] ?? $0) }, ties: ties,
            isNull: { values[positions[$0]].isNull })
    }

    /// The ranking of `count` slots whose values ascend strictly with the slot, none null.
    init(ascending count: Int) {
        self.init(slotCount: count, sorted: (0..<count).map { UInt32($0) }, ties: [Bool](repeating: false, count: count), isNull: { _ in false })
    }

    static func strictlyAscendingIntegers(_ values: [SortValue]) -> Bool {
        var previous = Int64.min
        for (index, value) in values.enumerated() {
            guard case .integer(let integer) = value, index == 0 || integer > previous else { return false }
            previous = integer
        }
        return true
    }

    /// The ranking of a column whose cells repeat (authors, statuses, prices, dates), from its
    /// distinct cells alone: they are numbered by their bytes, only the first of each is read
    /// (`value`) and sorted, and the slots are placed by their value's group in one counting
    /// pass, in slot order within a group (as the engine's stable sort places ties). The slots
    /// are the base cells' (none written since, all live). `nil` otherwise, and for a column
    /// that doesn't repeat (ids), which is sorted whole. On 1M rows of 5,000 authors this
    /// takes a tenth of the time.
    static func byDistinctValues(
        _ column: Int, of cells: _Cells, live: [Bool], collation: Collation, _ value: (_ first: Int) -> SortValue
    ) -> _Ranking? {
        guard cells.written.isEmpty, cells.baseCount == live.count, !live.contains(false),
            cells.baseCount >= 1_024, let numbered = cells.numbering(column, limit: cells.baseCount * 3 / 4)
        else { return nil }
        return _Ranking(distinct: _Ranking(values: numbered.firsts.map(value), collation: collation), ids: numbered.ids)
    }

    /// The ranking by `len` of a column's base cells (none written since, all live): each
    /// cell's length counted from its bytes on every core (no `String` per cell), the few
    /// distinct lengths ranked, and the slots placed by counting. `nil` otherwise. A new `len`
    /// order's first page on 1M titles took 100–240 ms through values sorted by the engine.
    static func byLength(_ column: Int, of cells: _Cells, live: [Bool]) -> _Ranking? {
        let count = cells.baseCount
        guard cells.written.isEmpty, count == live.count, !live.contains(false), count <= Int(UInt32.max) else { return nil }
        // Each cell's length, -1 for blank (null).
        let parts = max(1, min(_scanCores, count / 65_536)), stored = cells.base[column]
        let lengths: [Int64]
        if let numbering = stored.numbering {
            // Each distinct cell's length, once.
            let distinct = (0..<stored.arena.count).map { stored.arena.withBytes($0) { _lengthUnlessBlank($0) ?? -1 } }
            lengths = numbering.ids.map { distinct[Int($0)] }
        } else {
            lengths = Array(
                _CellColumn.inSlices([stored], count: count, parts: parts) { views, range in
                    range.map { _lengthUnlessBlank(views[0][$0]) ?? -1 }
                }.joined())
        }
        // The distinct lengths, numbered in ascending order (the null last).
        let distinct = Set(lengths).sorted()
        let values = distinct.map { $0 < 0 ? SortValue.null : .integer($0) }
        let number = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($0.element, UInt32($0.offset)) })
        let ids: [UInt32]
        if let longest = distinct.last, longest < 1 << 16 {
            // By an array: most texts are short.
            var table = [UInt32](repeating: 0, count: Int(longest) + 2)
            for (length, id) in number { table[Int(length) + 1] = id }
            ids = lengths.map { table[Int($0) + 1] }
        } else {
            ids = lengths.map { number[$0]! }
        }
        return _Ranking(distinct: _Ranking(values: values, collation: .natural), ids: ids)
    }

    /// The ranking of slots `0..<ids.count` where slot `i` has the value that `distinct` ranks
    /// as number `ids[i]`.
    init(distinct: _Ranking, ids: [UInt32]) {
        let groups = distinct.distinct
        // Per group (and the nulls, last) its number of slots, then where it starts.
        var starts = [UInt32](repeating: 0, count: groups + 2)
        let groupOf = Array(distinct.ranks)
        let ranks = _NarrowRanks(count: ids.count, groups: groups) { slot in
            let group = groupOf[Int(ids[slot])]
            starts[(group == Self.null ? groups : Int(group)) + 1] += 1
            return group
        }
        for group in 0...groups { starts[group + 1] += starts[group] }
        var next = Array(starts[0...groups])
        var order = [UInt32](repeating: 0, count: ids.count)
        for slot in ids.indices {
            let group = groupOf[Int(ids[slot])]
            let bucket = group == Self.null ? groups : Int(group)
            order[Int(next[bucket])] = UInt32(slot)
            next[bucket] += 1
        }
        self.order = order
        self.ranks = ranks
        groupStarts = Array(starts[0...groups])
    }

    /// A ranking of these arrays, as they are.
    init(order: [UInt32], groupStarts: [UInt32], ranks: _NarrowRanks) {
        self.order = order
        self.groupStarts = groupStarts
        self.ranks = ranks
    }

    /// A ranking from slots in sorted order (nulls last), whether each ties with the one before,
    /// and whether the slot at a sorted position is null.
    init(slotCount: Int, sorted: [UInt32], ties: [Bool], isNull: (Int) -> Bool) {
        order = sorted
        groupStarts = []
        var nonNull = sorted.count
        for position in sorted.indices {
            if isNull(position) {
                nonNull = position
                break
            }
            if position == 0 || !ties[position] { groupStarts.append(UInt32(position)) }
        }
        groupStarts.append(UInt32(nonNull))
        // The groups are found first: the ranks take the width they need.
        let starts = groupStarts
        var ranks = _NarrowRanks(count: slotCount, groups: starts.count - 1)
        ranks.withWriter { ranks in
            for group in 0..<(starts.count - 1) {
                for position in Int(starts[group])..<Int(starts[group + 1]) { ranks[Int(sorted[position])] = UInt32(group) }
            }
        }
        self.ranks = ranks
    }

    /// The group that `value` would join (`exact`) or the first group above it (`!exact`;
    /// `distinct` if none), by binary search over the groups' values.
    func insertionPoint(of value: SortValue, _ valueOf: (UInt32) -> SortValue, collation: Collation) -> (group: Int, exact: Bool) {
        var low = 0, high = distinct
        while low < high {
            let middle = (low + high) / 2
            if SortValue.compare(valueOf(order[Int(groupStarts[middle])]), value, collation: collation) == .orderedAscending {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let exact = low < distinct && SortValue.compare(valueOf(order[Int(groupStarts[low])]), value, collation: collation) == .orderedSame
        return (low, exact)
    }

    /// This ranking with a write recorded, not applied (see ``pending``).
    func deferring(removing removed: Set<UInt32>, adding added: [UInt32]) -> _Ranking {
        var ranking = self
        var rows = pending ?? _PendingRows()
        rows.removed.formUnion(removed)
        rows.added.formUnion(added)
        ranking.pending = rows
        return ranking
    }

    /// This ranking with its pending writes applied, for the index whose rows are `live` now.
    func resolved(live: [Bool], slotCount: Int, _ valueOf: (UInt32) -> SortValue, collation: Collation) -> _Ranking {
        guard let pending else { return self }
        var base = self
        base.pending = nil
        let added = pending.added.filter { Int($0) < live.count && live[Int($0)] }.sorted()
        return base.updated(removing: pending.removed, adding: added, slotCount: slotCount, valueOf, collation: collation)
    }

    /// The ranking after rows changed: `removed` slots leave it, and `added` slots (live, with
    /// values as `valueOf` reads them) join it, each in its group or a new one between. Costs
    /// one pass over the order with a removal bitmap (no allocation per group: a title column
    /// has a group per row) and O(k log n) value comparisons for k changed rows.
    ///
    /// Up to `incrementalUpTo` added rows join one at a time instead (``add(_:_:collation:)``):
    /// a row edited and read again costs a few moves of memory, not the merge's passes (60 ms
    /// for a write then the next page at 1M rows, most of it here).
    func updated(
        removing removed: Set<UInt32>, adding added: [UInt32], slotCount: Int, _ valueOf: (UInt32) -> SortValue, collation: Collation,
        incrementalUpTo: Int = 16
    ) -> _Ranking {
        // A row written with the same value for this order (a price edit, for the title's
        // order) keeps its place: nothing to move.
        let staying = Set(added.filter { removed.contains($0) && keepsPlace($0, removed: removed, valueOf, collation: collation) })
        let removed = staying.isEmpty ? removed : removed.subtracting(staying)
        let added = staying.isEmpty ? added : added.filter { !staying.contains($0) }
        if removed.isEmpty && added.isEmpty && ranks.count == slotCount { return self }
        if added.count <= incrementalUpTo {
            var kept = removing(removed, slotCount: slotCount)
            kept.add(added, valueOf, collation: collation)
            return kept
        }
        var gone = [Bool](repeating: false, count: max(slotCount, ranks.count))
        for slot in removed where Int(slot) < gone.count { gone[Int(slot)] = true }
        // A kept member of a group: equal old groups are equal values, where a removed row's
        // value may be its new one. A group the removal emptied answers for the next group
        // that keeps a row, so the binary search below stays monotonic. Each group's survivor
        // is found once, in one pass from the last group (scanning on every probe would cost
        // k² for k updated rows at the head of one big group).
        var survivorGroup = [Int32](repeating: Int32(distinct), count: distinct + 1)
        var survivorSlot = [UInt32](repeating: 0, count: distinct + 1)
        for group in stride(from: distinct - 1, through: 0, by: -1) {
            survivorGroup[group] = survivorGroup[group + 1]
            survivorSlot[group] = survivorSlot[group + 1]
            for index in Int(groupStarts[group])..<Int(groupStarts[group + 1]) where !gone[Int(order[index])] {
                survivorGroup[group] = Int32(group)
                survivorSlot[group] = order[index]
                break
            }
        }
        /// The first group from `group` on that keeps a row, and that row.
        func survivor(from group: Int) -> (group: Int, slot: UInt32)? {
            let found = Int(survivorGroup[group])
            return found < distinct ? (found, survivorSlot[group]) : nil
        }
        // The added rows, each with the old group it joins (`exact`) or goes before; sorted by
        // value, ties by slot.
        var joining: [(slot: UInt32, value: SortValue, group: Int, exact: Bool)] = []
        var addedNulls: [UInt32] = []
        for slot in added {
            let value = valueOf(slot)
            if value.isNull {
                addedNulls.append(slot)
                continue
            }
            var low = 0, high = distinct
            while low < high {
                let middle = (low + high) / 2
                if let member = survivor(from: middle), SortValue.compare(valueOf(member.slot), value, collation: collation) == .orderedAscending {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            // The first group from there that keeps a row is the one the value joins or
            // precedes; the emptied ones between drop out.
            let found = survivor(from: low)
            let group = found?.group ?? distinct
            let exact = found.map { SortValue.compare(valueOf($0.slot), value, collation: collation) == .orderedSame } ?? false
            joining.append((slot, value, group, exact))
        }
        joining.sort { a, b in
            if a.group != b.group { return a.group < b.group }
            if a.exact != b.exact { return !a.exact } // before the group, then in it
            let order = SortValue.compare(a.value, b.value, collation: collation)
            return order == .orderedSame ? a.slot < b.slot : order == .orderedAscending
        }
        // One merge pass: per old group, the new values before it (by value), then its kept
        // and joining slots by slot. Groups no added row touches (nearly all) are copied in a
        // tight loop into preallocated buffers.
        let capacity = order.count + joining.count
        var ties = [Bool](repeating: true, count: capacity)
        var next = 0
        let joinerGroups = joining.map(\.group) + [Int.max]
        var sorted = [UInt32](unsafeUninitializedCapacity: capacity) { output, written in
            var count = 0
            ties.withUnsafeMutableBufferPointer { ties in
                order.withUnsafeBufferPointer { order in
                    gone.withUnsafeBufferPointer { gone in
                        groupStarts.withUnsafeBufferPointer { starts in
                            for group in 0...distinct {
                                // New values before this group (or above every group).
                                var previousNew: SortValue? = nil
                                while joinerGroups[next] == group, !joining[next].exact {
                                    let value = joining[next].value
                                    ties[count] = previousNew.map { SortValue.compare($0, value, collation: collation) == .orderedSame } ?? false
                                    output[count] = joining[next].slot
                                    count += 1
                                    previousNew = value
                                    next += 1
                                }
                                guard group < distinct else { break }
                                var index = Int(starts[group])
                                let end = Int(starts[group + 1])
                                var first = true
                                if joinerGroups[next] != group {
                                    while index < end {
                                        let slot = order[index]
                                        index += 1
                                        if gone[Int(slot)] { continue }
                                        output[count] = slot
                                        ties[count] = !first
                                        first = false
                                        count += 1
                                    }
                                    continue
                                }
                                while true {
                                    while index < end && gone[Int(order[index])] { index += 1 }
                                    let joiner = joinerGroups[next] == group ? joining[next].slot : nil
                                    let slot: UInt32
                                    if index < end, joiner.map({ order[index] < $0 }) ?? true {
                                        slot = order[index]
                                        index += 1
                                    } else if let joiner {
                                        slot = joiner
                                        next += 1
                                    } else {
                                        break
                                    }
                                    output[count] = slot
                                    ties[count] = !first
                                    first = false
                                    count += 1
                                }
                            }
                        }
                    }
                }
            }
            written = count
        }
        ties.removeLast(capacity - sorted.count)
        let nullSlots = (nulls.filter { !gone[Int($0)] } + addedNulls).sorted()
        let nonNull = sorted.count
        sorted.append(contentsOf: nullSlots)
        ties.append(contentsOf: repeatElement(true, count: nullSlots.count))
        return _Ranking(slotCount: slotCount, sorted: sorted, ties: ties, isNull: { $0 >= nonNull })
    }

    /// Whether `slot`, written (in `removed` and added again), still belongs where it stands:
    /// its value equals another member's of its group, or, alone in its group, lies strictly
    /// between the groups around it (each read through a member not written, whose value is
    /// its group's); a null stays a null. `false` when that can't be told.
    private func keepsPlace(_ slot: UInt32, removed: Set<UInt32>, _ valueOf: (UInt32) -> SortValue, collation: Collation) -> Bool {
        guard Int(slot) < ranks.count else { return false }
        let value = valueOf(slot)
        let group = ranks[Int(slot)]
        if group == Self.null { return value.isNull }
        guard !value.isNull else { return false }
        /// A member of `group` not written, if any.
        func steady(_ group: Int) -> UInt32? {
            order[Int(groupStarts[group])..<Int(groupStarts[group + 1])].first { !removed.contains($0) }
        }
        if let member = steady(Int(group)) {
            return SortValue.compare(valueOf(member), value, collation: collation) == .orderedSame
        }
        guard Int(groupStarts[Int(group) + 1]) - Int(groupStarts[Int(group)]) == 1 else { return false }
        if group > 0 {
            guard let below = steady(Int(group) - 1), SortValue.compare(valueOf(below), value, collation: collation) == .orderedAscending
            else { return false }
        }
        if Int(group) + 1 < distinct {
            guard let above = steady(Int(group) + 1), SortValue.compare(valueOf(above), value, collation: collation) == .orderedDescending
            else { return false }
        }
        return true
    }

    /// Joins `added` slots (live, not in the ranking; ascending) one at a time, each by binary
    /// search over the groups' values: into its group in slot order, or as a new group, whose
    /// later groups' ranks move up by one in one pass over the slots. Each row costs a move of
    /// the order's tail and a pass over the group starts. In place: `ranks` already has a rank
    /// per slot (``removing(_:slotCount:)`` made it).
    private mutating func add(_ added: [UInt32], _ valueOf: (UInt32) -> SortValue, collation: Collation) {
        /// Where `slot` goes among `order[range]`, which is in slot order.
        func place(of slot: UInt32, in range: Range<Int>) -> Int {
            var low = range.lowerBound, high = range.upperBound
            while low < high {
                let middle = (low + high) / 2
                if order[middle] < slot { low = middle + 1 } else { high = middle }
            }
            return low
        }
        for slot in added {
            let value = valueOf(slot)
            if value.isNull {
                order.insert(slot, at: place(of: slot, in: nonNullCount..<order.count))
                ranks[Int(slot)] = Self.null
                continue
            }
            let (group, exact) = insertionPoint(of: value, valueOf, collation: collation)
            if exact {
                order.insert(slot, at: place(of: slot, in: Int(groupStarts[group])..<Int(groupStarts[group + 1])))
            } else {
                order.insert(slot, at: Int(groupStarts[group]))
                groupStarts.insert(groupStarts[group], at: group)
                if group + 1 < groupStarts.count - 1 {
                    let first = UInt32(group)
                    ranks.renumber(groups: groupStarts.count - 1) { $0 >= first ? $0 + 1 : $0 }
                }
            }
            groupStarts.withUnsafeMutableBufferPointer { starts in
                for index in (group + 1)..<starts.count { starts[index] += 1 }
            }
            ranks[Int(slot)] = UInt32(group)
        }
    }

    /// The ranking without the `removed` slots (a bulk delete): no value is read and nothing
    /// sorted. Each removed slot is found in its group by binary search (a group lists its
    /// slots in slot order; so do the nulls), the order is copied in the runs between them,
    /// and group starts and ranks move down by what went before them — the ranks rewritten in
    /// one pass over the slots, and only when a group was emptied.
    private func removing(_ removed: Set<UInt32>, slotCount: Int) -> _Ranking {
        // Where each removed slot stands in `order`, and its group (``null`` among the nulls).
        var positions: [(position: Int, group: UInt32)] = []
        positions.reserveCapacity(removed.count)
        let nonNull = nonNullCount
        for slot in removed where Int(slot) < ranks.count {
            let group = ranks[Int(slot)]
            let range = group == Self.null ? nonNull..<order.count : Int(groupStarts[Int(group)])..<Int(groupStarts[Int(group) + 1])
            var low = range.lowerBound, high = range.upperBound
            while low < high {
                let middle = (low + high) / 2
                if order[middle] < slot { low = middle + 1 } else { high = middle }
            }
            // A slot that isn't live has a null rank and isn't among the nulls: nothing to remove.
            if low < range.upperBound, order[low] == slot { positions.append((low, group)) }
        }
        positions.sort { $0.position < $1.position }
        var order: [UInt32] = []
        order.reserveCapacity(self.order.count - positions.count)
        self.order.withUnsafeBufferPointer { old in
            var run = 0
            for (position, _) in positions {
                order.append(contentsOf: UnsafeBufferPointer(rebasing: old[run..<position]))
                run = position + 1
            }
            order.append(contentsOf: UnsafeBufferPointer(rebasing: old[run...]))
        }
        // Group starts, each moved down by the removals before it; emptied groups drop out.
        // Between two removals' groups the starts all move by the same count: copied in a
        // tight loop, so a column of a million groups costs a pass of subtractions.
        var starts: [UInt32] = []
        starts.reserveCapacity(groupStarts.count)
        var renumbered: [UInt32] = []
        var emptied = false
        var before = 0
        var group = 0
        groupStarts.withUnsafeBufferPointer { old in
            while before < positions.count, positions[before].group != Self.null {
                let touched = Int(positions[before].group)
                // The groups up to the touched one keep their rows.
                let shift = UInt32(before)
                for untouched in group..<touched { starts.append(old[untouched] - shift) }
                if emptied { for untouched in group..<touched { renumbered.append(UInt32(starts.count - touched + untouched)) } }
                let first = before
                while before < positions.count, positions[before].group == UInt32(touched) { before += 1 }
                if before - first == Int(old[touched + 1] - old[touched]) {
                    if !emptied {
                        emptied = true
                        renumbered = (0..<touched).map(UInt32.init)
                        renumbered.reserveCapacity(distinct)
                    }
                    renumbered.append(Self.null)
                } else {
                    if emptied { renumbered.append(UInt32(starts.count)) }
                    starts.append(old[touched] - UInt32(first))
                }
                group = touched + 1
            }
            let shift = UInt32(before)
            if emptied { for untouched in group..<distinct { renumbered.append(UInt32(starts.count + untouched - group)) } }
            for untouched in group..<distinct { starts.append(old[untouched] - shift) }
        }
        starts.append(UInt32(nonNull - before))
        var ranks = self.ranks
        if ranks.count != slotCount { ranks = ranks.resized(to: slotCount) }
        if emptied { ranks.renumber(groups: starts.count - 1) { renumbered[Int($0)] } }
        for slot in removed where Int(slot) < ranks.count { ranks[Int(slot)] = Self.null }
        return _Ranking(order: order, groupStarts: starts, ranks: ranks)
    }
}
