import Foundation

// Threads: a sort evaluates key closures (key paths, extractors, comparators) on the calling
// thread unless the rows are `Sendable`, since rows that are not — class instances with
// mutable or lazy state — must not be read from other threads. With `Sendable` rows (the
// overloads `where Element: Sendable`), several keys of a large input (from 50,000 rows) are
// read on several cores, and a top-k selection reads slices of the rows on every core. Either
// way the engine's own work — encoding extracted values, radix passes, moving rows into place —
// runs on every core: it touches values, never user code.

extension Sequence {
    /// Returns the elements sorted by a list of keys. Stable: elements that tie on every key
    /// keep their order, in both directions.
    ///
    ///     let books = [Book("Dune", price: 9), Book("Emma", price: nil), Book("Ulysses", price: 9)]
    ///     books.sorted(by: [SortKey(\.price, .descending)]).map(\.title)
    ///     // ["Dune", "Ulysses", "Emma"]: ties in input order, nulls last
    ///
    /// Key closures run on the calling thread; with `Sendable` rows, large inputs read their
    /// keys on several cores.
    ///
    /// - Parameter keys: The keys, most significant first. No keys keeps the input order.
    /// - Returns: The sorted elements.
    /// - Complexity: O(*n* log *n*) comparisons. Value keys are evaluated once per element,
    ///   strings turned into collation keys once; comparator keys are called per comparison.
    @inlinable
    public func sorted(by keys: [SortKey<Element>]) -> [Element] {
        let rows = Array(self)
        return _gather(rows, rows._sortedIndices(by: keys, parallel: false))
    }

    /// Returns the `count` smallest elements by a list of keys, in sorted order — the first
    /// page of a sort — without sorting everything. Stable.
    ///
    ///     books.min(count: 50, sortedBy: [SortKey(\.price, .descending)])
    ///     // the 50 most expensive books, ties in input order
    ///
    /// - Complexity: O(*n* log *k*) comparisons, where *k* is `count`.
    @inlinable
    public func min(count: Int, sortedBy keys: [SortKey<Element>]) -> [Element] {
        let rows = Array(self)
        return rows._indices(ofMin: count, sortedBy: keys, parallel: false).map { rows[$0] }
    }
}

extension Sequence where Element: Sendable {
    /// ``sorted(by:)`` for `Sendable` rows: the keys of a large input are read on several cores.
    @inlinable
    public func sorted(by keys: [SortKey<Element>]) -> [Element] {
        let rows = Array(self)
        return _gather(rows, rows._sortedIndices(by: keys, parallel: true))
    }

    /// ``min(count:sortedBy:)`` for `Sendable` rows: slices of a large input are read on
    /// several cores.
    @inlinable
    public func min(count: Int, sortedBy keys: [SortKey<Element>]) -> [Element] {
        let rows = Array(self)
        return rows._indices(ofMin: count, sortedBy: keys, parallel: true).map { rows[$0] }
    }
}

extension RandomAccessCollection where Index == Int {
    /// Returns the positions of the elements in sorted order, without moving them. Stable.
    ///
    ///     ["b", "a", "B"].sortedIndices(by: [SortKey(\.self, collation: .caseInsensitive)])
    ///     // [1, 2, 0]: "a", then "B" before "b" by the binary tie-break
    ///
    /// - Complexity: O(*n* log *n*) comparisons.
    @inlinable
    public func sortedIndices(by keys: [SortKey<Element>]) -> [Int] {
        _sortedIndices(by: keys, parallel: false)
    }

    /// The positions of the `count` smallest elements by `keys`, in sorted order, without
    /// sorting the rest. Stable: of equal elements, the earlier ones are taken first.
    ///
    ///     prices.indices(ofMin: 2, sortedBy: [SortKey(\.self)])
    ///
    /// - Complexity: O(*n* log *k*) comparisons; a key is evaluated for an element only when the
    ///   keys before it tie with the largest element kept so far.
    @inlinable
    public func indices(ofMin count: Int, sortedBy keys: [SortKey<Element>]) -> [Int] {
        _indices(ofMin: count, sortedBy: keys, parallel: false)
    }

    /// The positions of the elements at sorted ranks `ranks`, in sorted order — a page of a
    /// sort at any depth — holding keys for about the page only. Stable: ties in position
    /// order, exactly as `sortedIndices(by:)` orders them.
    ///
    ///     // Page 20,000 of 50 rows by title, without a sorted copy of a million keys:
    ///     let page = books.indices(ofRanks: 999_950..<1_000_000, sortedBy: [SortKey(\.title)])
    ///
    /// A seeded random sample of the elements picks two pivots around the ranks; one pass
    /// counts the elements before the lower pivot and keeps those between the pivots, which
    /// are then sorted. Ranks past the end are clamped.
    ///
    /// - Complexity: O(*n*) comparisons with the pivots, plus sorting the elements kept: the
    ///   page and a margin of about *n*/64 on each side. Pages near the start and comparator
    ///   keys take the `indices(ofMin:sortedBy:)` path.
    @inlinable
    public func indices(ofRanks ranks: Range<Int>, sortedBy keys: [SortKey<Element>]) -> [Int] {
        _indices(ofRanks: ranks, sortedBy: keys, parallel: false)
    }

    @inlinable
    internal func _indices(ofRanks ranks: Range<Int>, sortedBy keys: [SortKey<Element>], parallel: Bool) -> [Int] {
        precondition(ranks.lowerBound >= 0, "ranks start at 0")
        let ranks = ranks.clamped(to: 0..<count)
        guard !keys.isEmpty else { return _offsetting(Array(ranks)) }
        let selected =
            withContiguousStorageIfAvailable { buffer in
                _TopK(keys: keys.map { $0._topKKey(for: buffer) }).window(ranks, of: buffer.count, parallel: parallel)
            } ?? _TopK(keys: keys.map { $0._topKKey(for: self) }).window(ranks, of: self.count, parallel: parallel)
        return _offsetting(selected)
    }

    /// The sort of `sortedIndices(by:)`; `parallel` reads several keys on several cores.
    /// Inputs above `engineLimit` rows (2^32 − 1: positions the engine packs in 32 bits) are
    /// sorted by the reference path.
    @inlinable
    internal func _sortedIndices(by keys: [SortKey<Element>], parallel: Bool, engineLimit: Int = _maximumRecordCount) -> [Int] {
        guard !keys.isEmpty, count > 1 else { return Array(indices) }
        guard count >= _engineThreshold, count <= engineLimit else { return _referenceSortedIndices(by: keys) }
        var engine = _SortEngine(_keyInputs(keys, self, parallel: parallel), count: count)
        return _offsetting(engine.sortedIndices())
    }

    /// The selection of `indices(ofMin:sortedBy:)`; `parallel` reads slices of the rows on
    /// several cores.
    @inlinable
    internal func _indices(ofMin count: Int, sortedBy keys: [SortKey<Element>], parallel: Bool) -> [Int] {
        precondition(count >= 0, "cannot take a negative number of elements")
        guard count < self.count else { return _sortedIndices(by: keys, parallel: parallel) }
        guard !keys.isEmpty else { return Array(indices.prefix(count)) }
        let selected =
            withContiguousStorageIfAvailable { buffer in
                _TopK(keys: keys.map { $0._topKKey(for: buffer) }).smallest(count, of: buffer.count, parallel: parallel)
            } ?? _TopK(keys: keys.map { $0._topKKey(for: self) }).smallest(count, of: self.count, parallel: parallel)
        return _offsetting(selected)
    }

    /// `sortedIndices(by:)` plus, per sorted position, whether that element ties with the one
    /// before it on every key: what a data table keeps to re-rank a column without comparing
    /// neighbours again. Tie marks come from the engine's composites where they decide. Key
    /// closures run on the calling thread.
    @inlinable
    package func _sortedIndicesMarkingTies(
        by keys: [SortKey<Element>], engineLimit: Int = _maximumRecordCount
    ) -> (order: [Int], tiesPrevious: [Bool]) {
        guard !keys.isEmpty else { return (Array(indices), indices.map { $0 > startIndex }) }
        guard count >= _engineThreshold, count <= engineLimit else {
            let order = _referenceSortedIndices(by: keys)
            let ties = order.indices.map { $0 > 0 && keys.compare(self[order[$0 - 1]], self[order[$0]]) == .orderedSame }
            return (order, ties)
        }
        var engine = _SortEngine(_keyInputs(keys, self, parallel: false), count: count)
        let result = engine.sortedIndicesMarkingTies()
        return (_offsetting(result.order), result.tiesPrevious)
    }

    /// Positions (0-based) as indices of this collection.
    @inlinable
    internal func _offsetting(_ positions: [Int]) -> [Int] {
        let start = startIndex
        return start == 0 ? positions : positions.map { $0 + start }
    }

    /// The reference path: decorated values compared key by key. The engine must agree with it.
    @usableFromInline
    internal func _referenceSortedIndices(by keys: [SortKey<Element>]) -> [Int] {
        guard !keys.isEmpty, count > 1 else { return Array(indices) }
        // Positions from 0, offset at the end: a slice's indices start where it starts.
        var order = Array(0..<count)
        let plan = _DecoratedSort(rows: self, keys: keys)
        order.sort { plan.compare($0, $1) == .orderedAscending }
        return _offsetting(order)
    }
}

extension RandomAccessCollection where Index == Int, Element: Sendable {
    /// `sortedIndices(by:)` for `Sendable` rows: the keys of a large input are read on
    /// several cores.
    @inlinable
    public func sortedIndices(by keys: [SortKey<Element>]) -> [Int] {
        _sortedIndices(by: keys, parallel: true)
    }

    /// `indices(ofMin:sortedBy:)` for `Sendable` rows: slices of a large input are read on
    /// several cores.
    @inlinable
    public func indices(ofMin count: Int, sortedBy keys: [SortKey<Element>]) -> [Int] {
        _indices(ofMin: count, sortedBy: keys, parallel: true)
    }

    /// ``indices(ofRanks:sortedBy:)`` for `Sendable` rows: the pass over the rows runs on
    /// several cores.
    @inlinable
    public func indices(ofRanks ranks: Range<Int>, sortedBy keys: [SortKey<Element>]) -> [Int] {
        _indices(ofRanks: ranks, sortedBy: keys, parallel: true)
    }
}

/// Below this many rows the reference path is as fast as encoding keys.
@usableFromInline
internal let _engineThreshold = 64

extension MutableCollection where Self: RandomAccessCollection, Index == Int {
    /// Sorts the collection in place by a list of keys. Stable. Key closures run on the
    /// calling thread (with `Sendable` elements, on several cores for large inputs).
    ///
    ///     var names = ["file10", "file2", "File1"]
    ///     names.sort(by: [SortKey(\.self)])   // ["File1", "file2", "file10"]
    @inlinable
    public mutating func sort(by keys: [SortKey<Element>]) {
        _sort(by: keys, parallel: false)
    }

    @inlinable
    internal mutating func _sort(by keys: [SortKey<Element>], parallel: Bool) {
        let start = startIndex
        let sorted = _gather(self, _sortedIndices(by: keys, parallel: parallel).map { $0 - start })
        for (index, element) in zip(indices, sorted) { self[index] = element }
    }
}

extension MutableCollection where Self: RandomAccessCollection, Index == Int, Element: Sendable {
    /// ``sort(by:)`` for `Sendable` elements: the keys of a large input are read on several cores.
    @inlinable
    public mutating func sort(by keys: [SortKey<Element>]) {
        _sort(by: keys, parallel: true)
    }
}

/// Every key's input for `rows`; with `parallel`, several keys at once on several cores for
/// large inputs (the rows must then be `Sendable`: the overloads that pass `true` require it).
@inlinable
internal func _keyInputs<Rows: RandomAccessCollection>(_ keys: [SortKey<Rows.Element>], _ rows: Rows, parallel: Bool) -> [_KeyInput]
where Rows.Index == Int {
    guard parallel, keys.count > 1, rows.count >= _parallelThreshold else { return keys.map { $0._input(for: rows) } }
    let slots = _ResultSlots<_KeyInput>(count: keys.count)
    // The rows are Sendable (the caller's overload requires it) and the keys' closures are @Sendable.
    _concurrentPerform(iterations: keys.count, _UncheckedBox { k in slots.set(k, keys[k]._input(for: rows)) })
    return slots.values
}

/// The elements at `positions` (0-based, a permutation of all positions), in that order.
///
/// Each element is copied once in storage order — where its reference counts are likely in
/// cache — and then moved bitwise into its sorted place, instead of being copied (retained) in
/// the sorted order's random order.
@inlinable
internal func _gather<Rows: Collection>(_ rows: Rows, _ positions: [Int]) -> [Rows.Element] {
    let count = positions.count
    precondition(count == rows.count, "positions must be a permutation of the rows")
    let source = UnsafeMutableBufferPointer<Rows.Element>.allocate(capacity: count)
    _ = source.initialize(from: rows)
    let result = [Rows.Element](unsafeUninitializedCapacity: count) { buffer, initialized in
        guard let target = buffer.baseAddress, let from = source.baseAddress else { return }
        // Bitwise moves touch no reference counts, so slices of the result fill on separate
        // cores; each source element is moved exactly once.
        let parts = count >= _parallelThreshold ? Swift.min(ProcessInfo.processInfo.activeProcessorCount, 4) : 1
        let move = _UncheckedBox { (part: Int) in
            for i in count * part / parts..<count * (part + 1) / parts {
                (target + i).moveInitialize(from: from + positions[i], count: 1)
            }
        }
        if parts > 1 { _concurrentPerform(iterations: parts, move) } else { move.value(0) }
        initialized = count
    }
    source.deallocate()
    return result
}

/// The reference sort path: every value key evaluated once per row and every string turned
/// into its collation key once, then positions sorted with the position as the last
/// tie-breaker, which makes any sort algorithm stable.
internal struct _DecoratedSort<Rows: RandomAccessCollection> where Rows.Index == Int {
    private enum Column {
        case values([SortValue], stringKeys: [[UInt8]])
        case comparator
    }

    private let rows: Rows
    private let keys: [SortKey<Rows.Element>]
    private let columns: [Column]

    init(rows: Rows, keys: [SortKey<Rows.Element>]) {
        self.rows = rows
        self.keys = keys
        self.columns = keys.map { key in
            guard case .value(let extract) = key._source else { return .comparator }
            let values = rows.map(extract)
            let stringKeys = values.map { value -> [UInt8] in
                if case .string(let string) = value { return key.collation.sortKey(for: string) }
                return []
            }
            return .values(values, stringKeys: stringKeys)
        }
    }

    /// Compares the rows at positions `i` and `j` (from 0), position last.
    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        for (key, column) in zip(keys, columns) {
            let result: ComparisonResult
            switch column {
            case .comparator:
                result = key.compare(rows[rows.startIndex + i], rows[rows.startIndex + j])
            case .values(let values, let stringKeys):
                let (a, b) = (values[i], values[j])
                if a.isNull || b.isNull {
                    result = key.nulls._compareNulls(a.isNull, b.isNull, key.direction)
                } else {
                    let raw: ComparisonResult
                    if case .string = a, case .string = b {
                        raw = _compareBytes(stringKeys[i], stringKeys[j])
                    } else {
                        raw = SortValue.compare(a, b)
                    }
                    result = key.direction._apply(raw)
                }
            }
            if result != .orderedSame { return result }
        }
        return _compare(i, j)
    }
}
