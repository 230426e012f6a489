import Foundation

/// A type whose values convert to a ``SortValue``, so that a ``SortKey`` can sort by it and
/// the fast engine can encode it once per row instead of comparing through closures.
///
/// The standard integer and floating-point types, `Bool`, `String`, `Substring`, `Date`,
/// `Decimal` and `Optional` of any of them conform. Conform your own types to sort by them:
///
///     struct Money: SortValueConvertible {
///         var cents: Int
///         var sortValue: SortValue { .integer(Int64(cents)) }
///     }
///     [Money(cents: 250), Money(cents: 99)].sorted(by: [SortKey(\.self)])
///     // [Money(cents: 99), Money(cents: 250)]
public protocol SortValueConvertible {
    /// The value this instance sorts by.
    var sortValue: SortValue { get }
}

extension SortValue: SortValueConvertible {
    /// The value itself.
    @inlinable public var sortValue: SortValue { self }
}

extension Optional: SortValueConvertible where Wrapped: SortValueConvertible {
    /// ``SortValue/null`` for `nil`, otherwise the wrapped value's sort value.
    @inlinable public var sortValue: SortValue { self?.sortValue ?? .null }
}

extension Bool: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .bool(self) }
}

extension String: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .string(self) }
}

extension Substring: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .string(String(self)) }
}

extension Date: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .date(self) }
}

extension Double: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .double(self) }
}

extension Float: SortValueConvertible {
    @inlinable public var sortValue: SortValue { .double(Double(self)) }
}

extension Decimal: SortValueConvertible {
    /// The nearest `Double`; decimals that differ beyond a double's precision sort as equal.
    public var sortValue: SortValue { .double(NSDecimalNumber(decimal: self).doubleValue) }
}

extension SortValueConvertible where Self: FixedWidthInteger {
    /// The integer; one above `Int64.max` (a large `UInt` or `UInt64`) as the nearest double.
    @inlinable public var sortValue: SortValue {
        if let exact = Int64(exactly: self) { return .integer(exact) }
        return .double(Double(self))
    }
}

// The standard integers sort as their values, by the `FixedWidthInteger` default above.
extension Int: SortValueConvertible {}
extension Int8: SortValueConvertible {}
extension Int16: SortValueConvertible {}
extension Int32: SortValueConvertible {}
extension Int64: SortValueConvertible {}
extension UInt: SortValueConvertible {}
extension UInt8: SortValueConvertible {}
extension UInt16: SortValueConvertible {}
extension UInt32: SortValueConvertible {}
extension UInt64: SortValueConvertible {}
