import Foundation

/// Lenient number parsing for the `num` modifier: the way people write numbers in tables.
///
///     LenientNumber.parse("$1,234.56")   // .double(1234.56)
///     LenientNumber.parse("75%")         // .integer(75)
///     LenientNumber.parse("(12)")        // .integer(-12), accounting's negative
///     LenientNumber.parse("−3.5 €")      // .double(-3.5), Unicode minus and trailing currency
///     LenientNumber.parse("1 234 567")   // .integer(1234567)
///     LenientNumber.parse("n/a")         // nil
///     LenientNumber.parse("1,5")         // nil: not groups of three, and `,` is no decimal point
///     LenientNumber.parse("--5")         // nil: one sign at most
///
/// The grammar, around a decimal number with `.` as the decimal point and an optional exponent:
/// - at most one sign (`+`, `-` or `−`), before the number or before a leading currency symbol
///   (`-$5`, `$-5`);
/// - at most one currency symbol (any Unicode currency sign), before or after the number,
///   spaces allowed between;
/// - parentheses around everything for a negative (`(12)`, `($1,200.00)`), with no sign inside;
/// - a trailing `%` (the number is read as written: `75%` is 75);
/// - thousands separators — `,` `_` `'` a space, a no-break or a thin space — only between
///   groups of exactly three digits after a first group of one to three (`1,234,567`,
///   `12 345`), one kind per number. `1,5` and `12 345,67` (decimal commas) are not numbers:
///   read with the wrong convention they would sort a thousand times off, so they stay text.
///
/// Integers that fit in 64 bits (`Int64.min` included) stay integers, so large ids don't lose
/// precision; others become the nearest `Double`. Whatever the input, parsing never traps.
public enum LenientNumber {
    /// The number in `text`, or `nil` if it isn't one.
    ///
    /// - Complexity: O(*m*), where *m* is the length of `text`.
    public static func parse(_ text: String) -> SortValue? {
        var scalars = Array(text.unicodeScalars)[...]
        _trim(&scalars)
        var negative = false
        let parenthesized = scalars.first == "(" && scalars.last == ")"
        if parenthesized {
            negative = true
            scalars = scalars.dropFirst().dropLast()
            _trim(&scalars)
        }
        if scalars.last == "%" {
            scalars = scalars.dropLast()
            _trim(&scalars)
        }
        var signs = 0, currencies = 0
        // Before the number: signs, a currency symbol and spaces, in any order the checks allow.
        while let first = scalars.first, !_isNumberStart(first) {
            if _isSign(first) {
                signs += 1
                if first != "+" { negative.toggle() }
            } else if first.properties.generalCategory == .currencySymbol {
                currencies += 1
            } else if !_isWhitespace(first) {
                return nil
            }
            scalars = scalars.dropFirst()
        }
        // After it: a currency symbol and spaces.
        while let last = scalars.last, !_isDigit(last) {
            if last.properties.generalCategory == .currencySymbol {
                currencies += 1
            } else if !_isWhitespace(last) {
                break
            }
            scalars = scalars.dropLast()
        }
        guard signs <= (parenthesized ? 0 : 1), currencies <= 1 else { return nil }
        guard let plain = _plainDecimal(scalars) else { return nil }
        return _parseDecimal((negative ? "-" : "") + plain)
    }
}

/// The digits of `scalars` as a plain decimal (`digits[.digits][e±digits]`), thousands
/// separators checked and removed; `nil` if `scalars` isn't such a number.
private func _plainDecimal(_ scalars: ArraySlice<Unicode.Scalar>) -> String? {
    var result = String.UnicodeScalarView()
    var index = scalars.startIndex
    // The integer part: digits, grouped by one kind of separator in threes after the first group.
    var separator: Unicode.Scalar? = nil
    var group = 0, groups = 0
    while index < scalars.endIndex {
        let scalar = scalars[index]
        if _isDigit(scalar) {
            result.append(scalar)
            group += 1
        } else if _isGroupSeparator(scalar) {
            guard group > 0, separator == nil || separator == scalar else { return nil }
            // The first group has one to three digits, every later one exactly three.
            guard groups == 0 ? group <= 3 : group == 3 else { return nil }
            separator = scalar
            groups += 1
            group = 0
        } else {
            break
        }
        index += 1
    }
    if separator != nil {
        guard group == 3 else { return nil }
    }
    // The fraction and the exponent, if any: plain digits.
    if index < scalars.endIndex, scalars[index] == "." {
        result.append(".")
        index += 1
        while index < scalars.endIndex, _isDigit(scalars[index]) {
            result.append(scalars[index])
            index += 1
        }
    }
    if index < scalars.endIndex, scalars[index] == "e" || scalars[index] == "E" {
        result.append("e")
        index += 1
        if index < scalars.endIndex, scalars[index] == "+" || scalars[index] == "-" {
            result.append(scalars[index])
            index += 1
        }
        while index < scalars.endIndex, _isDigit(scalars[index]) {
            result.append(scalars[index])
            index += 1
        }
    }
    guard index == scalars.endIndex else { return nil }
    return String(result)
}

private func _trim(_ scalars: inout ArraySlice<Unicode.Scalar>) {
    while let first = scalars.first, _isWhitespace(first) { scalars = scalars.dropFirst() }
    while let last = scalars.last, _isWhitespace(last) { scalars = scalars.dropLast() }
}

private func _isSign(_ scalar: Unicode.Scalar) -> Bool { scalar == "-" || scalar == "+" || scalar == "\u{2212}" }

private func _isNumberStart(_ scalar: Unicode.Scalar) -> Bool { _isDigit(scalar) || scalar == "." }

private func _isGroupSeparator(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case ",", "_", "'", " ", "\u{00A0}", "\u{2009}", "\u{202F}": true
    default: false
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
    // Beyond 64 bits an integer stays exact up to 128 bits (20-digit ids don't tie).
    if isInteger, let integer = Int128(text) { return .largeInteger(integer) }
    guard let double = Double(text), double.isFinite else { return nil }
    return .double(double)
}
