import Foundation

/// A row's 128-bit key and its position: what the radix sorts move (24 bytes).
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
@frozen
public struct _KeyRecord: Sendable {
    @usableFromInline package var hi: UInt64
    @usableFromInline package var lo: UInt64
    @usableFromInline package var index: UInt32

    @inlinable @inline(__always)
    package init(hi: UInt64, lo: UInt64, index: UInt32) {
        self.hi = hi
        self.lo = lo
        self.index = index
    }

    @inline(__always)
    func hasSameKey(as other: _KeyRecord) -> Bool { hi == other.hi && lo == other.lo }
}

/// The most rows a sort keeps positions for in 32 bits; larger inputs take a comparison path.
@usableFromInline
package let _maximumRecordCount = Int(UInt32.max)

/// Byte-string keys a window sort reads, one per record position.
package protocol _WindowKeys {
    /// Record `index`'s key bytes.
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8>
    /// Whether the order is the keys' byte order reversed (a descending key).
    var isDescending: Bool { get }
    /// Whether records whose keys are equal are equal (so a group of equal keys stays in
    /// position order untouched); `false` when ``compare(_:_:from:)`` goes on to other keys.
    var equalKeysAreTies: Bool { get }
    /// Orders two records whose keys are equal before byte `depth` when zero-padded (a key that
    /// ends sorts as if followed by zeros, so "ab" and "ab\0" are not told apart by windows);
    /// `.orderedSame` leaves them in position order. ``_compareKeys(_:_:from:)`` compares such
    /// keys' bytes.
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult
    /// Orders `records[group]`, records in position order whose keys are all equal (when
    /// ``equalKeysAreTies`` is `false`); by default with ``compare(_:_:from:)``.
    func orderTies(_ records: inout [_KeyRecord], _ group: Range<Int>, depth: Int)
    /// The order of two records' keys alone (``compare(_:_:from:)`` from 0 by default).
    func compareKeys(_ a: Int, _ b: Int) -> ComparisonResult
}

extension _WindowKeys {
    package func orderTies(_ records: inout [_KeyRecord], _ group: Range<Int>, depth: Int) {
        _compareSort(&records, group, depth: depth, keys: self)
    }

    package func compareKeys(_ a: Int, _ b: Int) -> ComparisonResult { compare(a, b, from: 0) }

    /// Bytes `depth..<depth + 16` of record `index`'s key as a record to radix-sort: big-endian,
    /// zero-padded past the key's end, inverted for a descending order.
    @inline(__always)
    func window(_ index: UInt32, depth: Int) -> _KeyRecord {
        let bytes = key(Int(index))
        let (hi, lo) = (_bigEndianWord(bytes, from: depth, end: bytes.count), _bigEndianWord(bytes, from: depth + 8, end: bytes.count))
        return isDescending ? _KeyRecord(hi: ~hi, lo: ~lo, index: index) : _KeyRecord(hi: hi, lo: lo, index: index)
    }
}

/// Sorts `records[range]` — records whose keys are equal before byte `depth`, in position
/// order — by their keys from `depth` on, ties by position (stable).
///
/// A most-significant-digit radix sort over 16-byte windows, iterative (an explicit stack of
/// groups, so no input can overflow the call stack): a group's next windows are radix-sorted
/// (``_radixSort(_:fromByte:)``, which skips byte positions where every window agrees), and
/// each run of equal windows becomes a group 16 bytes deeper. A group whose windows all agree
/// first skips the bytes every key in it shares (one `memcmp` per key), so keys with a long
/// common prefix cost a linear pass, not a level per 16 bytes. Groups of at most 16 records,
/// and groups whose keys all end before their depth, are ordered by ``_WindowKeys/compare(_:_:from:)``.
///
/// Two callers: the engine's runs of rows whose composites tie on a string key, and byte keys
/// in arenas (``_sortByteKeys(_:)``).
package func _windowSort<Keys: _WindowKeys>(_ records: inout [_KeyRecord], _ range: Range<Int>, depth: Int, keys: Keys) {
    var groups: [(range: Range<Int>, depth: Int)] = [(range, depth)]
    var windows: [_KeyRecord] = []
    while let (group, depth) = groups.popLast() {
        guard group.count > 1 else { continue }
        var longest = 0, shortest = Int.max
        for record in records[group] {
            let count = keys.key(Int(record.index)).count
            longest = max(longest, count)
            shortest = min(shortest, count)
        }
        if longest <= depth {
            // Every key ended: equal keys stay in position order or are ordered by what else
            // tells them apart; else compare.
            if shortest == longest {
                if !keys.equalKeysAreTies { keys.orderTies(&records, group, depth: depth) }
                continue
            }
            _compareSort(&records, group, depth: depth, keys: keys)
            continue
        }
        if group.count <= 16 {
            _compareSort(&records, group, depth: depth, keys: keys)
            continue
        }
        windows.removeAll(keepingCapacity: true)
        for record in records[group] { windows.append(keys.window(record.index, depth: depth)) }
        _radixSort(&windows)
        if windows[0].hasSameKey(as: windows[windows.count - 1]) {
            // One window for all: skip what every key shares beyond it, and look again there.
            let skip = _sharedLength(records[group], from: depth + 16, keys: keys)
            groups.append((group, depth + 16 + skip))
            continue
        }
        records.replaceSubrange(group, with: windows)
        var start = 0
        while start < windows.count {
            var end = start + 1
            while end < windows.count, windows[end].hasSameKey(as: windows[start]) { end += 1 }
            if end - start > 1 { groups.append(((group.lowerBound + start)..<(group.lowerBound + end), depth + 16)) }
            start = end
        }
    }
}

/// How many bytes from `depth` every key of `records` shares (0 if any key ends there).
private func _sharedLength<Keys: _WindowKeys>(_ records: ArraySlice<_KeyRecord>, from depth: Int, keys: Keys) -> Int {
    let first = keys.key(Int(records[records.startIndex].index))
    guard first.count > depth, let base = first.baseAddress else { return 0 }
    var shared = first.count - depth
    for record in records.dropFirst() {
        let other = keys.key(Int(record.index))
        guard other.count > depth, let otherBase = other.baseAddress else { return 0 }
        shared = min(shared, other.count - depth)
        // Whole words first, then the rest byte by byte.
        var equal = 0
        while equal + 8 <= shared,
            UnsafeRawPointer(base + depth + equal).loadUnaligned(as: UInt64.self)
                == UnsafeRawPointer(otherBase + depth + equal).loadUnaligned(as: UInt64.self)
        {
            equal += 8
        }
        while equal < shared, base[depth + equal] == otherBase[depth + equal] { equal += 1 }
        shared = equal
        if shared == 0 { return 0 }
    }
    return shared
}

/// Orders a group by comparison from `depth`, ties by position.
private func _compareSort<Keys: _WindowKeys>(_ records: inout [_KeyRecord], _ group: Range<Int>, depth: Int, keys: Keys) {
    if group.count <= 16 {
        // Insertion sort: records arrive in position order, and only a strictly smaller key
        // moves ahead.
        for next in (group.lowerBound + 1)..<group.upperBound {
            let moving = records[next]
            var slot = next
            while slot > group.lowerBound, keys.compare(Int(moving.index), Int(records[slot - 1].index), from: depth) == .orderedAscending {
                records[slot] = records[slot - 1]
                slot -= 1
            }
            records[slot] = moving
        }
        return
    }
    records[group].sort { a, b in
        let result = keys.compare(Int(a.index), Int(b.index), from: depth)
        return result == .orderedSame ? a.index < b.index : result == .orderedAscending
    }
}

/// Byte strings in an arena, in memcmp order.
private struct _ArenaKeys: _WindowKeys {
    let bytes: UnsafeBufferPointer<UInt8>
    let ends: UnsafeBufferPointer<Int>

    @inline(__always)
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
    }

    var isDescending: Bool { false }
    var equalKeysAreTies: Bool { true }

    @inline(__always)
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult {
        _compareKeys(key(a), key(b), from: depth)
    }
}

/// Keys in two arenas (what two cores made side by side), found by comparing the index with
/// the second arena's first: no span per record (16 bytes a key, 16 MB held beside a 1M-row
/// import's title keys at its peak).
private struct _TwoPartKeys: _WindowKeys {
    let first: _ArenaKeys
    let second: _ArenaKeys
    /// The index of the second arena's first key.
    let split: Int

    @inline(__always)
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> { index < split ? first.key(index) : second.key(index - split) }

    var isDescending: Bool { false }
    var equalKeysAreTies: Bool { true }

    @inline(__always)
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult {
        _compareKeys(key(a), key(b), from: depth)
    }
}

/// Keys in several arenas, each record's found through its own pointer and length (one load,
/// no search for the part that holds it).
private struct _SpanKeys: _WindowKeys {
    let spans: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>

    @inline(__always)
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> { spans[index] }

    var isDescending: Bool { false }
    var equalKeysAreTies: Bool { true }

    @inline(__always)
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult {
        _compareKeys(spans[a], spans[b], from: depth)
    }
}

/// Keys whose equal ones are not ties: ``_KeyTieBreak`` orders the records whose keys are
/// equal. What a sort by shortened keys — a locale collation's primaries
/// (``_SortKeyPieces/primariesOnly``) — uses to order the records its keys don't tell apart,
/// where the window sort meets them.
private struct _TieBrokenKeys<Base: _WindowKeys>: _WindowKeys {
    let base: Base
    let ties: _KeyTieBreak

    @inline(__always)
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> { base.key(index) }

    var isDescending: Bool { base.isDescending }
    var equalKeysAreTies: Bool { false }

    @inline(__always)
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult {
        let order = base.compare(a, b, from: depth)
        return order == .orderedSame ? ties.compare(a, b) : order
    }

    func compareKeys(_ a: Int, _ b: Int) -> ComparisonResult { base.compare(a, b, from: 0) }

    /// A group of more than 16 equal keys is ordered as a whole (``_KeyTieBreak/order``): a
    /// comparison sort by `compare` would decide each of its n log n pairs on its own.
    func orderTies(_ records: inout [_KeyRecord], _ group: Range<Int>, depth: Int) {
        guard group.count > 16 else { return _compareSort(&records, group, depth: depth, keys: self) }
        var byPosition = records[group].map { Int($0.index) }
        ties.order(&byPosition)
        for (offset, index) in byPosition.enumerated() { records[group.lowerBound + offset].index = UInt32(index) }
    }
}

/// How a sort by shortened keys orders records whose keys are equal: `compare` two of them
/// (`.orderedSame` keeps position order), `order` a group of them given in position order
/// (stably). Both are called from every core.
package struct _KeyTieBreak: Sendable {
    package let compare: @Sendable (Int, Int) -> ComparisonResult
    package let order: @Sendable (inout [Int]) -> Void

    package init(compare: @escaping @Sendable (Int, Int) -> ComparisonResult, order: @escaping @Sendable (inout [Int]) -> Void) {
        self.compare = compare
        self.order = order
    }
}

/// The memcmp order of two keys that are equal before `depth` when zero-padded: their real
/// bytes agree up to the shorter one's end (or `depth`), so only what follows is compared.
@inline(__always)
package func _compareKeys(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>, from depth: Int) -> ComparisonResult {
    let start = min(depth, x.count, y.count)
    return _compareBytes(UnsafeBufferPointer(rebasing: x[start...]), UnsafeBufferPointer(rebasing: y[start...]))
}

/// Positions `0..<keys.count` in memcmp order of their byte strings (a proper prefix first),
/// ties in position order (stable).
///
/// Every key's first 16 bytes (big-endian, zero-padded) are radix-sorted, then the groups that
/// still tie by ``_windowSort(_:_:depth:keys:)``. A run's keys of ranks (statuses, authors,
/// prices: 5 bytes) sort in one radix pass per varying byte; `sortkit sort` measured it against
/// `Array.sort` with a `memcmp` closure on 1M keys — see the `csv-sort.sh` table in Benchmarks/README.md.
/// From 65,536 keys on, each core sorts an equal share of the positions and the sorted shares
/// are merged (a tie takes the earlier share's position first, which keeps the sort stable):
/// the sort was a third of `sortkit sort --by title:locale=sv` on one core. Inputs beyond
/// 2^32 − 1 keys (`limit`, which tests lower) are sorted by comparison.
package func _sortByteKeys(_ keys: _ByteArena, limit: Int = _maximumRecordCount, parallelFrom: Int = 65_536) -> [Int] {
    _sortByteKeys(_ArenaParts([keys]), limit: limit, parallelFrom: parallelFrom)
}

/// ``_sortByteKeys(_:limit:parallelFrom:)`` of keys in parts, read where they are: each key's
/// bytes found through a pointer and a length per record (16 bytes a key, made on every core),
/// not copied into one arena first. With `ties`, records whose keys are equal are ordered
/// by it, `.orderedSame` keeping position order.
package func _sortByteKeys(
    _ keys: _ArenaParts, limit: Int = _maximumRecordCount, parallelFrom: Int = 65_536, ties: _KeyTieBreak? = nil
) -> [Int] {
    func sorted<Keys: _WindowKeys>(_ arena: Keys, count: Int) -> [Int] {
        guard let ties else { return _sortByteKeys(arena, count: count, limit: limit, parallelFrom: parallelFrom) }
        return _sortByteKeys(_TieBrokenKeys(base: arena, ties: ties), count: count, limit: limit, parallelFrom: parallelFrom)
    }
    guard keys.parts.count > 1 else {
        let arena = keys.parts.first ?? _ByteArena()
        return arena.bytes.withUnsafeBufferPointer { bytes in
            arena.ends.withUnsafeBufferPointer { ends in sorted(_ArenaKeys(bytes: bytes, ends: ends), count: ends.count) }
        }
    }
    return _ByteArena.withViews(keys.parts) { views in
        let count = keys.count, firsts = keys.firsts
        if views.count == 2 {
            let parts = _TwoPartKeys(
                first: _ArenaKeys(bytes: views[0].bytes, ends: views[0].ends), second: _ArenaKeys(bytes: views[1].bytes, ends: views[1].ends),
                split: firsts[1])
            return sorted(parts, count: count)
        }
        var spans = [UnsafeBufferPointer<UInt8>](unsafeUninitializedCapacity: count) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            // Each part initializes its own records' spans.
            _concurrentPerform(
                iterations: views.count,
                _UncheckedBox { part in
                    for index in 0..<views[part].ends.count {
                        (buffer.baseAddress! + firsts[part] + index).initialize(to: views[part][index])
                    }
                })
            initialized = count
        }
        defer { spans.removeAll() }
        return spans.withUnsafeBufferPointer { spans in sorted(_SpanKeys(spans: spans), count: count) }
    }
}

private func _sortByteKeys<Keys: _WindowKeys>(_ arena: Keys, count: Int, limit: Int, parallelFrom: Int) -> [Int] {
    guard count <= limit else {
        return (0..<count).sorted { a, b in
            let result = arena.compare(a, b, from: 0)
            return result == .orderedSame ? a < b : result == .orderedAscending
        }
    }
    guard count >= parallelFrom, ProcessInfo.processInfo.activeProcessorCount > 1 else {
        var records = (0..<count).map { arena.window(UInt32($0), depth: 0) }
        _sortRecords(&records, arena)
        return records.map { Int($0.index) }
    }
    var records = _windows(arena, count: count)
    if _sortByBuckets(&records, arena) { return records.map { Int($0.index) } }
    // Most keys share their first 16 bits that vary: halves on two cores, merged.
    let middle = count / 2
    let slots = _ResultSlots<[_KeyRecord]>(count: 2)
    let windows = records
    // The arena and the windows are only read.
    _concurrentPerform(
        iterations: 2,
        _UncheckedBox { half in
            var part = Array(half == 0 ? windows[..<middle] : windows[middle...])
            _sortRecords(&part, arena)
            slots.set(half, part)
        })
    let sorted = slots.values
    return _mergeSorted(sorted[0], sorted[1], arena)
}

/// Every key's first window, computed in two halves side by side.
private func _windows<Keys: _WindowKeys>(_ arena: Keys, count: Int) -> [_KeyRecord] {
    [_KeyRecord](unsafeUninitializedCapacity: count) { buffer, initialized in
        nonisolated(unsafe) let buffer = buffer
        // Each half initializes its own range.
        _concurrentPerform(
            iterations: 2,
            _UncheckedBox { half in
                for index in (half == 0 ? 0..<count / 2 : count / 2..<count) {
                    (buffer.baseAddress! + index).initialize(to: arena.window(UInt32(index), depth: 0))
                }
            })
        initialized = count
    }
}

/// Sorts records by their keys most significant digit first: a stable counting pass on the
/// first 16 bits where the windows vary, then each bucket of equal digits sorted on its own
/// (``_sortRecords(_:_:)``), the buckets shared among the cores in contiguous chunks: no merge,
/// and a bucket's passes stay in cache. `false`, having changed nothing, when every window is
/// equal or one bucket holds more than half of the records (two cores couldn't share it).
private func _sortByBuckets<Keys: _WindowKeys>(_ records: inout [_KeyRecord], _ arena: Keys) -> Bool {
    let count = records.count
    guard count > 1 else { return false }
    let (firstHi, firstLo) = (records[0].hi, records[0].lo)
    var (hiDiff, loDiff): (UInt64, UInt64) = (0, 0)
    for record in records {
        hiDiff |= record.hi ^ firstHi
        loDiff |= record.lo ^ firstLo
    }
    guard hiDiff != 0 || loDiff != 0 else { return false }
    // The 16 bits from the first varying byte on, of the window as one 128-bit number.
    let shift = (hiDiff != 0 ? hiDiff.leadingZeroBitCount : 64 + loDiff.leadingZeroBitCount) / 8 * 8
    @inline(__always)
    func digit(_ record: _KeyRecord) -> Int {
        let top = shift == 0 ? record.hi : shift < 64 ? record.hi << UInt64(shift) | record.lo >> UInt64(64 - shift) : record.lo << UInt64(shift - 64)
        return Int(top >> 48)
    }
    // A stable counting sort in shares of the records, one per core: each share counts its
    // digits, then places its records after the earlier shares' in each bucket (on one core
    // this was a serial 10–15 ms of a 1M-row sort).
    let shares = count >= 1 << 17 ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8)) : 1
    let shareStarts = (0...shares).map { count * $0 / shares }
    let counted = _ResultSlots<[Int]>(count: shares)
    var sorted: [_KeyRecord] = []
    var bucketStarts = [Int](repeating: 0, count: 65_537)
    let fits = records.withUnsafeBufferPointer { input -> Bool in
        nonisolated(unsafe) let input = input
        // Each share reads its own range of the records.
        _concurrentPerform(
            iterations: shares,
            _UncheckedBox { share in
                var counts = [Int](repeating: 0, count: 65_536)
                for index in shareStarts[share]..<shareStarts[share + 1] { counts[digit(input[index])] += 1 }
                counted.set(share, counts)
            })
        let counts = counted.values
        var largest = 0
        for bucket in 0..<65_536 {
            let size = counts.reduce(0) { $0 + $1[bucket] }
            largest = max(largest, size)
            bucketStarts[bucket + 1] = bucketStarts[bucket] + size
        }
        guard largest * 2 <= count else { return false }
        let starts = bucketStarts
        sorted = [_KeyRecord](unsafeUninitializedCapacity: count) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            // Each share writes its own slots of every bucket.
            _concurrentPerform(
                iterations: shares,
                _UncheckedBox { share in
                    var next = Array(starts.prefix(65_536))
                    for earlier in 0..<share {
                        for bucket in 0..<65_536 { next[bucket] += counts[earlier][bucket] }
                    }
                    for index in shareStarts[share]..<shareStarts[share + 1] {
                        let record = input[index], bucket = digit(record)
                        (buffer.baseAddress! + next[bucket]).initialize(to: record)
                        next[bucket] += 1
                    }
                })
            initialized = count
        }
        return true
    }
    guard fits else { return false }
    let bounds = bucketStarts
    // The records are all in `sorted` now: their storage goes before the buckets are sorted
    // (24 bytes a record, a 1M-row import's title order held both at the import's peak).
    records = []
    // Chunks of whole buckets, about a thirty-second of the records each, the largest first:
    // the cores claim them in that order and finish about together. (With eighths in bucket
    // order, ASCII titles of twenty-odd first letters left one core sorting alone for the
    // last 30-50 ms.)
    var chunks: [Range<Int>] = []
    var chunkStart = 0
    for bucket in 1...65_536 where bounds[bucket] - bounds[chunkStart] >= max(1, count / 32) || bucket == 65_536 {
        chunks.append(chunkStart..<bucket)
        chunkStart = bucket
    }
    chunks.sort { bounds[$0.upperBound] - bounds[$0.lowerBound] > bounds[$1.upperBound] - bounds[$1.lowerBound] }
    sorted.withUnsafeMutableBufferPointer { sorted in
        nonisolated(unsafe) let sorted = sorted
        // Each chunk sorts its own buckets' ranges of `sorted`.
        _concurrentPerform(
            iterations: chunks.count,
            _UncheckedBox { chunk in
                var bucketRecords: [_KeyRecord] = []
                for bucket in chunks[chunk] where bounds[bucket + 1] - bounds[bucket] > 1 {
                    let range = bounds[bucket]..<bounds[bucket + 1]
                    bucketRecords.removeAll(keepingCapacity: true)
                    bucketRecords.append(contentsOf: sorted[range])
                    _sortRecords(&bucketRecords, arena)
                    for (offset, record) in bucketRecords.enumerated() { sorted[range.lowerBound + offset] = record }
                }
            })
    }
    records = sorted
    return true
}

/// Records holding their keys' first windows (in position order), sorted by key, ties in
/// position order: the windows radix-sorted, then each run of equal windows by
/// ``_windowSort(_:_:depth:keys:)``.
private func _sortRecords<Keys: _WindowKeys>(_ records: inout [_KeyRecord], _ arena: Keys) {
    guard records.count > 16 else {
        if records.count > 1 { _windowSort(&records, 0..<records.count, depth: 0, keys: arena) }
        return
    }
    _radixSort(&records)
    var start = 0
    while start < records.count {
        var end = start + 1
        while end < records.count, records[end].hasSameKey(as: records[start]) { end += 1 }
        if end - start > 1 { _windowSort(&records, start..<end, depth: 16, keys: arena) }
        start = end
    }
}

/// Two sorted shares merged by their keys; on equal keys the first share's position (the
/// lower one) goes first. The merge itself runs in two halves side by side: the first share's
/// middle record splits it, and the second share at the first key not below that record's
/// (equal keys of the second share follow every equal key of the first).
private func _mergeSorted<Keys: _WindowKeys>(_ first: [_KeyRecord], _ second: [_KeyRecord], _ arena: Keys) -> [Int] {
    let split = first.count / 2
    var low = 0, high = second.count
    if split < first.count {
        let pivot = Int(first[split].index)
        while low < high {
            let middle = (low + high) / 2
            if arena.compare(Int(second[middle].index), pivot, from: 0) == .orderedAscending { low = middle + 1 } else { high = middle }
        }
    }
    let halves = [(0..<split, 0..<low), (split..<first.count, low..<second.count)]
    var merged = [Int](repeating: 0, count: first.count + second.count)
    merged.withUnsafeMutableBufferPointer { merged in
        nonisolated(unsafe) let merged = merged
        // Each half writes its own range of `merged`.
        _concurrentPerform(
            iterations: 2,
            _UncheckedBox { half in
                let (a, b) = halves[half]
                var i = a.lowerBound, j = b.lowerBound, out = a.lowerBound + b.lowerBound
                while i < a.upperBound && j < b.upperBound {
                    let x = Int(first[i].index), y = Int(second[j].index)
                    let order = arena.equalKeysAreTies ? arena.compare(y, x, from: 0) : arena.compareKeys(y, x)
                    if order == .orderedAscending {
                        merged[out] = y
                        j += 1
                    } else if order == .orderedDescending || arena.equalKeysAreTies {
                        merged[out] = x
                        i += 1
                    } else {
                        // Equal keys that aren't ties: both shares' runs of them ordered as one
                        // group (pair by pair, a run of thousands decided each pair on its own).
                        var (iEnd, jEnd) = (i + 1, j + 1)
                        while iEnd < a.upperBound, arena.compareKeys(Int(first[iEnd].index), x) == .orderedSame { iEnd += 1 }
                        while jEnd < b.upperBound, arena.compareKeys(Int(second[jEnd].index), x) == .orderedSame { jEnd += 1 }
                        var group = (Array(first[i..<iEnd]) + Array(second[j..<jEnd])).sorted { $0.index < $1.index }
                        arena.orderTies(&group, 0..<group.count, depth: 0)
                        for record in group {
                            merged[out] = Int(record.index)
                            out += 1
                        }
                        (i, j) = (iEnd, jEnd)
                        continue
                    }
                    out += 1
                }
                for k in i..<a.upperBound {
                    merged[out] = Int(first[k].index)
                    out += 1
                }
                for k in j..<b.upperBound {
                    merged[out] = Int(second[k].index)
                    out += 1
                }
            })
    }
    return merged
}
