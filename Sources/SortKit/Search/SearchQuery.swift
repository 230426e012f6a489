import Foundation

/// A multi-term search: every whitespace-separated term must occur in some field, compared
/// case- and diacritic-folded (the ``Collation/folded`` folding). A blank query matches
/// everything.
///
///     let query = SearchQuery("emile ROUSS")
///     query.matches(["Émile", "Jean-Jacques Rousseau"])   // true
///     query.matches(["Émile", "Voltaire"])                // false: "rouss" matches no field
public struct SearchQuery: Sendable, Hashable {
    /// The folded terms; empty for a blank query.
    public let terms: [String]

    /// A query from the text a user typed.
    public init(_ text: String) {
        terms = text.split(whereSeparator: { $0.isWhitespace }).map { SearchQuery.fold(String($0)) }
    }

    /// Whether the query has no terms.
    public var isBlank: Bool { terms.isEmpty }

    /// Whether every term occurs in one of `fields`.
    public func matches(_ fields: [String]) -> Bool {
        isBlank || matches(folded: SearchQuery.foldedFields(fields))
    }

    /// Whether every term occurs in text prepared by ``foldedFields(_:)`` — for callers that
    /// fold each row once and search it many times.
    public func matches(folded text: String) -> Bool {
        var text = text
        return text.withUTF8 { haystack in
            terms.allSatisfy { term in
                var term = term
                return term.withUTF8 { _contains(haystack, $0) }
            }
        }
    }

    /// Whether every term occurs in folded text given as UTF-8 bytes (as
    /// ``foldedFields(_:)`` makes it): ``matches(folded:)`` without a `String`.
    @inlinable
    public func matches(foldedBytes text: UnsafeBufferPointer<UInt8>) -> Bool {
        for term in terms {
            var term = term
            guard term.withUTF8({ _contains(text, $0) }) else { return false }
        }
        return true
    }

    /// Fields folded and joined with a separator no term contains, so a term never matches
    /// across two fields.
    public static func foldedFields(_ fields: [String]) -> String {
        fields.map(fold).joined(separator: "\u{1F}")
    }

    /// `text` case- and diacritic-folded: "Éclair" → "eclair", "Straße" → "strasse".
    public static func fold(_ text: String) -> String {
        let folded = _diacriticFold(text)
        // The field separator is rare in text; look for it before paying for a replacement.
        return folded.utf8.contains(0x1F) ? folded.replacingOccurrences(of: "\u{1F}", with: " ") : folded
    }
}

extension SearchQuery {
    /// A cell's folded text (``fold(_:)``) appended to `bytes`: ASCII lowercased byte by byte
    /// (the field separator becoming a space), Latin, Greek, Cyrillic, kana, ideographs and
    /// Hangul folded scalar by scalar from the fold tables, other text folded as a `String`.
    package static func _appendFolded(_ cell: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        // Copied, then lowercased in place in one pass that also finds non-ASCII bytes (a loop
        // the compiler vectorizes: faster than folding eight bytes at a time by hand).
        let start = bytes.count
        bytes.append(contentsOf: cell)
        let ascii = bytes.withUnsafeMutableBufferPointer { buffer in
            var high: UInt8 = 0
            for index in start..<buffer.count {
                let byte = buffer[index]
                high |= byte
                buffer[index] = byte == 0x1F ? 0x20 : byte &- 0x41 < 26 ? byte | 0x20 : byte
            }
            return high < 0x80
        }
        guard !ascii else { return }
        // The ASCII before the first other byte is folded already; the rest is folded over the
        // copy, with room for folds that are longer than their text: the cell's bytes again (a
        // copy, faster than appending zeros), overwritten.
        let first = cell.firstIndex { $0 >= 0x80 } ?? cell.count
        bytes.append(contentsOf: cell)
        let end = bytes.withUnsafeMutableBufferPointer { _writeTableDiacriticFold(cell, from: first, into: $0, at: start + first) }
        if let end {
            bytes.removeLast(bytes.count - end)
            return
        }
        bytes.removeLast(bytes.count - start)
        bytes.append(contentsOf: fold(String(decoding: cell, as: UTF8.self)).utf8)
    }
}

/// Whether `needle` occurs in `haystack`, by byte: `memchr` to each candidate first byte, then
/// `memcmp` (`memmem` isn't exported to Swift on every platform). Several times faster than
/// `String.contains` on folded text, where UTF-8 byte equality is string equality.
///
/// Linear whatever the text: the candidates' comparisons cost up to the term's length each, so
/// text such as "aaaa…" and a term such as "aa…ab" would cost text × term (an 8 KB filter over
/// 16 KB cells took seconds a row). Once the comparisons have cost more than a few passes over
/// the text, the rest is scanned by Knuth–Morris–Pratt, one pass.
@usableFromInline
package func _contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = needle.count
    guard count > 0 else { return true }
    guard haystack.count >= count, let base = haystack.baseAddress, let target = needle.baseAddress else { return false }
    var start = 0
    let last = haystack.count - count
    var work = 0
    let most = 4 * haystack.count + 4_096
    while start <= last {
        guard let hit = memchr(base + start, Int32(target.pointee), last - start + 1) else { return false }
        let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        if memcmp(base + index, target, count) == 0 { return true }
        start = index + 1
        work += count
        if work > most { return _containsLinear(UnsafeBufferPointer(rebasing: haystack[start...]), needle) }
    }
    return false
}

/// Knuth–Morris–Pratt: whether `needle` occurs in `haystack`, in one pass over it.
@usableFromInline
internal func _containsLinear(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = needle.count
    guard count > 0 else { return true }
    guard haystack.count >= count else { return false }
    // failure[i]: the length of the longest proper prefix of needle[...i] that is also its suffix.
    var failure = [Int](repeating: 0, count: count)
    var length = 0
    for index in 1..<max(1, count) {
        while length > 0 && needle[index] != needle[length] { length = failure[length - 1] }
        if needle[index] == needle[length] { length += 1 }
        failure[index] = length
    }
    var matched = 0
    for byte in haystack {
        while matched > 0 && byte != needle[matched] { matched = failure[matched - 1] }
        if byte == needle[matched] { matched += 1 }
        if matched == count { return true }
    }
    return false
}
