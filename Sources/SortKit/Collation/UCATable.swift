import Foundation
import Synchronization

/// The compiled collation data (`LocaleCollationData.swift`, written by
/// `Scripts/generate-collation-data.py`).
enum _LocaleCollationData {}

/// A collation element table: CLDR's root collation, or the root with one locale's tailoring
/// applied, and the Unicode Collation Algorithm's key generation over it.
///
/// Written here because no package available to SortKit implements UCA with CLDR's data on
/// Linux (Foundation's `localizedStandardCompare` is Apple-only, and ICU's C API would tie the
/// binary to the system's ICU version): the rules are compiled by the generator, so this type
/// only looks weights up. See docs/ARCHITECTURE.md and the DocC article "Sorting in every
/// language".
final class _UCATable: Sendable {
    /// Weights as dense codes: primary << 32 | secondary << 16 | tertiary (0: none at that
    /// level). A primary with ``trailFlag`` is an implicit weight's second half (or a long
    /// tailored list's index, or a number's length and digits): it is compared only with others
    /// like it, since a lead is always followed by its trail.
    typealias Element = UInt64
    static let trailFlag: UInt32 = 0x80_0000

    /// `scalar >> 8` → the first slot of its page, or -1.
    private let pages: [Int32]
    /// `(start << 9) | continuesContraction << 8 | startsContractionWithStarter << 7 |
    /// (count << 1) | startsContraction`; 0: not in the table (implicit weights).
    private let slots: [UInt32]
    let pool: [Element]
    /// Multi-scalar entries (NFD), and every proper prefix of them (as `nil`).
    private let contractions: [[UInt32]: Range<Int>?]
    /// Prefix contexts by their text's first scalar, longest first (Japanese: "ー" after "か"
    /// weighs as a small "a").
    private let contexts: [UInt32: [(prefix: [UInt32], text: [UInt32], range: Range<Int>)]]
    /// Every contraction's first two scalars, `first << 32 | second`: most letters that start
    /// one ("a" in Swedish, for "a" + U+030A) are followed by others, found here without
    /// building an array.
    let pairs: Set<UInt64>
    private let longestContraction: Int
    /// The codes of the implicit weights' 256 leads (0xFB00 + k), and their secondary and
    /// tertiary codes.
    private let implicitLeads: [UInt32]
    let implicitLevels: (UInt16, UInt16)
    /// Whether a secondary (tertiary) code takes two key bytes: more than 253 of them.
    let wideSecondaries: Bool
    let wideTertiaries: Bool
    /// `[alternate shifted]` (Thai): primary codes below this (spaces and punctuation) and the
    /// marks after them are ignored at every level; 0 when not shifted.
    let shiftedBelow: UInt32
    let caseFirstUpper: Bool
    let backwardsSecondary: Bool
    /// The primary of numbers under numeric ordering: just before the digit zero.
    let numberPrimary: UInt32

    static let caseLowerOffset: UInt16 = 10_000

    /// Each ASCII byte's collation element where the byte weighs alone, whatever surrounds it
    /// in ASCII text: one element with a primary (not variable under `[alternate shifted]`), no
    /// contraction that starts with it and goes on with ASCII, no prefix context for it. 0 for
    /// the others (Czech "c", Danish "a", controls, which weigh nothing). ``LocaleCollation`` writes the key of text of
    /// such bytes straight from here.
    let asciiElements: [Element]

    /// By primary code, its bytes in a primaries-only key (``LocaleCollation/appendCompactPrimaries(_:to:)``):
    /// `count << 16 | first << 8 | second`, and ``followedByTrail`` for a lead that a trail
    /// always follows (an implicit weight's first half). Empty when the table's codes don't fit.
    let compactCodes: [UInt32]
    static let followedByTrail: UInt32 = 1 << 24

    private init(
        pages: [Int32], slots: [UInt32], pool: [Element], contractions: [[UInt32]: Range<Int>?],
        contexts: [UInt32: [(prefix: [UInt32], text: [UInt32], range: Range<Int>)]], longestContraction: Int,
        caseFirstUpper: Bool, backwardsSecondary: Bool, numberPrimary: UInt32, implicitLeads: [UInt32],
        implicitLevels: (UInt16, UInt16), wideSecondaries: Bool, wideTertiaries: Bool, shiftedBelow: UInt32, primaryCodes: Int
    ) {
        self.pages = pages
        self.slots = slots
        self.pool = pool
        self.contractions = contractions
        self.contexts = contexts
        let pairs = Set(contractions.keys.filter { $0.count >= 2 }.map { UInt64($0[0]) << 32 | UInt64($0[1]) })
        self.pairs = pairs
        self.longestContraction = longestContraction
        self.implicitLeads = implicitLeads
        self.implicitLevels = implicitLevels
        self.wideSecondaries = wideSecondaries
        self.wideTertiaries = wideTertiaries
        self.shiftedBelow = shiftedBelow
        self.caseFirstUpper = caseFirstUpper
        self.backwardsSecondary = backwardsSecondary
        self.numberPrimary = numberPrimary
        self.asciiElements = (0..<UInt32(0x80)).map { byte in
            let first = pages[0]
            let entry = first < 0 ? 0 : slots[Int(first) + Int(byte)]
            // A contraction that continues with a non-ASCII scalar ("a" + U+030A in Swedish,
            // "l" + U+00B7 in the root) never matches in ASCII text.
            let continuesWithASCII = entry & 1 != 0 && (0..<UInt64(0x80)).contains { pairs.contains(UInt64(byte) << 32 | $0) }
            guard entry != 0, !continuesWithASCII, (entry >> 1) & 0x3F == 1, contexts[byte] == nil else { return 0 }
            let element = pool[Int(entry >> 9)]
            let p = UInt32(element >> 32)
            return p != 0 && p & Self.trailFlag == 0 && (shiftedBelow == 0 || p >= shiftedBelow) ? element : 0
        }
        compactCodes = Self.compactCodes(
            count: primaryCodes, single: Set(asciiElements.map { UInt32($0 >> 32) }.filter { $0 != 0 }), pool: pool,
            leads: implicitLeads)
    }

    // MARK: Loading

    /// The tags (`sv`, `de/phonebook`) compiled into the data.
    static var compiledTags: [String] { _LocaleCollationData.tags }

    /// The root table (CLDR's root collation, `und`).
    static let root: _UCATable = make(tailoring: nil)

    private static let cache = Mutex<[String: _UCATable]>([:])

    /// The table of a compiled tailoring name (`sv`, `de/phonebook`), built once.
    static func table(named name: String) -> _UCATable? {
        if name == "und" { return root }
        if let table = cache.withLock({ $0[name] }) { return table }
        guard let tailoring = decoded.tailoring(named: name) else { return nil }
        let table = make(tailoring: tailoring)
        cache.withLock { $0[name] = table }
        return table
    }

    private static func make(tailoring: Decoded.Tailoring?) -> _UCATable {
        let data = decoded
        var reorder: [UInt32]?
        if let runs = tailoring?.runs, !runs.isEmpty {
            var map = (0...(data.primaryCount + 1)).map { UInt32($0) }
            for run in runs {
                for k in 0..<run.count { map[run.from + k] = UInt32(run.to + k) }
            }
            reorder = map
        }
        let caseFirstUpper = (tailoring?.flags ?? 0) & 1 != 0
        func adjusted(_ element: Element) -> Element {
            var p = UInt32(element >> 32)
            var t = UInt16(truncatingIfNeeded: element)
            if let reorder, p != 0, p & trailFlag == 0 { p = reorder[Int(p >> 8)] << 8 | (p & 0xFF) }
            if caseFirstUpper, t != 0, !_UCATable.upperTertiaries.contains(t >> 7) { t += caseLowerOffset }
            return UInt64(p) << 32 | (element & 0xFFFF_0000) | UInt64(t)
        }
        // The pool: the root's elements (reordered, cased), then the tailoring's as they are.
        var pool = reorder == nil && !caseFirstUpper ? data.rootElements : data.rootElements.map(adjusted)
        var tailoredSingles: [(scalar: UInt32, elements: Range<Int>)] = []
        var contractions: [[UInt32]: Range<Int>?] = [:]
        contractions.reserveCapacity(data.contractions.count * 2)
        func addContraction(_ scalars: [UInt32], _ range: Range<Int>) {
            contractions[scalars] = .some(range)
            for length in 2..<scalars.count where contractions[Array(scalars.prefix(length))] == nil {
                contractions[Array(scalars.prefix(length))] = .some(nil)
            }
        }
        for (scalars, range) in data.contractions { addContraction(scalars, range) }
        for (scalars, elements) in tailoring?.entries ?? [] {
            let start = pool.count
            pool.append(contentsOf: elements)
            if scalars.count == 1 {
                tailoredSingles.append((scalars[0], start..<pool.count))
            } else {
                addContraction(scalars, start..<pool.count)
            }
        }
        var contexts: [UInt32: [(prefix: [UInt32], text: [UInt32], range: Range<Int>)]] = [:]
        for (prefix, text, elements) in tailoring?.contexts ?? [] {
            let start = pool.count
            pool.append(contentsOf: elements)
            contexts[text[0], default: []].append((prefix, text, start..<pool.count))
        }
        for key in contexts.keys { contexts[key]!.sort { $0.prefix.count + $0.text.count > $1.prefix.count + $1.text.count } }
        let starts = Set(contractions.keys.map { $0[0] })
        let longest = contractions.keys.map(\.count).max() ?? 1
        // Starters that continue a contraction (U+0CD5 after U+0CC6 U+0CC2 in Kannada).
        let continuers = Set(contractions.keys.flatMap { $0.dropFirst().filter { combiningClass($0) == 0 } })
        // Contractions that continue with a starter ("ch", "dzs", "aa", Walser's "ää"): a
        // precomposed character after their first scalar may continue them once decomposed.
        var starterStarts = Set(contractions.keys.filter { $0.dropFirst().contains { combiningClass($0) == 0 } }.map { $0[0] })
        // And the precomposed letters that decompose to such a start ("ä" for Walser's "ää").
        if !starterStarts.isEmpty {
            for scalar in data.singleScalars + tailoredSingles.map(\.scalar) where scalar >= 0xC0 {
                guard let value = Unicode.Scalar(scalar) else { continue }
                let decomposed = _nfdScalars(String(value))
                if decomposed.count > 1, starterStarts.contains(decomposed[0].value) { starterStarts.insert(scalar) }
            }
        }
        // The slots: a page of 256 for every page that holds a scalar with elements or one
        // that starts or continues a contraction, in page order.
        var pages = [Int32](repeating: -1, count: 0x1100)
        for scalar in data.singleScalars { pages[Int(scalar >> 8)] = 0 }
        for (scalar, _) in tailoredSingles { pages[Int(scalar >> 8)] = 0 }
        for scalar in starts.union(continuers) { pages[Int(scalar >> 8)] = 0 }
        var pageCount: Int32 = 0
        for page in pages.indices where pages[page] == 0 {
            pages[page] = pageCount * 256
            pageCount += 1
        }
        var slots = [UInt32](repeating: 0, count: Int(pageCount) * 256)
        func slotIndex(_ scalar: UInt32) -> Int { Int(pages[Int(scalar >> 8)]) + Int(scalar & 0xFF) }
        func setElements(_ scalar: UInt32, _ range: Range<Int>) {
            precondition(range.count < 64 && range.lowerBound < 1 << 23)
            slots[slotIndex(scalar)] = UInt32(range.lowerBound) << 9 | UInt32(range.count) << 1
        }
        var start = 0
        for (index, scalar) in data.singleScalars.enumerated() {
            setElements(scalar, start..<data.singleEnds[index])
            start = data.singleEnds[index]
        }
        for (scalar, range) in tailoredSingles { setElements(scalar, range) }
        for scalar in continuers { slots[slotIndex(scalar)] |= 0x100 }
        for scalar in starterStarts { slots[slotIndex(scalar)] |= 0x80 }
        for scalar in starts { slots[slotIndex(scalar)] |= 1 }
        let zeroSlot = slots[slotIndex(0x30)]
        let codes = _UCACodes(
            pool: pool, zero: zeroSlot >> 1 & 0x3F == 0 ? 0 : pool[Int(zeroSlot >> 9)], data: data, reorder: reorder,
            caseFirstUpper: caseFirstUpper)
        return _UCATable(
            pages: pages, slots: slots, pool: codes.pool, contractions: contractions, contexts: contexts, longestContraction: longest,
            caseFirstUpper: caseFirstUpper, backwardsSecondary: (tailoring?.flags ?? 0) & 2 != 0,
            numberPrimary: codes.numberPrimary, implicitLeads: codes.implicitLeads, implicitLevels: codes.implicitLevels,
            wideSecondaries: codes.wideSecondaries, wideTertiaries: codes.wideTertiaries,
            shiftedBelow: (tailoring?.flags ?? 0) & 4 != 0 ? codes.lastVariable + 1 : 0, primaryCodes: codes.primaryCount)
    }

    /// UCA's uppercase tertiary weights (before scaling): under `[caseFirst upper]` they sort first.
    static let upperTertiaries: Set<UInt16> = [0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0E, 0x11, 0x12, 0x1D]

    /// Whether some element depends on the scalars before it (Japanese length marks): then
    /// a text's elements can't be worked out one space-separated piece at a time.
    var hasContexts: Bool { !contexts.isEmpty }

    // MARK: Lookup

    @inline(__always)
    func slot(_ scalar: UInt32) -> UInt32 {
        let page = scalar >> 8
        guard page < 0x1100 else { return 0 }
        let first = pages[Int(page)]
        return first < 0 ? 0 : slots[Int(first) + Int(scalar & 0xFF)]
    }

    /// Appends the collation elements of NFD `scalars` (UCA's S2: longest contiguous match,
    /// then unblocked non-starters that extend it; implicit weights for the rest).
    func appendElements(of scalars: [UInt32], numeric: Bool, to out: inout [Element]) {
        var skipped: [Bool] = []
        var i = 0
        let n = scalars.count
        while i < n {
            if !skipped.isEmpty && skipped[i] {
                i += 1
                continue
            }
            let scalar = scalars[i]
            if !contexts.isEmpty, let candidates = contexts[scalar],
                let match = candidates.first(where: { candidate in
                    i >= candidate.prefix.count && i + candidate.text.count <= n
                        && scalars[(i - candidate.prefix.count)..<i].elementsEqual(candidate.prefix)
                        && scalars[i..<(i + candidate.text.count)].elementsEqual(candidate.text)
                })
            {
                out.append(contentsOf: pool[match.range])
                i += match.text.count
                continue
            }
            if numeric, let digit = _UCATable.digitValue(scalar) {
                i = appendNumber(scalars, from: i, firstDigit: digit, skipped: skipped, to: &out)
                continue
            }
            let entry = slot(scalar)
            if entry & 1 != 0, let (range, end) = longestMatch(scalars, at: i, skipped: &skipped) {
                out.append(contentsOf: pool[range])
                i = end
                continue
            }
            let count = Int(entry >> 1) & 0x3F
            if entry == 0 || count == 0 {
                appendImplicit(scalar, to: &out)
            } else {
                let start = Int(entry >> 9)
                pool.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<(start + count)])) }
            }
            i += 1
        }
    }

    /// The longest contraction at `i`: contiguous first, then discontiguous non-starters
    /// (marked in `skipped`). `nil` when no contraction matches.
    private func longestMatch(_ scalars: [UInt32], at i: Int, skipped: inout [Bool]) -> (Range<Int>, Int)? {
        // Followed by a starter no contraction continues with: only the scalar itself.
        if i + 1 >= scalars.count { return nil }
        if !pairs.contains(UInt64(scalars[i]) << 32 | UInt64(scalars[i + 1])) && _UCATable.combiningClass(scalars[i + 1]) == 0
            && (skipped.isEmpty || !skipped[i + 1])
        {
            return nil
        }
        var key = [scalars[i]]
        var best: Range<Int>?
        var end = i + 1
        var j = i + 1
        while j < scalars.count {
            if !skipped.isEmpty && skipped[j] { break }
            key.append(scalars[j])
            guard let found = contractions[key] else { break }
            if let range = found {
                best = range
                end = j + 1
            }
            j += 1
        }
        key.removeLast(key.count - (end - i))
        // Discontiguous: a non-starter not blocked from the match extends it when the longer
        // string is in the table.
        var lastClass: UInt8 = 0
        var k = end
        var matchedAny = false
        while k < scalars.count {
            let cc = _UCATable.combiningClass(scalars[k])
            if cc == 0 { break }
            if !skipped.isEmpty && skipped[k] {
                k += 1
                continue
            }
            if lastClass < cc {
                key.append(scalars[k])
                if let found = contractions[key], let range = found {
                    best = range
                    if k == end && !matchedAny {
                        end = k + 1
                    } else {
                        if skipped.isEmpty { skipped = Array(repeating: false, count: scalars.count) }
                        skipped[k] = true
                        matchedAny = true
                    }
                    k += 1
                    continue
                }
                key.removeLast()
            }
            lastClass = max(lastClass, cc)
            k += 1
        }
        guard let best else { return nil }
        return (best, end)
    }

    /// Appends the scalars of text that needs no normalization to be weighed: every scalar has
    /// combining class 0 and is no Hangul syllable (the table has no entries for those) and
    /// none of the three whose decomposition starts with a non-starter. The tables hold each
    /// precomposed character's weights as its decomposition's (the generator's canonical
    /// closure), so this text weighs as its NFD would. Returns `false` for other text.
    ///
    /// A precomposed character within reach of a contraction that continues with a starter
    /// ("ch" in Czech, "aa" in Danish) takes the NFD path too: "aá" is "aa" + an acute there;
    /// so does one followed by a starter that continues a contraction (Kannada U+0CCA U+0CD5
    /// is the contraction U+0CC6 U+0CC2 U+0CD5 once decomposed).
    func appendStarters(of text: some Sequence<Unicode.Scalar>, to scalars: inout [UInt32]) -> Bool {
        var guarded = -1 // the last position a contraction begun earlier may reach
        var afterPrecomposable = false
        for scalar in text {
            let value = scalar.value
            let entry = slot(value)
            if afterPrecomposable && entry & 0x100 != 0 { return false }
            afterPrecomposable = value >= 0xC0
            if value >= 0xC0 {
                if scalars.count <= guarded { return false }
                if !isPlainStarter(value, entry: entry) { return false }
            }
            if entry & 0x80 != 0 { guarded = scalars.count + longestContraction - 1 }
            scalars.append(value)
        }
        return true
    }

    /// Whether a scalar (with its table ``slot(_:)``) weighs as it stands, without normalizing:
    /// not a Hangul syllable (the tables have no entries for those) nor one of the three
    /// whose decomposition starts with a non-starter, a starter, and, unless it is its own NFC
    /// alone, a scalar the tables know: one they don't may be one this runtime's Unicode
    /// decomposes (newer than the tables' Unicode 14: U+16D68 is U+16D67 twice since Unicode
    /// 16), which goes to NFD so that it weighs the same in any text. What follows the scalar
    /// (contractions) is the caller's to check.
    @inline(__always)
    func isPlainStarter(_ value: UInt32, entry: UInt32) -> Bool {
        guard value >= 0x300 else { return true }
        if (0xAC00...0xD7A3).contains(value) || value == 0xF73 || value == 0xF75 || value == 0xF81 { return false }
        // A scalar that is its own NFC alone is a starter (Greek, Cyrillic, kana, ideographs):
        // no property lookup.
        if _isNFCAlone(value) { return true }
        return Self.combiningClass(value) == 0 && entry != 0 && (entry >> 1) & 0x3F != 0
    }

    /// The key bytes of a non-zero primary weight (base 254, from 0x02): two, or three for an
    /// implicit trail (flagged ``trailFlag``). `count` says how many of `bytes` are used.
    @inline(__always)
    static func primaryBytes(_ p: UInt32) -> (bytes: (UInt8, UInt8, UInt8), count: Int) {
        if p & trailFlag != 0 {
            let trail = p & ~trailFlag
            return ((UInt8(trail / 64_516) + 2, UInt8(trail / 254 % 254) + 2, UInt8(trail % 254) + 2), 3)
        }
        return ((UInt8(p / 254) + 2, UInt8(p % 254) + 2, 0), 2)
    }

    /// Puts runs of non-starters in canonical order (stable by combining class). The standard
    /// library's NFD leaves "\u{591}\u{F81}" as U+0591 U+0F71 U+0F80, out of order.
    static func canonicallyOrder(_ scalars: inout [UInt32]) {
        var i = 1
        while i < scalars.count {
            let cc = combiningClass(scalars[i])
            if cc != 0 {
                var j = i
                while j > 0 {
                    let previous = combiningClass(scalars[j - 1])
                    guard previous > cc else { break }
                    scalars.swapAt(j, j - 1)
                    j -= 1
                }
            }
            i += 1
        }
    }

    @inline(__always)
    static func combiningClass(_ value: UInt32) -> UInt8 {
        if value < 0x300 { return 0 }
        return Unicode.Scalar(value).map { UInt8($0.properties.canonicalCombiningClass.rawValue) } ?? 0
    }

    /// UCA's implicit weights (section 10.1, as UCA 14 assigns them).
    private func appendImplicit(_ scalar: UInt32, to out: inout [Element]) {
        let (lead, trail) = implicitPrimaries(scalar)
        out.append(UInt64(lead) << 32 | UInt64(implicitLevels.0) << 16 | UInt64(implicitLevels.1))
        out.append(UInt64(trail) << 32)
    }

    /// The two primaries of a scalar with implicit weights: a lead, and a trail (flagged).
    @inline(__always)
    func implicitPrimaries(_ scalar: UInt32) -> (lead: UInt32, trail: UInt32) {
        let base: UInt32
        var trail: UInt32
        switch scalar {
        case 0x17000...0x18AFF, 0x18D00...0x18D8F: (base, trail) = (0xFB00, scalar - 0x17000)
        case 0x1B170...0x1B2FF: (base, trail) = (0xFB01, scalar - 0x1B170)
        case 0x18B00...0x18CFF: (base, trail) = (0xFB02, scalar - 0x18B00)
        default:
            let ideograph = _UCATable.isUnifiedIdeograph14(scalar)
            let core = (0x4E00...0x9FFF).contains(scalar) || (0xF900...0xFAFF).contains(scalar)
            base = (ideograph ? (core ? 0xFB40 : 0xFB80) : 0xFBC0) + (scalar >> 15)
            trail = scalar & 0x7FFF
        }
        trail |= 0x8000
        return (implicitLeads[Int(base - 0xFB00)], _UCATable.trailFlag | trail)
    }

    /// Unified_Ideograph in Unicode 14, the UCA version of CLDR 41 (Swift's property is newer:
    /// it calls U+2B81E an ideograph, which UCA 14 weighs as unassigned).
    private static func isUnifiedIdeograph14(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xFA0E...0xFA0F, 0xFA11, 0xFA13...0xFA14, 0xFA1F, 0xFA21,
            0xFA23...0xFA24, 0xFA27...0xFA29, 0x20000...0x2A6DF, 0x2A700...0x2B738, 0x2B740...0x2B81D,
            0x2B820...0x2CEA1, 0x2CEB0...0x2EBE0, 0x30000...0x3134A:
            true
        default:
            false
        }
    }

    // MARK: Numbers

    static func digitValue(_ value: UInt32) -> UInt8? {
        if value < 0x80 { return value >= 0x30 && value <= 0x39 ? UInt8(value - 0x30) : nil }
        guard let scalar = Unicode.Scalar(value), scalar.properties.numericType == .decimal,
            let number = scalar.properties.numericValue
        else { return nil }
        return UInt8(number)
    }

    /// A digit run as ICU's numeric ordering weighs it: the number primary, the count of
    /// significant digits, then each digit: numbers sort by value where digits sort.
    private func appendNumber(_ scalars: [UInt32], from start: Int, firstDigit: UInt8, skipped: [Bool], to out: inout [Element]) -> Int {
        var digits: [UInt8] = []
        var i = start
        while i < scalars.count, let digit = _UCATable.digitValue(scalars[i]) {
            if digit != 0 || !digits.isEmpty { digits.append(digit) }
            i += 1
        }
        out.append(UInt64(numberPrimary) << 32)
        out.append(UInt64(_UCATable.trailFlag | UInt32(min(digits.count, 0x7F_FFFF))) << 32)
        for digit in digits { out.append(UInt64(_UCATable.trailFlag | UInt32(digit + 1)) << 32) }
        return i
    }
}
