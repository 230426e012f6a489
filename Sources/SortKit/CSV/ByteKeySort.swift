import Foundation

/// Positions `0..<keys.count` in memcmp order of their byte strings, ties in position order
/// (stable). The keys must be prefix-free — no key a proper prefix of another — as SortKit's
/// encoded keys are (a null marker, or a value ended by `00 00`; fixed-width ranks).
///
/// A most-significant-digit radix sort over 16-byte windows: every key's first 16 bytes
/// (big-endian, zero-padded) are sorted by the engine's LSD radix sort (``_radixSort(_:skippingLowBytes:)``,
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
        let from = start(index) + depth, end = ends[index]
        if from + 8 <= end {
            return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress! + from).loadUnaligned(as: UInt64.self))
        }
        guard from < end else { return 0 }
        var word: UInt64 = 0
        for offset in from..<end { word = word << 8 | UInt64(bytes[offset]) }
        return word << (8 * (8 - UInt64(end - from)))
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
            // Prefix-free keys equal up to `depth`: either all end before it (equal) or none does.
            let first = Int(records[groupStart].index)
            if groupEnd - groupStart > 1, ends[first] - start(first) > depth {
                if groupEnd - groupStart <= 16 {
                    insertionSort(&records, from: groupStart, to: groupEnd, depth: depth)
                } else {
                    var group = records[groupStart..<groupEnd].map { record(Int($0.index), depth: depth) }
                    _radixSort(&group)
                    resolveTies(&group, from: 0, to: group.count, depth: depth + 16)
                    records.replaceSubrange(groupStart..<groupEnd, with: group)
                }
            }
            groupStart = groupEnd
        }
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

    private func precedes(_ a: Int, _ b: Int, depth: Int) -> Bool {
        let aStart = start(a) + depth, bStart = start(b) + depth
        let aCount = max(0, ends[a] - aStart), bCount = max(0, ends[b] - bStart)
        let common = memcmp(bytes.baseAddress! + aStart, bytes.baseAddress! + bStart, min(aCount, bCount))
        return common != 0 ? common < 0 : aCount < bCount
    }
}
