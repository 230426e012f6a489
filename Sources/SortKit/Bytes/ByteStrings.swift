import Foundation

// Byte strings — collation keys, CSV fields, spilled keys — compared and read the one way every
// part of SortKit uses: memcmp order, a proper prefix first (as `Array.lexicographicallyPrecedes`,
// SQLite's BLOB and PostgreSQL's bytea compare).

/// The memcmp order of two byte strings, a proper prefix first.
@inlinable @inline(__always)
package func _compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> ComparisonResult {
    let common = Swift.min(a.count, b.count)
    if common > 0, let left = a.baseAddress, let right = b.baseAddress {
        let order = memcmp(left, right, common)
        if order != 0 { return order < 0 ? .orderedAscending : .orderedDescending }
    }
    return a.count == b.count ? .orderedSame : a.count < b.count ? .orderedAscending : .orderedDescending
}

/// Whether two byte strings are equal: lengths first, then `memcmp`.
@inlinable @inline(__always)
package func _equalBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }
    return memcmp(left, right, a.count) == 0
}

/// ``_compareBytes(_:_:)`` for typed buffers.
@inlinable @inline(__always)
package func _compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
    _compareBytes(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
}

/// ``_compareBytes(_:_:)`` for arrays of bytes.
@inlinable @inline(__always)
package func _compareBytes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
    a.withUnsafeBytes { a in b.withUnsafeBytes { b in _compareBytes(a, b) } }
}

/// ``_compareBytes(_:_:)`` for slices of byte arrays.
@inlinable @inline(__always)
package func _compareBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> ComparisonResult {
    a.withUnsafeBytes { a in b.withUnsafeBytes { b in _compareBytes(a, b) } }
}

/// The memcmp order of two strings' UTF-8 bytes (code point order).
@inline(__always)
internal func _compareUTF8(_ a: String, _ b: String) -> ComparisonResult {
    _withUTF8(a) { a in _withUTF8(b) { b in _compareBytes(a, b) } }
}

/// The 8 bytes of `bytes` from `from`, big-endian, zero-padded past `end`: words compare as
/// the byte strings do where they differ (a string that ends sorts as if followed by zeros).
@inlinable @inline(__always)
package func _bigEndianWord(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> UInt64 {
    if from + 8 <= end {
        return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress! + from).loadUnaligned(as: UInt64.self))
    }
    guard from < end else { return 0 }
    var word: UInt64 = 0
    for offset in from..<end { word = word << 8 | UInt64(bytes[offset]) }
    return word << (8 * (8 - UInt64(end - from)))
}

/// Calls `body` with `string`'s UTF-8 bytes: in place for a native string (borrowed, no copy
/// and no reference counting), through `withUTF8` on a copy for a bridged one.
@inline(__always)
package func _withUTF8<Result>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return copy.withUTF8(body)
}

/// Whether every byte is ASCII, eight bytes at a time.
@inlinable
package func _isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var i = 0
    var high: UInt64 = 0
    while i + 8 <= bytes.count {
        high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        i += 8
    }
    while i < bytes.count {
        high |= UInt64(bytes[i])
        i += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
}

/// Whether `bytes` are well-formed UTF-8 (the Unicode Standard's table 3-7: no overlong forms,
/// no surrogates, nothing above U+10FFFF), eight bytes at a time and allocating nothing.
///
/// Written by hand because the standard library's validators cost most of it: `String(validating:)`
/// builds a string per record and looks its encoding's generic metadata up on every call (10% of a
/// multilingual CSV sort), and `UTF8Span(validating:)` walks byte by byte (9% of `sortkit view`
/// on multilingual text, where ASCII runs — digits, spaces, delimiters — sit between letters).
/// A word of ASCII costs a load and a test. A word with other bytes is checked whole, with bit
/// operations on its eight bytes at once (``_utf8WordErrors(_:next:carry:)``) rather than a
/// branch per sequence: multilingual titles mix two- and three-byte letters, whose lead bytes a
/// branch mispredicts (50 → 33 ms over a 1M-row multilingual CSV's records).
@inlinable
package func _isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    let count = bytes.count
    var i = 0
    var carry: UInt64 = 0
    var errors: UInt64 = 0
    while i + 9 <= count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        i += 8
        if word & 0x8080_8080_8080_8080 == 0 && carry == 0 { continue }
        let next = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i - 7, as: UInt64.self))
        errors |= _utf8WordErrors(word, next: next, carry: &carry)
    }
    // The last 1–8 bytes, zero-padded (a zero is ASCII: a sequence cut short by the end wants a
    // continuation byte there, and doesn't find one).
    var word: UInt64 = 0
    if count >= 8 {
        word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) >> UInt64(8 * (8 - (count - i)))
    } else {
        for offset in (i..<count).reversed() { word = word << 8 | UInt64(base[offset]) }
    }
    if word & 0x8080_8080_8080_8080 != 0 || carry != 0 {
        errors |= _utf8WordErrors(word, next: word >> 8, carry: &carry)
    }
    return errors == 0 && carry == 0
}

/// The ill-formed bytes of `word`, eight bytes of UTF-8 little-endian (the first in the low
/// byte), as high bits: a continuation byte where none is due, another byte where one is, a
/// lead byte that no well-formed sequence has (C0, C1, F5–FF), and the second bytes table 3-7
/// restricts (after E0, ED, F0 and F4). `next` is the eight bytes from the word's second
/// (its high byte is only read after a lead byte in the word's last position); `carry` holds
/// the continuation bytes the word's last sequence still wants in the next word, and is
/// updated for it.
@inlinable @inline(__always)
package func _utf8WordErrors(_ word: UInt64, next: UInt64, carry: inout UInt64) -> UInt64 {
    let high: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func each(_ byte: UInt64) -> UInt64 { byte &* 0x0101_0101_0101_0101 }
    // The high bit of each byte that is zero, exactly (no borrow between bytes).
    @inline(__always) func zero(_ bytes: UInt64) -> UInt64 { ~(((bytes & ~high) &+ ~high) | bytes | ~high) }
    let continuation = word & ~(word << 1) & high // 10xxxxxx
    let lead = word & (word << 1) & high // 11xxxxxx: wants one continuation byte after it
    let lead3 = lead & (word << 2) // 111xxxxx: and a second
    // C0 and C1 (overlong two-byte forms): a lead whose low six bits are below 2.
    var errors = lead & ~(((word & each(0x3F)) &+ each(0x3E)) << 1) & high
    guard lead3 != 0 else {
        errors |= ((lead << 8) | carry) ^ continuation
        carry = lead >> 56
        return errors
    }
    let lead4 = lead3 & (word << 3) // 1111xxxx: and a third
    errors |= ((lead << 8) | (lead3 << 16) | (lead4 << 24) | carry) ^ continuation
    carry = (lead >> 56) | (lead3 >> 48) | (lead4 >> 40)
    // The second byte's bits 5 and 4, under its lead's high bit.
    let bit5 = (next << 2) & high, bit5or4 = ((next << 2) | (next << 3)) & high
    let lead3Only = lead3 & ~lead4, low4 = word & each(0x0F), low3 = word & each(0x07)
    errors |= lead3Only & zero(low4) & ~bit5 // E0 80–9F: overlong
    errors |= lead3Only & zero(low4 ^ each(0x0D)) & bit5 // ED A0–BF: a surrogate
    errors |= lead4 & zero(low3) & ~bit5or4 // F0 80–8F: overlong
    errors |= lead4 & zero(low3 ^ each(0x04)) & bit5or4 // F4 90–BF: above U+10FFFF
    errors |= word & high & ((word & ~high) &+ each(0x0B)) // F5–FF
    return errors
}

/// Whether every UTF-8 byte of `string` is ASCII, in which case it is its own NFC form.
@inlinable
package func _isASCII(_ string: String) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { _isASCII($0) } ?? string.utf8.allSatisfy { $0 < 0x80 }
}

/// Whether `byte` is an ASCII decimal digit.
@inlinable
package func _isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

/// Whether `scalar` is an ASCII decimal digit.
@inlinable
package func _isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x30 && scalar.value <= 0x39 }

/// How many bytes the UTF-8 sequence that `lead` starts has (1 for ASCII).
@inline(__always)
package func _utf8Length(lead: UInt8) -> Int { lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4 }

/// The scalar value of the UTF-8 sequence of `length` bytes (its lead byte's count) at `i`;
/// U+FFFD when the buffer ends inside it.
@inline(__always)
package func _decodeUTF8Scalar(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, length: Int) -> UInt32 {
    guard i + length <= bytes.count else { return 0xFFFD }
    switch length {
    case 1: return UInt32(bytes[i])
    case 2: return UInt32(bytes[i] & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
    case 3: return UInt32(bytes[i] & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
    default:
        return UInt32(bytes[i] & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6
            | UInt32(bytes[i + 3] & 0x3F)
    }
}

/// A `String` of UTF-8 that was already validated — a field of a record the CSV scanner
/// returned, which checks each record's UTF-8 whole — without validating it a second time
/// (`String(decoding:as:)` does, which cost 9% of `sortkit view` on multilingual text).
///
///     let title = _stringOfValidUTF8(UnsafeBufferPointer(rebasing: bytes[span.range]))
///
/// - Precondition: `bytes` is valid UTF-8. Invalid bytes make an invalid `String`.
@inline(__always)
package func _stringOfValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
        return unsafe String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: false))
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Sixteen bytes on the stack: a short string's UTF-8, copied out of it.
typealias _InlineBytes = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
