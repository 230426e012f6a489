import Foundation

#if !canImport(Darwin)
    @_spi(_Unicode) import Swift // String._nfd: see _nfdScalars
#endif

// Folding written by hand: Foundation's case- and diacritic-insensitive comparators crash on
// non-ASCII text on Linux, and neither the standard library nor Foundation has Unicode's case
// folding (`uppercased().lowercased()` is not it: it maps "ẞ" to "ß" but "ß" to "ss", and "ı"
// to "i"). The tables come from the Unicode Character Database (UnicodeTables.swift).
//
// - Case folding is Unicode's full case folding (CaseFolding.txt, C + F mappings) of the
//   canonically decomposed text, recomposed (NFC): canonical caseless matching, so "ẞ", "ß",
//   "SS" and "ss" fold alike and folding is idempotent. No locale: "I" folds to "i", and
//   dotless "ı" stays a letter of its own.
// - Diacritic folding is case folding with nonspacing marks removed after canonical
//   decomposition ("É" → "e"), and the Latin letters that the root collation (DUCET, what
//   ICU's root locale uses) weighs at primary strength as other letters folded to those
//   letters: "Æ" → "ae", "Œ" → "oe", "Ø" → "o", "Ł" → "l", "Đ" and "Ð" → "d", "Ħ" → "h",
//   "Ĳ" → "ij", "ǆ" → "dz". Letters the root collation keeps apart stay: "Þ", "Ŋ", "ı", "Ŧ".

/// The NFC form of `string`. Text whose scalars are all below U+0300 is already NFC (every
/// such scalar is NFC_Quick_Check=Yes and none combines with a predecessor), which saves
/// Foundation's bridged normalization — most of the cost — for Latin-1 text.
internal func _nfc(_ string: String) -> String {
    if _isASCII(string) || string.unicodeScalars.allSatisfy({ _isNFCAlone($0.value) }) { return string }
    return _normalizedNFC(string)
}

/// Whether a scalar is NFC whatever surrounds it, and leaves the scalars before it alone: it
/// has no canonical decomposition that NFC keeps apart, is not a combining mark, and never
/// composes with a predecessor. True below U+0300 (every such scalar is NFC_Quick_Check=Yes
/// and none combines with what comes before), for Greek, Coptic and Cyrillic but their
/// combining marks and three singletons NFC replaces (U+0374, U+037E, U+0387), for CJK
/// ideographs (U+3400–U+4DBF, U+4E00–U+9FFF), Latin Extended Additional, kana and CJK punctuation
/// but their combining marks, and Hangul syllables. A string of such scalars
/// is its own NFC — the normalizer is skipped for most text in those scripts.
@inline(__always)
internal func _isNFCAlone(_ value: UInt32) -> Bool {
    if value < 0x300 { return true }
    // The fold tables' scalars (Latin Extended Additional's precomposed letters are all
    // NFC_Quick_Check=Yes) but three Greek singletons NFC replaces.
    if value == 0x374 || value == 0x37E || value == 0x387 { return false }
    return _TableFolds.slot(value) != nil || _isIdeographOrHangul(value)
}

/// CJK symbols and punctuation, hiragana and katakana (U+3000–U+30FF) but the combining tone
/// and voicing marks (U+302A–U+302F, U+3099, U+309A).
@inline(__always)
internal func _isKanaOrCJKPunctuation(_ value: UInt32) -> Bool {
    (0x3000..<0x3100).contains(value) && !(0x302A...0x302F).contains(value) && value != 0x3099 && value != 0x309A
}

/// CJK unified ideographs (the BMP blocks) and precomposed Hangul syllables: no case, no
/// diacritics, no decomposition that folding changes (a syllable decomposes into jamo, which
/// are letters, and composes back).
@inline(__always)
internal func _isIdeographOrHangul(_ value: UInt32) -> Bool {
    (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value) || (0xAC00...0xD7A3).contains(value)
}

// Normalization by the standard library where Foundation would bridge: on Linux, Foundation's
// `precomposedStringWithCanonicalMapping` and `decomposedStringWithCanonicalMapping` go
// through CFString, 1.06 µs a short multilingual string where the standard library's own
// normalizer (the one `String ==` uses) takes 0.32 µs (measured 2026-11-26, 200,000 titles in
// Latin with marks, CJK and Greek). On Apple platforms Foundation's is native, and the
// standard library's entry points need newer OS versions than SortKit's minimum.

/// `string` in NFC.
internal func _normalizedNFC(_ string: String) -> String {
    #if canImport(Darwin)
        return string.precomposedStringWithCanonicalMapping
    #else
        return String(decoding: string._nfcCodeUnits, as: UTF8.self)
    #endif
}

/// `string`'s canonical decomposition (NFD), scalar by scalar.
internal func _nfdScalars(_ string: String) -> [Unicode.Scalar] {
    #if canImport(Darwin)
        return Array(string.decomposedStringWithCanonicalMapping.unicodeScalars)
    #else
        return Array(string._nfd)
    #endif
}

extension Collation {
    /// `text` in Unicode Normalization Form C, the form every collation compares and stores
    /// keep: "e\u{301}" → "é". Cheap for text that is already NFC below U+0300.
    ///
    ///     Collation.normalized("Cafe\u{301}") == "Café"   // true, and its UTF-8 is the precomposed form
    public static func normalized(_ text: String) -> String {
        _nfc(text)
    }

    /// `text` case folded the way ``caseInsensitive`` compares it: Unicode's full case
    /// folding, in NFC. Idempotent.
    ///
    ///     Collation.caseFolded("STRAẞE") == Collation.caseFolded("strasse")   // true
    ///     Collation.caseFolded("ΌΣΟΣ")                                        // "όσοσ"
    public static func caseFolded(_ text: String) -> String {
        _caseFold(text)
    }

    /// `text` folded the way ``folded`` and ``natural`` compare it (and search matches it):
    /// case folded, diacritics removed, and letters the root collation weighs as others
    /// replaced by them. Idempotent.
    ///
    ///     Collation.diacriticFolded("Ærø Łódź") == "aero lodz"   // true
    public static func diacriticFolded(_ text: String) -> String {
        _diacriticFold(text)
    }
}

/// `string` case folded, in NFC.
internal func _caseFold(_ string: String) -> String {
    if _isASCII(string) { return _asciiLowercased(string) }
    if let folded = _tableFold(string, \.caseFoldedUTF8) { return folded }
    return _slowCaseFold(string)
}

/// `string` case folded with diacritics and root-collation letters folded, in NFC.
internal func _diacriticFold(_ string: String) -> String {
    if _isASCII(string) { return _asciiLowercased(string) }
    if let folded = _tableFold(string, \.diacriticFoldedUTF8) { return folded }
    return _slowDiacriticFold(string)
}

/// Full case folding of `string`'s canonical decomposition, scalar by scalar.
private func _caseFoldedScalars(_ string: String) -> String.UnicodeScalarView {
    var folded = String.UnicodeScalarView()
    let tables = _UnicodeTables.shared
    for scalar in _nfdScalars(string) {
        tables.appendCaseFold(of: scalar, to: &folded)
    }
    return folded
}

internal func _slowCaseFold(_ string: String) -> String {
    _normalizedNFC(String(_caseFoldedScalars(string)))
}

internal func _slowDiacriticFold(_ string: String) -> String {
    // Folding can produce precomposed letters ("ᾀ" → "ἀι"): decompose again before marks go.
    let folded = _nfdScalars(String(_caseFoldedScalars(string)))
    var scalars = String.UnicodeScalarView()
    let tables = _UnicodeTables.shared
    for scalar in folded where scalar.properties.generalCategory != .nonspacingMark {
        tables.appendRootLetters(of: scalar, to: &scalars)
    }
    return _normalizedNFC(String(scalars))
}

/// The tables of UnicodeTables.swift, parsed once: sources ascending, each with the range of
/// its target scalars.
internal struct _UnicodeTables: Sendable {
    static let shared = _UnicodeTables()

    private let foldSources: [UInt32]
    private let foldTargets: [Range<Int>]
    private let rootSources: [UInt32]
    private let rootTargets: [Range<Int>]
    private let scalars: [Unicode.Scalar]

    private init() {
        var scalars: [Unicode.Scalar] = []
        func parse(_ data: String) -> (sources: [UInt32], targets: [Range<Int>]) {
            var sources: [UInt32] = []
            var targets: [Range<Int>] = []
            for entry in data.split(whereSeparator: { $0 == ";" || $0.isNewline }) {
                let parts = entry.split(separator: ":")
                let start = scalars.count
                scalars += parts[1].split(separator: " ").map { Unicode.Scalar(UInt32($0, radix: 16)!)! }
                sources.append(UInt32(parts[0].trimmingCharacters(in: .whitespaces), radix: 16)!)
                targets.append(start..<scalars.count)
            }
            return (sources, targets)
        }
        (foldSources, foldTargets) = parse(Self.caseFoldingData)
        (rootSources, rootTargets) = parse(Self.rootLetterData)
        self.scalars = scalars
    }

    /// Appends `scalar`'s full case folding (itself if it has none).
    @inline(__always)
    func appendCaseFold(of scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        Self.append(scalar, from: foldSources, foldTargets, scalars, to: &result)
    }

    /// Appends the letters the root collation weighs a case-folded `scalar` as (itself if none).
    @inline(__always)
    func appendRootLetters(of scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        Self.append(scalar, from: rootSources, rootTargets, scalars, to: &result)
    }

    /// The sources of the case folding table, for tests.
    var caseFoldingSources: [UInt32] { foldSources }

    private static func append(
        _ scalar: Unicode.Scalar, from sources: [UInt32], _ targets: [Range<Int>], _ scalars: [Unicode.Scalar],
        to result: inout String.UnicodeScalarView
    ) {
        let value = scalar.value
        // Binary search; nothing below "A" folds.
        if value >= 0x41 {
            var low = 0, high = sources.count
            while low < high {
                let middle = (low + high) / 2
                if sources[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low < sources.count, sources[low] == value {
                result.append(contentsOf: scalars[targets[low]])
                return
            }
        }
        result.append(scalar)
    }
}

/// The folds of each scalar U+0080..<U+0530 (Latin-1 Supplement, Latin Extended-A and -B, IPA,
/// spacing modifiers, Greek, Cyrillic), computed once by the general path. Text in that range
/// with no combining marks folds scalar by scalar: each scalar's fold is NFC and starts with a
/// starter that composes with nothing before it, and Greek's final sigma needs no context in
/// case folding (σ, ς and Σ all fold to σ), so the folds of its scalars concatenate to the fold
/// of the text. That saves Foundation's normalization (about 10 µs a string) on names like
/// "Jürgen", "Łukasz" or "Αλέξης"; a test checks the table against the general path on random
/// text. (`@unchecked Sendable`: its views' memory is never written or freed.)
internal struct _TableFolds: @unchecked Sendable {
    static let range: Range<UInt32> = 0x80..<0x530
    /// Latin Extended Additional, kept after ``range`` in the tables.
    static let extra: Range<UInt32> = 0x1E00..<0x1F00
    /// CJK punctuation and kana, kept after ``extra``: kana fold apart from case ("が" loses its
    /// voicing mark under diacritic folding).
    static let kana: Range<UInt32> = 0x3000..<0x3100

    /// The tables' index of a scalar in ``range`` or ``extra`` that folds alone; `nil` for others.
    @inline(__always)
    static func slot(_ value: UInt32) -> Int? {
        if value < range.upperBound {
            return value >= range.lowerBound && isFoldedAlone(value) ? Int(value - range.lowerBound) : nil
        }
        if extra.contains(value) { return range.count + Int(value - extra.lowerBound) }
        return _isKanaOrCJKPunctuation(value) ? range.count + extra.count + Int(value - kana.lowerBound) : nil
    }
    /// Each scalar's folds as UTF-8, by ``slot(_:)``: views of memory made once and never
    /// freed, read without reference counting. Sort keys read a fold per non-ASCII scalar on
    /// every core; the nested arrays these replace were retained and released at each read, on
    /// objects both cores share (a fifth of `sortkit view --by title` on multilingual titles
    /// went to reference counting, most of it there).
    let caseFoldedUTF8: _ArenaView
    let diacriticFoldedUTF8: _ArenaView

    static let shared: _TableFolds = {
        let scalars = (Array(range) + Array(extra) + Array(kana)).map { String(Unicode.Scalar($0)!) }
        func table(_ fold: (String) -> String) -> _ArenaView {
            var arena = _ByteArena()
            for scalar in scalars {
                arena.bytes += fold(scalar).utf8
                arena.close()
            }
            return .permanent(arena)
        }
        return _TableFolds(caseFoldedUTF8: table(_slowCaseFold), diacriticFoldedUTF8: table(_slowDiacriticFold))
    }()

    /// Whether a scalar in ``range`` may be folded alone: not a combining mark (those change
    /// the scalars before them under normalization).
    @inline(__always)
    static func isFoldedAlone(_ value: UInt32) -> Bool {
        !(0x300...0x36F).contains(value) && !(0x483...0x489).contains(value)
    }
}

/// `string` folded scalar by scalar with the table, or `nil` if a scalar is outside it.
private func _tableFold(_ string: String, _ table: KeyPath<_TableFolds, _ArenaView>) -> String? {
    guard string.unicodeScalars.allSatisfy({ $0.value < 0x80 || _TableFolds.slot($0.value) != nil || _isIdeographOrHangul($0.value) }) else {
        return nil
    }
    let folds = _TableFolds.shared[keyPath: table]
    var result: [UInt8] = []
    result.reserveCapacity(string.utf8.count + 4)
    for scalar in string.unicodeScalars {
        let value = scalar.value
        if value < 0x80 {
            result.append(_asciiLower(UInt8(value)))
        } else if let slot = _TableFolds.slot(value) {
            result += folds[slot]
        } else {
            result += String(scalar).utf8 // an ideograph or a Hangul syllable: its own fold
        }
    }
    return String(decoding: result, as: UTF8.self)
}

/// Writes the diacritic fold (``_diacriticFold(_:)``, with U+001F as a space, as search folds)
/// of well-formed UTF-8 from `start` into `out` at `position`, scalar by scalar from
/// ``_SearchFolds``, without a `String`, and returns where it ends. `out` needs room for twice
/// the bytes folded (no scalar's fold is longer). Returns `nil` at the first scalar the table
/// doesn't cover: the caller then folds the text as a `String`.
///
/// Combining marks U+0300–U+036F but U+0345 are dropped wherever they stand: diacritic folding
/// decomposes, case folds and then removes every nonspacing mark, and none of these marks has
/// a case folding, so a mark never changes what the scalars around it fold to.
internal func _writeTableDiacriticFold(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into out: UnsafeMutableBufferPointer<UInt8>, at position: Int
) -> Int? {
    guard let base = bytes.baseAddress, let target = out.baseAddress else { return position }
    precondition(out.count - position >= 2 * (bytes.count - start), "no room for the fold")
    let table = _SearchFolds.shared
    let raw = UnsafeRawPointer(base), destination = UnsafeMutableRawPointer(target)
    var i = start, o = position
    // Fold table entries are stored whole, four bytes, past a fold shorter than that: later
    // folds overwrite the extra bytes, or the caller cuts them off at the returned end. Each
    // scalar's fold is at most twice its bytes, so `o` stays within twice the bytes read, and
    // a store of a word's or an entry's width fits in the room.
    while i < bytes.count {
        let lead = base[i]
        if lead < 0x80 {
            if i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    destination.storeBytes(of: _asciiSearchFolded(word), toByteOffset: o, as: UInt64.self)
                    o += 8
                    i += 8
                    continue
                }
            }
            out[o] = lead == 0x1F ? 0x20 : _asciiLower(lead)
            o += 1
            i += 1
            continue
        }
        if lead < 0xE0 {
            // U+0080–U+07FF: one table entry, its fold's bytes and their count.
            guard lead >= 0xC2, i + 2 <= bytes.count else { return nil }
            let entry = table.twoByteFolds[Int(lead & 0x1F) << 6 | Int(base[i + 1] & 0x3F)]
            guard entry != _SearchFolds.uncovered else { return nil }
            destination.storeBytes(of: UInt32(truncatingIfNeeded: entry).littleEndian, toByteOffset: o, as: UInt32.self)
            o += Int(entry >> 32)
            i += 2
            continue
        }
        let length = lead < 0xF0 ? 3 : 4
        guard length < 4, i + length <= bytes.count else { return nil }
        let value = _decodeUTF8Scalar(bytes, at: i, length: length)
        if _foldsAway(value) {
            // dropped
        } else if let slot = _SearchFolds.slot(value) {
            for byte in table.folds[slot] {
                out[o] = byte
                o += 1
            }
        } else if _isIdeographOrHangul(value) {
            for j in i..<(i + length) {
                out[o] = bytes[j]
                o += 1
            }
        } else {
            return nil
        }
        i += length
    }
    return o
}

/// Eight ASCII bytes as search folds them: A–Z lowercased and U+001F (the field separator) a
/// space, all at once (a byte is in A–Z when adding 0x3F carries into its high bit and adding
/// 0x25 doesn't).
@inline(__always)
internal func _asciiSearchFolded(_ word: UInt64) -> UInt64 {
    let high: UInt64 = 0x8080_8080_8080_8080
    let upper = (word &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(word &+ 0x2525_2525_2525_2525) & high
    let separator = ~(((word ^ 0x1F1F_1F1F_1F1F_1F1F) &+ 0x7F7F_7F7F_7F7F_7F7F) | (word ^ 0x1F1F_1F1F_1F1F_1F1F)) & high
    return (word | (upper >> 2)) ^ ((separator >> 7) &* 0x3F)
}

/// The diacritic folds (``_diacriticFold(_:)``) of the scalars search folds one at a time, as
/// UTF-8 laid end to end, computed once by the general path: ``_TableFolds``' ranges and
/// Greek Extended (U+1F00–U+1FFF, polytonic Greek, which the sort keys' tables leave out
/// because some of its scalars are not their own NFC — folding replaces them all the same).
/// Each fold is NFC, has no marks and starts with a starter that composes with nothing before
/// it, so the folds of a text's scalars concatenate to the fold of the text (a test checks
/// every scalar alone and between random neighbours, and seeded text against the `String` fold).
///
/// The table lives as long as the process (``_ArenaView/permanent(_:)``), read through
/// pointers: a struct of arrays read per cell retained and released them, and two cores
/// folding at once contended for their counts.
internal struct _SearchFolds: @unchecked Sendable {
    static let shared = _SearchFolds()
    /// Each slot's fold (``slot(_:)``).
    let folds: _ArenaView

    private static let latin: Range<UInt32> = _TableFolds.range.lowerBound..<0x530
    private static let extended: Range<UInt32> = 0x1E00..<0x2000
    private static let kana: Range<UInt32> = 0x3000..<0x3100

    private init() {
        var folds = _ByteArena()
        for value in Array(Self.latin) + Array(Self.extended) + Array(Self.kana) {
            let fold = _slowDiacriticFold(String(Unicode.Scalar(value)!)).utf8
            // What `_writeTableDiacriticFold` makes room for.
            precondition(fold.count <= 2 * Unicode.Scalar(value)!.utf8.count, "the fold of U+\(String(value, radix: 16)) is too long")
            folds.bytes += fold
            folds.close()
        }
        self.folds = .permanent(folds)
        let twoByte = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 0x800)
        for value in 0..<UInt32(0x800) {
            guard value >= 0x80 else {
                twoByte[Int(value)] = Self.uncovered
                continue
            }
            var entry = Self.uncovered
            if _foldsAway(value) {
                entry = 0
            } else if let slot = Self.slot(value) {
                let fold = self.folds[slot]
                entry = UInt64(fold.count) << 32
                for (offset, byte) in fold.enumerated() { entry |= UInt64(byte) << (8 * UInt64(offset)) }
            }
            twoByte[Int(value)] = entry
        }
        self.twoByteFolds = UnsafePointer(twoByte.baseAddress!)
    }

    /// The fold of each scalar U+0080–U+07FF, by its value (the low five bits of its lead byte,
    /// then the low six of its second): up to four bytes, little-endian, in the low 32 bits,
    /// their count above; 0 for a mark that folds away, ``uncovered`` for scalars the table
    /// doesn't fold. Made once and never freed. A two-byte letter — most accented Latin,
    /// Greek and Cyrillic — costs one read and one store (folding scalar by scalar was 8% of
    /// `sortkit view --search isla` on multilingual text, 6% with this table).
    let twoByteFolds: UnsafePointer<UInt64>
    /// A ``twoByteFolds`` entry of a scalar that the table doesn't fold.
    static let uncovered = UInt64.max

    /// The table's index of a scalar that folds alone; `nil` for others (combining marks,
    /// and scalars outside the table).
    @inline(__always)
    static func slot(_ value: UInt32) -> Int? {
        if value < latin.upperBound {
            return value >= latin.lowerBound && _TableFolds.isFoldedAlone(value) ? Int(value - latin.lowerBound) : nil
        }
        if extended.contains(value) { return latin.count + Int(value - extended.lowerBound) }
        return _isKanaOrCJKPunctuation(value) ? latin.count + extended.count + Int(value - kana.lowerBound) : nil
    }

    /// Every scalar ``slot(_:)`` covers, for tests.
    static var scalars: [UInt32] {
        (Array(latin) + Array(extended) + Array(kana)).filter { slot($0) != nil }
    }
}

internal func _asciiLowercased(_ string: String) -> String {
    guard string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
    return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
}

/// Whether every scalar of well-formed UTF-8 is ``_isNFCAlone(_:)`` — or, with
/// `allowingMarks`, a combining diacritical mark that folds away (``_foldsAway(_:)``) after such scalars.
package func _allNFCAlone(_ bytes: UnsafeBufferPointer<UInt8>, allowingMarks: Bool = false) -> Bool {
    switch _nfcAloneKind(bytes) {
    case .alone: true
    case .aloneWithMarks: allowingMarks
    case .no: false
    }
}

/// What ``_allNFCAlone(_:allowingMarks:)`` says with and without marks, in one pass.
internal enum _NFCAloneKind {
    /// Every scalar is its own NFC and folds alone.
    case alone
    /// So, but for combining marks U+0300–U+036F after a letter (not after a digit).
    case aloneWithMarks
    /// Neither.
    case no
}

/// A combining diacritical mark (U+0300–U+036F) that diacritic folding removes: all of them
/// but U+0345 COMBINING GREEK YPOGEGRAMMENI, which case folding turns into the letter ι (so
/// "ω\u{345}" folds to "ωι", not "ω").
@inline(__always)
internal func _foldsAway(_ value: UInt32) -> Bool {
    (0x300...0x36F).contains(value) && value != 0x345
}

/// How far ``_scanNFCAlone(_:from:marks:stoppingAfter:)`` read.
internal enum _NFCAloneScan {
    /// The first `end` bytes are scalars that are their own NFC and fold alone (with combining
    /// marks U+0300–U+036F after letters where `marks`), and the byte at `end` is an ASCII
    /// character other than a digit: nothing after it changes how those bytes normalize, fold
    /// or split into digit runs.
    case prefix(end: Int, marks: Bool)
    /// The whole text was read (it is shorter, or has no such stopping point).
    case whole(_NFCAloneKind)
}

/// Whether every scalar from `start` on is its own NFC and folds alone (with combining marks
/// U+0300–U+036F after letters, which `marks` already says of the bytes before `start`),
/// reading eight ASCII bytes at a time (multilingual titles are mostly ASCII words between
/// their letters).
///
/// With `minimum` it may stop early: at the first ASCII non-digit at or after that many
/// bytes, where a comparison of the bytes before can already be decided. A key compared while
/// it is generated is usually decided in its first letters, so the rest of a long title isn't
/// read; if it isn't decided, the scan goes on from there (`from: end, marks: marks`).
internal func _scanNFCAlone(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, marks: Bool = false, stoppingAfter minimum: Int = .max
) -> _NFCAloneScan {
    var marks = marks
    var i = start
    var afterStarter = false
    var afterDigit = false // a mark between digits would join two runs once dropped: not here
    while i < bytes.count {
        // Eight ASCII bytes: each a starter, only the last one may be a digit before a mark,
        // and none at or past `minimum` (where the scan would stop).
        if i + 8 <= min(bytes.count, minimum), let base = bytes.baseAddress,
            UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            afterStarter = true
            afterDigit = _isDigit(bytes[i + 7])
            i += 8
            continue
        }
        let lead = bytes[i]
        if lead < 0x80 {
            if i >= minimum && !_isDigit(lead) { return .prefix(end: i, marks: marks) }
            i += 1
            afterStarter = true
            afterDigit = _isDigit(lead)
            continue
        }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard length < 4, i + length <= bytes.count else { return .whole(.no) }
        let value = _decodeUTF8Scalar(bytes, at: i, length: length)
        i += length
        if afterStarter && !afterDigit && _foldsAway(value) {
            marks = true
            continue
        }
        guard _isNFCAlone(value) else { return .whole(.no) }
        afterStarter = true
        afterDigit = false
    }
    return .whole(marks ? .aloneWithMarks : .alone)
}

/// ``_scanNFCAlone(_:from:marks:stoppingAfter:)`` of the whole text from `start`.
internal func _nfcAloneKind(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, marks: Bool = false) -> _NFCAloneKind {
    guard case .whole(let kind) = _scanNFCAlone(bytes, from: start, marks: marks) else { preconditionFailure("stops only with a minimum") }
    return kind
}
