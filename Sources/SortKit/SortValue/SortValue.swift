import Foundation

/// The value a cell sorts by: null, a boolean, an integer, a floating-point number, a date or a
/// string.
///
/// Sort values have one total, transitive order, also across types. Ascending it is:
/// numbers (integers and floating-point numbers compared by value, NaN after every other number)
/// < dates < strings < booleans (`false` < `true`). Nulls are placed by a key's
/// ``NullPlacement``; in the plain `Comparable` order of this type they are the smallest values.
///
///     let values: [SortValue] = ["b", 10, true, 9.5, nil, "a", .date(.distantPast)]
///     values.sorted()
///     // [nil, 9.5, 10, .date(.distantPast), "a", "b", true]
///
/// Equality follows the order: `SortValue.integer(9) == SortValue.double(9)` is `true`, NaN
/// equals NaN, and canonically equivalent strings ("é" precomposed or decomposed) are equal.
/// Strings compare under ``Collation/default`` (natural) here, as everywhere a collation isn't
/// named; a ``SortKey`` or a ``SortSpec`` chooses another. Only canonically equivalent strings
/// are equal under any collation (folding collations break their ties by code points), so
/// equality and hashing don't depend on it.
public enum SortValue: Sendable {
    /// No value: a blank cell or `nil`.
    case null
    /// A boolean; booleans sort after every other type.
    case bool(Bool)
    /// A 64-bit integer, compared by value with ``double(_:)`` values.
    case integer(Int64)
    /// An integer beyond 64 bits (text such as `12345678901234567890123` reads as one), compared
    /// by exact value with every other number. Only values outside `Int64`'s range: a value
    /// that fits is always ``integer(_:)``. Integers beyond 128 bits read as ``double(_:)``.
    /// (Boxed: an inline `Int128` payload would align every value to 16 bytes and make arrays
    /// of them a third larger, for values that are rare.)
    indirect case largeInteger(Int128)
    /// A floating-point number; NaN sorts after every other number.
    case double(Double)
    /// A point in time; dates sort after numbers and before strings.
    case date(Date)
    /// A string; strings sort after dates and before booleans.
    case string(String)
}

extension SortValue {
    /// Whether the value is ``null``.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The rank of the value's type in the cross-type order: numbers 0, dates 1, strings 2,
    /// booleans 3, null 4.
    @inlinable
    internal var _typeRank: Int {
        switch self {
        case .integer, .largeInteger, .double: 0
        case .date: 1
        case .string: 2
        case .bool: 3
        case .null: 4
        }
    }
}

extension SortValue: CustomStringConvertible {
    /// A readable form: numbers and booleans as Swift prints them, dates in ISO 8601, strings
    /// quoted, and `null`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .largeInteger(let value): String(value)
        case .double(let value): String(value)
        case .date(let value): ISODate.format(value)
        case .string(let value): "\"\(value)\""
        }
    }
}

extension SortValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    /// Creates ``null``.
    public init(nilLiteral: ()) { self = .null }
    /// Creates ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Creates ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension SortValue {
    /// An integer as a sort value: ``integer(_:)`` when it fits 64 bits, else ``largeInteger(_:)``.
    ///
    ///     SortValue(exactly: Int128(Int64.max) + 1)   // .largeInteger(9223372036854775808)
    public init(exactly value: Int128) {
        if let small = Int64(exactly: value) { self = .integer(small) } else { self = .largeInteger(value) }
    }
}
