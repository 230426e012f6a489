import Foundation

// Folding written by hand: Foundation's case- and diacritic-insensitive comparators crash on
// non-ASCII text on Linux, and the standard library has no case-folding mapping. Full case
// folding is `uppercased().lowercased()` with the standard library's full Unicode mappings
// ("ß" → "SS" → "ss", "ﬁ" → "FI" → "fi", final "ς" → "Σ" → "σ"), and diacritic folding removes
// nonspacing marks after canonical decomposition ("É" → "E" + U+0301 → "E").

/// Whether every UTF-8 byte is ASCII, in which case the string is its own NFC form.
@inlinable
internal func _isASCII(_ string: String) -> Bool {
    string.utf8.allSatisfy { $0 < 0x80 }
}

/// The NFC form of `string`.
internal func _nfc(_ string: String) -> String {
    _isASCII(string) ? string : string.precomposedStringWithCanonicalMapping
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
