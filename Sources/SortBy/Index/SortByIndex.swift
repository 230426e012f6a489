import Foundation
import OrderKeys
import SortKit

/// Rows with pre-sorted "replicas": each preset keeps a permutation of row ids (4 bytes per
/// row), computed once with SortKit's engine and kept current on insert, update and delete
/// with O(log n) comparisons each — no re-sort — so switching preset or page returns a page
/// without sorting.
///
///     var index = SortByIndex<Book>(presets: [
///         "title": [SortKey(\.title)],
///         "price-desc": [SortKey(\.price, .descending)],
///     ])
///     let id = index.insert(Book(title: "Dune", price: 9.99))
///     index.page(preset: "price-desc", offset: 0, limit: 50)   // [Book], already in order
///     index.update(id, to: Book(title: "Dune", price: 4))        // moves in each replica
///
/// Rows that tie on a preset's keys keep insertion (row id) order, as SortKit's stable sorts do.
///
/// Besides sort keys, a preset can be ``Preset/relevance`` (the search score, best first) or
/// ``Preset/manual`` (the user's own order, kept with OrderKeys' labels: a move is O(log n)).
public struct SortByIndex<Row> {
    /// What a preset orders by.
    public enum Preset {
        /// Sort keys; ties by row id.
        case keys([SortKey<Row>])
        /// The search score of a query, best first; ties (and a blank query) by row id.
        case relevance
        /// The user's order, changed by ``SortByIndex/move(_:after:in:)``; new rows go last.
        case manual
    }

    /// Rows by id; a deleted row stays (ids are places) with `live` false. Not optionals: a
    /// comparison reads a row in place, where unwrapping an optional copied it (a retain of
    /// every string field, and a cache miss on each, per comparison).
    @usableFromInline internal var rows: [Row] = []
    @usableFromInline internal var live: [Bool] = []
    /// Replicas in an array, found by name through `replicaSlot`: mutating an array element is
    /// in place, where `dictionary[name]!.mutate()` may copy the replica's block list.
    @usableFromInline internal var replicaList: [_Replica] = []
    @usableFromInline internal var replicaSlot: [String: Int] = [:]
    /// Each replica's keys, by slot (no name lookup per update).
    @usableFromInline internal var replicaKeys: [[SortKey<Row>]] = []
    @usableFromInline internal let presetKeys: [String: [SortKey<Row>]]
    @usableFromInline internal let relevancePresets: Set<String>
    @usableFromInline internal var manualLists: [String: OrderedList<UInt32>] = [:]
    /// The searchable fields of a row, and each row's folded search text.
    @usableFromInline internal let searchable: ((Row) -> [String])?
    @usableFromInline internal var searchText: [String] = []

    @usableFromInline
    internal struct _Replica {
        @usableFromInline var permutation: _BlockedPermutation
        /// Per block, the fence of its last row under the preset's first key: an update's
        /// search over the blocks compares fences, one array, and reads a block's last row
        /// (a cache miss on the row and one on its text) only where they tie. An update
        /// moving a row in three presets took 40–44 µs on multilingual titles with a row read
        /// per block probe.
        @usableFromInline var fences: [_SortFence]
        @inlinable init(permutation: _BlockedPermutation, fences: [_SortFence]) {
            self.permutation = permutation
            self.fences = fences
        }
    }

    /// An index with presets, each a list of sort keys, optional initial rows (sorted once per
    /// preset with the fast engine), and the fields a search looks at.
    public init(presets: [String: [SortKey<Row>]], rows initial: [Row] = [], searchable: ((Row) -> [String])? = nil) {
        self.init(presets: presets.mapValues { .keys($0) }, rows: initial, searchable: searchable)
    }

    /// An index with presets of any kind: sort keys, relevance or manual order.
    ///
    ///     var index = SortByIndex<Book>(presets: [
    ///         "Title": .keys([SortKey(\.title)]), "Relevance": .relevance, "My order": .manual,
    ///     ], rows: books, searchable: { [$0.title, $0.author] })
    ///     index.move(7, after: 3, in: "My order")
    public init(presets: [String: Preset], rows initial: [Row] = [], searchable: ((Row) -> [String])? = nil) {
        var keyed: [String: [SortKey<Row>]] = [:]
        var relevance: Set<String> = []
        for (name, preset) in presets {
            switch preset {
            case .keys(let keys): keyed[name] = keys
            case .relevance: relevance.insert(name)
            case .manual:
                var list = OrderedList<UInt32>()
                for id in initial.indices { _ = try? list.append(UInt32(id)) }
                manualLists[name] = list
            }
        }
        presetKeys = keyed
        relevancePresets = relevance
        self.searchable = searchable
        rows = initial
        live = Array(repeating: true, count: initial.count)
        liveCount = initial.count
        if let searchable { searchText = initial.map { SearchQuery.foldedFields(searchable($0)) } }
        for (name, keys) in keyed {
            let order = initial.sortedIndices(by: keys).map { UInt32($0) }
            replicaSlot[name] = replicaList.count
            let permutation = _BlockedPermutation(sorted: order)
            let fences = permutation.blocks.map { Self.fence(keys, of: initial[Int($0.last!)]) }
            replicaList.append(_Replica(permutation: permutation, fences: fences))
            replicaKeys.append(keys)
        }
    }

    /// The number of live rows.
    public var count: Int { liveCount }
    @usableFromInline internal var liveCount = 0

    /// The preset names.
    public var presetNames: [String] { (Array(presetKeys.keys) + relevancePresets + manualLists.keys).sorted() }

    /// The row with id `id`, if it exists.
    public subscript(id: Int) -> Row? {
        id >= 0 && id < rows.count && live[id] ? rows[id] : nil
    }

    /// Adds a row; returns its id. O(p log n) comparisons for p presets.
    @inlinable @discardableResult public mutating func insert(_ row: Row) -> Int {
        let id = UInt32(rows.count)
        rows.append(row)
        live.append(true)
        liveCount += 1
        if let searchable { searchText.append(SearchQuery.foldedFields(searchable(row))) }
        for slot in replicaList.indices { place(id, slot: slot) }
        for name in manualLists.keys { _ = try? manualLists[name]!.append(id) }
        return Int(id)
    }

    /// Replaces a row's values and moves it in the replicas whose keys it changed (elsewhere its
    /// place stands: the keys and the id tie-break are the same). Returns whether the id existed.
    @inlinable @discardableResult public mutating func update(_ id: Int, to row: Row) -> Bool {
        guard let old = self[id] else { return false }
        var moved: [Int] = []
        for slot in replicaKeys.indices where Self.keysDiffer(replicaKeys[slot], old, row) { moved.append(slot) }
        for slot in moved { unplace(UInt32(id), slot: slot) }
        rows[id] = row
        // Folding is the costly part of an update: skip it when the searchable text is the same.
        if let searchable {
            let fields = searchable(row)
            if fields != searchable(old) { searchText[id] = SearchQuery.foldedFields(fields) }
        }
        for slot in moved { place(UInt32(id), slot: slot) }
        return true
    }

    /// Whether `new` may go elsewhere than `old` under `keys`: some key's value differs.
    /// Strings are compared by their bytes, where comparing them under a collation took 2 µs
    /// for non-ASCII text; two spellings a collation calls equal (canonically equivalent
    /// text) count as different, and the row is placed again where it was.
    @inlinable static func keysDiffer(_ keys: [SortKey<Row>], _ old: Row, _ new: Row) -> Bool {
        for key in keys {
            switch (key.value(for: old), key.value(for: new)) {
            case (.string(let a)?, .string(let b)?): if !a.utf8.elementsEqual(b.utf8) { return true }
            case (let a?, let b?): if key.compareValues(a, b) != .orderedSame { return true }
            default: if key.compare(old, new) != .orderedSame { return true }
            }
        }
        return false
    }

    /// Removes a row. Returns whether the id existed.
    @inlinable @discardableResult public mutating func delete(_ id: Int) -> Bool {
        guard self[id] != nil else { return false }
        for slot in replicaList.indices { unplace(UInt32(id), slot: slot) }
        for name in manualLists.keys { _ = manualLists[name]!.remove(UInt32(id)) }
        live[id] = false
        liveCount -= 1
        return true
    }

    /// Row ids of a page in a preset's order, without sorting. O(n / 512 + limit).
    ///
    /// - Precondition: `preset` names a preset.
    @inlinable public func ids(preset: String, offset: Int, limit: Int) -> [Int] {
        if let list = manualLists[preset] {
            let start = Swift.min(Swift.max(offset, 0), list.count)
            return list.ids(in: start..<Swift.min(start + Swift.max(limit, 0), list.count)).map(Int.init)
        }
        if relevancePresets.contains(preset) {
            return Array(rows.indices.lazy.filter { self.live[$0] }.dropFirst(Swift.max(offset, 0)).prefix(Swift.max(limit, 0)))
        }
        guard let replica = replicaSlot[preset].map({ replicaList[$0] }) else { preconditionFailure("unknown preset '\(preset)'") }
        let start = Swift.min(Swift.max(offset, 0), replica.permutation.count)
        let end = Swift.min(start + Swift.max(limit, 0), replica.permutation.count)
        return replica.permutation.ids(in: start..<end).map(Int.init)
    }

    /// Moves row `id` right after `predecessor` (to the front when `nil`) in a manual preset.
    /// O(log n) amortized; returns whether both ids exist.
    ///
    /// - Precondition: `preset` is a manual preset.
    @inlinable @discardableResult public mutating func move(_ id: Int, after predecessor: Int?, in preset: String) -> Bool {
        precondition(manualLists[preset] != nil, "'\(preset)' is not a manual preset")
        guard self[id] != nil, predecessor.map({ self[$0] != nil }) ?? true else { return false }
        return (try? manualLists[preset]!.move(UInt32(id), after: predecessor.map(UInt32.init))) != nil
    }

    /// Moves row `id` right before `successor` (to the end when `nil`) in a manual preset.
    @inlinable @discardableResult public mutating func move(_ id: Int, before successor: Int?, in preset: String) -> Bool {
        precondition(manualLists[preset] != nil, "'\(preset)' is not a manual preset")
        guard self[id] != nil, successor.map({ self[$0] != nil }) ?? true else { return false }
        return (try? manualLists[preset]!.move(UInt32(id), before: successor.map(UInt32.init))) != nil
    }

    /// A page of rows in a preset's order.
    @inlinable public func page(preset: String, offset: Int, limit: Int) -> [Row] {
        ids(preset: preset, offset: offset, limit: limit).map { rows[$0] }
    }

    /// Row ids of a page of the rows matching `query`, in a preset's order: the replica is read
    /// in order and filtered, so no sort happens. A blank query is the unfiltered page.
    ///
    /// The first 16,384 rows are tested as the order reaches them, which finds the
    /// page of a common term at once. If that doesn't fill the page the matches are sparse, and
    /// testing the rest in the preset's order would read their search text in random order (a
    /// cache miss a row: 0.4 s for a term no row has at 1M rows); they are tested in id order
    /// instead, where the text lies as it was made, into a bitmap the order is then read through.
    ///
    /// - Precondition: The index was created with `searchable` fields, or the query is blank.
    @inlinable public func ids(preset: String, matching query: SearchQuery, offset: Int, limit: Int) -> [Int] {
        if query.isBlank { return ids(preset: preset, offset: offset, limit: limit) }
        precondition(searchable != nil, "the index has no searchable fields")
        if relevancePresets.contains(preset) { return relevant(query, offset: offset, limit: limit) }
        guard limit > 0 else { return [] }
        let blocks: [[UInt32]]
        if let list = manualLists[preset] {
            blocks = [list.ids]
        } else if let replica = replicaSlot[preset].map({ replicaList[$0] }) {
            blocks = replica.permutation.blocks
        } else {
            preconditionFailure("unknown preset '\(preset)'")
        }
        var skipped = 0
        var result: [Int] = []
        var tested = 0
        var matching: [UInt64]? = nil
        for block in blocks {
            for id in block {
                let matches: Bool
                if let matching {
                    matches = matching[Int(id) >> 6] & (1 << (UInt64(id) & 63)) != 0
                } else {
                    matches = query.matches(folded: searchText[Int(id)])
                    tested += 1
                    if tested == Self._inOrderTests { matching = matchingBitmap(query) }
                }
                guard matches else { continue }
                if skipped < offset { skipped += 1; continue }
                result.append(Int(id))
                if result.count >= limit { return result }
            }
        }
        return result
    }

    /// How many rows a search tests in a preset's order before it tests the rest in id order
    /// (see ``ids(preset:matching:offset:limit:)``).
    @usableFromInline static var _inOrderTests: Int { 16_384 }

    /// A bit per row id, set where the row is live and its search text matches `query`.
    @inlinable internal func matchingBitmap(_ query: SearchQuery) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: (rows.count + 63) / 64)
        for id in rows.indices where live[id] && query.matches(folded: searchText[id]) { bits[id >> 6] |= 1 << UInt64(id & 63) }
        return bits
    }

    /// The matching rows by ``RelevanceScore``, best first, ties by id: only the first
    /// `offset + limit` are ordered (SortKit's top-k selection).
    @inlinable internal func relevant(_ query: SearchQuery, offset: Int, limit: Int) -> [Int] {
        var scored: [(score: Int, id: Int)] = []
        for id in rows.indices where live[id] && query.matches(folded: searchText[id]) {
            scored.append((RelevanceScore.score(query, folded: searchText[id]), id))
        }
        let top = scored.min(
            count: Swift.max(offset, 0) + Swift.max(limit, 0),
            sortedBy: [
                SortKey(.descending) { $0.score }, SortKey { $0.id },
            ])
        return top.dropFirst(Swift.max(offset, 0)).map(\.id)
    }

    /// How many rows match `query`.
    @inlinable public func count(matching query: SearchQuery) -> Int {
        if query.isBlank { return liveCount }
        return rows.indices.filter { live[$0] && query.matches(folded: searchText[$0]) }.count
    }

    /// Bytes one preset's replica holds: 4 per row id and 4 for its block's number, plus each
    /// block's array header, number and fence.
    package func _replicaBytes(preset: String) -> Int {
        guard let replica = replicaSlot[preset].map({ replicaList[$0] }) else { return 0 }
        return replica.permutation.count * 4 + replica.permutation.blockOf.count * 4
            + replica.permutation.blocks.count * (36 + MemoryLayout<_SortFence>.stride)
    }

    /// Inserts `id` where its row goes in replica `slot`: a binary search comparing with a
    /// probe of the row (its keys read once), over the blocks by their fences where they tell.
    @inlinable internal mutating func place(_ id: UInt32, slot: Int) {
        var probe = _SortProbe(keys: replicaKeys[slot], row: rows[Int(id)])
        let fence = probe.fence, direction = replicaKeys[slot].first?.direction ?? .ascending
        // Rows are read in place through the base pointer: an array subscript copies the row
        // (retaining each field) per probe.
        let place = rows.withUnsafeBufferPointer { rows in
            replicaList[slot].fences.withUnsafeBufferPointer { fences in
                replicaList[slot].permutation.partitionPoint(
                    decide: { block in fence.order(of: fences[block], direction: direction).map { $0 == .orderedAscending } },
                    { other in
                        switch probe.compare(at: rows.baseAddress! + Int(other)) {
                        case .orderedAscending: true
                        case .orderedDescending: false
                        case .orderedSame: other < id
                        }
                    })
            }
        }
        let blocks = replicaList[slot].permutation.blocks.count
        let last = place.block < blocks && place.index == replicaList[slot].permutation.sizes[place.block]
        replicaList[slot].permutation.insert(id, at: place)
        if blocks == 0 {
            replicaList[slot].fences = [fence]
        } else if replicaList[slot].permutation.blocks.count > blocks {
            // The block split: its second half is a new block after it.
            replicaList[slot].fences.insert(.undecided, at: place.block + 1)
            refence(slot, block: place.block)
            refence(slot, block: place.block + 1)
        } else if last {
            replicaList[slot].fences[place.block] = fence
        }
    }

    /// Removes `id` from replica `slot`, found through its block (no row compared).
    @inlinable internal mutating func unplace(_ id: UInt32, slot: Int) {
        guard let place = replicaList[slot].permutation.place(of: id) else { preconditionFailure("replica out of sync") }
        let blocks = replicaList[slot].permutation.blocks.count
        let last = place.index == replicaList[slot].permutation.sizes[place.block] - 1
        replicaList[slot].permutation.remove(at: place)
        if replicaList[slot].permutation.blocks.count < blocks {
            replicaList[slot].fences.remove(at: place.block)
        } else if last {
            refence(slot, block: place.block)
        }
    }

    /// The fence of `row` under the first of `keys` (none without keys).
    @inlinable static func fence(_ keys: [SortKey<Row>], of row: Row) -> _SortFence {
        keys.first.map { _SortFence($0, value: $0.value(for: row)) } ?? .undecided
    }

    /// Sets block `block`'s fence in replica `slot` from its last row.
    @inlinable internal mutating func refence(_ slot: Int, block: Int) {
        let permutation = replicaList[slot].permutation
        guard block < permutation.blocks.count else { return }
        let last = Int(permutation.blocks[block][permutation.sizes[block] - 1])
        replicaList[slot].fences[block] = Self.fence(replicaKeys[slot], of: rows[last])
    }

    /// Whether every replica's fences are those of its blocks' last rows (for tests).
    package func _fencesAreCurrent() -> Bool {
        replicaList.indices.allSatisfy { slot in
            let replica = replicaList[slot]
            return replica.fences.count == replica.permutation.blocks.count
                && zip(replica.fences, replica.permutation.blocks).allSatisfy { $0 == Self.fence(replicaKeys[slot], of: rows[Int($1.last!)]) }
        }
    }
}

extension SortByIndex {
    /// An index whose key presets are sort specs (the text form of SortKit), read through
    /// named columns: `columns["price"]` gives a row's value for "price". Modifiers apply as
    /// in memory — collation, null placement, direction and `enum=` orders.
    ///
    ///     let index = try SortByIndex<Book>(specs: ["Cheapest": SortSpec(parsing: "price,title")],
    ///                                       columns: ["price": { .double($0.price) }, "title": { .string($0.title) }],
    ///                                       rows: books)
    ///
    /// - Throws: `SortSpecError` for a spec naming a column that `columns` doesn't have.
    public init(
        specs: [String: SortSpec], columns: [String: @Sendable (Row) -> SortValue], also: [String: Preset] = [:],
        rows initial: [Row] = [], searchable: ((Row) -> [String])? = nil
    ) throws {
        var presets = also
        for (name, spec) in specs {
            presets[name] = .keys(
                try spec.keys.flatMap { key -> [SortKey<Row>] in
                    guard let value = columns[key.column] else {
                        throw SortSpecError.unknownColumn(key.column, known: columns.keys.sorted())
                    }
                    return key.sortKeys(reading: value)
                })
        }
        self.init(presets: presets, rows: initial, searchable: searchable)
    }
}
