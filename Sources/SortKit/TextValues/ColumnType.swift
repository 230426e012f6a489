import Foundation

/// The type of a text column, inferred from its values.
///
///     ColumnType.infer(["10", "2", "", "9"])         // .integer: blanks don't count
///     ColumnType.infer(["1.5", "2"])                 // .float
///     ColumnType.infer(["2024-01-02", "2023-12-31"]) // .date
///     ColumnType.infer(["true", "FALSE"])            // .bool
///     ColumnType.infer(["10", "n/a"])                // .string
///
/// A column whose non-blank values all parse as 64-bit integers is ``integer``; as decimal
/// numbers, ``float``; as ISO 8601 dates or date-times (``ISODate``), ``date``; as `true` or
/// `false` (any case), ``bool``; otherwise ``string``. A column with no non-blank value is
/// ``string``. Blank (empty or only spaces) is null whatever the type.
public enum ColumnType: String, Sendable, Hashable, CaseIterable, Codable {
    case integer, float, date, bool, string

    /// The type of a column with these values.
    ///
    /// - Complexity: O(*n*) in the total length of the values.
    public static func infer<Values: Sequence<String>>(_ values: Values) -> ColumnType {
        var inference = _TypeInference()
        for value in values {
            inference.add(value)
            if inference.isSettled { break }
        }
        return inference.type
    }

    /// The sort value of one cell of a column of this type: null for blank, the parsed value,
    /// or the text itself — as written, spaces included — for strings and text that doesn't
    /// parse.
    ///
    ///     ColumnType.integer.sortValue(" 42")   // .integer(42)
    ///     ColumnType.integer.sortValue("")      // .null
    ///     ColumnType.string.sortValue(" b ")    // .string(" b ")
    public func sortValue(_ text: String) -> SortValue {
        if self == .string { return _isBlank(text) ? .null : .string(text) }
        let trimmed = _trimmed(text)
        if trimmed.isEmpty { return .null }
        return parse(trimmed) ?? .string(text)
    }

    /// The value of non-blank, trimmed text, or `nil` if it doesn't parse as this type.
    internal func parse(_ text: String) -> SortValue? {
        switch self {
        case .integer: Int64(text).map(SortValue.integer)
        // An integral value stays an integer: `9007199254740993` and `9007199254740992` are two
        // values in a column that also holds `0.5` (as Doubles they were one). Integers and
        // doubles compare by exact value.
        case .float: _parseDecimal(text)
        case .date: ISODate.parse(text).map(SortValue.date)
        case .bool:
            switch text.lowercased() {
            case "true": .bool(true)
            case "false": .bool(false)
            default: nil
            }
        case .string: .string(text)
        }
    }
}

/// `text` without leading and trailing whitespace: the bounds found by index from each end
/// (only the whitespace is walked) and the rest copied once — linear in the whitespace, not in
/// the text (a 20 MB cell ending in a space took 12 s to trim through a reversed view).
internal func _trimmed(_ text: String) -> String {
    // Most cells start and end with an ASCII letter or digit: no Unicode property lookup.
    let utf8 = text.utf8
    if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return text }
    let scalars = text.unicodeScalars
    var start = scalars.startIndex, end = scalars.endIndex
    while start < end, _isWhitespace(scalars[start]) { start = scalars.index(after: start) }
    while end > start {
        let before = scalars.index(before: end)
        guard _isWhitespace(scalars[before]) else { break }
        end = before
    }
    if start == scalars.startIndex && end == scalars.endIndex { return text }
    return String(scalars[start..<end])
}

/// Whether `text` is empty or only whitespace, reading no further than its first other scalar
/// (by Unicode scalar: a space a combining mark joins is not blank), from its UTF-8 in place
/// (the scalar view's generic `allSatisfy` was 2% of `sortkit view` on multilingual text).
package func _isBlank(_ text: String) -> Bool {
    _withUTF8(text) { _isBlank($0) }
}

/// `scalar.properties.isWhitespace` without the property lookup (5% of `sortkit view` on
/// multilingual text, where most cells start with a letter above ASCII): Unicode's
/// White_Space property is a fixed set of 25 code points (PropList.txt; stable by policy, and
/// checked against the lookup for every scalar by a test).
@inlinable
package func _isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
    default: false
    }
}

/// Column type inference fed one value at a time: ``ColumnType/infer(_:)`` over a stream, and
/// over slices of a column on several cores (``merge(_:)``).
package struct _TypeInference: Sendable {
    /// The types every value so far parses as, one bit each (a `Set` hashed on every value
    /// was most of typing a column).
    private var candidates: UInt8 = 0b1111
    private static let order: [ColumnType] = [.integer, .float, .date, .bool]

    @inline(__always)
    private static func bit(_ type: ColumnType) -> UInt8 {
        switch type {
        case .integer: 1
        case .float: 2
        case .date: 4
        case .bool: 8
        case .string: 0
        }
    }
    private var sawValue = false

    package init() {}

    package mutating func add(_ raw: String) {
        guard candidates != 0 else { return }
        let text = _trimmed(raw)
        if text.isEmpty { return }
        sawValue = true
        for candidate in Self.order where candidates & Self.bit(candidate) != 0 && candidate.parse(text) == nil {
            candidates &= ~Self.bit(candidate)
        }
    }

    /// ``add(_:)`` for a cell's UTF-8 bytes: plain digits and plain decimals are classified
    /// without a `String` or a parse (a whole 1M-row column in a few milliseconds).
    package mutating func add(utf8 cell: UnsafeBufferPointer<UInt8>) {
        guard candidates != 0 else { return }
        switch _NumberShape(cell) {
        case .digits:
            // Int64 and a decimal read up to 18 digits; never a date (no '-') or a bool.
            sawValue = true
            candidates &= Self.bit(.integer) | Self.bit(.float)
        case .decimal:
            // Digits '.' digits: a decimal, not an integer, date or bool.
            sawValue = true
            candidates &= Self.bit(.float)
        case .other where ISODate._isPlainDate(cell):
            // A valid YYYY-MM-DD: a date, nothing else.
            sawValue = true
            candidates &= Self.bit(.date)
        case .other:
            add(String(decoding: cell, as: UTF8.self))
        }
    }

    /// Whether more values can't change the type (it is ``ColumnType/string``).
    package var isSettled: Bool { candidates == 0 }

    /// Takes in what another inference saw.
    package mutating func merge(_ other: _TypeInference) {
        candidates &= other.candidates
        sawValue = sawValue || other.sawValue
    }

    package var type: ColumnType {
        guard sawValue else { return .string }
        for type in Self.order where candidates & Self.bit(type) != 0 { return type }
        return .string
    }
}

/// ``ColumnType/sortValue(_:)`` of an ``ColumnType/integer`` or ``ColumnType/float`` cell
/// whose UTF-8 has a plain shape (``_NumberShape``), read from the bytes; `nil` for any other
/// cell or type, which the `String` path reads. Digits are an integer in both types (as
/// `_parseDecimal` reads them); a decimal is its digits as one integer (at most 15 digits, below
/// 2^53) divided by a power of ten up to 10^6: both exact, so the one rounded division is the
/// correctly rounded value `Double(text)` gives.
///
///     _plainNumberValue(bytes("92.61"), columnType: .float)   // .double(92.61)
///     _plainNumberValue(bytes("007"), columnType: .integer)   // .integer(7)
///     _plainNumberValue(bytes("-5"), columnType: .integer)    // nil: a sign isn't plain
package func _plainNumberValue(_ cell: UnsafeBufferPointer<UInt8>, columnType: ColumnType) -> SortValue? {
    // One pass checks the shape and reads the digits (a second pass for the shape was 4% of a
    // number key's `sortkit view`).
    guard columnType == .integer || columnType == .float, (1...18).contains(cell.count) else { return nil }
    var digits: Int64 = 0, point = -1
    for index in cell.indices {
        let byte = cell[index], digit = byte &- 0x30
        if digit < 10 {
            digits = digits &* 10 &+ Int64(digit)
        } else if byte == 0x2E, point < 0 {
            point = index
        } else {
            return nil
        }
    }
    if point < 0 { return .integer(digits) }
    let fractionDigits = cell.count - point - 1
    guard columnType == .float, (1...9).contains(point), (1...6).contains(fractionDigits) else { return nil }
    return .double(Double(digits) / _powersOfTen[fractionDigits])
}

/// 10^0 … 10^6, exact as `Double`s.
private let _powersOfTen: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

/// The shapes of number text that are typed without parsing: 1–18 ASCII digits, or 1–9
/// digits, a point and 1–6 digits. Anything else (signs, spaces, exponents, longer numbers)
/// is `other`.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public enum _NumberShape: Equatable, Sendable {
    case digits, decimal, other

    @inlinable
    package init(_ cell: UnsafeBufferPointer<UInt8>) {
        var point = -1
        for index in cell.indices {
            let byte = cell[index]
            if byte == 0x2E, point < 0 {
                point = index
            } else if byte < 0x30 || byte > 0x39 {
                self = .other
                return
            }
        }
        if point < 0 {
            self = (1...18).contains(cell.count) ? .digits : .other
        } else {
            self = (1...9).contains(point) && (1...6).contains(cell.count - point - 1) ? .decimal : .other
        }
    }
}
