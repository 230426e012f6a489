import Foundation

/// Dense ids for distinct things that callers keep themselves (words, strings, byte ranges of
/// an arena), found by hash: an open-addressing table of ids probed linearly and kept at most
/// half full. The one probing code behind ``_DistinctWords``, ``_DistinctStrings`` and the
/// file sorter's numbering of column values.
///
/// Written by hand rather than using `Set` or `Dictionary`: those hash with SipHash, and in the
/// 3-key benchmark (1M rows) hashing every row's price and author through them was about three
/// quarters of encoding the keys. Callers hash with a per-table random seed (``_mix(_:)``,
/// ``_hashBytes(_:seed:)``), so crafted input can't predict collisions.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public struct _IdTable: Sendable {
    /// Per slot, an id + 1; 0 is an empty slot.
    @usableFromInline var slots: [UInt32]
    @usableFromInline var mask: Int
    /// Per id, its hash.
    @usableFromInline var hashes: [UInt64] = []

    @inlinable
    package init(expectedCount: Int = 16) {
        let capacity = _tableCapacity(for: expectedCount)
        slots = [UInt32](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    /// How many ids there are.
    @inlinable
    package var count: Int { hashes.count }

    /// Where a probe ended: at the id `isMatch` accepted, or at the empty slot a new id takes.
    @frozen
    public enum Probe: Sendable {
        case found(Int)
        case vacant(slot: Int)
    }

    /// Probes for `hash`, asking `isMatch` about each id stored with that hash.
    @inlinable @inline(__always)
    package func find(_ hash: UInt64, isMatch: (Int) -> Bool) -> Probe {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 { return .vacant(slot: slot) }
            let id = Int(stored) - 1
            if hashes[id] == hash, isMatch(id) { return .found(id) }
            slot = (slot + 1) & mask
        }
    }

    /// Adds the next id at the vacant `slot` ``find(_:isMatch:)`` returned for `hash`.
    @inlinable @inline(__always)
    package mutating func add(_ hash: UInt64, at slot: Int) -> Int {
        let id = hashes.count
        hashes.append(hash)
        slots[slot] = UInt32(id + 1)
        if hashes.count * 2 > slots.count { grow() }
        return id
    }

    @usableFromInline
    mutating func grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }
}

/// Dense ids for the distinct 64-bit words of a column, in order of first appearance.
///
///     var table = _DistinctWords()
///     table.id(of: 42)  // 0
///     table.id(of: 7)   // 1
///     table.id(of: 42)  // 0
///     table.words       // [42, 7]
internal struct _DistinctWords {
    private var table: _IdTable
    private let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// The distinct words; a word's id is its index here.
    private(set) var words: [UInt64] = []

    init(expectedCount: Int = 16) {
        table = _IdTable(expectedCount: expectedCount)
    }

    var count: Int { words.count }

    /// The word's id, adding it if it is new.
    @inline(__always)
    mutating func id(of word: UInt64) -> Int {
        let hash = _mix(word ^ seed)
        switch table.find(hash, isMatch: { words[$0] == word }) {
        case .found(let id): return id
        case .vacant(let slot):
            words.append(word)
            return table.add(hash, at: slot)
        }
    }
}

/// Dense ids for the distinct strings of a column, by their UTF-8 bytes, in order of first
/// appearance. Canonically equivalent strings with different bytes get different ids; callers
/// that rank by collation key give such ids the same rank.
///
///     var table = _DistinctStrings()
///     table.id(of: "Le Guin")  // 0
///     table.id(of: "Tolkien")  // 1
///     table.id(of: "Le Guin")  // 0
///     table.strings            // ["Le Guin", "Tolkien"]
internal struct _DistinctStrings {
    private var table: _IdTable
    private let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// The strings' bytes one after another.
    private var bytes = _ByteArena()
    /// The distinct strings; a string's id is its index here.
    private(set) var strings: [String] = []

    init(expectedCount: Int = 16) {
        table = _IdTable(expectedCount: expectedCount)
    }

    var count: Int { strings.count }

    /// The string's id, adding it if it is new.
    mutating func id(of string: String) -> Int {
        _withUTF8(string) { text in
            let hash = _hashBytes(text, seed: seed)
            let probe = bytes.bytes.withUnsafeBufferPointer { stored in
                table.find(hash) { id in _equalBytes(UnsafeBufferPointer(rebasing: stored[bytes.range(id)]), text) }
            }
            switch probe {
            case .found(let id): return id
            case .vacant(let slot):
                strings.append(string)
                bytes.bytes.append(contentsOf: text)
                bytes.close()
                return table.add(hash, at: slot)
            }
        }
    }
}

/// Numbers the distinct values of `values` in order of first appearance: per value its
/// number, and per number the first value that has it. `nil` once more than `limit` values
/// are distinct. The values stay in the arena; the table holds numbers (``_IdTable``). The file sorter
/// numbers a key column's values with it.
package func _numberDistinct(_ values: _ByteArena, limit: Int) -> (ids: [UInt32], firsts: [Int])? {
    var ids = [UInt32](repeating: 0, count: values.count)
    var firsts: [Int] = []
    var table = _IdTable(expectedCount: 512)
    let seed = UInt64.random(in: 0...UInt64.max) | 1
    return values.bytes.withUnsafeBufferPointer { bytes -> (ids: [UInt32], firsts: [Int])? in
        func value(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[values.range(index)]) }
        for index in 0..<values.count {
            let text = value(index)
            let hash = _hashBytes(text, seed: seed)
            switch table.find(hash, isMatch: { _equalBytes(text, value(firsts[$0])) }) {
            case .found(let id):
                ids[index] = UInt32(id)
            case .vacant(let slot):
                guard firsts.count < limit else { return nil }
                firsts.append(index)
                ids[index] = UInt32(table.add(hash, at: slot))
            }
        }
        return (ids, firsts)
    }
}

/// Whether a column's first values repeat at all (more than one in twenty) so that numbering
/// its distinct values (``_numberDistinct(_:limit:)``) pays: not ids, titles or timestamps,
/// whose numbering would hash every value only to give up at its limit.
package func _valuesRepeat(_ column: _ByteArena) -> Bool {
    let sample = _ByteArena(
        bytes: Array(column.bytes.prefix(column.count > 4_096 ? column.ends[4_095] : column.bytes.count)),
        ends: Array(column.ends.prefix(4_096)))
    guard let (_, firsts) = _numberDistinct(sample, limit: sample.count) else { return true }
    return firsts.count * 20 < sample.count * 19
}

/// A 64-bit finalizer (MurmurHash3's fmix64 constants): every input bit affects every output bit.
@inlinable @inline(__always)
package func _mix(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
}

/// Hashes bytes eight at a time; the length is mixed in so "a" and "a\0" differ.
@inlinable @inline(__always)
package func _hashBytes(_ text: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
    var hash = seed ^ UInt64(text.count)
    guard let base = text.baseAddress else { return _mix(hash) }
    let raw = UnsafeRawPointer(base)
    var offset = 0
    while offset + 8 <= text.count {
        hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 29
        offset += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while offset < text.count {
        tail |= UInt64(base[offset]) << shift
        shift += 8
        offset += 1
    }
    return _mix(hash ^ tail)
}

/// A power of two at least twice `expectedCount` (and at least 16).
@inlinable
package func _tableCapacity(for expectedCount: Int) -> Int {
    var capacity = 16
    while capacity < expectedCount * 2 { capacity *= 2 }
    return capacity
}
