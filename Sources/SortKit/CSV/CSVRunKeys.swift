import Foundation

/// Byte strings one after another, with where each ends: a run's records, one column's
/// values, or their keys, without an array per string.
struct _ByteArena: Sendable {
    var bytes: [UInt8] = []
    var ends: [Int] = []

    var count: Int { ends.count }

    func range(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

    /// Ends the string appended since the last `close()`.
    mutating func close() { ends.append(bytes.count) }

    /// The arenas one after another, each copied into its place on its own core.
    static func joined(_ parts: [_ByteArena]) -> _ByteArena {
        var bases = [0]
        for part in parts.dropLast() { bases.append(bases[bases.count - 1] + part.bytes.count) }
        return _ByteArena(bytes: _concatenated(parts.map(\.bytes)), ends: _concatenated(parts.map(\.ends), adding: bases))
    }
}

/// The arrays one after another, each one's elements plus its entry of `offsets` (if given),
/// every array copied into its place on its own core.
func _concatenated<Element: FixedWidthInteger>(_ arrays: [[Element]], adding offsets: [Int]? = nil) -> [Element] {
    var starts = [0]
    for array in arrays { starts.append(starts[starts.count - 1] + array.count) }
    let bases = starts, total = starts[starts.count - 1]
    guard total > 0 else { return [] }
    return [Element](unsafeUninitializedCapacity: total) { buffer, initialized in
        let target = buffer.baseAddress!
        // Each iteration writes only its own array's place.
        _concurrentPerform(iterations: arrays.count, _UncheckedBox { index in
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

/// The sort keys of one run of CSV records, built when the run is sorted from its key
/// columns' values (``_Run``).
///
/// A column with few distinct values (at most half the records: statuses, authors, prices) is
/// numbered through a hash table of its values, each distinct value encoded once
/// (``_CSVSortKey`` — collation, nulls, direction) and ranked among the others, so a record's
/// key holds the value's 1–4-byte rank instead of its collation key. Other columns are encoded
/// per record, in one slice per core. Column types still to be inferred are inferred from the
/// run's values (all its distinct values) first. The records are then ordered by
/// ``_sortByteKeys(_:)``. Spilled runs store each record's full key (``fullKey(_:)``), since
/// ranks only compare within a run.
struct _RunKeys: Sendable {
    /// One spec component's codes for every record.
    private enum Codes: Sendable {
        /// Per record, its value's number; per number, the encoded value and its rank.
        case dictionary(ids: [UInt32], encodings: _ByteArena, ranks: [UInt32], width: Int)
        /// Per record, its encoded value.
        case direct(_ByteArena)
    }

    /// The key the run was sorted with (column types filled in).
    let key: _CSVSortKey
    private let codes: [Codes]
    /// Per record, the bytes it sorts by: ranks and encoded values, memcmp-ordered.
    let sortKeys: _ByteArena

    /// Builds the keys of the run whose key columns hold `values` (one arena per scanned field).
    init(key: _CSVSortKey, values: [_ByteArena]) {
        let count = values.first?.count ?? 0
        // Number each field's distinct values, fields side by side on the cores.
        var numbered = [(ids: [UInt32], firsts: [Int])?](repeating: nil, count: values.count)
        numbered.withUnsafeMutableBufferPointer { results in
            nonisolated(unsafe) let results = results
            DispatchQueue.concurrentPerform(iterations: values.count) { field in
                results[field] = _numberDistinct(values[field], limit: max(16, count / 2))
            }
        }
        var key = key
        if !key.typesResolved {
            var types: [Int: ColumnType] = [:]
            for field in Set(key.inferredFields) {
                types[field] = _inferType(values[field], only: numbered[field]?.firsts)
            }
            key = key.withTypes(types)
        }
        self.key = key
        codes = key.components.map { component in
            if let (ids, firsts) = numbered[component.field] {
                var encodings = _ByteArena()
                values[component.field].bytes.withUnsafeBufferPointer { bytes in
                    for first in firsts {
                        key.encode(component, String(decoding: UnsafeBufferPointer(rebasing: bytes[values[component.field].range(first)]), as: UTF8.self), to: &encodings.bytes)
                        encodings.close()
                    }
                }
                let (ranks, top) = _denseRanks(encodings)
                let width = top < 1 << 8 ? 1 : top < 1 << 16 ? 2 : top < 1 << 24 ? 3 : 4
                return .dictionary(ids: ids, encodings: encodings, ranks: ranks, width: width)
            }
            return .direct(_encodeEach(values[component.field], component, key))
        }
        self.sortKeys = _RunKeys.concatenated(codes, count: count)
    }

    /// Per record, its components' ranks (big-endian, fixed width) and encodings one after
    /// another; built component by component.
    private static func concatenated(_ codes: [Codes], count: Int) -> _ByteArena {
        var keys = _ByteArena()
        keys.ends = [Int](repeating: 0, count: count)
        for code in codes {
            switch code {
            case let .dictionary(_, _, _, width): for record in 0..<count { keys.ends[record] += width }
            case let .direct(encoded): for record in 0..<count { keys.ends[record] += encoded.range(record).count }
            }
        }
        var cursors = [Int](repeating: 0, count: count)
        var total = 0
        for record in 0..<count {
            cursors[record] = total
            total += keys.ends[record]
            keys.ends[record] = total
        }
        keys.bytes = [UInt8](repeating: 0, count: total)
        keys.bytes.withUnsafeMutableBufferPointer { bytes in
            for code in codes {
                switch code {
                case let .dictionary(ids, _, ranks, width):
                    for record in 0..<count {
                        var rank = ranks[Int(ids[record])]
                        for byte in stride(from: cursors[record] + width - 1, through: cursors[record], by: -1) {
                            bytes[byte] = UInt8(truncatingIfNeeded: rank)
                            rank >>= 8
                        }
                        cursors[record] += width
                    }
                case let .direct(encoded):
                    for record in 0..<count {
                        for byte in encoded.bytes[encoded.range(record)] {
                            bytes[cursors[record]] = byte
                            cursors[record] += 1
                        }
                    }
                }
            }
        }
        return keys
    }

    /// The records in key order, ties in record order.
    func order() -> [Int] { _sortByteKeys(sortKeys) }

    /// A record's key as the encodings of its values (comparable across runs).
    func fullKey(_ record: Int, to bytes: inout [UInt8]) {
        for code in codes {
            switch code {
            case let .dictionary(ids, encodings, _, _): bytes.append(contentsOf: encodings.bytes[encodings.range(Int(ids[record]))])
            case let .direct(encoded): bytes.append(contentsOf: encoded.bytes[encoded.range(record)])
            }
        }
    }
}

/// Numbers the distinct values of `values` in order of first appearance: per value its
/// number, and per number the first value that has it. `nil` once more than `limit` values
/// are distinct. An open-addressing table of numbers probed by the values' hashes; the values
/// themselves stay in the arena.
func _numberDistinct(_ values: _ByteArena, limit: Int) -> (ids: [UInt32], firsts: [Int])? {
    var ids = [UInt32](repeating: 0, count: values.count)
    var firsts: [Int] = []
    var hashes: [Int] = []
    var table = [UInt32](repeating: 0, count: 1024)   // number + 1; 0 is empty
    let seed = UInt64(truncatingIfNeeded: Int.random(in: .min ... .max))
    return values.bytes.withUnsafeBufferPointer { bytes -> (ids: [UInt32], firsts: [Int])? in
        func slice(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[values.range(index)])) }
        for index in 0..<values.count {
            let value = slice(index)
            let hash = _hash(value, seed: seed)
            var slot = hash & (table.count - 1)
            while true {
                let entry = Int(table[slot])
                if entry == 0 {
                    guard firsts.count < limit else { return nil }
                    firsts.append(index)
                    hashes.append(hash)
                    table[slot] = UInt32(firsts.count)
                    ids[index] = UInt32(firsts.count - 1)
                    if firsts.count * 2 > table.count { table = _rehashed(hashes, size: table.count * 2) }
                    break
                }
                if hashes[entry - 1] == hash, _equal(value, slice(firsts[entry - 1])) {
                    ids[index] = UInt32(entry - 1)
                    break
                }
                slot = (slot + 1) & (table.count - 1)
            }
        }
        return (ids, firsts)
    }
}

/// A 64-bit hash of a short byte string, eight bytes at a time (multiply and xor-shift
/// mixing, seeded per table so inputs can't be chosen to collide in advance). Written here
/// because `Hasher` (SipHash) was a third of numbering a column of 1M values.
private func _hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> Int {
    var hash = seed ^ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
    var offset = 0
    func mix(_ word: UInt64) {
        hash = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
    }
    while offset + 8 <= bytes.count {
        mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset += 8
    }
    if offset < bytes.count {
        var tail: UInt64 = 0
        for index in stride(from: bytes.count - 1, through: offset, by: -1) { tail = tail << 8 | UInt64(bytes[index]) }
        mix(tail)
    }
    hash ^= hash >> 29
    hash = hash &* 0x94D0_49BB_1331_11EB
    return Int(truncatingIfNeeded: hash ^ hash >> 32)
}

private func _equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
}

private func _rehashed(_ hashes: [Int], size: Int) -> [UInt32] {
    var table = [UInt32](repeating: 0, count: size)
    for (number, hash) in hashes.enumerated() {
        var slot = hash & (size - 1)
        while table[slot] != 0 { slot = (slot + 1) & (size - 1) }
        table[slot] = UInt32(number + 1)
    }
    return table
}

/// Per string, its rank among the distinct strings of `keys` in memcmp order (equal strings,
/// equal ranks), and the highest rank.
private func _denseRanks(_ keys: _ByteArena) -> (ranks: [UInt32], top: UInt32) {
    var ranks = [UInt32](repeating: 0, count: keys.count)
    var rank: UInt32 = 0
    var previous: Range<Int>? = nil
    for index in _sortByteKeys(keys) {
        let range = keys.range(index)
        if let previous, !keys.bytes[previous].elementsEqual(keys.bytes[range]) { rank += 1 }
        ranks[index] = rank
        previous = range
    }
    return (ranks, rank)
}

/// The column type of a field's values (only the records `only` names, if given), read in
/// one slice per core.
private func _inferType(_ values: _ByteArena, only: [Int]?) -> ColumnType {
    let records = only ?? Array(0..<values.count)
    let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, records.count / 4096))
    var inferences = [_TypeInference](repeating: _TypeInference(), count: slices)
    inferences.withUnsafeMutableBufferPointer { results in
        nonisolated(unsafe) let results = results
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            values.bytes.withUnsafeBufferPointer { bytes in
                for index in records[(records.count * slice / slices)..<(records.count * (slice + 1) / slices)] {
                    results[slice].add(String(decoding: UnsafeBufferPointer(rebasing: bytes[values.range(index)]), as: UTF8.self))
                }
            }
        }
    }
    return inferences.dropFirst().reduce(into: inferences[0]) { $0.merge($1) }.type
}

/// Every value of a field encoded by `component`, in one slice per core.
private func _encodeEach(_ values: _ByteArena, _ component: _CSVSortKey.Component, _ key: _CSVSortKey) -> _ByteArena {
    let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, values.count / 4096))
    var parts = [_ByteArena](repeating: _ByteArena(), count: slices)
    parts.withUnsafeMutableBufferPointer { results in
        nonisolated(unsafe) let results = results
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            var part = _ByteArena()
            values.bytes.withUnsafeBufferPointer { bytes in
                for index in (values.count * slice / slices)..<(values.count * (slice + 1) / slices) {
                    key.encode(component, String(decoding: UnsafeBufferPointer(rebasing: bytes[values.range(index)]), as: UTF8.self), to: &part.bytes)
                    part.close()
                }
            }
            results[slice] = part
        }
    }
    return _ByteArena.joined(parts)
}
