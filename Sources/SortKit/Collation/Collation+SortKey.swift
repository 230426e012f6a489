import Foundation

extension Collation {
    /// The bytes whose plain byte order is this collation's order.
    ///
    /// Compare two keys with `memcmp` and a shorter key first on a common prefix — the way
    /// `Array<UInt8>.lexicographicallyPrecedes`, SQLite's BLOB and PostgreSQL's `bytea`
    /// compare — and the result is ``compare(_:_:)``'s, tie-break included:
    ///
    ///     let a = Collation.natural.sortKey(for: "file2")
    ///     let b = Collation.natural.sortKey(for: "file10")
    ///     a.lexicographicallyPrecedes(b)   // true
    ///
    /// Layout: ``binary`` is the NFC form's UTF-8. The folding collations are the folded form
    /// with every byte raised by one (UTF-8 never uses 0xFF, so 0x00 is free), a 0x00
    /// terminator, then the binary key as the tie-break. Under ``natural`` a digit run is
    /// 0x31 (where "0" sorts), its count of significant digits (one byte below 246, else a
    /// length byte 0xF6 + k and k big-endian bytes), then one byte per digit.
    ///
    /// - Complexity: O(*m*), where *m* is the length of the string.
    public func sortKey(for string: String) -> [UInt8] {
        var key: [UInt8] = []
        appendSortKey(for: string, to: &key)
        return key
    }

    /// Appends ``sortKey(for:)`` to `key`, to build composite keys without copies.
    public func appendSortKey(for string: String, to key: inout [UInt8]) {
        if _appendASCIISortKey(for: string, to: &key, limit: .max) != nil { return }
        let nfc = _nfc(string)
        switch self {
        case .binary:
            key.append(contentsOf: nfc.utf8)
            return
        case .caseInsensitive:
            for byte in _caseFold(nfc).utf8 { key.append(byte &+ 1) }
        case .folded:
            for byte in _diacriticFold(nfc).utf8 { key.append(byte &+ 1) }
        case .natural:
            Self._appendNaturalPrimary(_diacriticFold(nfc), to: &key)
        }
        key.append(0)
        key.append(contentsOf: nfc.utf8)
    }

    /// Compares `string`'s sort key with `key`, building only as much of the string's key as
    /// the comparison needs: for ASCII, a 16-byte prefix first and the rest only when the
    /// prefixes tie; other text's keys (normalization is costly) are kept in `scratch`'s cache.
    /// Reusing `scratch` between calls, a comparison allocates nothing.
    func compare(_ string: String, toSortKey key: [UInt8], scratch: inout _KeyScratch) -> ComparisonResult {
        scratch.buffer.removeAll(keepingCapacity: true)
        switch _appendASCIISortKey(for: string, to: &scratch.buffer, limit: 16) {
        case true?:
            return _lexicographicCompare(scratch.buffer, key)
        case false?:
            let common = Swift.min(scratch.buffer.count, key.count)
            let prefix = _lexicographicCompare(scratch.buffer[..<common], key[..<common])
            if prefix != .orderedSame { return prefix }
            scratch.buffer.removeAll(keepingCapacity: true)
            appendSortKey(for: string, to: &scratch.buffer)
            return _lexicographicCompare(scratch.buffer, key)
        case nil:
            if let cached = scratch.cache[string] { return _lexicographicCompare(cached, key) }
            let full = sortKey(for: string)
            if scratch.cache.count < _KeyScratch.cacheLimit { scratch.cache[string] = full }
            return _lexicographicCompare(full, key)
        }
    }

    /// The same key as the general path, for ASCII text, in one pass without allocating: ASCII is
    /// its own NFC form, case folding is lowercasing, and there are no diacritics. Returns `nil`,
    /// appending nothing, for text that isn't ASCII; `false` if it stopped at `limit` bytes
    /// (finishing the current digit run) before the key was complete; `true` otherwise.
    private func _appendASCIISortKey(for string: String, to key: inout [UInt8], limit: Int) -> Bool? {
        var string = string
        return string.withUTF8 { bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            let start = key.count
            switch self {
            case .binary:
                if bytes.count > limit {
                    key.append(contentsOf: bytes[..<limit])
                    return false
                }
                key.append(contentsOf: bytes)
                return true
            case .caseInsensitive, .folded:
                for byte in bytes {
                    if key.count - start >= limit { return false }
                    key.append(_asciiLower(byte) &+ 1)
                }
            case .natural:
                var i = 0
                while i < bytes.count {
                    if key.count - start >= limit { return false }
                    let byte = bytes[i]
                    guard _isDigit(byte) else {
                        key.append(_asciiLower(byte) &+ 1)
                        i += 1
                        continue
                    }
                    var end = i
                    while end < bytes.count, _isDigit(bytes[end]) { end += 1 }
                    var significant = i
                    while significant < end, bytes[significant] == 0x30 { significant += 1 }
                    key.append(0x31)
                    Self._appendLength(end - significant, to: &key)
                    for digit in bytes[significant..<end] { key.append(digit - 0x30 + 1) }
                    i = end
                }
            }
            if key.count - start >= limit { return false }
            key.append(0)
            key.append(contentsOf: bytes)
            return true
        }
    }

    private static func _appendNaturalPrimary(_ folded: String, to key: inout [UInt8]) {
        for token in _NaturalToken.tokens(folded) {
            switch token {
            case .scalar(let scalar):
                for byte in String(scalar).utf8 { key.append(byte &+ 1) }
            case .number(let digits):
                key.append(0x31)
                _appendLength(digits.count, to: &key)
                for digit in digits { key.append(digit &+ 1) }
            }
        }
    }

    /// An order-preserving, prefix-free encoding of a digit count.
    fileprivate static func _appendLength(_ count: Int, to key: inout [UInt8]) {
        if count < 246 {
            key.append(UInt8(count + 1))
            return
        }
        let byteCount = (Int.bitWidth - count.leadingZeroBitCount + 7) / 8
        key.append(UInt8(0xF6 + byteCount))
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            key.append(UInt8(truncatingIfNeeded: count >> shift))
        }
    }
}

@inline(__always)
private func _asciiLower(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

/// Reusable state for comparing many strings with sort keys: a byte buffer and a bounded cache
/// of non-ASCII strings' keys.
struct _KeyScratch {
    static let cacheLimit = 16_384
    var buffer: [UInt8] = []
    var cache: [String: [UInt8]] = [:]

    init() {
        buffer.reserveCapacity(256)
    }
}

extension Collation {
    /// The range of sort keys of the strings equivalent to `string` under this collation
    /// (``areEquivalent(_:_:)``): a string `s` is equivalent exactly when
    /// `lower <= sortKey(for: s) < upper` in byte order. SQL uses it to match enum values as
    /// memory does (`key >= ? AND key < ?`).
    ///
    ///     let range = Collation.caseInsensitive.equivalenceKeyRange(for: "Done")
    ///     let key = Collation.caseInsensitive.sortKey(for: "DONE")
    ///     !key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper)   // true
    public func equivalenceKeyRange(for string: String) -> (lower: [UInt8], upper: [UInt8]) {
        let key = sortKey(for: string)
        if self == .binary { return (key, key + [0]) }
        // The key is the primary key, a 0x00, then the NFC bytes (the tie-break).
        let primary = key.prefix(key.count - _nfc(string).utf8.count - 1)
        return (primary + [0], primary + [1])
    }
}
