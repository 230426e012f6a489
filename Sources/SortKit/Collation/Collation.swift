import Foundation

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
/// None of this uses Foundation's `String.Comparator` insensitive options or
/// `localizedStandard`: on Linux they crash on non-ASCII text or don't exist.
public enum Collation: String, Sendable, Hashable, CaseIterable, Codable {
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

    /// The collation used when none is named: ``natural``.
    public static let `default`: Collation = .natural
}

extension Collation {
    /// Compares two strings under this collation, ties under a folding collation broken by
    /// ``binary``.
    ///
    ///     Collation.natural.compare("Chapter 9", "chapter 10")   // .orderedAscending
    ///     Collation.binary.compare("Zebra", "apple")              // .orderedAscending ("Z" < "a")
    ///
    /// - Complexity: O(*m*), where *m* is the total length of the strings.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
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
        }
    }
}
