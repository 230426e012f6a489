import Foundation
import SortKit

/// One component of an order in rank space: a ranking (or an `enum=` order of its groups),
/// direction and null placement, as an integer per row whose ascending order is the
/// component's order. Integers are doubled (2 × ordinal + 1), so that a cursor's value that no
/// row has still sits between two rows' integers (an even one).
struct _Component {
    let ranking: _Ranking
    /// For an `enum=` component: per group, its value's place in the explicit order.
    let enumPlaces: [UInt32]?
    /// Distinct non-null ordinals: groups, or the explicit order's length + 1 (unknown values).
    let levels: UInt32
    let descending: Bool
    let nullsFirst: Bool

    /// Bits the doubled ordinals take.
    var bits: Int { UInt64.bitWidth - UInt64(2 * (levels + 1) + 1).leadingZeroBitCount }

    /// The ordinal (1…levels for values, 0 or levels + 1 for null) of a group.
    @inline(__always)
    func ordinal(ofGroup group: UInt32) -> UInt32 {
        if group == _Ranking.null { return nullsFirst ? 0 : levels + 1 }
        let place = enumPlaces?[Int(group)] ?? group
        return descending ? levels - place : place + 1
    }

    @inline(__always)
    func doubled(_ slot: Int) -> UInt64 { 2 * UInt64(ordinal(ofGroup: ranking.ranks[slot])) + 1 }

    /// Calls `visit` with each group (``_Ranking/null`` for the nulls) and its slots, in this
    /// component's order, until it returns `true`.
    func walk(_ visit: (_ group: UInt32, _ slots: ArraySlice<UInt32>) -> Bool) {
        if nullsFirst, visit(_Ranking.null, ranking.nulls) { return }
        if descending {
            for group in stride(from: ranking.distinct - 1, through: 0, by: -1) where visit(UInt32(group), ranking.group(group)) { return }
        } else {
            for group in 0..<ranking.distinct where visit(UInt32(group), ranking.group(group)) { return }
        }
        if !nullsFirst { _ = visit(_Ranking.null, ranking.nulls) }
    }
}

/// A request resolved against an index: its components, search and cursor.
struct _IndexQuery {
    var components: [_Component]
    /// The rows that match the search.
    var matches: _Matches
    /// The cursor's position: its doubled ordinals and row id, rows after it only.
    var after: (ordinals: [UInt64], id: Int64)?
}

extension _TableIndex {
    /// The components of `spec` (an `enum=` key gives its order, then its value), with the
    /// rankings they read; `built` receives rankings this index didn't have yet.
    func components(_ spec: SortSpec, built: inout [KeyVariant: _Ranking], deadline: _Deadline? = nil) throws -> [_Component] {
        var components: [_Component] = []
        for key in spec.keys {
            let variant = try Self.variant(key, schema: schema)
            // Each ranking built is a sort of the table: the budget is checked between them.
            if rankings[variant]?.isCurrent != true, built[variant] == nil { try deadline?.check() }
            let ranking =
                rankings[variant].flatMap { $0.isCurrent ? $0 : nil } ?? built[variant]
                ?? {
                    let ranking = self.ranking(variant)
                    built[variant] = ranking
                    return ranking
                }()
            let nullsFirst = key.nulls.nullsFirst(key.direction)
            let descending = key.direction == .descending
            if let order = key.enumOrder {
                let type = schema.columns[variant.column].type
                let places = (0..<ranking.distinct).map { group -> UInt32 in
                    let slot = Int(ranking.order[Int(ranking.groupStarts[group])])
                    let value = variant.value(of: cells.text(slot, variant.column), type: type)
                    if case .integer(let place)? = key.enumRank(of: value) { return UInt32(place) }
                    return UInt32(order.count)
                }
                components.append(
                    _Component(
                        ranking: ranking, enumPlaces: places, levels: UInt32(order.count + 1), descending: descending, nullsFirst: nullsFirst))
            }
            components.append(
                _Component(
                    ranking: ranking, enumPlaces: nil, levels: UInt32(ranking.distinct), descending: descending, nullsFirst: nullsFirst))
        }
        return components
    }

    /// A cursor's position in rank space: per component the doubled ordinal of the cursor row's
    /// value (odd where a group has that value, even between groups), from its cells' text.
    func cursorOrdinals(_ spec: SortSpec, components: [_Component], texts: [String?]) throws -> [UInt64] {
        var ordinals: [UInt64] = []
        var next = 0
        for (key, text) in zip(spec.keys, texts) {
            let variant = try Self.variant(key, schema: schema)
            let type = schema.columns[variant.column].type
            let value = text.map { variant.value(of: $0, type: type) } ?? .null
            let count = key.enumOrder == nil ? 1 : 2
            for index in 0..<count {
                let component = components[next]
                next += 1
                if value.isNull {
                    ordinals.append(2 * UInt64(component.ordinal(ofGroup: _Ranking.null)) + 1)
                    continue
                }
                if index == 0, key.enumOrder != nil {
                    guard case .integer(let place)? = key.enumRank(of: value) else { continue }
                    let ordinal = component.descending ? component.levels - UInt32(place) : UInt32(place) + 1
                    ordinals.append(2 * UInt64(ordinal) + 1)
                    continue
                }
                let ranking = component.ranking
                let point = ranking.insertionPoint(
                    of: value, { variant.value(of: cells.text(Int($0), variant.column), type: type) },
                    collation: variant.collation)
                let levels = UInt64(component.levels), group = UInt64(point.group)
                if point.exact {
                    ordinals.append(component.descending ? 2 * (levels - group) + 1 : 2 * (group + 1) + 1)
                } else {
                    ordinals.append(component.descending ? 2 * (levels - group) + 2 : 2 * (group + 1))
                }
            }
        }
        return ordinals
    }

    /// The slots of the rows at `offset..<offset + limit` of `query`'s order (rows after its
    /// cursor, if any).
    func page(_ query: _IndexQuery, offset: Int, limit: Int) -> [Int] {
        guard limit > 0 else { return [] }
        if query.after == nil, query.components.count <= 1 {
            return orderedSlice(query.components.first, matches: query.matches, offset: offset, limit: limit)
        }
        if let after = query.after, query.components.count == 1 {
            return slice(query.components[0], matches: query.matches, after: after, limit: limit)
        }
        return sortedByComposite(query, need: offset + limit).dropFirst(offset).prefix(limit).map(Int.init)
    }

    /// Rows after a cursor in the order of one component, without a sort: the ranking's groups
    /// walked in the component's order, those before the cursor's skipped whole, the cursor's
    /// own group from the row after the cursor's id (a group is in slot order, which is id
    /// order).
    private func slice(_ component: _Component, matches: _Matches, after: (ordinals: [UInt64], id: Int64), limit: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(limit)
        let cursor = after.ordinals[0]
        /// Takes the group's rows after the cursor; true once the page is full.
        func take(_ group: UInt32, _ slots: ArraySlice<UInt32>) -> Bool {
            let doubled = 2 * UInt64(component.ordinal(ofGroup: group)) + 1
            guard doubled >= cursor else { return false }
            for slot in slots {
                let slot = Int(slot)
                guard matches.contains(slot, live: live), doubled > cursor || ids[slot] > after.id else { continue }
                result.append(slot)
                if result.count == limit { return true }
            }
            return false
        }
        component.walk(take)
        return result
    }

    /// Rows in the order of one component (or slot order) without a sort: the ranking's
    /// groups walked in the component's direction, nulls where it puts them.
    private func orderedSlice(_ component: _Component?, matches: _Matches, offset: Int, limit: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(limit)
        var skip = offset
        func take<Slots: Sequence>(_ slots: Slots) -> Bool where Slots.Element: BinaryInteger {
            for slot in slots {
                let slot = Int(slot)
                guard matches.contains(slot, live: live) else { continue }
                if skip > 0 {
                    skip -= 1
                    continue
                }
                result.append(slot)
                if result.count == limit { return true }
            }
            return false
        }
        guard let component else {
            _ = take(0..<slotCount)
            return result
        }
        if matches.matches == nil, offset > 0 {
            // Without a search every live row counts: jump whole groups.
            return jumpedSlice(component.ranking, component: component, offset: offset, limit: limit)
        }
        component.walk { _, slots in take(slots) }
        return result
    }

    /// ``orderedSlice(_:matches:offset:limit:)`` without a search, where every live row
    /// counts: the page's start is found by skipping whole blocks, so any offset costs what the
    /// first page costs.
    private func jumpedSlice(_ ranking: _Ranking, component: _Component, offset: Int, limit: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(limit)
        var skip = offset
        func take(_ block: ArraySlice<UInt32>) {
            guard result.count < limit else { return }
            if skip >= block.count {
                skip -= block.count
                return
            }
            for slot in block.dropFirst(skip).prefix(limit - result.count) { result.append(Int(slot)) }
            skip = 0
        }
        if component.nullsFirst { take(ranking.nulls) }
        let nonNull = ranking.nonNullCount
        if !component.descending {
            take(ranking.order[..<nonNull])
        } else if skip >= nonNull {
            skip -= nonNull
        } else {
            // Descending: the groups backwards, each in slot order. Output position p of the
            // values lies in the group holding ascending index nonNull - 1 - p.
            var position = skip
            skip = 0
            while position < nonNull, result.count < limit {
                let group = Int(ranking.ranks[Int(ranking.order[nonNull - 1 - position])])
                let start = Int(ranking.groupStarts[group]), end = Int(ranking.groupStarts[group + 1])
                let within = position - (nonNull - end)
                for slot in ranking.order[(start + within)..<end].prefix(limit - result.count) { result.append(Int(slot)) }
                position += end - start - within
            }
        }
        if !component.nullsFirst { take(ranking.nulls) }
        return result
    }

    /// The first `need` rows of the order, by packed composites of doubled ordinals: a top-k
    /// selection when `need` is small, otherwise a radix sort of every matching row.
    func sortedByComposite(_ query: _IndexQuery, need: Int) -> [UInt32] {
        let components = query.components
        let bits = components.reduce(0) { $0 + $1.bits }
        guard bits <= 128 else { return sortedByComparison(query, need: need) }
        if need <= 4_096, let first = components.first {
            return firstGroups(query, first: first, need: need)
        }
        // Per component, the doubled ordinal of each group (the last entry: null's), and its
        // shift: a row's composite is one table lookup per component.
        let tables = components.map { component in
            (0...component.ranking.distinct).map { group in
                2 * UInt64(component.ordinal(ofGroup: group == component.ranking.distinct ? _Ranking.null : UInt32(group))) + 1
            }
        }
        let shifts = components.map { UInt64($0.bits) }
        let ranks = components.map(\.ranking.ranks)
        let nullIndex = components.map(\.ranking.distinct)
        let cursor = query.packedCursor
        let less = _recordPrecedes
        let small = need <= 4_096
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, slotCount / 65_536))
        let results = _ResultSlots<[_KeyRecord]>(count: slices)
        let count = slotCount, keep = query.matches.matches ?? live
        guard count > 0 else { return [] }
        // Each slice reads the index and fills its own result; the arrays are read through
        // pointers (no reference counting or bounds checks per row), valid in these closures.
        _NarrowRanks.withReaders(ranks) { ranks in
            _withBuffers(tables) { tables in
                keep.withUnsafeBufferPointer { keep in
                    let pointers = _UncheckedBox((ranks, tables, keep))
                    _concurrentPerform(
                        iterations: slices,
                        _UncheckedBox { slice in
                            let (ranks, tables, keep) = pointers.value
                            var kept: [_KeyRecord] = []
                            kept.reserveCapacity(small ? need : count / slices + 1)
                            for slot in (count * slice / slices)..<(count * (slice + 1) / slices) where keep[slot] {
                                var hi: UInt64 = 0, lo: UInt64 = 0
                                for k in 0..<tables.count {
                                    let group = ranks[k][slot]
                                    _pack(&hi, &lo, tables[k][group == _Ranking.null ? nullIndex[k] : Int(group)], shift: shifts[k])
                                }
                                if let cursor, _atOrBefore(hi, lo, cursor, id: { ids[slot] }) { continue }
                                let record = _KeyRecord(hi: hi, lo: lo, index: UInt32(slot))
                                guard small else {
                                    kept.append(record)
                                    continue
                                }
                                // A bounded max-heap of the best `need` so far.
                                _MaxHeap.keep(record, in: &kept, limit: need, by: less)
                            }
                            results.set(slice, kept)
                        })
                }
            }
        }
        if small {
            return results.values.joined().sorted(by: less).prefix(need).map(\.index)
        }
        // Slots ascend through the slices, so the stable radix sort keeps ties in slot order.
        var records = Array(results.values.joined())
        _radixSort(&records)
        return records.prefix(need).map(\.index)
    }

    /// The first `need` rows of an order (after its cursor, if any): the first component's
    /// groups walked in its order from the cursor's, their matching rows after the cursor
    /// collected until they cover `need` (a group is always taken whole), and only those sorted
    /// by every component. A first page of `-price,title` reads a few hundred rows, not every
    /// row, and so does the page after a cursor deep in the order.
    private func firstGroups(_ query: _IndexQuery, first: _Component, need: Int) -> [UInt32] {
        let ranking = first.ranking
        // The groups in the component's order (nulls as the group past the last): by value,
        // or for an `enum=` component by place in the list, groups of one place together.
        // Without `enum=`, position → group is arithmetic (no list of a million groups per
        // request); with it, the groups are sorted by place.
        let distinct = ranking.distinct, groupCount = distinct + 1
        var sorted: [Int] = []
        if first.enumPlaces != nil {
            sorted = Array(0...distinct).sorted { a, b in
                let (x, y) = (ordinal(first, a), ordinal(first, b))
                return x == y ? a < b : x < y
            }
        }
        func groupAt(_ position: Int) -> Int {
            if first.enumPlaces != nil { return sorted[position] }
            var index = position
            if first.nullsFirst {
                if index == 0 { return distinct }
                index -= 1
            } else if index == distinct {
                return distinct
            }
            return first.descending ? distinct - 1 - index : index
        }
        // Packed as in `sortedByComposite` (at most 128 bits, checked there).
        let components = query.components
        func record(_ slot: UInt32) -> _KeyRecord {
            var hi: UInt64 = 0, lo: UInt64 = 0
            for component in components { _pack(&hi, &lo, component.doubled(Int(slot)), shift: UInt64(component.bits)) }
            return _KeyRecord(hi: hi, lo: lo, index: slot)
        }
        let cursor = query.packedCursor
        // Groups wholly before the cursor's first ordinal are skipped without reading them.
        let firstAfter = query.after?.ordinals.first ?? 0
        var start = 0
        if firstAfter > 0 {
            var low = 0, high = groupCount
            while low < high {
                let middle = (low + high) / 2
                if 2 * UInt64(ordinal(first, groupAt(middle))) + 1 < firstAfter { low = middle + 1 } else { high = middle }
            }
            start = low
        }
        var records: [_KeyRecord] = []
        for position in start..<groupCount {
            let group = groupAt(position)
            let slots = group == ranking.distinct ? ranking.nulls : ranking.group(group)
            for slot in slots where query.matches.contains(Int(slot), live: live) {
                let record = record(slot)
                if let cursor, _atOrBefore(record.hi, record.lo, cursor, id: { ids[Int(slot)] }) { continue }
                records.append(record)
            }
            // Enough, and the next group sorts after this one: later groups can't come first.
            if records.count >= need, position + 1 == groupCount || ordinal(first, groupAt(position + 1)) != ordinal(first, group) { break }
        }
        let less = _recordPrecedes
        guard records.count > need else { return records.sorted(by: less).map(\.index) }
        var kept: [_KeyRecord] = []
        kept.reserveCapacity(need)
        for record in records { _MaxHeap.keep(record, in: &kept, limit: need, by: less) }
        return kept.sorted(by: less).map(\.index)
    }

    /// A group's ordinal in a component (the group past the last is null's).
    private func ordinal(_ component: _Component, _ group: Int) -> UInt32 {
        component.ordinal(ofGroup: group == component.ranking.distinct ? _Ranking.null : UInt32(group))
    }

    /// Orders too wide to pack in 128 bits: rows compared component by component.
    private func sortedByComparison(_ query: _IndexQuery, need: Int) -> [UInt32] {
        var slots = query.matches.slots(live: live).map { UInt32($0) }
        if let after = query.after {
            slots = slots.filter { slot in
                let ordinals = query.components.map { $0.doubled(Int(slot)) }
                return ordinals.lexicographicallyPrecedes(after.ordinals) == false
                    && (ordinals != after.ordinals || ids[Int(slot)] > after.id)
            }
        }
        slots.sort { a, b in
            for component in query.components {
                let (x, y) = (component.doubled(Int(a)), component.doubled(Int(b)))
                if x != y { return x < y }
            }
            return a < b
        }
        return Array(slots.prefix(need))
    }
}

/// Appends a doubled ordinal of `shift` bits to a 128-bit composite (`hi`, `lo`), the first
/// component most significant.
@inline(__always)
private func _pack(_ hi: inout UInt64, _ lo: inout UInt64, _ ordinal: UInt64, shift: UInt64) {
    hi = hi << shift | lo >> (64 - shift)
    lo = lo << shift | ordinal
}

/// Whether a row packed as `hi, lo` comes at or before the cursor's row; its id is read only
/// when the keys tie.
@inline(__always)
private func _atOrBefore(_ hi: UInt64, _ lo: UInt64, _ cursor: (hi: UInt64, lo: UInt64, id: Int64), id: () -> Int64) -> Bool {
    (hi, lo) < (cursor.hi, cursor.lo) || ((hi, lo) == (cursor.hi, cursor.lo) && id() <= cursor.id)
}

/// Composite order, ties by slot.
@Sendable @inline(__always)
private func _recordPrecedes(_ a: _KeyRecord, _ b: _KeyRecord) -> Bool { (a.hi, a.lo, a.index) < (b.hi, b.lo, b.index) }

extension _IndexQuery {
    /// The cursor's position packed as rows' composites are, with its row id, or `nil`.
    var packedCursor: (hi: UInt64, lo: UInt64, id: Int64)? {
        after.map { after in
            var hi: UInt64 = 0, lo: UInt64 = 0
            for (component, ordinal) in zip(components, after.ordinals) { _pack(&hi, &lo, ordinal, shift: UInt64(component.bits)) }
            return (hi, lo, after.id)
        }
    }
}
