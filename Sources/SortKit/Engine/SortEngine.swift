import Foundation

/// The fast sort path: every key evaluated once per row into a normalized word
/// (``_KeyColumn``), the words bit-packed, most significant key first, into one 128-bit
/// composite per row together with the row's position, and the composites sorted as plain
/// integers. Rows whose composites tie because a key was truncated or can't be encoded exactly
/// (long strings, comparator keys) are ordered by the full comparison of the remaining keys,
/// then by position, so the result is stable and identical to the reference path.
@usableFromInline
internal struct _SortEngine {
    let columns: [_KeyColumn]
    /// Owns the columns' buffers; they live as long as any copy of the engine.
    let allocations: _Allocations
    /// Keys before this one are fully decided by the composite.
    let firstUnresolvedKey: Int
    /// Whether the row position is packed into the composite (so composites are unique).
    let indexPacked: Bool
    var records: [_KeyRecord]
    /// The compact form used instead of ``records`` when every key is exact and all of them fit
    /// in 32 bits: per row, the keys above the row's position in one word.
    var compact: [UInt64] = []
    let isCompact: Bool
    /// When the first unresolved key is a string prefix: how many bytes of its collation key
    /// rows with equal composites share, where runs go on sorting by 16-byte windows.
    let windowDepth: Int?

    @usableFromInline
    init(_ keys: [_KeyInput], count: Int) {
        precondition(count <= _maximumRecordCount, "the fast sort path handles up to 2^32 - 1 rows; callers sort more by comparison")
        let allocations = _Allocations()
        let columns = _SortEngine.encode(keys, count: count, allocations: allocations)
        self.columns = columns
        self.allocations = allocations
        // Plan the packing: whole keys while they fit and are exact; then the top bits of the
        // first key that doesn't fit or isn't exact; nothing after it.
        var plan: [(column: Int, take: Int, next: Bool)] = []
        var used = 0
        var unresolved = columns.count
        for (k, column) in columns.enumerated() {
            let take = min(column.bits, 128 - used)
            if take > 0 { plan.append((k, take, false)) }
            used += take
            let exact: Bool = if case .exact = column.tie { true } else { false }
            if take < column.bits || !exact {
                // A string prefix may add its next 8 bytes where there is room.
                if take == column.bits, !column.nextWords.isEmpty, used < 128 {
                    plan.append((k, min(64, 128 - used), true))
                    used += min(64, 128 - used)
                }
                unresolved = k
                break
            }
        }
        self.firstUnresolvedKey = unresolved
        // Bytes of the unresolved string key that every row in a run of equal composites shares:
        // its first word (8 bytes) when packed whole and exact, 8 more when its next word is.
        var depth: Int? = nil
        if unresolved < columns.count, case .bytes = columns[unresolved].tie, columns[unresolved].wordsAreExact,
            plan.contains(where: { $0.column == unresolved && !$0.next && $0.take == columns[unresolved].bits })
        {
            depth = plan.contains { $0.column == unresolved && $0.next && $0.take == 64 } ? 16 : 8
        }
        self.windowDepth = depth
        let packIndex = unresolved == columns.count && used <= 96
        self.indexPacked = packIndex
        self.isCompact = packIndex && used <= 32
        if isCompact {
            var compact = [UInt64](repeating: 0, count: count)
            for i in 0..<count {
                var key: UInt64 = 0
                for (k, take, _) in plan { key = key << UInt64(take) | columns[k].words[i] }
                compact[i] = key << 32 | UInt64(i)
            }
            self.compact = compact
            self.records = []
            return
        }
        var records = [_KeyRecord](repeating: _KeyRecord(hi: 0, lo: 0, index: 0), count: count)
        for i in 0..<count {
            var hi: UInt64 = 0
            var lo: UInt64 = 0
            for (k, take, next) in plan {
                let word =
                    next
                    ? columns[k].nextWords[i] >> UInt64(64 - take)
                    : columns[k].words[i] >> UInt64(columns[k].bits - take)
                _shiftLeft(&hi, &lo, by: take)
                lo |= word
            }
            if packIndex {
                _shiftLeft(&hi, &lo, by: 32)
                lo |= UInt64(i)
            } else {
                _shiftLeft(&hi, &lo, by: 128 - used)
            }
            records[i] = _KeyRecord(hi: hi, lo: lo, index: UInt32(i))
        }
        self.records = records
    }

    /// Encodes every key, on both cores when there are several keys and many rows.
    private static func encode(_ keys: [_KeyInput], count: Int, allocations: _Allocations) -> [_KeyColumn] {
        guard keys.count > 1, count >= _parallelThreshold else {
            return keys.map { _KeyColumn($0, count: count, allocations: allocations) }
        }
        let results = _ResultSlots<_KeyColumn>(count: keys.count)
        let inputs = _UncheckedBox(keys)
        _concurrentPerform(
            iterations: keys.count,
            _UncheckedBox { k in
                results.set(k, _KeyColumn(inputs.value[k], count: count, allocations: allocations))
            })
        return results.values
    }

    /// All row positions in sorted order: the composites radix-sorted as integers (stable, so
    /// equal composites stay in position order), then each run of equal composites — rows the
    /// composite can't tell apart — re-sorted by the full comparison of the remaining keys.
    @usableFromInline
    mutating func sortedIndices() -> [Int] {
        sort(markingTies: false).order
    }

    /// ``sortedIndices()`` and, per sorted position, whether that row ties with the one before
    /// it on every key — read from the composites, with the full comparison only inside runs
    /// the composite can't tell apart.
    @usableFromInline
    mutating func sortedIndicesMarkingTies() -> (order: [Int], tiesPrevious: [Bool]) {
        let result = sort(markingTies: true)
        return (result.order, result.ties)
    }

    private mutating func sort(markingTies: Bool) -> (order: [Int], ties: [Bool]) {
        if isCompact {
            _radixSort(&compact, fromByte: 4)
            var ties = [Bool](repeating: false, count: markingTies ? compact.count : 0)
            if markingTies {
                for i in compact.indices.dropFirst() { ties[i] = compact[i] >> 32 == compact[i - 1] >> 32 }
            }
            return (compact.map { Int($0 & 0xFFFF_FFFF) }, ties)
        }
        _radixSort(&records, fromByte: indexPacked ? 4 : 0)
        var ties = markingTies ? [Bool](repeating: false, count: records.count) : []
        let resolved = firstUnresolvedKey == columns.count
        // Packed positions are not part of the key.
        let mask: UInt64 = indexPacked ? ~0xFFFF_FFFF : ~0
        if markingTies, resolved {
            for i in records.indices.dropFirst() {
                ties[i] = records[i].hi == records[i - 1].hi && records[i].lo & mask == records[i - 1].lo & mask
            }
        }
        if !resolved {
            // The runs' sorts capture the columns only: capturing `self` would share `records`
            // and make every run's in-place sort copy the whole array.
            let remaining = _Ties(columns: columns, first: firstUnresolvedKey)
            var start = 0
            while start < records.count {
                var end = start + 1
                while end < records.count, records[end].hi == records[start].hi, records[end].lo == records[start].lo { end += 1 }
                if end - start > 1 {
                    remaining.sortRun(&records, start..<end, depth: windowDepth)
                    if markingTies { remaining.markTies(&ties, records, start..<end) }
                }
                start = end
            }
        }
        return (records.map { Int($0.index) }, ties)
    }

    /// Bytes held for keys and positions: words, composites, string arenas.
    var memoryFootprint: Int {
        var bytes = records.count * MemoryLayout<_KeyRecord>.stride + compact.count * 8
        for column in columns {
            bytes +=
                (column.words.count + column.nextWords.count) * 8 + column.arena.count + column.starts.count * 8
                + column.values.count * MemoryLayout<SortValue>.stride
        }
        return bytes
    }
}

/// The full comparison of the keys a composite leaves unresolved.
private struct _Ties {
    let columns: [_KeyColumn]
    let first: Int

    @inline(__always)
    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        for k in first..<columns.count {
            let result = columns[k].compare(i, j)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// Marks each record of a sorted run whose remaining keys equal the previous record's.
    /// One string key left (a title's full collation key) is compared as bytes read through
    /// its column's buffers, taken once for the run: through ``compare(_:_:)`` each pair copied
    /// the column (retaining its collation and comparator), 15% of a 1M-row import's rankings.
    func markTies(_ ties: inout [Bool], _ records: [_KeyRecord], _ run: Range<Int>) {
        guard first == columns.count - 1, case .bytes = columns[first].tie else {
            for i in run.dropFirst() { ties[i] = compare(Int(records[i - 1].index), Int(records[i].index)) == .orderedSame }
            return
        }
        // As `_KeyColumn.compare` decides equality: the words (a null's is its own), then the
        // full keys' bytes.
        let words = columns[first].words, arena = UnsafeBufferPointer(columns[first].arena), starts = columns[first].starts
        for i in run.dropFirst() {
            let (a, b) = (Int(records[i - 1].index), Int(records[i].index))
            let (x, y) = (starts[a]..<starts[a + 1], starts[b]..<starts[b + 1])
            ties[i] =
                words[a] == words[b] && x.count == y.count
                && (x.isEmpty || memcmp(arena.baseAddress! + x.lowerBound, arena.baseAddress! + y.lowerBound, x.count) == 0)
        }
    }

    /// Sorts a run of rows the composite can't tell apart, position last. With a `depth` (the
    /// first remaining key is a string whose collation key the rows share up to `depth`
    /// bytes), the run is window-sorted by the keys' next bytes (``_windowSort(_:_:depth:keys:)``):
    /// natural-order titles that share their first 16 key bytes ("Garden River 1…") then cost
    /// a few linear passes instead of a comparison sort. Otherwise it is compared in full.
    func sortRun(_ records: inout [_KeyRecord], _ run: Range<Int>, depth: Int?) {
        if let depth {
            _windowSort(&records, run, depth: depth, keys: _StringKeyRun(ties: self))
            return
        }
        records[run].sort { a, b in
            let result = compare(Int(a.index), Int(b.index))
            return result == .orderedSame ? a.index < b.index : result == .orderedAscending
        }
    }
}

/// The first unresolved key's collation keys as window-sort keys; the keys after it break
/// what its bytes leave tied.
private struct _StringKeyRun: _WindowKeys {
    let ties: _Ties

    @inline(__always)
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let column = ties.columns[ties.first]
        return UnsafeBufferPointer(rebasing: UnsafeBufferPointer(column.arena)[column.starts[index]..<column.starts[index + 1]])
    }

    var isDescending: Bool { ties.columns[ties.first].direction == .descending }
    var equalKeysAreTies: Bool { false }

    @inline(__always)
    func compare(_ a: Int, _ b: Int, from depth: Int) -> ComparisonResult {
        let result = ties.columns[ties.first].direction._apply(_compareKeys(key(a), key(b), from: depth))
        if result != .orderedSame { return result }
        for k in (ties.first + 1)..<ties.columns.count {
            let next = ties.columns[k].compare(a, b)
            if next != .orderedSame { return next }
        }
        return .orderedSame
    }
}

@inline(__always)
private func _shiftLeft(_ hi: inout UInt64, _ lo: inout UInt64, by bits: Int) {
    if bits == 0 { return }
    if bits >= 128 { hi = 0; lo = 0; return }
    if bits >= 64 {
        hi = lo << UInt64(bits - 64)
        lo = 0
        return
    }
    hi = (hi << UInt64(bits)) | (lo >> UInt64(64 - bits))
    lo <<= UInt64(bits)
}
