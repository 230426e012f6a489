import Foundation

/// Reusable state for comparing many strings with sort keys: a bounded cache of non-ASCII
/// strings' keys, one per collation (a string has a different key under each).
@usableFromInline
struct _KeyScratch {
    static let cacheLimit = 16_384
    /// Allocated at the first non-ASCII string.
    private var caches: [[_UTF8Text: [UInt8]]] = []
    /// Locale collations' slots in `caches`, after the built-ins'.
    private var localeSlots: [LocaleCollation: Int] = [:]
    /// The arrays of a locale collation's primary comparison.
    var locale = _LocaleKeyScratch()

    /// `string`'s sort key under `collation`, from the cache or built (and kept while the
    /// cache has room).
    mutating func sortKey(for string: String, collation: Collation) -> [UInt8] {
        if caches.isEmpty { caches = Array(repeating: [:], count: Collation.allCases.count) }
        var slot = collation._ordinal
        if case .locale(let locale) = collation {
            if let known = localeSlots[locale] {
                slot = known
            } else {
                slot = caches.count
                localeSlots[locale] = slot
                caches.append([:])
            }
        }
        let text = _UTF8Text(string)
        if let cached = caches[slot][text] { return cached }
        let key = collation.sortKey(for: string)
        if caches[slot].count < Self.cacheLimit { caches[slot][text] = key }
        return key
    }
}

/// The arrays ``LocaleCollation/comparePrimaries(of:toKey:scratch:)`` fills, kept between
/// calls so that a comparison allocates nothing.
struct _LocaleKeyScratch {
    var scalars: [UInt32] = []
    var elements: [_UCATable.Element] = []
}

/// A string hashed and compared by its UTF-8 bytes: a cache key that skips `String`'s
/// hashing, which normalizes non-ASCII text first (7% of a multilingual page query). Two
/// canonically equivalent spellings are two entries, each with the same sort key.
private struct _UTF8Text: Hashable {
    let string: String
    init(_ string: String) { self.string = string }

    func hash(into hasher: inout Hasher) {
        _withUTF8(string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    static func == (lhs: _UTF8Text, rhs: _UTF8Text) -> Bool {
        // memcmp of the two buffers: the UTF8View's generic elementsEqual was 4% of a
        // multilingual `sortkit view`.
        _withUTF8(lhs.string) { a in _withUTF8(rhs.string) { b in _equalBytes(a, b) } }
    }
}
