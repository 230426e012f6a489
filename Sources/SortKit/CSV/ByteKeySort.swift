import Foundation

/// Positions `0..<keys.count` in memcmp order of their byte strings (a proper prefix first),
/// ties in position order (stable).
///
/// A most-significant-digit radix sort over 16-byte windows: every key's first 16 bytes
/// (big-endian, zero-padded) are sorted by the engine's LSD radix sort (``_radixSort(_:fromByte:)``,
/// which skips byte positions where every key agrees), then each group of keys equal so far
/// and longer than the window is sorted by its next 16 bytes, and so on; groups of at most
/// 16 keys by comparison. A run's keys of ranks (statuses, authors, prices: 5 bytes) sort in
/// one radix pass per varying byte; `sortkit sort` measured it against `Array.sort` with a
/// `memcmp` closure on 1M keys — see the README's CSV table.
func _sortByteKeys(_ keys: _ByteArena) -> [Int] {
    keys.bytes.withUnsafeBufferPointer { bytes in
        keys.ends.withUnsafeBufferPointer { ends in
            let sorter = _ByteKeySorter(bytes: bytes, ends: ends)
            var records = (0..<ends.count).map { sorter.record($0, depth: 0) }
            _radixSort(&records)
            sorter.resolveTies(&records, from: 0, to: records.count, depth: 16)
            return records.map { Int($0.index) }
        }
    }
}

private struct _ByteKeySorter {
    let bytes: UnsafeBufferPointer<UInt8>
    let ends: UnsafeBufferPointer<Int>

    func start(_ index: Int) -> Int { index == 0 ? 0 : ends[index - 1] }

    /// The 8 bytes of key `index` from `depth`, big-endian, zero-padded past its end.
    func word(_ index: Int, _ depth: Int) -> UInt64 {
        _bigEndianWord(bytes, from: start(index) + depth, end: ends[index])
    }

    func record(_ index: Int, depth: Int) -> _SortEngine.Record {
        _SortEngine.Record(hi: word(index, depth), lo: word(index, depth + 8), index: UInt32(index))
    }

    /// Sorts each group of `records[from..<to]` whose windows before `depth` are equal by
    /// the bytes from `depth` on.
    func resolveTies(_ records: inout [_SortEngine.Record], from: Int, to: Int, depth: Int) {
        var groupStart = from
        while groupStart < to {
            var groupEnd = groupStart + 1
            while groupEnd < to, records[groupEnd].hi == records[groupStart].hi, records[groupEnd].lo == records[groupStart].lo { groupEnd += 1 }
            if groupEnd - groupStart > 1 {
                if groupEnd - groupStart <= 16 {
                    insertionSort(&records, from: groupStart, to: groupEnd, depth: depth)
                } else {
                    resolveGroup(&records, from: groupStart, to: groupEnd, depth: depth)
                }
            }
            groupStart = groupEnd
        }
    }

    /// Sorts a group of keys equal (zero-padded) before `depth`: keys that end before `depth`
    /// are prefixes of the longer ones, so they come first, shorter first (equal lengths:
    /// equal keys, in position order); the longer keys are radix-sorted by their next window.
    private func resolveGroup(_ records: inout [_SortEngine.Record], from: Int, to: Int, depth: Int) {
        let length = { (record: _SortEngine.Record) in ends[Int(record.index)] - start(Int(record.index)) }
        // Equal keys — the common case, say a repeated price — are already in position order:
        // found without allocating.
        var shortest = Int.max, longest = 0
        for record in records[from..<to] {
            let count = length(record)
            shortest = min(shortest, count)
            longest = max(longest, count)
        }
        if longest <= depth, shortest == longest { return }
        let group = records[from..<to]
        if group.allSatisfy({ length($0) > depth }) {
            var longer = group.map { record(Int($0.index), depth: depth) }
            _radixSort(&longer)
            resolveTies(&longer, from: 0, to: longer.count, depth: depth + 16)
            records.replaceSubrange(from..<to, with: longer)
            return
        }
        let shorter = group.filter { length($0) <= depth }
        guard shorter.count < group.count || Set(shorter.map(length)).count > 1 else { return }   // all equal
        var ordered = shorter.sorted { (length($0), $0.index) < (length($1), $1.index) }
        var longer = group.filter { length($0) > depth }.map { record(Int($0.index), depth: depth) }
        _radixSort(&longer)
        resolveTies(&longer, from: 0, to: longer.count, depth: depth + 16)
        ordered.append(contentsOf: longer)
        records.replaceSubrange(from..<to, with: ordered)
    }

    /// Sorts a small group by memcmp from `depth`, ties by position (records arrive in
    /// position order, and only a strictly smaller key moves ahead).
    private func insertionSort(_ records: inout [_SortEngine.Record], from: Int, to: Int, depth: Int) {
        for next in (from + 1)..<to {
            let moving = records[next]
            var slot = next
            while slot > from, precedes(Int(moving.index), Int(records[slot - 1].index), depth: depth) {
                records[slot] = records[slot - 1]
                slot -= 1
            }
            records[slot] = moving
        }
    }

    /// Whether key `a` sorts before key `b`, given they are equal (zero-padded) before `depth`:
    /// by their bytes from `depth`, then the shorter first (it is a prefix of the other).
    private func precedes(_ a: Int, _ b: Int, depth: Int) -> Bool {
        let aLength = ends[a] - start(a), bLength = ends[b] - start(b)
        let common = min(max(0, aLength - depth), max(0, bLength - depth))
        let order = common == 0 ? 0 : memcmp(bytes.baseAddress! + start(a) + depth, bytes.baseAddress! + start(b) + depth, common)
        return order != 0 ? order < 0 : aLength < bLength
    }
}

/// The 8 bytes of `bytes` from `from`, big-endian, zero-padded past `end`: words compare as
/// the byte strings do where they differ (a string that ends sorts as if followed by zeros).
@inline(__always)
internal func _bigEndianWord(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> UInt64 {
    if from + 8 <= end {
        return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress! + from).loadUnaligned(as: UInt64.self))
    }
    guard from < end else { return 0 }
    var word: UInt64 = 0
    for offset in from..<end { word = word << 8 | UInt64(bytes[offset]) }
    return word << (8 * (8 - UInt64(end - from)))
}
