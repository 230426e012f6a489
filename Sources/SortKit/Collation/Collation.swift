import Foundation
import Synchronization

/// How strings compare: an order defined by a sort-key function, so that the same collation
/// gives the same order in memory, in SQLite and in PostgreSQL.
///
/// Each collation maps a string to bytes (``sortKey(for:)``) whose plain byte order — `memcmp`,
/// shorter first on a common prefix — is exactly the order of ``compare(_:_:)``:
///
///     ["file10", "File11", "file2"].sorted { Collation.natural.compare($0, $1) == .orderedAscending }
///     // ["file2", "file10", "File11"]
///     Collation.caseInsensitive.areEquivalent("Straße", "STRASSE")   // true
///     Collation.folded.areEquivalent("Éclair", "eclair")               // true
///
/// Folding collations break ties by ``binary``, so the order is total and deterministic:
/// "eclair" and "Éclair" are equivalent under ``folded`` but still sort in one fixed order.
///
/// ``locale(_:)`` is a language's alphabetical order (the Unicode Collation Algorithm with
/// CLDR's data), with the same key layout:
///
///     let swedish = Collation.locale(try LocaleCollation("sv"))
///     ["öl", "zebra", "ål"].sorted { swedish.compare($0, $1) == .orderedAscending }   // ["zebra", "ål", "öl"]
///
/// None of this uses Foundation's `String.Comparator` insensitive options or
/// `localizedStandard`: on Linux they crash on non-ASCII text or don't exist.
public enum Collation: Sendable, Hashable {
    /// Unicode code point order of the NFC form. Canonically equivalent strings are equal, as
    /// Swift's `==` says; SQL's "C" and BINARY collations agree on NFC text.
    case binary
    /// Case folded (full case folding: "Straße" == "STRASSE", "ς" == "σ"), then binary.
    case caseInsensitive
    /// Case and diacritics folded ("Éclair" == "eclair"), then binary.
    case folded
    /// Folded, and runs of decimal digits compare by numeric value ("file2" < "file10"),
    /// leading zeros ignored ("007" == "7" before the binary tie-break). The default.
    case natural
    /// A language's order: ``LocaleCollation`` (UCA over CLDR's root and the language's
    /// tailoring, at a strength).
    case locale(LocaleCollation)

    /// The collation used when none is named: ``natural``.
    public static let `default`: Collation = .natural

    /// The four built-in collations (every ``locale(_:)`` is one more).
    public static let allCases: [Collation] = [.binary, .caseInsensitive, .folded, .natural]

    /// The collation's name: `binary`, `caseInsensitive`, `folded`, `natural`, or a locale's
    /// spec text (`locale=sv`, `locale=sv:nocase`). What ``init(rawValue:)`` reads and
    /// `Codable` writes.
    public var rawValue: String {
        switch self {
        case .binary: "binary"
        case .caseInsensitive: "caseInsensitive"
        case .folded: "folded"
        case .natural: "natural"
        case .locale(let locale): locale.description
        }
    }

    /// The collation named `rawValue`, or `nil`.
    ///
    ///     Collation(rawValue: "locale=uk:nocase")   // .locale(LocaleCollation("uk", strength: .secondary))
    public init?(rawValue: String) {
        switch rawValue {
        case "binary": self = .binary
        case "caseInsensitive": self = .caseInsensitive
        case "folded": self = .folded
        case "natural": self = .natural
        default:
            guard rawValue.hasPrefix("locale=") else { return nil }
            // SQLite's sortkit_key() names the collation on every row: parsed once.
            if let known = Collation._parsedLocales.withLock({ $0[rawValue] }) {
                self = known
                return
            }
            var parts = rawValue.dropFirst("locale=".count).split(separator: ":").map(String.init)
            guard let tag = parts.first else { return nil }
            parts.removeFirst()
            var strength = LocaleCollation.Strength.tertiary
            var numeric = false
            switch parts {
            case []: break
            case ["nocase"]: strength = .secondary
            case ["fold"]: strength = .primary
            case ["natural"]: (strength, numeric) = (.primary, true)
            default: return nil
            }
            guard let locale = try? LocaleCollation(tag, strength: strength, numeric: numeric) else { return nil }
            self = .locale(locale)
            Collation._parsedLocales.withLock { cache in
                if cache.count < 256 { cache[rawValue] = self }
            }
        }
    }

    /// Locale collations by raw value, as parsed (at most 256).
    private static let _parsedLocales = Mutex<[String: Collation]>([:])

    /// A locale collation and a strength (`nocase`, `fold`, `natural`) as one collation, in
    /// either order; `nil` when the two conflict (`binary`, two locales, a locale that already
    /// has a strength).
    ///
    ///     Collation.locale(try LocaleCollation("sv")).combined(with: .caseInsensitive)   // locale=sv:nocase
    func combined(with other: Collation) -> Collation? {
        switch (self, other) {
        case (.locale(let locale), let strength), (let strength, .locale(let locale)):
            guard locale.strength == .tertiary && !locale.numeric else { return nil }
            switch strength {
            case .caseInsensitive: return try? .locale(LocaleCollation(locale.identifier, strength: .secondary))
            case .folded: return try? .locale(LocaleCollation(locale.identifier, strength: .primary))
            case .natural: return try? .locale(LocaleCollation(locale.identifier, strength: .primary, numeric: true))
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Whether this is a ``locale(_:)`` collation.
    public var isLocale: Bool {
        if case .locale = self { return true }
        return false
    }
}

extension Collation: Codable {
    /// Decodes the ``rawValue`` string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let collation = Collation(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown collation '\(text)'"))
        }
        self = collation
    }

    /// Encodes the ``rawValue`` string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension Collation {
    /// Compares two strings under this collation, ties under a folding collation broken by
    /// ``binary``.
    ///
    ///     Collation.natural.compare("Chapter 9", "chapter 10")   // .orderedAscending
    ///     Collation.binary.compare("Zebra", "apple")              // .orderedAscending ("Z" < "a")
    ///
    /// - Complexity: O(*m*), where *m* is the total length of the strings; O(1) for texts of
    ///   1 KB and more that differ in their first words, which are compared first.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if isLocale { return _compareBytes(sortKey(for: lhs), sortKey(for: rhs)) }
        if lhs.utf8.count >= 1_024, rhs.utf8.count >= 1_024, let decided = _compareLongTexts(lhs, rhs) { return decided }
        // ASCII text: compare the sort keys, built in one allocation-light pass each — the
        // same order (the keys' order is the comparison's, checked by property tests).
        if _isASCII(lhs) && _isASCII(rhs) {
            return _compareBytes(sortKey(for: lhs), sortKey(for: rhs))
        }
        let primary = comparePrimary(lhs, rhs)
        if primary != .orderedSame || self == .binary { return primary }
        return Collation.binary.comparePrimary(lhs, rhs)
    }

    /// Whether the strings are equal under this collation, ignoring the binary tie-break.
    ///
    ///     Collation.natural.areEquivalent("Track 07", "track 7")   // true
    public func areEquivalent(_ lhs: String, _ rhs: String) -> Bool {
        comparePrimary(lhs, rhs) == .orderedSame
    }

    /// The collation's own comparison, without the tie-break.
    internal func comparePrimary(_ lhs: String, _ rhs: String) -> ComparisonResult {
        switch self {
        case .binary:
            return _compareUTF8(_nfc(lhs), _nfc(rhs))
        case .caseInsensitive:
            return _compareUTF8(_caseFold(lhs), _caseFold(rhs))
        case .folded:
            return _compareUTF8(_diacriticFold(lhs), _diacriticFold(rhs))
        case .natural:
            return _NaturalToken.compare(_diacriticFold(lhs), _diacriticFold(rhs))
        case .locale:
            return _compareBytes(equivalenceKey(for: lhs), equivalenceKey(for: rhs))
        }
    }
}
