import Foundation

extension SortValue {
    /// Bytes whose plain byte order (memcmp, shorter first on a common prefix) is this value
    /// order under `collation` — the same order as ``compare(_:_:collation:)``, across types.
    /// `nil` for ``null``: where nulls go is the caller's null policy.
    ///
    /// Databases store these keys (BLOB in SQLite, bytea in PostgreSQL) so that `ORDER BY` on
    /// them gives exactly the in-memory order, for mixed-type columns too:
    ///
    ///     let keys = [SortValue.integer(10), 9.5, "5a", .bool(false)].map { $0.sortKey()! }
    ///     keys == keys.sorted { $0.lexicographicallyPrecedes($1) }   // true
    ///
    /// Layout: a type tag (numbers 0x10, dates 0x20, strings 0x30, booleans 0x40), then for
    /// numbers the nearest `Double` in order-preserving big-endian form and the exact integer
    /// remainder (so `Int64` values beyond 2^53 stay exact and `.integer(9) == .double(9)`);
    /// NaN after every number; for dates their seconds since the reference date the same way;
    /// for strings the collation's ``Collation/sortKey(for:)``; for booleans one byte.
    public func sortKey(collation: Collation = .default) -> [UInt8]? {
        _sortKey(collation: collation, tieBreak: true)
    }

    /// ``sortKey(collation:)`` without the tie-break of a string's key
    /// (``Collation/equivalenceKey(for:)``): equal exactly for values the collation calls
    /// equivalent, in the same order otherwise — what `--unique` groups records by.
    public func equivalenceKey(collation: Collation = .default) -> [UInt8]? {
        _sortKey(collation: collation, tieBreak: false)
    }

    /// Appends ``sortKey(collation:)`` of `.string(text)` for the text that valid UTF-8
    /// `bytes` spell, without making a `String` where the collation's fast paths take the
    /// bytes (``Collation/_appendSortKey(forValidUTF8:to:)``): what a file sort's keys are
    /// built with.
    ///
    ///     var key: [UInt8] = []
    ///     SortValue._appendStringSortKey(ofValidUTF8: bytes, collation: .natural, to: &key)
    ///     // key == SortValue.string(String(decoding: bytes, as: UTF8.self)).sortKey(collation: .natural)
    package static func _appendStringSortKey(ofValidUTF8 bytes: UnsafeBufferPointer<UInt8>, collation: Collation, to key: inout [UInt8]) {
        key.append(0x30)
        collation._appendSortKey(forValidUTF8: bytes, to: &key)
    }

    /// ``_appendStringSortKey(ofValidUTF8:collation:to:)`` with the collation's keys built from
    /// cached pieces (``_SortKeyPieces``): the same bytes.
    package static func _appendStringSortKey(ofValidUTF8 bytes: UnsafeBufferPointer<UInt8>, pieces: inout _SortKeyPieces, to key: inout [UInt8]) {
        key.append(0x30)
        pieces.appendSortKey(forValidUTF8: bytes, to: &key)
    }

    private func _sortKey(collation: Collation, tieBreak: Bool) -> [UInt8]? {
        var key: [UInt8] = []
        switch self {
        case .null: return nil
        case .integer(let value):
            key.append(0x10)
            let nearest = Double(value)
            _appendOrdered(nearest, to: &key)
            _appendOrdered(Int64(Int128(value) - Int128(nearest)), to: &key)
        case .largeInteger(let value):
            // The same layout: the nearest double and the remainder, which fits 64 bits for
            // values within ±2^116 (35 digits), the range where keys are exact; beyond it the
            // remainder is clamped, and keys order such values by their nearest double first.
            key.append(0x10)
            let nearest = Double(value)
            _appendOrdered(nearest, to: &key)
            let remainder = value - Int128(nearest)
            _appendOrdered(Int64(clamping: remainder), to: &key)
        case .double(let value):
            key.append(0x10)
            if value.isNaN {
                key.append(contentsOf: repeatElement(0xFF, count: 9))
            } else {
                _appendOrdered(value == 0 ? 0 : value, to: &key)
                _appendOrdered(Int64(0), to: &key)
            }
        case .date(let value):
            key.append(0x20)
            _appendOrdered(value.timeIntervalSinceReferenceDate, to: &key)
        case .string(let value):
            key.append(0x30)
            if tieBreak { collation.appendSortKey(for: value, to: &key) } else { collation.appendEquivalenceKey(for: value, to: &key) }
        case .bool(let value):
            key.append(0x40)
            key.append(value ? 1 : 0)
        }
        return key
    }
}

/// A finite double's order-preserving bytes: sign bit flipped for positives, all bits inverted
/// for negatives, big-endian.
private func _appendOrdered(_ value: Double, to key: inout [UInt8]) {
    let bits = value.bitPattern
    let ordered = bits >> 63 == 0 ? bits | (1 << 63) : ~bits
    withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
}

/// A signed integer's order-preserving bytes: sign bit flipped, big-endian.
private func _appendOrdered(_ value: Int64, to key: inout [UInt8]) {
    withUnsafeBytes(of: (UInt64(bitPattern: value) ^ (1 << 63)).bigEndian) { key.append(contentsOf: $0) }
}
