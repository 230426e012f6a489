import Foundation

/// Lenient number parsing for the `num` modifier: the way people write numbers in tables.
///
///     LenientNumber.parse("$1,234.56")   // .double(1234.56)
///     LenientNumber.parse("75%")         // .integer(75)
///     LenientNumber.parse("(12)")        // .integer(-12), accounting's negative
///     LenientNumber.parse("−3.5 €")      // .double(-3.5), Unicode minus and trailing currency
///     LenientNumber.parse("n/a")         // nil
///
/// Accepted around a decimal number (`.` as the decimal point, optional exponent): spaces,
/// currency symbols (any Unicode currency sign) before or after, a trailing `%`, `+`, `-` or
/// `−`, parentheses for negatives, and `,`, `_`, `'`, no-break or thin spaces as thousands
/// separators. Integers that fit in 64 bits stay integers, so large ids don't lose precision.
public enum LenientNumber {
    /// The number in `text`, or `nil` if it isn't one.
    public static func parse(_ text: String) -> SortValue? {
        var scalars = Substring(text).unicodeScalars.filter { !$0.properties.isWhitespace }[...]
        var negative = false
        if scalars.first == "(" && scalars.last == ")" {
            negative = true
            scalars = scalars.dropFirst().dropLast()
        }
        if scalars.last == "%" { scalars = scalars.dropLast() }
        if let first = scalars.first, first == "-" || first == "+" || first == "\u{2212}" {
            if first != "+" { negative.toggle() }
            scalars = scalars.dropFirst()
        }
        while let first = scalars.first, first.properties.generalCategory == .currencySymbol { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.properties.generalCategory == .currencySymbol { scalars = scalars.dropLast() }
        if let first = scalars.first, first == "-" || first == "\u{2212}" {
            negative.toggle()
            scalars = scalars.dropFirst()
        }
        let separators: Set<Unicode.Scalar> = [",", "_", "'", "\u{00A0}", "\u{2009}", "\u{202F}"]
        var cleaned = String.UnicodeScalarView()
        var previous: Unicode.Scalar? = nil
        for scalar in scalars {
            defer { previous = scalar }
            if separators.contains(scalar) {
                // A separator must follow a digit: "1,234" yes, ",5" or "1,,2" no.
                guard let previous, ("0"..."9").contains(previous) else { return nil }
                continue
            }
            cleaned.append(scalar)
        }
        if let previous, separators.contains(previous) { return nil }
        let digits = String(cleaned)
        guard let value = _parseDecimal(digits) else { return nil }
        if case .integer(let integer) = value {
            return .integer(negative ? -integer : integer)
        }
        if case .double(let double) = value { return .double(negative ? -double : double) }
        return nil
    }
}

/// A plain decimal number: `[+-]digits[.digits][e[+-]digits]`, or `.digits`. No hex, no
/// "nan" or "inf" (which `Double(_:)` would accept). Integers that fit in `Int64` are integers.
internal func _parseDecimal(_ text: String) -> SortValue? {
    let bytes = Array(text.utf8)
    var index = 0
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
    let integerStart = index
    while index < bytes.count, _isDigit(bytes[index]) { index += 1 }
    let integerDigits = index - integerStart
    var isInteger = true
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        isInteger = false
        index += 1
        let fractionStart = index
        while index < bytes.count, _isDigit(bytes[index]) { index += 1 }
        guard integerDigits > 0 || index > fractionStart else { return nil }
    } else if integerDigits == 0 {
        return nil
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        isInteger = false
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        let exponentStart = index
        while index < bytes.count, _isDigit(bytes[index]) { index += 1 }
        guard index > exponentStart else { return nil }
    }
    guard index == bytes.count else { return nil }
    if isInteger, let integer = Int64(text) { return .integer(integer) }
    guard let double = Double(text), double.isFinite else { return nil }
    return .double(double)
}

@inlinable
internal func _isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
