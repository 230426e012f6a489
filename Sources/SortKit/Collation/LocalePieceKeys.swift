import Foundation

/// Sort keys under one collation for many strings, built from a bounded cache of their
/// pieces' keys: for a locale collation, most of a title's or a name's words are words other
/// rows hold too, and a word's collation elements are the costly part of a key (NFD, contractions,
/// NFC for the tie-break: 0.9–2 µs a multilingual title, against a hash and a few copies).
///
/// A piece ends before each U+0020 (see ``LocaleCollation/comparePrimaries(of:toKey:scratch:)``
/// for why no contraction, composition or variable state reaches across one), so a text's
/// key is its pieces' levels one level after another — primaries, `01`, secondaries (the
/// pieces in reverse order for a backwards-secondary table), `01`, tertiaries — then `00` and
/// the pieces' NFC bytes, which are the text's NFC. That is byte for byte the key
/// ``Collation/_appendSortKey(forValidUTF8:to:)`` writes (`Tests/SortKitTests/LocalePieceKeysTests.swift`
/// checks it on seeded random text in every tailoring). The folding collations (`nocase`,
/// `fold`, `natural`) are the same with one level: a word's fold is its scalars', a digit run
/// ends at a space. ``Collation/binary``, whose key is the NFC, and locale tables with
/// contextual elements are passed through.
///
/// With `primariesOnly` (a locale collation's keys only, ``writesPrimariesOnly(_:)``), each key
/// is its primary level alone — the key's bytes up to its first `01` — in the table's compact
/// codes (``LocaleCollation/appendCompactPrimaries(_:to:)``: one byte for its ASCII letters,
/// digits and space). Such keys order texts as the whole keys do except where their primaries
/// tie, and a sort that breaks those ties with whole keys (two texts' bytes equal, else their
/// keys built then) writes a fifth of the bytes for Latin text.
///
/// The cache holds at most ``pieceLimit`` pieces of at most ``longestPiece`` bytes, and at most
/// its byte limit of pieces and keys; once full it answers what it holds. When its first few
/// thousand lookups show that pieces rarely repeat (unique identifiers: under a quarter found),
/// it stops looking. One per thread: it is a value with its own storage.
///
///     var keys = _SortKeyPieces(.locale(try LocaleCollation("sv")))
///     var key: [UInt8] = []
///     keys.appendSortKey(forValidUTF8: bytes, to: &key)   // == the collation's own key
package struct _SortKeyPieces {
    /// Pieces kept at most.
    package static let pieceLimit = 1 << 16
    /// Longer pieces are built each time, not kept.
    package static let longestPiece = 64
    /// The bytes kept (pieces and their keys) unless the builder is given its own bound.
    package static let defaultByteLimit = 4 << 20
    /// Lookups before the hit rate is judged, and the share of hits that keeps the cache on.
    static let trialLookups = 4_096

    package let collation: Collation
    /// Whether keys are built from pieces (a locale collation without contextual elements,
    /// while pieces repeat), else passed through.
    private var usesPieces: Bool
    /// The levels written: `locale`'s strength, or primary under `numeric`.
    private let levels: Int
    private let backwards: Bool
    private var table = _IdTable()
    private let seed = UInt64.random(in: 0...UInt64.max) | 1
    /// The pieces' bytes.
    private var pieces = _ByteArena()
    /// Per piece, its primary, secondary and tertiary levels and its NFC, one after another in
    /// `parts`; `bounds[4 * id + k]` is where part `k` ends (part 0 starts where the previous
    /// piece's NFC ends).
    private var parts: [UInt8] = []
    private var bounds: [Int] = []
    private var lookups = 0
    /// Pieces found in the cache so far.
    package private(set) var hits = 0
    /// The current text's pieces, and a piece's key while it is built.
    private var found: [Int] = []
    private var scratch: [UInt8] = []

    /// At most this many bytes of pieces and keys are kept.
    private let byteLimit: Int
    /// The locale collation, for its ASCII fast path and its levels; `nil` for a folding
    /// collation (one level: the folded primary part).
    private let asciiLocale: LocaleCollation?
    /// Whether keys are the primary level alone.
    package let primariesOnly: Bool

    /// A builder of `collation`'s keys that keeps at most `byteLimit` bytes of words and keys
    /// (a file sort bounds it by its slice's text, so that `--max-memory` holds).
    package init(_ collation: Collation, byteLimit: Int = _SortKeyPieces.defaultByteLimit, primariesOnly: Bool = false) {
        self.collation = collation
        self.byteLimit = byteLimit
        self.primariesOnly = primariesOnly && Self.writesPrimariesOnly(collation)
        switch collation {
        case .locale(let locale) where !locale.table.hasContexts:
            asciiLocale = locale
            usesPieces = true
            let strength = locale.numeric ? .primary : locale.strength
            levels = strength == .primary ? 1 : strength == .secondary ? 2 : 3
            backwards = locale.table.backwardsSecondary
        case .caseInsensitive, .folded, .natural:
            // A fold is a scalar's, a digit run ends at a space and nothing composes across
            // one: the same concatenation with one level.
            asciiLocale = nil
            usesPieces = true
            levels = 1
            backwards = false
        default:
            asciiLocale = nil
            usesPieces = false
            levels = 0
            backwards = false
        }
    }

    /// Whether a builder of `collation`'s keys can write their primary levels alone: a locale
    /// collation's keys (primaries, bytes 2 and up, then `01` or `00`) without `numeric`.
    package static func writesPrimariesOnly(_ collation: Collation) -> Bool {
        guard case .locale(let locale) = collation else { return false }
        return !locale.numeric
    }

    /// Appends the collation's sort key of valid UTF-8 text (``Collation/_appendSortKey(forValidUTF8:to:)``),
    /// or its primary level under ``primariesOnly``.
    package mutating func appendSortKey(forValidUTF8 bytes: UnsafeBufferPointer<UInt8>, to key: inout [UInt8]) {
        guard usesPieces, bytes.count > 0 else {
            appendWholeKey(bytes, to: &key)
            return
        }
        // ASCII text's own fast paths write a key faster than the cache assembles one.
        if _isASCII(bytes) {
            guard let asciiLocale else {
                appendWholeKey(bytes, to: &key)
                return
            }
            if asciiLocale.appendASCIISortKey(bytes, primariesOnly: primariesOnly, to: &key) { return }
        }
        found.removeAll(keepingCapacity: true)
        var start = 0
        while start < bytes.count {
            var end = start + 1
            while end < bytes.count && bytes[end] != 0x20 { end += 1 }
            guard let id = piece(UnsafeBufferPointer(rebasing: bytes[start..<end])) else {
                appendWholeKey(bytes, to: &key)
                return
            }
            found.append(id)
            start = end
        }
        Self.assemble(found, parts: parts, bounds: bounds, levels: levels, backwards: backwards, primariesOnly: primariesOnly, to: &key)
        if lookups >= Self.trialLookups && hits * 4 < lookups { usesPieces = false }
    }

    /// The collation's key of `bytes` built whole; under ``primariesOnly``, its primary level
    /// (up to its first byte below 2: the `01` before the secondaries, or the `00` before the
    /// NFC) in compact codes.
    private func appendWholeKey(_ bytes: UnsafeBufferPointer<UInt8>, to key: inout [UInt8]) {
        let start = key.count
        collation._appendSortKey(forValidUTF8: bytes, to: &key)
        guard primariesOnly, case .locale(let locale) = collation else { return }
        let end = key[start...].firstIndex(where: { $0 < 2 }) ?? key.count
        let standard = Array(key[start..<end])
        key.removeSubrange(start...)
        standard.withUnsafeBufferPointer { locale.appendCompactPrimaries($0, to: &key) }
    }

    /// The key of the text whose pieces are `found`: each level's bytes of every piece, then
    /// their NFC (the arrays read through pointers: no retain or bounds check per piece); the
    /// primaries alone with `primariesOnly`.
    private static func assemble(
        _ found: [Int], parts: [UInt8], bounds: [Int], levels: Int, backwards: Bool, primariesOnly: Bool, to key: inout [UInt8]
    ) {
        found.withUnsafeBufferPointer { found in
            parts.withUnsafeBufferPointer { parts in
                bounds.withUnsafeBufferPointer { bounds in
                    @inline(__always)
                    func append(_ id: Int, _ part: Int) {
                        let end = bounds[4 * id + part]
                        let start = 4 * id + part == 0 ? 0 : bounds[4 * id + part - 1]
                        key.append(contentsOf: UnsafeBufferPointer(rebasing: parts[start..<end]))
                    }
                    for id in found { append(id, 0) }
                    if primariesOnly { return }
                    if levels >= 2 {
                        key.append(1)
                        if backwards {
                            for id in found.reversed() { append(id, 1) }
                        } else {
                            for id in found { append(id, 1) }
                        }
                    }
                    if levels == 3 {
                        key.append(1)
                        for id in found { append(id, 2) }
                    }
                    key.append(0)
                    for id in found { append(id, 3) }
                }
            }
        }
    }

    /// Appends the collation's sort key of `string`.
    package mutating func appendSortKey(for string: String, to key: inout [UInt8]) {
        guard usesPieces || primariesOnly else {
            collation.appendSortKey(for: string, to: &key)
            return
        }
        _withUTF8(string) { appendSortKey(forValidUTF8: $0, to: &key) }
    }

    /// The cached piece's id, built and kept if new; `nil` for a piece too long to keep or
    /// once the cache is full and the piece isn't in it.
    private mutating func piece(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count <= Self.longestPiece else { return nil }
        let hash = _hashBytes(text, seed: seed)
        let probe = pieces.bytes.withUnsafeBufferPointer { stored in
            table.find(hash) { id in _equalBytes(UnsafeBufferPointer(rebasing: stored[pieces.range(id)]), text) }
        }
        switch probe {
        case .found(let id):
            lookups += 1
            hits += 1
            return id
        case .vacant(let slot):
            // A full cache answers what it holds; its misses don't count against the hit rate.
            guard table.count < Self.pieceLimit, parts.count + pieces.bytes.count < byteLimit else { return nil }
            lookups += 1
            scratch.removeAll(keepingCapacity: true)
            collation._appendSortKey(forValidUTF8: text, to: &scratch)
            // The key ends with `00` and the piece's NFC; before it, a folding key's primary
            // part (any byte: a long digit run's length may hold a zero), or a locale key's
            // levels, bytes 2 and up split by `01`. A level the strength leaves out is empty.
            let nfc = _isASCII(text) ? text.count : _nfc(String(decoding: text, as: UTF8.self)).utf8.count
            let separator = scratch.count - nfc - 1
            guard separator >= 0, scratch[separator] == 0 else { return nil }
            let levelParts =
                asciiLocale == nil ? [scratch[..<separator]] : scratch[..<separator].split(separator: 1, omittingEmptySubsequences: false)
            guard levelParts.count == levels else { return nil }
            for level in 0..<3 {
                if level == 0, primariesOnly, let asciiLocale {
                    levelParts[0].withUnsafeBufferPointer { asciiLocale.appendCompactPrimaries($0, to: &parts) }
                } else if level < levels {
                    parts.append(contentsOf: levelParts[level])
                }
                bounds.append(parts.count)
            }
            parts.append(contentsOf: scratch[(separator + 1)...])
            bounds.append(parts.count)
            pieces.bytes.append(contentsOf: text)
            pieces.close()
            return table.add(hash, at: slot)
        }
    }
}
