import Foundation

extension SortSpec.Key {
    /// The sort value this key reads from a cell's text, in a column of type `columnType`: by
    /// the column's type unless a `num`, `text` or `date` modifier says otherwise; an `enum=`
    /// key reads text. Blank text is null.
    ///
    ///     SortSpec.Key("price", .ascending, [.interpretation(.number)])
    ///         .sortValue(of: "$1,234.50", columnType: .string)   // .double(1234.5)
    ///
    /// A transform applies to the value read: `abs` to a number, `random=` to any non-null
    /// value; `len` counts the text as written. (`empty=null` changes nothing here: blank
    /// text is always null.)
    ///
    ///     SortSpec.Key("delta", .ascending, [.transform(.absolute)])
    ///         .sortValue(of: "-3", columnType: .integer)          // .integer(3)
    public func sortValue(of text: String, columnType: ColumnType) -> SortValue {
        if transform == .length { return _lengthOfText(text).map(SortValue.integer) ?? .null }
        let value: SortValue =
            switch enumOrder == nil ? interpretation : .text {
            case .inferred: columnType.sortValue(text)
            case .number: _isBlank(text) ? .null : LenientNumber.parse(text) ?? .string(text)
            case .date: ColumnType.date.sortValue(text)
            case .text: _isBlank(text) ? .null : .string(text)
            }
        return transform == nil ? value : transformed(value)
    }

    /// The value this key compares for a row whose column holds `value`: `empty=null` (blank
    /// or whitespace-only text becomes null), then the ``SortSpec/Transform``. Sources of typed
    /// values (``sortKeys(reading:enumText:)``) call it; ``sortValue(of:columnType:)`` does
    /// for text.
    ///
    ///     let key = try SortSpec(parsing: "note:empty=null:len").keys[0]
    ///     key.transformed(.string("  "))      // .null
    ///     key.transformed(.string("Émile"))   // .integer(5)
    public func transformed(_ value: SortValue) -> SortValue {
        var value = value
        if emptyIsNull, case .string(let text) = value, _isBlank(text) { value = .null }
        guard let transform, !value.isNull else { return value }
        switch transform {
        case .absolute:
            switch value {
            // |Int64.min| is 2^63, beyond 64 bits.
            case .integer(let number): return SortValue(exactly: Swift.abs(Int128(number)))
            case .largeInteger(let number): return SortValue(exactly: number == .min ? .max : Swift.abs(number))
            case .double(let number): return .double(number.isNaN ? number : Swift.abs(number))
            default: return value
            }
        case .length:
            switch value {
            case .string(let text): return .integer(_characterCount(text))
            case .date(let date): return .integer(Int64(date.formatted(.iso8601).count))
            case .integer(let number): return .integer(Int64(String(number).count))
            case .largeInteger(let number): return .integer(Int64(String(number).count))
            case .double(let number): return .integer(Int64(String(number).count))
            case .bool(let flag): return .integer(flag ? 4 : 5)
            case .null: return value
            }
        case .random(let seed):
            return .integer(_seededHash(value.sortKey(collation: .binary) ?? [], seed: seed))
        }
    }

    /// The sort keys this spec key gives for rows whose value in its column is `value(row)`:
    /// an `enum=` key's rank first (then the value as the tie-break), direction, collation and
    /// null placement applied — what a spec means for any row type. An `enum=` order lists
    /// names: `enumText` reads the one to look up where it isn't the value itself (an enum
    /// case's name beside its stored rank).
    ///
    ///     let keys: [SortKey<Book>] = try SortSpec(parsing: "status:enum=todo|done").keys[0]
    ///         .sortKeys { .string($0.status) }
    @inlinable
    public func sortKeys<Row>(
        reading value: @escaping @Sendable (Row) -> SortValue, enumText: (@Sendable (Row) -> SortValue)? = nil
    ) -> [SortKey<Row>] {
        guard emptyIsNull || transform != nil else { return _sortKeys(value, enumText: enumText) }
        let key = self
        return _sortKeys({ @Sendable row in key.transformed(value(row)) }, enumText: enumText.map { text in { @Sendable row in key.transformed(text(row)) } })
    }

    /// The sort keys this spec key gives for rows whose cell text in its column is `text(row)`
    /// in a column of type `columnType`: values read as ``sortValue(of:columnType:)`` reads
    /// them (transform included), then as ``sortKeys(reading:enumText:)``.
    ///
    ///     let keys: [SortKey<[String]>] = try SortSpec(parsing: "delta:abs").keys[0]
    ///         .sortKeys(readingText: { $0[2] }, columnType: .integer)
    @inlinable
    public func sortKeys<Row>(readingText text: @escaping @Sendable (Row) -> String, columnType: ColumnType) -> [SortKey<Row>] {
        let key = self
        return _sortKeys({ row in key.sortValue(of: text(row), columnType: columnType) }, enumText: nil)
    }

    /// ``sortKeys(readingText:columnType:)`` for text that is stored as valid UTF-8, `utf8(row)`
    /// (`nil` for a row whose text isn't), where the key has no `enum=` or transform: a top-k
    /// selection (`indices(ofRanks:sortedBy:)`) then compares a text value's bytes where they
    /// are, and an integer or float column's plain numbers are read from their bytes
    /// (``_plainNumberValue(_:columnType:)``) — no `String` per row either way (a number key's
    /// Strings were a third of `sortkit view --by -price,title` at 10M rows).
    package func _sortKeys<Row>(
        readingText text: @escaping @Sendable (Row) -> String, utf8: @escaping @Sendable (Row) -> UnsafeBufferPointer<UInt8>?,
        columnType: ColumnType
    ) -> [SortKey<Row>] {
        guard enumOrder == nil, transform == nil else { return sortKeys(readingText: text, columnType: columnType) }
        if interpretation == .inferred, columnType == .integer || columnType == .float {
            let key = self
            return _sortKeys(
                { row in
                    if let cell = utf8(row), let value = _plainNumberValue(cell, columnType: columnType) { return value }
                    return key.sortValue(of: text(row), columnType: columnType)
                }, enumText: nil)
        }
        var keys = sortKeys(readingText: text, columnType: columnType)
        if interpretation == .text || (interpretation == .inferred && columnType == .string) { keys[0]._utf8 = utf8 }
        return keys
    }

    /// The sort keys for rows whose value under this key, transform applied, is `value(row)`
    /// (``sortKeys(reading:enumText:)`` applies the transform itself).
    @inlinable
    package func _sortKeys<Row>(
        _ value: @escaping @Sendable (Row) -> SortValue, enumText: (@Sendable (Row) -> SortValue)?
    ) -> [SortKey<Row>] {
        var keys: [SortKey<Row>] = []
        if enumOrder != nil {
            let key = self, text = enumText ?? value
            keys.append(SortKey(direction, nulls: nulls) { row in key.enumRank(of: text(row)) ?? .null })
        }
        keys.append(SortKey(direction, collation: collation, nulls: nulls, by: value))
        return keys
    }

    /// For an `enum=` key, the rank of `value` in the explicit order (matched under the key's
    /// collation), the order's length for values not in it, and null for null. `nil` for other
    /// keys.
    public func enumRank(of value: SortValue) -> SortValue? {
        guard let order = enumOrder else { return nil }
        guard case .string(let text) = value else { return value.isNull ? .null : .integer(Int64(order.count)) }
        return .integer(Int64(order.firstIndex { collation.areEquivalent($0, text) } ?? order.count))
    }
}

/// `text.count` (grapheme clusters), counted on the UTF-8 where every scalar breaks simply
/// (``_simpleCharacterCount(_:)``): the standard library's grapheme walk took a fifth of a
/// `len` key's first page on multilingual text.
@usableFromInline
internal func _characterCount(_ text: String) -> Int64 {
    if let count = text.utf8.withContiguousStorageIfAvailable(_simpleCharacterCount) ?? nil { return count }
    return Int64(text.count)
}

/// `len`'s value of a cell's well-formed UTF-8, as ``SortSpec/Key/sortValue(of:columnType:)``
/// gives it for the cell's text: `nil` for blank text (null), else its character count —
/// from the bytes where every scalar breaks simply, so that a table's lengths are counted
/// without a `String` per cell.
package func _lengthUnlessBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    if _isBlank(bytes) { return nil }
    return _simpleCharacterCount(bytes) ?? Int64(String(decoding: bytes, as: UTF8.self).count)
}

/// ``_isBlank(_:)`` of well-formed UTF-8, scalar by scalar on the bytes: it stops at the first
/// scalar that isn't whitespace, so a cell starting with "É" or a CJK letter costs one decode,
/// not a `String`.
package func _isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    // Most cells start with a printable ASCII byte, which isn't whitespace: no decode.
    if let first = bytes.first, first &- 0x21 < 0x5E { return false }
    var i = 0
    while i < bytes.count {
        let lead = bytes[i]
        // A stray continuation byte would be U+FFFD in a `String`: not whitespace.
        guard lead < 0x80 || lead >= 0xC2 else { return false }
        let length = _utf8Length(lead: lead)
        guard let scalar = Unicode.Scalar(_decodeUTF8Scalar(bytes, at: i, length: length)), _isWhitespace(scalar) else { return false }
        i += length
    }
    return true
}

/// `random=SEED`'s value of text already in NFC, read as text, from its UTF-8: `nil` (null)
/// for blank text, else the seeded hash of its binary sort key — 0x30, then the NFC bytes — as
/// ``SortSpec/Key/transformed(_:)`` computes it from the string.
package func _randomNumberOfNFCText(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> Int64? {
    _isBlank(bytes) ? nil : _seededHash(prefix: 0x30, bytes, seed: seed)
}

/// ``_lengthUnlessBlank(_:)`` of a `String`.
package func _lengthOfText(_ text: String) -> Int64? {
    _isBlank(text) ? nil : _characterCount(text)
}

/// The grapheme clusters of well-formed UTF-8 whose every scalar breaks simply, or `nil`.
///
/// Simple are scalars whose Grapheme_Cluster_Break is Other (ASCII and the Latin, IPA, Greek,
/// Cyrillic, Latin Extended Additional and Greek Extended blocks, CJK punctuation, kana, CJK
/// ideographs; Hangul syllables, which join only jamo, not simple themselves), controls (each
/// one character, CR LF one), and combining marks (U+0300–U+036F, U+0483–U+0489, the kana and
/// CJK tone marks), which join the character before them unless it is a control or there is
/// none (UAX #29, GB3–GB5, GB9, GB999).
internal func _simpleCharacterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    if let count = _plainCharacterCount(bytes) { return count }
    var count: Int64 = 0
    var joinable = false // whether a mark here joins the character before it
    var previousCR = false
    var i = 0
    while i < bytes.count {
        // Eight printable ASCII bytes: eight characters.
        if i + 8 <= bytes.count, let base = bytes.baseAddress {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let high: UInt64 = 0x8080_8080_8080_8080
            if word & high == 0, (word &+ 0x6060_6060_6060_6060) & high == high, (word &+ 0x0101_0101_0101_0101) & high == 0 {
                count += 8
                joinable = true
                previousCR = false
                i += 8
                continue
            }
        }
        let lead = bytes[i]
        if lead < 0x80 {
            if !(previousCR && lead == 0x0A) { count += 1 }
            previousCR = lead == 0x0D
            joinable = lead >= 0x20 && lead != 0x7F
            i += 1
            continue
        }
        previousCR = false
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard lead >= 0xC2, length < 4, i + length <= bytes.count else { return nil }
        let value = _decodeUTF8Scalar(bytes, at: i, length: length)
        i += length
        switch value {
        case 0x300...0x36F, 0x483...0x489, 0x302A...0x302F, 0x3099...0x309A: // Extend
            if !joinable { count += 1 }
            joinable = true
        case 0x80...0x9F, 0xAD: // Control
            count += 1
            joinable = false
        case 0xA0..<0x530, 0x1E00..<0x2000, 0x3000..<0x3100, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3:
            count += 1
            joinable = true
        default:
            return nil
        }
    }
    return count
}

/// The characters of well-formed UTF-8 whose every lead byte starts a scalar that is a
/// character of its own or a mark that joins one, or `nil` — eight bytes at a time, without a branch per scalar: the
/// scalar walk's branches mispredict at every change of script, which made a multilingual
/// `len` page 1.6× the ASCII one.
///
/// Plain leads: U+00C0–U+02FF (C3–CB), U+0380–U+047F (CE–D1), U+04C0–U+04FF (D3),
/// U+5000–U+9FFF (E5–E9) and U+B000–U+CFFF (EB, EC: Hangul syllables, which join only jamo):
/// Grapheme_Cluster_Break Other, or LV/LVT, with nothing that joins them (marks, jamo,
/// controls, ZWJ, emoji modifiers) among the plain leads and printable ASCII. Any other lead,
/// an ASCII control or DEL sends the text to ``_simpleCharacterCount(_:)``'s scalar walk.
///
/// And CC, U+0300–U+033F: combining marks (Extend), each joining the character before it,
/// since nothing here is a control (GB9). They are counted as scalars and taken off again; a
/// text that starts with one, where it is a character of its own, goes to the walk. A
/// multilingual data set has one in about a fifth of its titles (marks without a precomposed
/// form).
@inline(__always)
internal func _plainCharacterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard let base = bytes.baseAddress else { return 0 }
    if bytes.first == 0xCC { return nil }
    let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
    var count: UInt64 = 0, marks: UInt64 = 0
    var other: UInt64 = 0
    var i = 0
    while i < bytes.count {
        var word: UInt64
        if i + 8 <= bytes.count {
            word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        } else if bytes.count >= 8 {
            // The last bytes, from the word that ends the text, the ones counted already
            // shifted out and continuation bytes (neither counted nor checked) shifted in.
            let left = UInt64(bytes.count - i)
            word = UInt64(littleEndian: UnsafeRawPointer(base + bytes.count - 8).loadUnaligned(as: UInt64.self)) &>> (64 - 8 * left)
            word |= high & (~0 &<< (8 * left))
        } else {
            // A short text, padded byte by byte.
            word = high
            for k in 0..<(bytes.count - i) { word = word & ~(0xFF &<< UInt64(8 * k)) | UInt64(base[i + k]) &<< UInt64(8 * k) }
        }
        // Bytes that start a scalar (bit 7 clear, or bit 6 set), summed by a multiply.
        count &+= ((((~word | (word &<< 1)) & high) &>> 7) &* ones) &>> 56
        // ASCII controls (below 0x20) and DEL (0x7F): a borrow sets the high bit of the first
        // such byte and never starts without one.
        let ascii = ~word & high
        let del = word ^ 0x7F7F_7F7F_7F7F_7F7F
        other |= ((word &- 0x2020_2020_2020_2020) | ((del &- ones) & ~del)) & ascii
        // Leads (11xxxxxx) that aren't plain: their low six bits in one of the ranges below,
        // tested in every byte at once (a value below 0x40 plus at most 0x80 doesn't carry
        // into the next byte). A loop over the leads mispredicted at every change of script.
        let leads = word & (word &<< 1) & high
        if leads != 0 {
            let low = word & 0x3F3F_3F3F_3F3F_3F3F
            @inline(__always) func within(_ first: UInt64, _ last: UInt64) -> UInt64 {
                ((low &+ (0x80 - first) &* ones) & ~(low &+ (0x7F - last) &* ones)) & high
            }
            // C0–C2, CD, D2, D4–E4, EA, ED–FF.
            other |= (within(0x00, 0x02) | within(0x0D, 0x0D) | within(0x12, 0x12) | within(0x14, 0x24) | within(0x2A, 0x2A) | within(0x2D, 0x3F)) & leads
            // CC: a mark, which isn't a character of its own.
            marks &+= (((within(0x0C, 0x0C) & leads) &>> 7) &* ones) &>> 56
        }
        i &+= 8
    }
    return other == 0 ? Int64(count &- marks) : nil
}

/// A 63-bit hash of `bytes` under `seed` (FNV-1a over the bytes from a seeded start, then
/// SplitMix64's finalizer): `random=SEED`'s order. Written here because it must be the same
/// function on every platform and in every store; `Hasher` is seeded per process.
@usableFromInline
internal func _seededHash(_ bytes: [UInt8], seed: UInt64) -> Int64 {
    bytes.withUnsafeBufferPointer { _seededHash(prefix: nil, $0, seed: seed) }
}

/// ``_seededHash(_:seed:)`` of `prefix` (when there is one) followed by `bytes`.
package func _seededHash(prefix: UInt8?, _ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> Int64 {
    var hash = _seededHashStart(seed)
    if let prefix { hash = (hash ^ UInt64(prefix)) &* _fnvPrime }
    return _seededHashEnd(_fnv1a(hash, bytes, from: 0))
}

/// ``_seededHash(prefix:_:seed:)`` of four texts, each after `prefix`: the same four values.
/// FNV-1a's multiply per byte waits on the one before, so one text's hash leaves the
/// multiplier idle most of the time; four interleaved keep it busy up to the shortest text's
/// end (a first page by `random=` hashes every row of the table).
///
///     _seededHash4(prefix: 0x30, a, b, c, d, seed: 7).0 == _seededHash(prefix: 0x30, a, seed: 7)   // true
@inline(__always)
package func _seededHash4(
    prefix: UInt8, _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ c: UnsafeBufferPointer<UInt8>,
    _ d: UnsafeBufferPointer<UInt8>, seed: UInt64
) -> (Int64, Int64, Int64, Int64) {
    let start = (_seededHashStart(seed) ^ UInt64(prefix)) &* _fnvPrime
    var h0 = start, h1 = start, h2 = start, h3 = start
    let common = Swift.min(a.count, b.count, c.count, d.count)
    var i = 0
    while i < common {
        h0 = (h0 ^ UInt64(a[i])) &* _fnvPrime
        h1 = (h1 ^ UInt64(b[i])) &* _fnvPrime
        h2 = (h2 ^ UInt64(c[i])) &* _fnvPrime
        h3 = (h3 ^ UInt64(d[i])) &* _fnvPrime
        i &+= 1
    }
    return (
        _seededHashEnd(_fnv1a(h0, a, from: common)), _seededHashEnd(_fnv1a(h1, b, from: common)),
        _seededHashEnd(_fnv1a(h2, c, from: common)), _seededHashEnd(_fnv1a(h3, d, from: common))
    )
}

/// FNV-1a's 64-bit prime.
private let _fnvPrime: UInt64 = 0x0000_0100_0000_01B3

/// The seeded hash's state before any byte.
@inline(__always)
private func _seededHashStart(_ seed: UInt64) -> UInt64 {
    0xCBF2_9CE4_8422_2325 ^ (seed &* 0x9E37_79B9_7F4A_7C15)
}

/// `hash` carried over `bytes[start...]` by FNV-1a.
@inline(__always)
private func _fnv1a(_ hash: UInt64, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64 {
    var hash = hash
    var i = start
    while i < bytes.count {
        hash = (hash ^ UInt64(bytes[i])) &* _fnvPrime
        i &+= 1
    }
    return hash
}

/// The seeded hash's value from its state: SplitMix64's finalizer, 63 bits.
@inline(__always)
private func _seededHashEnd(_ hash: UInt64) -> Int64 {
    var hash = hash
    hash ^= hash >> 30
    hash &*= 0xBF58_476D_1CE4_E5B9
    hash ^= hash >> 27
    hash &*= 0x94D0_49BB_1331_11EB
    hash ^= hash >> 31
    return Int64(bitPattern: hash >> 1)
}
