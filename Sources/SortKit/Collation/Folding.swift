import Foundation

// Folding written by hand: Foundation's case- and diacritic-insensitive comparators crash on
// non-ASCII text on Linux, and the standard library has no case-folding mapping. Full case
// folding is `uppercased().lowercased()` with the standard library's full Unicode mappings
// ("ß" → "SS" → "ss", "ﬁ" → "FI" → "fi", final "ς" → "Σ" → "σ"), and diacritic folding removes
// nonspacing marks after canonical decomposition ("É" → "E" + U+0301 → "E").

/// Whether every UTF-8 byte is ASCII, in which case the string is its own NFC form.
@inlinable
internal func _isASCII(_ string: String) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { _isASCII($0) } ?? string.utf8.allSatisfy { $0 < 0x80 }
}

/// The NFC form of `string`. Text whose scalars are all below U+0300 is already NFC (every
/// such scalar is NFC_Quick_Check=Yes and none combines with a predecessor), which saves
/// Foundation's bridged normalization — most of the cost — for Latin-1 text.
internal func _nfc(_ string: String) -> String {
    if _isASCII(string) || string.unicodeScalars.allSatisfy({ $0.value < 0x300 }) { return string }
    return string.precomposedStringWithCanonicalMapping
}

extension Collation {
    /// `text` in Unicode Normalization Form C, the form every collation compares and stores
    /// keep: "e\u{301}" → "é". Cheap for text that is already NFC below U+0300.
    ///
    ///     Collation.normalized("Cafe\u{301}") == "Café"   // true, and its UTF-8 is the precomposed form
    public static func normalized(_ text: String) -> String {
        _nfc(text)
    }
}

/// `string` case folded, in NFC.
internal func _caseFold(_ string: String) -> String {
    if _isASCII(string) { return _asciiLowercased(string) }
    if let folded = _latinFold(string, \.caseFolded) { return folded }
    return _slowCaseFold(string)
}

/// `string` case folded with nonspacing marks removed, in NFC.
internal func _diacriticFold(_ string: String) -> String {
    if _isASCII(string) { return _asciiLowercased(string) }
    if let folded = _latinFold(string, \.diacriticFolded) { return folded }
    return _slowDiacriticFold(string)
}

internal func _slowCaseFold(_ string: String) -> String {
    string.uppercased().lowercased().precomposedStringWithCanonicalMapping
}

internal func _slowDiacriticFold(_ string: String) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in string.uppercased().lowercased().decomposedStringWithCanonicalMapping.unicodeScalars
    where scalar.properties.generalCategory != .nonspacingMark {
        scalars.append(scalar)
    }
    return String(scalars).precomposedStringWithCanonicalMapping
}

/// The folds of each scalar U+0080..<U+0250 (Latin-1 Supplement, Latin Extended-A and -B),
/// computed once by the general path. Text below U+0250 folds scalar by scalar: it is NFC, its
/// case mappings have no context (the one context rule without a locale is Greek final sigma),
/// and every scalar's fold starts with a starter that composes with nothing before it, so the
/// folds of its scalars concatenate to the fold of the text. That saves Foundation's
/// normalization (about 10 µs a string) on names like "Jürgen" or "Łukasz"; a test checks the
/// table against the general path on random text.
private struct _LatinFolds: Sendable {
    static let range: Range<UInt32> = 0x80..<0x250
    let caseFolded: [String]
    let diacriticFolded: [String]

    static let shared = _LatinFolds(
        caseFolded: range.map { _slowCaseFold(String(Unicode.Scalar($0)!)) },
        diacriticFolded: range.map { _slowDiacriticFold(String(Unicode.Scalar($0)!)) })
}

/// `string` folded scalar by scalar with the table, or `nil` if a scalar is U+0250 or above.
private func _latinFold(_ string: String, _ table: KeyPath<_LatinFolds, [String]>) -> String? {
    guard string.unicodeScalars.allSatisfy({ $0.value < _LatinFolds.range.upperBound }) else { return nil }
    let folds = _LatinFolds.shared[keyPath: table]
    var result = ""
    result.reserveCapacity(string.utf8.count + 4)
    for scalar in string.unicodeScalars {
        let value = scalar.value
        if value < 0x80 {
            result.unicodeScalars.append(value >= 0x41 && value <= 0x5A ? Unicode.Scalar(value | 0x20)! : scalar)
        } else {
            result += folds[Int(value - _LatinFolds.range.lowerBound)]
        }
    }
    return result
}

internal func _asciiLowercased(_ string: String) -> String {
    guard string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
    return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
}
