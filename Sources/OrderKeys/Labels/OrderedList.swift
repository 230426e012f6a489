/// An ordered list of ids with 64-bit order labels, in memory: the model a store mirrors, and a
/// ``LabelReader`` for the planner.
///
/// Every mutation returns the label writes it made, so a caller that persists the list writes
/// exactly those rows.
///
///     var list = OrderedList<Int>(seed: 42)
///     for id in 1...3 { try list.append(id) }
///     try list.move(fromOffsets: [2], toOffset: 0)   // SwiftUI onMove: 3 to the front
///     list.ids                                       // [3, 1, 2]
///
/// - Complexity: Inserts, moves and removals take O(log n + b) for blocks of b ≈ 512 labels,
///   plus O(n / b) to resolve offsets; relabels write O(log n) rows amortized.
public struct OrderedList<ID: Hashable> {
    struct Entry {
        var label: UInt64
        var id: ID
    }

    /// Entries sorted by label, in blocks of at most 2 × `blockSize`; no block is empty.
    private var blocks: [[Entry]] = []
    private var labels: [ID: UInt64] = [:]
    private var random: SplitMix64
    private static var blockSize: Int { 512 }

    /// An empty list whose in-gap labels come from a generator seeded with `seed`.
    public init(seed: UInt64 = 0x0DDB_A11) {
        random = SplitMix64(seed: seed)
    }

    /// The number of items.
    public var count: Int { labels.count }

    /// Whether the list holds `id`.
    public func contains(_ id: ID) -> Bool { labels[id] != nil }

    /// The ids in order.
    public var ids: [ID] { blocks.flatMap { $0.map(\.id) } }

    /// The (id, label) pairs in order.
    public var entries: [(id: ID, label: UInt64)] { blocks.flatMap { $0.map { ($0.id, $0.label) } } }

    /// The id at `offset` in the order.
    public subscript(offset: Int) -> ID {
        precondition(offset >= 0 && offset < count, "offset out of range")
        var remaining = offset
        for block in blocks {
            if remaining < block.count { return block[remaining].id }
            remaining -= block.count
        }
        preconditionFailure("offset out of range")
    }

    /// The ids at `range` of offsets, in order. O(n / 512 + range.count).
    ///
    ///     list.ids(in: 0..<50)   // the first page
    public func ids(in range: Range<Int>) -> [ID] {
        var result: [ID] = []
        result.reserveCapacity(range.count)
        var start = 0
        for block in blocks {
            let end = start + block.count
            defer { start = end }
            if end <= range.lowerBound { continue }
            if start >= range.upperBound { break }
            let overlap = Swift.max(range.lowerBound, start)..<Swift.min(range.upperBound, end)
            result.append(contentsOf: block[(overlap.lowerBound - start)..<(overlap.upperBound - start)].map(\.id))
        }
        return result
    }

    /// The ids right before and right after `id` in the order (`nil` at the ends), or `nil` if
    /// the list doesn't hold `id`.
    ///
    ///     list.ids                  // [1, 2, 3]
    ///     list.neighbours(of: 1)    // (before: nil, after: 2)
    public func neighbours(of id: ID) -> (before: ID?, after: ID?)? {
        guard let label = labels[id] else { return nil }
        let b = blockIndex(for: label)
        let position = _partition(blocks[b]) { $0.label >= label }
        let before = position > 0 ? blocks[b][position - 1].id : (b > 0 ? blocks[b - 1].last!.id : nil)
        let after = position + 1 < blocks[b].count ? blocks[b][position + 1].id : (b + 1 < blocks.count ? blocks[b + 1].first!.id : nil)
        return (before, after)
    }

    // MARK: Mutations

    /// Appends `id` at the end. Usually writes one row: `id` at the last label + 2^32.
    @discardableResult
    public mutating func append(_ id: ID) throws -> [LabelWrite<ID>] {
        try insert(id, before: nil)
    }

    /// Inserts `id` at the front. Usually writes one row: `id` at the first label − 2^32.
    @discardableResult
    public mutating func prepend(_ id: ID) throws -> [LabelWrite<ID>] {
        try insert(id, after: nil)
    }

    /// Inserts `id` right after `predecessor` (at the front if `nil`).
    ///
    /// - Throws: ``OrderKeyError`` for a duplicate `id` or an unknown `predecessor`; the list
    ///   is unchanged.
    @discardableResult
    public mutating func insert(_ id: ID, after predecessor: ID?) throws -> [LabelWrite<ID>] {
        try adding(id) { list, random in try LabelPlanner.insert(id, after: predecessor, in: list, using: &random) }
    }

    /// Inserts `id` right before `successor` (at the end if `nil`).
    ///
    /// - Throws: ``OrderKeyError`` for a duplicate `id` or an unknown `successor`.
    @discardableResult
    public mutating func insert(_ id: ID, before successor: ID?) throws -> [LabelWrite<ID>] {
        try adding(id) { list, random in try LabelPlanner.insert(id, before: successor, in: list, using: &random) }
    }

    /// Adds the new `id` with the writes `plan` makes against the list as it is.
    private mutating func adding(
        _ id: ID, _ plan: (OrderedList, inout SplitMix64) throws -> [LabelWrite<ID>]
    ) throws -> [LabelWrite<ID>] {
        guard labels[id] == nil else { throw OrderKeyError.duplicateID(id) }
        let writes = try plan(self, &random)
        apply(writes)
        return writes
    }

    /// Moves `id` right after `predecessor` (to the front if `nil`). Usually writes one row.
    ///
    /// - Throws: ``OrderKeyError`` for an unknown id; the list is unchanged.
    @discardableResult
    public mutating func move(_ id: ID, after predecessor: ID?) throws -> [LabelWrite<ID>] {
        try moving(id, anchor: predecessor) { list, id in try list.insert(id, after: predecessor) }
    }

    /// Moves `id` right before `successor` (to the end if `nil`). Usually writes one row.
    @discardableResult
    public mutating func move(_ id: ID, before successor: ID?) throws -> [LabelWrite<ID>] {
        try moving(id, anchor: successor) { list, id in try list.insert(id, before: successor) }
    }

    private mutating func moving(
        _ id: ID, anchor: ID?, _ insert: (inout OrderedList, ID) throws -> [LabelWrite<ID>]
    ) throws -> [LabelWrite<ID>] {
        guard labels[id] != nil else { throw OrderKeyError.unknownID(id) }
        if let anchor {
            guard labels[anchor] != nil else { throw OrderKeyError.unknownID(anchor) }
            if anchor == id { return [] }
        }
        let saved = self
        remove(id)
        do {
            return try insert(&self, id)
        } catch {
            self = saved
            throw error
        }
    }

    /// Moves the items at `offsets` so they stand before the item now at `destination` (or at
    /// the end if `destination == count`), keeping their relative order — SwiftUI's
    /// `onMove(perform:)` semantics, where both refer to the list before the move.
    ///
    ///     // ids [a, b, c, d]: move b and d before c (destination 2)
    ///     try list.move(fromOffsets: [1, 3], toOffset: 2)   // [a, b, d, c]
    ///
    /// - Returns: The writes, one per row at most (the last write for a row wins).
    /// - Throws: ``OrderKeyError`` for an offset outside the list; the list is unchanged.
    @discardableResult
    public mutating func move(fromOffsets offsets: some Sequence<Int>, toOffset destination: Int) throws -> [LabelWrite<ID>] {
        let moving = Set(offsets)
        for offset in moving where offset < 0 || offset >= count { throw OrderKeyError.offset(offset, count: count) }
        guard destination >= 0 && destination <= count else { throw OrderKeyError.offset(destination, count: count) }
        let order = ids
        let moved = order.indices.filter { moving.contains($0) }.map { order[$0] }
        guard !moved.isEmpty else { return [] }
        // The first item at or after the destination that stays put; the moved items go before it.
        let anchor = order[destination...].indices.first { !moving.contains($0) }.map { order[$0] }
        let saved = self
        var writes: [ID: UInt64] = [:]
        var sequence: [ID] = []
        do {
            for id in moved { remove(id) }
            var previous: ID? = nil
            for id in moved {
                let step = if let previous { try insert(id, after: previous) } else { try insert(id, before: anchor) }
                for write in step {
                    if writes[write.id] == nil { sequence.append(write.id) }
                    writes[write.id] = write.label
                }
                previous = id
            }
        } catch {
            self = saved
            throw error
        }
        return sequence.map { LabelWrite(id: $0, label: writes[$0]!) }
    }

    /// Removes `id`; writes nothing (the row is deleted). Returns whether it was there.
    @discardableResult
    public mutating func remove(_ id: ID) -> Bool {
        guard let label = labels.removeValue(forKey: id) else { return false }
        removeEntry(label: label)
        return true
    }

    /// Applies label writes: every written id leaves its old label first, then all take their
    /// new labels, so labels never collide midway (as a store's two-phase update does).
    public mutating func apply(_ writes: [LabelWrite<ID>]) {
        for write in writes {
            if let old = labels[write.id] { removeEntry(label: old) }
        }
        for write in writes {
            labels[write.id] = write.label
            insertEntry(Entry(label: write.label, id: write.id))
        }
    }

    /// Whether labels are strictly increasing, inside [0, 2^62), and every id is listed once.
    public func verify() -> Bool {
        let all = entries
        guard all.count == labels.count, all.allSatisfy({ $0.label < OrderLabels.limit && labels[$0.id] == $0.label }) else { return false }
        return zip(all, all.dropFirst()).allSatisfy { $0.label < $1.label }
    }

    // MARK: Block storage

    /// The block that holds, or would hold, `label`.
    private func blockIndex(for label: UInt64) -> Int {
        var low = 0
        var high = blocks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if blocks[middle].last!.label < label { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func insertEntry(_ entry: Entry) {
        guard !blocks.isEmpty else {
            blocks = [[entry]]
            return
        }
        let b = blockIndex(for: entry.label)
        let position = _partition(blocks[b]) { $0.label >= entry.label }
        blocks[b].insert(entry, at: position)
        if blocks[b].count > 2 * Self.blockSize {
            let tail = Array(blocks[b][Self.blockSize...])
            blocks[b].removeSubrange(Self.blockSize...)
            blocks.insert(tail, at: b + 1)
        }
    }

    private mutating func removeEntry(label: UInt64) {
        let b = blockIndex(for: label)
        let position = _partition(blocks[b]) { $0.label >= label }
        precondition(position < blocks[b].count && blocks[b][position].label == label, "label index out of sync")
        blocks[b].remove(at: position)
        if blocks[b].isEmpty { blocks.remove(at: b) }
    }

    /// The global offset of the first entry satisfying `predicate` (monotonic in label order).
    private func offset(where predicate: (Entry) -> Bool) -> Int {
        var offset = 0
        for block in blocks {
            if let last = block.last, predicate(last) { return offset + _partition(block, predicate) }
            offset += block.count
        }
        return offset
    }

    private func entry(at offset: Int) -> Entry? {
        guard offset >= 0 && offset < count else { return nil }
        var remaining = offset
        for block in blocks {
            if remaining < block.count { return block[remaining] }
            remaining -= block.count
        }
        return nil
    }
}

extension OrderedList: LabelReader {
    public func label(of id: ID) -> UInt64? { labels[id] }

    public func label(after label: UInt64) -> UInt64? {
        guard !blocks.isEmpty else { return nil }
        let b = blockIndex(for: label &+ 1)
        let position = _partition(blocks[b]) { $0.label > label }
        return position < blocks[b].count ? blocks[b][position].label : nil
    }

    public func label(before label: UInt64) -> UInt64? {
        guard !blocks.isEmpty else { return nil }
        let b = blockIndex(for: label)
        let position = _partition(blocks[b]) { $0.label >= label }
        if position > 0 { return blocks[b][position - 1].label }
        return b > 0 ? blocks[b - 1].last!.label : nil
    }

    public func firstLabel() -> UInt64? { blocks.first?.first?.label }
    public func lastLabel() -> UInt64? { blocks.last?.last?.label }

    public func count(in range: ClosedRange<UInt64>) -> Int {
        offset { $0.label > range.upperBound } - offset { $0.label >= range.lowerBound }
    }

    public func items(in range: ClosedRange<UInt64>) -> [(id: ID, label: UInt64)] {
        let from = offset { $0.label >= range.lowerBound }
        let to = offset { $0.label > range.upperBound }
        return (from..<to).compactMap { entry(at: $0) }.map { ($0.id, $0.label) }
    }
}

extension OrderedList: Sendable where ID: Sendable {}
extension OrderedList.Entry: Sendable where ID: Sendable {}

/// The first index in `array` whose element satisfies `predicate`, which must be false then true.
private func _partition<T>(_ array: [T], _ predicate: (T) -> Bool) -> Int {
    var low = 0
    var high = array.count
    while low < high {
        let middle = (low + high) / 2
        if predicate(array[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
}
