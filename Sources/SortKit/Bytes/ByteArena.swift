import Foundation

/// Byte strings one after another, with where each ends: a run's records, one column's
/// values, or their keys, without an array per string.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
@frozen
public struct _ByteArena: Sendable {
    @usableFromInline package var bytes: [UInt8] = []
    @usableFromInline package var ends: [Int] = []

    @inlinable
    package init(bytes: [UInt8] = [], ends: [Int] = []) {
        self.bytes = bytes
        self.ends = ends
    }

    @inlinable
    package var count: Int { ends.count }

    @inlinable
    package func range(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

    /// Calls `body` with the bytes of string `index`.
    @inlinable
    package func withBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range(index)])) }
    }

    /// The arena in storage of its own size when its arrays hold more than a sixteenth
    /// spare (arenas grown by appends reserve up to twice what they hold): what an index keeps
    /// for a table's life shouldn't carry the growth's slack.
    package func compacted() -> _ByteArena {
        func tight<Element>(_ array: [Element]) -> [Element] {
            array.capacity > array.count + array.count / 16 + 16 ? array.withUnsafeBufferPointer { Array($0) } : array
        }
        return _ByteArena(bytes: tight(bytes), ends: tight(ends))
    }

    /// Ends the string appended since the last `close()`.
    @inlinable
    package mutating func close() { ends.append(bytes.count) }

    /// The arenas one after another, each copied into its place on its own core.
    package static func joined(_ parts: [_ByteArena]) -> _ByteArena {
        var bases = [0]
        for part in parts.dropLast() { bases.append(bases[bases.count - 1] + part.bytes.count) }
        return _ByteArena(bytes: _concatenated(parts.map(\.bytes)), ends: _concatenated(parts.map(\.ends), adding: bases))
    }
}

/// Consecutive strings in arenas of their own, one per range of indexes (as the cores made
/// them side by side), read as one arena without joining them: joining 1M sort keys was a
/// fourteenth of `sortkit sort`'s CPU, half of it faulting in the copy's fresh pages.
///
///     let keys = _ArenaParts(_ByteArena.inSlices(…) { views, range in … })
///     keys[7].elementsEqual(keys[8])    // string 7 against string 8, whatever parts hold them
package struct _ArenaParts: Sendable {
    package let parts: [_ByteArena]
    /// Per part, the index of its first string; then the total.
    package let firsts: [Int]

    package init(_ parts: [_ByteArena]) {
        self.parts = parts
        var firsts = [0]
        for part in parts { firsts.append(firsts[firsts.count - 1] + part.count) }
        self.firsts = firsts
    }

    package var count: Int { firsts[firsts.count - 1] }

    /// String `index`'s bytes: the last part whose first index is at most `index`, found by
    /// halving.
    package subscript(index: Int) -> ArraySlice<UInt8> {
        var low = 0, high = parts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if firsts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return parts[low].bytes[parts[low].range(index - firsts[low])]
    }

    /// Calls `body` with each string's index and bytes, in order.
    package func forEachString(_ body: (_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Void) {
        _ByteArena.withViews(parts) { views in
            for (view, first) in zip(views, firsts) {
                for index in 0..<view.ends.count { body(first + index, view[index]) }
            }
        }
    }
}

/// An arena's bytes and ends as pointers, for loops over many cells of several arenas: reading
/// a cell through an array of arenas retains and releases both arrays per cell, which cost a
/// fifth of an import's folding. Valid only inside ``_ByteArena/withViews(_:_:)``.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
@frozen
public struct _ArenaView {
    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline package let ends: UnsafeBufferPointer<Int>

    @inlinable @inline(__always)
    package subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
    }
}

extension _ArenaView {
    /// A view of a copy of `arena` that lives as long as the process (tables made once).
    package static func permanent(_ arena: _ByteArena) -> _ArenaView {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, arena.bytes.count))
        let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(1, arena.ends.count))
        _ = bytes.initialize(from: arena.bytes)
        _ = ends.initialize(from: arena.ends)
        return _ArenaView(
            bytes: UnsafeBufferPointer(rebasing: bytes[..<arena.bytes.count]), ends: UnsafeBufferPointer(rebasing: ends[..<arena.ends.count]))
    }
}

extension _ByteArena {
    /// `body` over `0..<count` cut into `parts` ranges, side by side on the cores, each with
    /// views of `arenas` (only read); the results in range order.
    ///
    ///     let folded = _ByteArena.inSlices(columns, count: rows, parts: 2) { views, range in … }
    package static func inSlices<Result>(
        _ arenas: [_ByteArena], count: Int, parts: Int, _ body: @escaping ([_ArenaView], Range<Int>) -> Result
    ) -> [Result] {
        withViews(arenas) { views in _inSlices(views, count: count, parts: parts, body) }
    }

    /// Calls `body` with a view of each arena.
    package static func withViews<Result>(_ arenas: [_ByteArena], _ body: ([_ArenaView]) throws -> Result) rethrows -> Result {
        try _withBuffers(arenas.map(\.bytes)) { bytes in
            try _withBuffers(arenas.map(\.ends)) { ends in
                try body(zip(bytes, ends).map { _ArenaView(bytes: $0, ends: $1) })
            }
        }
    }
}

/// `body` over `0..<count` cut into `parts` ranges, side by side on the cores, each with
/// `views` (only read); the results in range order.
package func _inSlices<View, Result>(_ views: [View], count: Int, parts: Int, _ body: @escaping ([View], Range<Int>) -> Result) -> [Result] {
    let results = _ResultSlots<Result>(count: parts)
    // Two boxes, not one of a tuple: a tuple of the views and this generic closure in one
    // box, taken apart in each iteration, was over-released in a debug build (Swift 6.3:
    // `sortkit serve` crashed in the demo import, every time).
    let body = _UncheckedBox(body), views = _UncheckedBox(views)
    _concurrentPerform(
        iterations: parts,
        _UncheckedBox { part in results.set(part, body.value(views.value, (count * part / parts)..<(count * (part + 1) / parts))) })
    return results.values
}

/// Calls `body` with a buffer of each array's elements (valid only inside `body`).
package func _withBuffers<Element, Result>(
    _ arrays: [[Element]], _ body: ([UnsafeBufferPointer<Element>]) throws -> Result
) rethrows -> Result {
    func nest(_ index: Int, _ buffers: [UnsafeBufferPointer<Element>]) throws -> Result {
        guard index < arrays.count else { return try body(buffers) }
        return try arrays[index].withUnsafeBufferPointer { try nest(index + 1, buffers + [$0]) }
    }
    return try nest(0, [])
}

/// The arrays one after another, each one's elements plus its entry of `offsets` (if given),
/// every array copied into its place on its own core.
package func _concatenated<Element: FixedWidthInteger>(_ arrays: [[Element]], adding offsets: [Int]? = nil) -> [Element] {
    var starts = [0]
    for array in arrays { starts.append(starts[starts.count - 1] + array.count) }
    let bases = starts, total = starts[starts.count - 1]
    guard total > 0 else { return [] }
    return [Element](unsafeUninitializedCapacity: total) { buffer, initialized in
        let target = buffer.baseAddress!
        // Each iteration writes only its own array's place.
        _concurrentPerform(
            iterations: arrays.count,
            _UncheckedBox { index in
                arrays[index].withUnsafeBufferPointer { source in
                    guard let from = source.baseAddress else { return }
                    let to = target + bases[index]
                    let offset = Element(offsets?[index] ?? 0)
                    if offset == 0 {
                        to.initialize(from: from, count: source.count)
                    } else {
                        for i in 0..<source.count { (to + i).initialize(to: source[i] + offset) }
                    }
                }
            })
        initialized = total
    }
}
