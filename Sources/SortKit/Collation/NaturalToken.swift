import Foundation

/// A piece of a folded string under the natural collation: one Unicode scalar, or a run of
/// decimal digits (any script's, by the Unicode numeric type) read as a number.
///
/// A number sorts where the character "0" would: after "/" and before ":", so "a-1" < "a1" <
/// "a:1" whatever the digits. Two numbers compare by their count of significant digits, then
/// digit by digit, so leading zeros and digit runs of any length are handled without overflow.
internal enum _NaturalToken: Equatable {
    case scalar(Unicode.Scalar)
    /// The digit values with leading zeros removed; empty for zero.
    case number([UInt8])

    static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
        if scalar.value >= 0x30 && scalar.value <= 0x39 { return UInt8(scalar.value - 0x30) }
        guard scalar.value >= 0x80, scalar.properties.numericType == .decimal,
            let value = scalar.properties.numericValue
        else { return nil }
        return UInt8(value)
    }

    /// Splits a folded string into tokens.
    static func tokens(_ string: String) -> [_NaturalToken] {
        var tokens: [_NaturalToken] = []
        var digits: [UInt8]? = nil
        for scalar in string.unicodeScalars {
            if let digit = digitValue(scalar) {
                if digits == nil { digits = [] }
                if digit != 0 || !digits!.isEmpty { digits!.append(digit) }
            } else {
                if let run = digits { tokens.append(.number(run)); digits = nil }
                tokens.append(.scalar(scalar))
            }
        }
        if let run = digits { tokens.append(.number(run)) }
        return tokens
    }

    /// The natural order of two folded strings.
    static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let left = tokens(lhs)
        let right = tokens(rhs)
        for (a, b) in zip(left, right) {
            let result = compare(a, b)
            if result != .orderedSame { return result }
        }
        return _compare(left.count, right.count)
    }

    static func compare(_ lhs: _NaturalToken, _ rhs: _NaturalToken) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.scalar(let a), .scalar(let b)): return _compare(a.value, b.value)
        case (.number(let a), .number(let b)):
            if a.count != b.count { return _compare(a.count, b.count) }
            return _compareBytes(a, b)
        case (.number, .scalar(let b)): return _compare(0x30, b.value)
        case (.scalar(let a), .number): return _compare(a.value, 0x30)
        }
    }
}
