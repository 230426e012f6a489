import Foundation

/// Dense ids for the distinct 64-bit words of a column, in order of first appearance.
///
/// Written by hand rather than using `Set` or `Dictionary`: those hash with SipHash, and in the
/// 3-key benchmark (1M rows) hashing every row's price and author through them was about three
/// quarters of encoding the keys. This table hashes a word with one multiply-xorshift round
/// under a per-table random seed (so crafted input can't predict collisions), probes linearly,
/// and stays at most half full.
///
///     var table = _DistinctWords()
///     table.id(of: 42)  // 0
///     table.id(of: 7)   // 1
///     table.id(of: 42)  // 0
///     table.words       // [42, 7]
internal struct _DistinctWords {
    /// Per slot, an id + 1; 0 is an empty slot.
    private var slots: [UInt32]
    private var mask: Int
    private let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// The distinct words; a word's id is its index here.
    private(set) var words: [UInt64] = []

    init(expectedCount: Int = 16) {
        let capacity = _tableCapacity(for: expectedCount)
        slots = [UInt32](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    var count: Int { words.count }

    /// The word's id, adding it if it is new.
    @inline(__always)
    mutating func id(of word: UInt64) -> Int {
        var slot = _slot(_mix(word ^ seed))
        while true {
            let stored = slots[slot]
            if stored == 0 { break }
            if words[Int(stored) - 1] == word { return Int(stored) - 1 }
            slot = (slot + 1) & mask
        }
        let id = words.count
        words.append(word)
        slots[slot] = UInt32(id + 1)
        if words.count * 2 > slots.count { _grow() }
        return id
    }

    @inline(__always)
    private func _slot(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & mask }

    private mutating func _grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (id, word) in words.enumerated() {
            var slot = _slot(_mix(word ^ seed))
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }
}

/// Dense ids for the distinct strings of a column, by their UTF-8 bytes, in order of first
/// appearance. Canonically equivalent strings with different bytes get different ids; callers
/// that rank by collation key give such ids the same rank.
///
/// Hand-written for the reason given on ``_DistinctWords``: the bytes are hashed eight at a time
/// with a seeded multiply-xorshift round and compared with `memcmp` on a match.
///
///     var table = _DistinctStrings()
///     table.id(of: "Le Guin")  // 0
///     table.id(of: "Tolkien")  // 1
///     table.id(of: "Le Guin")  // 0
///     table.strings            // ["Le Guin", "Tolkien"]
internal struct _DistinctStrings {
    private var slots: [UInt32]
    private var mask: Int
    private let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// Per id, the string's hash and the range of its bytes in ``bytes``.
    private var hashes: [UInt64] = []
    private var starts: [Int] = [0]
    private var bytes: [UInt8] = []
    /// The distinct strings; a string's id is its index here.
    private(set) var strings: [String] = []

    init(expectedCount: Int = 16) {
        let capacity = _tableCapacity(for: expectedCount)
        slots = [UInt32](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    var count: Int { strings.count }

    /// The string's id, adding it if it is new.
    mutating func id(of string: String) -> Int {
        _withUTF8(string) { text in
            let hash = _hashBytes(text, seed: seed)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let stored = slots[slot]
                if stored == 0 { break }
                let id = Int(stored) - 1
                if hashes[id] == hash, _equalBytes(id, text) { return id }
                slot = (slot + 1) & mask
            }
            let id = strings.count
            strings.append(string)
            hashes.append(hash)
            bytes.append(contentsOf: text)
            starts.append(bytes.count)
            slots[slot] = UInt32(id + 1)
            if strings.count * 2 > slots.count { _grow() }
            return id
        }
    }

    @inline(__always)
    private func _equalBytes(_ id: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let (start, end) = (starts[id], starts[id + 1])
        guard end - start == text.count else { return false }
        guard let other = text.baseAddress, !text.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, other, text.count) == 0 }
    }

    private mutating func _grow() {
        slots = [UInt32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(id + 1)
        }
    }
}

/// A 64-bit finalizer (MurmurHash3's fmix64 constants): every input bit affects every output bit.
@inline(__always)
internal func _mix(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
}

/// Hashes bytes eight at a time; the length is mixed in so "a" and "a\0" differ.
@inline(__always)
internal func _hashBytes(_ text: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
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
internal func _tableCapacity(for expectedCount: Int) -> Int {
    var capacity = 16
    while capacity < expectedCount * 2 { capacity *= 2 }
    return capacity
}
