import Foundation

/// NFC of text that is NFC but for accents typed apart: every scalar ``_isNFCAlone(_:)``, but
/// for single combining marks U+0300–U+036F each between two such scalars ("Cafe\u{301}").
/// Each (scalar, mark) pair's NFC is the standard library's, computed once and kept: a
/// multilingual import's cells with such marks (a sixth of its non-ASCII cells) went through a
/// `String` and the standard library's normalizer each, a quarter of reading the CSV.
///
/// The pair is normalized on its own because nothing around it can change it: the scalar
/// before the mark is a starter that never composes with what precedes it, and the scalar
/// after the mark is one too, so NFC's canonical ordering and composition stay inside the
/// pair. Other text (two marks in a row, a mark first, any other scalar that isn't NFC alone)
/// is left to the caller.
///
///     var composer = _MarkComposer()
///     var stored: [UInt8] = []
///     composer.appendNFC(bytes, to: &stored)   // "Cafe\u{301}" → "Café"; false for "a\u{301}\u{302}"
package struct _MarkComposer {
    /// Per pair (scalar << 32 | mark), its NFC's UTF-8: one scalar, two, or more (a letter that
    /// decomposes with marks of its own, which the new mark goes among: "Ṩ\u{327}" is
    /// "Ş\u{323}\u{307}").
    private var pairs: [UInt64: [UInt8]] = [:]

    package init() {}

    /// Appends the NFC of well-formed UTF-8 `bytes` to `output` and returns `true`; or, for
    /// text outside the pattern above, appends nothing and returns `false`.
    package mutating func appendNFC(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let start = output.count
        // The input before `copied` is in `output` already; what follows is copied in runs.
        var copied = 0
        // Where the previous scalar begins in the input, and the scalar, when it is one that a
        // following mark may join.
        var previous: (at: Int, value: UInt32)? = nil
        func scalar(at index: Int) -> (value: UInt32, length: Int) {
            let length = _utf8Length(lead: bytes[index])
            return (_decodeUTF8Scalar(bytes, at: index, length: length), length)
        }
        var i = 0
        while i < bytes.count {
            // Eight ASCII bytes at a time: each is its own NFC and a starter.
            if i + 8 <= bytes.count, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                previous = (i + 7, UInt32(bytes[i + 7]))
                i += 8
                continue
            }
            let (value, length) = scalar(at: i)
            if _isNFCAlone(value) {
                previous = (i, value)
                i += length
                continue
            }
            // A mark after such a scalar, followed by the end or by another such scalar.
            let next = i + length
            guard (0x300...0x36F).contains(value), let joined = previous, next == bytes.count || _isNFCAlone(scalar(at: next).value) else {
                output.removeLast(output.count - start)
                return false
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<joined.at]))
            output.append(contentsOf: pair(joined.value, value))
            copied = next
            // The next scalar composes with nothing before it.
            previous = nil
            i = next
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return true
    }

    /// The NFC of `base` followed by `mark`, as the standard library normalizes it.
    private mutating func pair(_ base: UInt32, _ mark: UInt32) -> [UInt8] {
        let key = UInt64(base) << 32 | UInt64(mark)
        if let known = pairs[key] { return known }
        var text = String.UnicodeScalarView()
        text.append(Unicode.Scalar(base)!)
        text.append(Unicode.Scalar(mark)!)
        let result = Array(_normalizedNFC(String(text)).utf8)
        pairs[key] = result
        return result
    }
}
