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
    return string.uppercased().lowercased().precomposedStringWithCanonicalMapping
}

/// `string` case folded with nonspacing marks removed, in NFC.
internal func _diacriticFold(_ string: String) -> String {
    if _isASCII(string) { return _asciiLowercased(string) }
    var scalars = String.UnicodeScalarView()
    for scalar in string.uppercased().lowercased().decomposedStringWithCanonicalMapping.unicodeScalars
    where scalar.properties.generalCategory != .nonspacingMark {
        scalars.append(scalar)
    }
    return String(scalars).precomposedStringWithCanonicalMapping
}

internal func _asciiLowercased(_ string: String) -> String {
    guard string.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return string }
    return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
}
