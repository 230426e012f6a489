import Foundation

/// A language's alphabetical order: the Unicode Collation Algorithm over CLDR's root collation
/// and the language's tailoring, as ICU orders it (and so PostgreSQL's ICU collations, DuckDB's
/// `COLLATE sv` and Apple's localized compares).
///
///     let swedish = try LocaleCollation("sv")
///     ["öl", "zebra", "ål", "apa"].sorted { Collation.locale(swedish).compare($0, $1) == .orderedAscending }
///     // ["apa", "zebra", "ål", "öl"]
///
/// The strength says which differences count: ``Strength-swift.enum/tertiary`` (ICU's default:
/// letters, then accents, then case, lowercase first), ``Strength-swift.enum/secondary`` (case
/// ignored; the sort spec's `nocase`), ``Strength-swift.enum/primary`` (case and accents
/// ignored; `fold`). ``numeric`` orders digit runs by value (ICU's `kn`; `natural`). As with
/// the other collations, strings equal at the strength are ordered by ``Collation/binary``.
///
/// Tags are BCP 47: `sv`, `sv-SE`, `uk`, `de-u-co-phonebk`, `es-u-co-trad`, `sr-Latn`; `und`
/// (also `root` or `unicode`) is CLDR's root order, and a language without a tailoring of its
/// own (`en`, `fr`) falls back to it, as ICU does.
public struct LocaleCollation: Sendable, Hashable, CustomStringConvertible {
    /// Which level of difference the order looks at.
    public enum Strength: String, Sendable, Hashable, CaseIterable {
        /// Base letters only: "a" == "á" == "A".
        case primary
        /// Letters and accents: "a" == "A" < "á".
        case secondary
        /// Letters, accents and case: "a" < "A" < "á" (ICU's default).
        case tertiary
    }

    /// The tag, in canonical form: `sv`, `de-u-co-phonebk`, `und`.
    public let identifier: String
    public let strength: Strength
    /// Whether digit runs compare by numeric value ("2" < "10"), leading zeros ignored.
    public let numeric: Bool
    /// The compiled table's name (`sv`, `de/phonebook`, `und`).
    let tableName: String
    /// The table, looked up once (not part of the value's identity).
    let table: _UCATable

    /// The collation of `tag`.
    ///
    ///     try LocaleCollation("de-u-co-phonebk", strength: .secondary)
    ///
    /// - Throws: ``LocaleCollationError`` for a malformed tag, an unknown `-u-co-` type for the
    ///   language, or a `-u-` key other than `co`.
    public init(_ tag: String, strength: Strength = .tertiary, numeric: Bool = false) throws {
        let (identifier, tableName) = try Self.resolve(tag)
        self.identifier = identifier
        self.tableName = tableName
        guard let table = _UCATable.table(named: tableName) else { preconditionFailure("no compiled table \(tableName)") }
        self.table = table
        self.strength = strength
        self.numeric = numeric
    }

    public static func == (lhs: LocaleCollation, rhs: LocaleCollation) -> Bool {
        lhs.identifier == rhs.identifier && lhs.strength == rhs.strength && lhs.numeric == rhs.numeric
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(strength)
        hasher.combine(numeric)
    }

    /// `locale=TAG` as the sort spec writes it, with `nocase`, `fold` or `natural` for the
    /// weaker strengths: `locale=sv:nocase`.
    public var description: String {
        var text = "locale=" + identifier
        if numeric {
            text += ":natural"
        } else if strength == .secondary {
            text += ":nocase"
        } else if strength == .primary {
            text += ":fold"
        }
        return text
    }

    /// Every tag with a tailoring of its own, `TAG` or `TAG-u-co-TYPE`, sorted.
    ///
    ///     LocaleCollation.availableIdentifiers.contains("sv")   // true
    public static var availableIdentifiers: [String] {
        _UCATable.compiledTags.map { name in
            let parts = name.split(separator: "/")
            guard parts.count == 2 else { return name }
            let type = coAliases.first { $0.value == parts[1] }?.key ?? String(parts[1])
            return "\(parts[0])-u-co-\(type)"
        }.sorted()
    }

    /// BCP 47 `co` values and CLDR's names for them.
    private static let coAliases = [
        "phonebk": "phonebook", "trad": "traditional", "dict": "dictionary",
        "gb2312": "gb2312han",
    ]

    private static let compiledByLowercase: [String: String] = {
        Dictionary(_UCATable.compiledTags.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
    }()

    private static func resolve(_ tag: String) throws -> (identifier: String, table: String) {
        let trimmed = tag.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-")
        guard !trimmed.isEmpty else { throw LocaleCollationError(tag: tag, reason: "the tag is empty") }
        guard trimmed.utf8.count <= 64,
            trimmed.utf8.allSatisfy({ $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw LocaleCollationError(tag: tag, reason: "a tag is letters, digits and '-' (BCP 47, such as sv or de-u-co-phonebk)")
        }
        var subtags = trimmed.lowercased().split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if subtags.contains("") { throw LocaleCollationError(tag: tag, reason: "empty subtag") }
        var type: String?
        if let u = subtags.firstIndex(of: "u") {
            let keywords = Array(subtags[(u + 1)...])
            subtags.removeSubrange(u...)
            guard keywords.count == 2, keywords[0] == "co" else {
                throw LocaleCollationError(
                    tag: tag, reason: "only the -u-co-TYPE keyword is supported (strength and numeric ordering are the nocase, fold and natural modifiers)")
            }
            type = keywords[1]
        }
        let language = subtags[0]
        if ["root", "unicode", "und"].contains(language) && subtags.count == 1 && type == nil { return ("und", "und") }
        guard (2...3).contains(language.count) || (5...8).contains(language.count), language.allSatisfy(\.isLetter) else {
            throw LocaleCollationError(tag: tag, reason: "'\(language)' is not a language subtag")
        }
        // Canonical case: language lowercase, script titlecase, region uppercase.
        let canonical = subtags.enumerated().map { index, subtag -> String in
            if index == 0 { return subtag }
            if subtag.count == 4 && subtag.allSatisfy(\.isLetter) { return subtag.prefix(1).uppercased() + subtag.dropFirst() }
            if subtag.count == 2 { return subtag.uppercased() }
            return subtag
        }
        var identifier = canonical.joined(separator: "-")
        let cldrType = type.map { coAliases[$0] ?? $0 }
        if let type { identifier += "-u-co-" + type }
        // The longest compiled prefix: sv-SE → sv; a language without a tailoring → the root.
        for length in stride(from: canonical.count, through: 1, by: -1) {
            let base = canonical.prefix(length).joined(separator: "-").lowercased()
            let name = cldrType.map { base + "/" + $0 } ?? base
            if let compiled = compiledByLowercase[name] { return (identifier, compiled) }
            if cldrType == "standard", let compiled = compiledByLowercase[base + "/standard"] ?? compiledByLowercase[base] {
                return (identifier, compiled)
            }
            if cldrType != nil, compiledByLowercase[base] != nil {
                throw LocaleCollationError(
                    tag: tag,
                    reason:
                        "'\(language)' has no '\(type!)' collation; \(availableIdentifiers.filter { $0.hasPrefix(base + "-u-co-") }.joined(separator: ", ").nonEmpty ?? "it has only its standard order")"
                )
            }
        }
        if let type, type != "standard" {
            throw LocaleCollationError(tag: tag, reason: "'\(language)' has no '\(type)' collation")
        }
        return (identifier, "und")
    }

    /// The current locale's language at a strength: what Foundation's `localized` (tertiary)
    /// and `localizedStandard` (numeric) string comparators order by. `nil` when the language
    /// isn't a tag SortKit reads.
    static func _current(numeric: Bool) -> Collation? {
        let language = Locale.current.language.languageCode?.identifier ?? "und"
        guard let locale = try? LocaleCollation(language, strength: numeric ? .primary : .tertiary, numeric: numeric) else { return nil }
        return .locale(locale)
    }

    /// Foundation's `localizedStandard` as a collation: `locale=LANG:natural` in the current
    /// language (`Locale.current`).
    static var _currentStandard: Collation? { _current(numeric: true) }

    /// Appends the key: the UCA levels (no 0x00 byte in them), 0x00, then the NFC UTF-8 as the
    /// tie-break, the layout of the other collations' keys.
    func appendSortKey(for string: String, to key: inout [UInt8]) {
        let done = string.utf8.withContiguousStorageIfAvailable { bytes in
            appendASCIISortKey(bytes, to: &key) || appendStreamedSortKey(bytes, to: &key)
        }
        if done == true { return }
        appendGeneralSortKey(for: string, to: &key)
    }

    /// The key of NFC text whose every scalar weighs alone
    /// (``_UCATable/streamElements(of:numeric:_:)``), its elements gathered on the stack in one
    /// pass: the bytes ``appendGeneralSortKey(for:to:)`` writes, without its normalization
    /// check, its scalar and element arrays. Most accented Latin, Greek, Cyrillic and CJK text
    /// is such text. Returns `false`, having written nothing, for other text.
    func appendStreamedSortKey(_ bytes: UnsafeBufferPointer<UInt8>, to key: inout [UInt8]) -> Bool {
        guard _allNFCAlone(bytes) else { return false }
        // A scalar has a few elements (an implicit weight two); more than this takes the
        // general path.
        let capacity = 2 * bytes.count + 8
        return withUnsafeTemporaryAllocation(of: _UCATable.Element.self, capacity: capacity) { buffer in
            var count = 0
            let end = table.streamElements(of: bytes, numeric: numeric) { element in
                guard count < capacity else { return true }
                buffer[count] = element
                count += 1
                return false
            }
            guard end == .ended else { return false }
            Self.appendLevels(UnsafeBufferPointer(rebasing: buffer[..<count]), strength: numeric ? .primary : strength, table: table, to: &key)
            key.append(0)
            key.append(contentsOf: bytes)
            return true
        }
    }

    /// The key of ASCII text whose every byte weighs alone (``_UCATable/asciiElements``; not a
    /// digit under `numeric`), written from the table in one pass per level: the bytes
    /// ``appendGeneralSortKey(for:to:)`` writes, without its scalar and element arrays (a
    /// fifth of the time on ASCII titles). Returns `false`, having written nothing, for other
    /// text. With `primariesOnly`, only the primary level, in compact codes
    /// (``appendCompactPrimaries(_:to:)``) where the table has them.
    func appendASCIISortKey(_ bytes: UnsafeBufferPointer<UInt8>, primariesOnly: Bool = false, to key: inout [UInt8]) -> Bool {
        // Multilingual titles often start with ASCII words: check the whole text first.
        guard _isASCII(bytes) else { return false }
        let elements = table.asciiElements
        for byte in bytes where elements[Int(byte)] == 0 || (numeric && _isDigit(byte)) { return false }
        let strength = numeric ? .primary : strength
        let wideSecondaries = table.wideSecondaries, wideTertiaries = table.wideTertiaries, backwards = table.backwardsSecondary
        // At most 2 bytes a weight per level, 2 separators, 00 and the text: written through a
        // pointer into room made once (appending byte by byte was half of an ASCII key).
        let start = key.count
        key.append(contentsOf: repeatElement(0, count: 7 * bytes.count + 3))
        let written = key.withUnsafeMutableBufferPointer { buffer -> Int in
            var at = start
            @inline(__always)
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            @inline(__always)
            func code(_ w: UInt16, wide: Bool) {
                guard w != 0 else { return }
                if wide { put(UInt8(w / 254) + 2) }
                put(UInt8(w % 254) + 2)
            }
            if primariesOnly, !table.compactCodes.isEmpty {
                // (No trail follows an ASCII byte's primary.)
                let compact = table.compactCodes
                for byte in bytes {
                    let (bytes, count) = _UCATable.compactBytes(compact[Int(elements[Int(byte)] >> 32)])
                    put(bytes.0)
                    if count == 2 { put(bytes.1) }
                }
                return at
            }
            for byte in bytes {
                let p = UInt32(elements[Int(byte)] >> 32)
                put(UInt8(p / 254) + 2)
                put(UInt8(p % 254) + 2)
            }
            guard !primariesOnly else { return at }
            if strength != .primary {
                put(1)
                if backwards {
                    for byte in bytes.reversed() { code(UInt16(truncatingIfNeeded: elements[Int(byte)] >> 16), wide: wideSecondaries) }
                } else {
                    for byte in bytes { code(UInt16(truncatingIfNeeded: elements[Int(byte)] >> 16), wide: wideSecondaries) }
                }
                if strength == .tertiary {
                    put(1)
                    for byte in bytes { code(UInt16(truncatingIfNeeded: elements[Int(byte)]), wide: wideTertiaries) }
                }
            }
            put(0)
            for byte in bytes { put(byte) }
            return at
        }
        key.removeLast(key.count - written)
        return true
    }

    /// Appends a primary level written as ``_UCATable/primaryBytes(_:)`` writes it (two bytes a
    /// primary, three a trail) in the table's compact codes (``_UCATable/compactCodes``): one
    /// byte for the commonest primaries, keys in the same order and equal where they were. What
    /// a file sort by primaries keys its rows by (``_SortKeyPieces/primariesOnly``); as it is
    /// if the table has no compact codes.
    func appendCompactPrimaries(_ primaries: UnsafeBufferPointer<UInt8>, to key: inout [UInt8]) {
        let compact = table.compactCodes
        guard !compact.isEmpty else { return key.append(contentsOf: primaries) }
        var at = 0
        while at + 1 < primaries.count {
            let code = (Int(primaries[at]) - 2) * 254 + Int(primaries[at + 1]) - 2
            at += 2
            // Every code a key holds has a compact one; anything else is a misread trail.
            assert(code > 0 && code < compact.count, "primary code \(code) out of step")
            guard code > 0, code < compact.count else { continue }
            let (bytes, count) = _UCATable.compactBytes(compact[code])
            key.append(bytes.0)
            if count == 2 { key.append(bytes.1) }
            if compact[code] & _UCATable.followedByTrail != 0 {
                key.append(contentsOf: UnsafeBufferPointer(rebasing: primaries[at..<min(primaries.count, at + 3)]))
                at += 3
            }
        }
    }

    /// The key of any text: scalars (NFD where needed), collation elements, then the levels.
    func appendGeneralSortKey(for string: String, to key: inout [UInt8]) {
        var scratch = _LocaleKeyScratch()
        scratch.scalars.reserveCapacity(string.utf8.count)
        scratch.elements.reserveCapacity(string.utf8.count + 4)
        _withUTF8(string) { elements(ofUTF8: $0, in: &scratch) }
        scratch.elements.withUnsafeBufferPointer {
            Self.appendLevels($0, strength: numeric ? .primary : strength, table: table, to: &key)
        }
        key.append(0)
        key.append(contentsOf: _nfc(string).utf8)
    }

    /// Puts the collation elements of valid UTF-8 text in `scratch.elements`: its scalars
    /// (NFD, in canonical order, where ``_UCATable/appendStarters(of:to:)`` can't take them as
    /// they are: combining marks, Hangul syllables), their elements, then the shifted table's
    /// variables dropped. The first steps of every key but the fast paths'.
    func elements(ofUTF8 bytes: UnsafeBufferPointer<UInt8>, in scratch: inout _LocaleKeyScratch) {
        scratch.scalars.removeAll(keepingCapacity: true)
        if !table.appendStarters(of: _UTF8Scalars(bytes), to: &scratch.scalars) {
            scratch.scalars.removeAll(keepingCapacity: true)
            for scalar in _nfdScalars(String(decoding: bytes, as: UTF8.self)) { scratch.scalars.append(scalar.value) }
            _UCATable.canonicallyOrder(&scratch.scalars)
        }
        scratch.elements.removeAll(keepingCapacity: true)
        table.appendElements(of: scratch.scalars, numeric: numeric, to: &scratch.elements)
        if table.shiftedBelow != 0 { Self.dropVariables(&scratch.elements, below: table.shiftedBelow) }
    }

    /// Compares `string`'s primary weights with the primary level of `key` (another string's
    /// key under this collation), a piece of the text at a time, and stops at the first byte
    /// that differs: what a top-k selection needs for most rows, without the rest of the
    /// text's elements, its other levels or its NFC. `nil` when the primaries tie (the other
    /// levels decide; build the full key).
    ///
    /// The pieces end before each U+0020: no contraction, context-free or discontiguous, reaches
    /// across a space, which is a starter and composes with nothing, so a text's elements are
    /// its pieces' elements one after another (the same holds for a shifted table's variable
    /// state, which a space, itself variable, resets). A table with contextual elements isn't
    /// cut (`nil` before any work). `scratch` holds the arrays, reused between calls.
    func comparePrimaries(of string: String, toKey key: UnsafeBufferPointer<UInt8>, scratch: inout _LocaleKeyScratch) -> ComparisonResult? {
        _withUTF8(string) { comparePrimaries(ofUTF8: $0, toKey: key, scratch: &scratch) }
    }

    /// The first primary weight of valid UTF-8 text's key, when its first scalar weighs alone
    /// (see ``_UCATable/streamLeadingPrimaries(of:numeric:_:)``); `nil` otherwise, and for
    /// text without primaries. The primary level leads the key and a smaller first weight's
    /// bytes are smaller, so a text whose first primary is larger sorts after one whose is
    /// smaller, whatever follows: a page's selection keeps only the rows whose first primary
    /// is among the page's.
    ///
    ///     let sv = try LocaleCollation("sv")
    ///     sv.leadingPrimary(ofUTF8: bytesOf("Åsa")) > sv.leadingPrimary(ofUTF8: bytesOf("Zorn"))   // true
    package func leadingPrimary(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var first: UInt32? = nil
        let end = table.streamLeadingPrimaries(of: bytes, numeric: numeric) { p in
            first = p
            return true
        }
        return end == .stopped ? first : nil
    }

    /// ``comparePrimaries(of:toKey:scratch:)`` of valid UTF-8 text. A piece of ASCII whose
    /// bytes weigh alone (``_UCATable/asciiElements``) is weighed from the table; other pieces
    /// take the general path: their scalars (NFD where needed), then their elements.
    func comparePrimaries(
        ofUTF8 bytes: UnsafeBufferPointer<UInt8>, toKey key: UnsafeBufferPointer<UInt8>, scratch: inout _LocaleKeyScratch
    ) -> ComparisonResult? {
        guard !table.hasContexts else { return nil }
        // The key's primary level ends at its first byte below 2 (a level separator, or the
        // 0x00 before the tie-break).
        var primaryEnd = 0
        while primaryEnd < key.count && key[primaryEnd] >= 2 { primaryEnd += 1 }
        var position = 0
        // One primary weight of the text against the key's bytes: a decision, or `nil` to go on.
        // The key's level may end first: then this text has more primaries, and a weight byte
        // (>= 2) sorts after the key's separator.
        @inline(__always)
        func step(_ p: UInt32) -> ComparisonResult? {
            let (bytes, count) = _UCATable.primaryBytes(p)
            for k in 0..<count {
                let byte = k == 0 ? bytes.0 : k == 1 ? bytes.1 : bytes.2
                guard position < primaryEnd else { return .orderedDescending }
                let other = key[position]
                position += 1
                if byte != other { return byte < other ? .orderedAscending : .orderedDescending }
            }
            return nil
        }
        // Most comparisons are decided by the first letters, which mostly weigh alone.
        var decided: ComparisonResult? = nil
        let stream = table.streamLeadingPrimaries(of: bytes, numeric: numeric) { p in
            decided = step(p)
            return decided != nil
        }
        switch stream {
        case .stopped: return decided
        case .ended: return position < primaryEnd ? .orderedAscending : nil
        case .unsure: position = 0
        }
        let ascii = table.asciiElements
        var start = 0
        while start < bytes.count {
            var end = start + 1
            while end < bytes.count && bytes[end] != 0x20 { end += 1 }
            let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
            var alone = table.shiftedBelow == 0
            if alone {
                for byte in piece where byte >= 0x80 || ascii[Int(byte)] == 0 || (numeric && _isDigit(byte)) {
                    alone = false
                    break
                }
            }
            if alone {
                for byte in piece {
                    let p = UInt32(ascii[Int(byte)] >> 32)
                    if p != 0, let result = step(p) { return result }
                }
                start = end
                continue
            }
            elements(ofUTF8: piece, in: &scratch)
            for element in scratch.elements {
                let p = UInt32(element >> 32)
                if p != 0, let result = step(p) { return result }
            }
            start = end
        }
        // This text's primaries are a prefix of the key's: a shorter level sorts first.
        return position < primaryEnd ? .orderedAscending : nil
    }

    /// UCA's shifted variable weighting at strengths up to tertiary: spaces and punctuation,
    /// and the primary-ignorable elements right after them, weigh nothing.
    static func dropVariables(_ elements: inout [_UCATable.Element], below limit: UInt32) {
        var afterVariable = false
        elements.removeAll { element in
            let p = UInt32(element >> 32)
            if p != 0 && p & _UCATable.trailFlag == 0 && p < limit {
                afterVariable = true
                return true
            }
            if p == 0 { return afterVariable }
            afterVariable = false
            return false
        }
    }

    /// Each level's non-zero weight codes, bytes 0x02 and up (base 254), levels separated by
    /// 0x01: a primary in 2 bytes (an implicit trail in 3), a secondary or tertiary in 1 (2 in
    /// a table with more than 253 of them).
    static func appendLevels(_ elements: UnsafeBufferPointer<_UCATable.Element>, strength: Strength, table: _UCATable, to key: inout [UInt8]) {
        for element in elements {
            let p = UInt32(element >> 32)
            guard p != 0 else { continue }
            let (bytes, count) = _UCATable.primaryBytes(p)
            key.append(bytes.0)
            key.append(bytes.1)
            if count == 3 { key.append(bytes.2) }
        }
        guard strength != .primary else { return }
        key.append(1)
        func appendCode(_ w: UInt16, wide: Bool) {
            if wide { key.append(UInt8(w / 254) + 2) }
            key.append(UInt8(w % 254) + 2)
        }
        if table.backwardsSecondary {
            for element in elements.reversed() {
                let s = UInt16(truncatingIfNeeded: element >> 16)
                if s != 0 { appendCode(s, wide: table.wideSecondaries) }
            }
        } else {
            for element in elements {
                let s = UInt16(truncatingIfNeeded: element >> 16)
                if s != 0 { appendCode(s, wide: table.wideSecondaries) }
            }
        }
        guard strength == .tertiary else { return }
        key.append(1)
        for element in elements {
            let t = UInt16(truncatingIfNeeded: element)
            if t != 0 { appendCode(t, wide: table.wideTertiaries) }
        }
    }
}

/// A locale collation tag SortKit can't use, and why.
///
///     do { _ = try LocaleCollation("de-u-co-pinyin") } catch { print(error) }
///     // locale 'de-u-co-pinyin': 'de' has no 'pinyin' collation; de-u-co-phonebk
public struct LocaleCollationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let tag: String
    public let reason: String
    public var description: String { "locale '\(tag)': \(reason)" }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
