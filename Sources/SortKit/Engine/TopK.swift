import Foundation
import SortKitShared

/// The first page of a sort without encoding every row: rows stream past a bounded max-heap of
/// the best `count` so far, and a candidate's keys are evaluated one at a time, only as far as
/// needed to reject it against the heap's largest member. With a selective first key most rows
/// cost one key evaluation and one comparison.
@usableFromInline
internal struct _TopK {
    /// A key's rules, and how to read it: a value per position, or a comparator of positions.
    @usableFromInline
    struct Key {
        @usableFromInline let direction: SortDirection
        @usableFromInline let collation: Collation
        @usableFromInline let nulls: NullPlacement
        @usableFromInline let value: ((Int) -> SortValue)?
        @usableFromInline let comparator: ((Int, Int) -> ComparisonResult)?
        /// For a stored `String` property of contiguous rows: where row 0's string is, and the
        /// rows' stride, to compare strings in place.
        @usableFromInline let strings: (base: UnsafeRawPointer, stride: Int)?
        /// For a value that is a text's ``SortValue/string(_:)`` (blank text: null): the text's
        /// valid UTF-8 where it is stored, to compare without a `String`; `nil` from it for a
        /// row whose text isn't stored so (then `value` reads it).
        @usableFromInline let utf8: ((Int) -> UnsafeBufferPointer<UInt8>?)?

        @inlinable
        init(
            direction: SortDirection, collation: Collation, nulls: NullPlacement,
            value: ((Int) -> SortValue)?, comparator: ((Int, Int) -> ComparisonResult)?,
            strings: (base: UnsafeRawPointer, stride: Int)? = nil, utf8: ((Int) -> UnsafeBufferPointer<UInt8>?)? = nil
        ) {
            self.direction = direction
            self.collation = collation
            self.nulls = nulls
            self.value = value
            self.comparator = comparator
            self.strings = strings
            self.utf8 = utf8
        }
    }

    /// A row with its keys evaluated as far as a comparison needed.
    private struct Entry {
        let position: Int
        var values: [SortValue?]
        var stringKeys: [[UInt8]?]
    }

    let keys: [Key]

    @usableFromInline
    init(keys: [Key]) {
        self.keys = keys
    }

    /// The positions of the `count` smallest of `rowCount` rows, in sorted order. Stable.
    ///
    /// With `parallel` (the rows are `Sendable`), large inputs are split into one slice per
    /// core; each slice keeps its own heap, and the slices' winners (at most `count` each) are
    /// merged by the full comparison, position last, so the result is the same as one pass.
    @usableFromInline
    func smallest(_ count: Int, of rowCount: Int, parallel: Bool) -> [Int] {
        let parts = parallel ? Swift.min(ProcessInfo.processInfo.activeProcessorCount, rowCount / _topKSliceMinimum, 8) : 1
        guard parts > 1, count < rowCount / parts else { return smallest(count, in: 0..<rowCount) }
        let slots = _ResultSlots<[Int]>(count: parts)
        let selection = _UncheckedBox(self)
        // Each slice only reads the rows, which are Sendable; the keys' closures are @Sendable.
        _concurrentPerform(
            iterations: parts,
            _UncheckedBox { part in
                slots.set(part, selection.value.smallest(count, in: rowCount * part / parts..<rowCount * (part + 1) / parts))
            })
        let winners = slots.values.joined().map(decorated)
        return winners.sorted { less($0, $1) }.prefix(count).map(\.position)
    }

    /// The positions of the rows at sorted ranks `ranks` of `rowCount` rows, in sorted order:
    /// a page at any depth, holding keys for about the page only. Stable (position last).
    ///
    /// A seeded random sample of the rows is sorted, and two of its members just outside the
    /// ranks' expected place become pivots. One pass over every row (sliced over the cores
    /// with `parallel`) counts the rows below the lower pivot and keeps those between the
    /// pivots; the kept rows are sorted and the page cut from them. A sample that missed (the
    /// count shows it) falls back to ``smallest(_:of:parallel:)``, so the result is exact
    /// either way; with 16,384 samples and a margin of four standard deviations it doesn't.
    /// (`deviations` sets the margin; tests force misses with a negative one.)
    @usableFromInline
    func window(_ ranks: Range<Int>, of rowCount: Int, parallel: Bool, deviations: Double = 4) -> [Int] {
        let ranks = ranks.clamped(to: 0..<rowCount)
        let sampleSize = Swift.min(16_384, rowCount / 16)
        guard !ranks.isEmpty, ranks.upperBound > 4_096, sampleSize >= 1_024, keys.allSatisfy({ $0.value != nil }) else {
            return Array(smallest(ranks.upperBound, of: rowCount, parallel: parallel).dropFirst(ranks.lowerBound))
        }
        // The sample: distinct positions from a fixed seed, so a page reads the same way twice.
        // SplitMix64: the same sample positions on every platform and run (the standard library's
        // generator is seeded per process).
        var generator = SplitMix64(seed: UInt64(rowCount))
        var picked = Set<Int>()
        while picked.count < sampleSize { picked.insert(Int(generator.next() % UInt64(rowCount))) }
        let sample = picked.sorted().map(decorated).sorted { less($0, $1) }
        // Pivots four standard deviations of the sample's rank error outside the ranks.
        let scale = Double(sampleSize) / Double(rowCount)
        let margin = deviations * (Double(sampleSize) * 0.25).squareRoot() + 2
        let lowSlot = Int((Double(ranks.lowerBound) * scale - margin).rounded(.down))
        let highSlot = Int((Double(ranks.upperBound) * scale + margin).rounded(.up))
        let low = lowSlot >= 0 ? sample[Swift.min(lowSlot, sampleSize - 1)] : nil
        let high = highSlot < sampleSize ? sample[Swift.max(highSlot, 0)] : nil

        let parts = parallel ? Swift.max(1, Swift.min(ProcessInfo.processInfo.activeProcessorCount, rowCount / _topKSliceMinimum, 8)) : 1
        let slots = _ResultSlots<(below: Int, kept: [Int])>(count: parts)
        let selection = _UncheckedBox(self)
        _concurrentPerform(
            iterations: parts,
            _UncheckedBox { part in
                slots.set(part, selection.value.between(low, high, in: rowCount * part / parts..<rowCount * (part + 1) / parts))
            })
        let below = slots.values.reduce(0) { $0 + $1.below }
        let kept = slots.values.flatMap(\.kept)
        guard below <= ranks.lowerBound, below + kept.count >= ranks.upperBound else {
            return Array(smallest(ranks.upperBound, of: rowCount, parallel: parallel).dropFirst(ranks.lowerBound))
        }
        let sorted = kept.map(decorated).sorted { less($0, $1) }
        return sorted[ranks.lowerBound - below..<ranks.upperBound - below].map(\.position)
    }

    /// Among `positions`: how many rows sort before `low`, and the rows from `low` to `high`
    /// (both included; a missing pivot is the end of the order).
    private func between(_ low: Entry?, _ high: Entry?, in positions: Range<Int>) -> (below: Int, kept: [Int]) {
        var below = 0
        var kept: [Int] = []
        var scratch = _KeyScratch()
        // The first key read once per row and compared with both pivots' first values; the
        // full comparison only when it ties with one of them.
        let first = keys[0], value = first.value!
        var lowBound = _Bound(), highBound = _Bound()
        defer { lowBound.deallocate(); highBound.deallocate() }
        if let low { lowBound.set(low.values[0], low.stringKeys[0]) }
        if let high { highBound.set(high.values[0], high.stringKeys[0]) }
        let lowValue = lowBound.value, lowKey = lowBound.key
        let highValue = highBound.value, highKey = highBound.key
        // (Non-optional, bound once: unwrapping per row would retain and release the closure.)
        let utf8 = first.utf8 ?? { _ in nil }
        for position in positions {
            // A text's bytes where they are stored (compared with a pivot's key when it has
            // one), else its value.
            let bytes = utf8(position)
            let needsValue = bytes == nil || (low != nil && lowKey == nil) || (high != nil && highKey == nil)
            let x = needsValue ? value(position) : .null
            if let low {
                var result =
                    if let bytes, let lowKey { Self.compare(utf8: bytes, lowKey, first, &scratch) } else {
                        Self.compare(x, lowValue, lowKey, first, &scratch)
                    }
                if result == .orderedSame { result = compare(position, low, scratch: &scratch) }
                if result == .orderedAscending { below += 1; continue }
            }
            if let high {
                var result =
                    if let bytes, let highKey { Self.compare(utf8: bytes, highKey, first, &scratch) } else {
                        Self.compare(x, highValue, highKey, first, &scratch)
                    }
                if result == .orderedSame { result = compare(position, high, scratch: &scratch) }
                if result == .orderedDescending { continue }
            }
            kept.append(position)
        }
        return (below, kept)
    }

    /// The `count` smallest rows among `positions`, in sorted order.
    private func smallest(_ count: Int, in positions: Range<Int>) -> [Int] {
        guard count > 0, !positions.isEmpty else { return [] }
        var heap: [Entry] = []
        heap.reserveCapacity(count)
        let firstRest = positions.lowerBound + Swift.min(count, positions.count)
        for position in positions.lowerBound..<firstRest {
            heap.append(decorated(position))
            siftUp(&heap)
        }
        // The heap's largest entry, held locally: reading `heap[0]` for every row would copy
        // its arrays (reference counting) each time.
        var top = heap[0]
        // One buffer (and cache) for candidates' string keys, reused so a candidate costs no allocation.
        var scratch = _KeyScratch()
        // The leading keys decide most rows: each is read through a local closure and compared
        // with the top's value, outside the general per-key loop (whose struct and array copies
        // cost reference counting on objects both cores share).
        // Everything the loop reads is a non-optional local, bound once: unwrapping or copying
        // per row would retain and release it.
        let first = keys[0], second = keys.count > 1 ? keys[1] : keys[0]
        let leading = first.value == nil ? 0 : keys.count > 1 && second.value != nil ? 2 : 1
        let firstValue = first.value ?? { _ in .null }, secondValue = second.value ?? { _ in .null }
        let firstUTF8 = first.utf8 ?? { _ in nil }, secondUTF8 = second.utf8 ?? { _ in nil }
        // The top's leading values, their string keys copied where reading them costs no
        // reference counting (see `_Bound`).
        var bound1 = _Bound(), bound2 = _Bound()
        defer { bound1.deallocate(); bound2.deallocate() }
        bound1.set(top.values[0], top.stringKeys[0])
        if keys.count > 1 { bound2.set(top.values[1], top.stringKeys[1]) }
        for position in firstRest..<positions.upperBound {
            var result = ComparisonResult.orderedSame
            if leading > 0 {
                result = Self.compare(position, firstValue, firstUTF8, bound1.value, bound1.key, first, &scratch)
                if result == .orderedSame, leading > 1 {
                    result = Self.compare(position, secondValue, secondUTF8, bound2.value, bound2.key, second, &scratch)
                }
            }
            if result == .orderedDescending { continue }
            if result == .orderedSame {
                // The leading keys tie. With no other key, the earlier position wins the tie, and
                // every heap member came before this row: it is out (the common case of a key with
                // few values, `status:len`). Otherwise the keys after the leading ones decide.
                if leading == keys.count { continue }
                if compare(position, top, from: leading, scratch: &scratch) != .orderedAscending { continue }
            }
            heap[0] = decorated(position)
            siftDown(&heap)
            top = heap[0]
            bound1.set(top.values[0], top.stringKeys[0])
            if keys.count > 1 { bound2.set(top.values[1], top.stringKeys[1]) }
        }
        heap.sort { less($0, $1) }
        return heap.map(\.position)
    }

    /// One leading key's comparison of row `position` with a heap member's value `y` (and its
    /// string key): a stored string is compared where it is stored, borrowed, and a text stored
    /// as UTF-8 (`utf8`) as its bytes; other values are read with `value`.
    @inline(__always)
    private static func compare(
        _ position: Int, _ value: (Int) -> SortValue, _ utf8: (Int) -> UnsafeBufferPointer<UInt8>?, _ y: SortValue,
        _ yKey: UnsafeBufferPointer<UInt8>?,
        _ key: Key, _ scratch: inout _KeyScratch
    ) -> ComparisonResult {
        if let strings = key.strings, let yKey {
            let string = (strings.base + position * strings.stride).assumingMemoryBound(to: String.self)
            return key.direction._apply(key.collation.compare(stringAt: string, toSortKey: yKey, scratch: &scratch))
        }
        if let yKey, let bytes = utf8(position) { return compare(utf8: bytes, yKey, key, &scratch) }
        return compare(value(position), y, yKey, key, &scratch)
    }

    /// ``compare(_:_:_:_:_:)`` of a row's text, as its valid UTF-8 (``Key/utf8``), with a heap
    /// member's string (its key `yKey`): blank text is null.
    @inline(__always)
    private static func compare(
        utf8 x: UnsafeBufferPointer<UInt8>, _ yKey: UnsafeBufferPointer<UInt8>, _ key: Key, _ scratch: inout _KeyScratch
    ) -> ComparisonResult {
        if _isBlank(x) { return key.nulls._compareNulls(true, false, key.direction) }
        return key.direction._apply(key.collation.compare(validUTF8: x, toSortKey: yKey, scratch: &scratch))
    }

    /// One key's comparison of a row's value `x` with a heap member's value `y` (and its
    /// string key), direction and null placement applied.
    private static func compare(
        _ x: SortValue, _ y: SortValue, _ yKey: UnsafeBufferPointer<UInt8>?, _ key: Key, _ scratch: inout _KeyScratch
    ) -> ComparisonResult {
        if x.isNull || y.isNull {
            return x.isNull == y.isNull ? .orderedSame : key.nulls._compareNulls(x.isNull, y.isNull, key.direction)
        }
        if case .string(let s) = x, let yKey {
            return key.direction._apply(key.collation.compare(s, toSortKey: yKey, scratch: &scratch))
        }
        return key.direction._apply(SortValue.compare(x, y))
    }

    /// A row that joins the heap, with every value key evaluated.
    private func decorated(_ position: Int) -> Entry {
        var entry = Entry(position: position, values: [], stringKeys: [])
        for key in keys {
            let value = key.value?(position)
            entry.values.append(value)
            if case .string(let s)? = value { entry.stringKeys.append(key.collation.sortKey(for: s)) } else { entry.stringKeys.append(nil) }
        }
        return entry
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        var unused = _KeyScratch()
        return compare(a.position, b, candidate: a, scratch: &unused) == .orderedAscending
    }

    /// The full comparison of a row with a heap member, position last. The row's keys are
    /// evaluated one at a time, only as far as needed (or taken from `candidate` if decorated);
    /// `start` skips keys already known to tie.
    private func compare(
        _ position: Int, _ b: Entry, candidate: Entry? = nil, from start: Int = 0, scratch: inout _KeyScratch
    ) -> ComparisonResult {
        for k in start..<keys.count {
            let key = keys[k]
            let result: ComparisonResult
            if let comparator = key.comparator {
                result = comparator(position, b.position)
            } else {
                let x = candidate?.values[k] ?? key.value!(position)
                if let left = candidate?.stringKeys[k], let right = b.stringKeys[k] {
                    result = key.direction._apply(_compareBytes(left, right)) // both decorated strings
                } else {
                    result =
                        if let right = b.stringKeys[k] {
                            right.withUnsafeBufferPointer { Self.compare(x, b.values[k]!, $0, key, &scratch) }
                        } else {
                            Self.compare(x, b.values[k]!, nil, key, &scratch)
                        }
                }
            }
            if result != .orderedSame { return result }
        }
        return _compare(position, b.position)
    }

    private func siftUp(_ heap: inout [Entry]) {
        _MaxHeap.siftUp(&heap, by: less)
    }

    private func siftDown(_ heap: inout [Entry]) {
        _MaxHeap.siftDown(&heap, by: less)
    }
}

/// A heap member's value as a leading key's loop compares rows with it: a string's key copied
/// into memory the loop owns, and the value itself kept only where the key doesn't decide.
/// Passing the member's arrays and strings for each row retained and released them, a third
/// of a multilingual top-50's time; and a string shared by many rows (a repeated author) is
/// one object both cores' loops retained, so its count's cache line went back and forth.
private struct _Bound {
    /// The value; a string's stands in as `.string("")`, which is no null and of the string
    /// kind, all that a comparison with a key reads of it.
    private(set) var value = SortValue.null
    /// The string's sort key, in `storage`.
    private(set) var key: UnsafeBufferPointer<UInt8>?
    private var storage = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    mutating func set(_ value: SortValue?, _ key: [UInt8]?) {
        guard let key else {
            (self.value, self.key) = (value ?? .null, nil)
            return
        }
        if storage.count < key.count || storage.baseAddress == nil {
            storage.deallocate()
            storage = .allocate(capacity: Swift.max(key.count, 2 * storage.count, 64))
        }
        _ = storage.update(fromContentsOf: key)
        (self.value, self.key) = (.string(""), UnsafeBufferPointer(rebasing: storage[..<key.count]))
    }

    func deallocate() {
        storage.deallocate()
    }
}

/// Below this many rows per slice, one pass is faster than splitting.
private let _topKSliceMinimum = 65_536
