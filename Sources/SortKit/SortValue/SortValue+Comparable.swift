import Foundation

extension SortValue: Comparable {
    /// Compares two values in the total order of sort values, with strings compared under
    /// `collation` (``Collation/default``, natural, unless given — the same default as
    /// ``sortKey(collation:)``) and null as the smallest value.
    ///
    ///     SortValue.compare(9, 9.5)                          // .orderedAscending
    ///     SortValue.compare(10, "5a")                        // .orderedAscending (numbers < strings)
    ///     SortValue.compare("file2", "file10")                // .orderedAscending (natural)
    ///     SortValue.compare("Éclair", "eclair", collation: .folded)
    ///     // .orderedDescending: equal when folded, so the binary tie-break decides
    ///
    /// - Complexity: O(1), or O(*m*) for two strings of total length *m*.
    public static func compare(
        _ lhs: SortValue, _ rhs: SortValue, collation: Collation = .default
    ) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return _compare(a, b)
        case (.double(let a), .double(let b)): return _compare(a, b)
        case (.integer(let a), .double(let b)): return _compare(a, b)
        case (.double(let a), .integer(let b)): return _compare(b, a).reversed
        case (.largeInteger(let a), .largeInteger(let b)): return _compare(a, b)
        case (.largeInteger(let a), .integer(let b)): return _compare(a, Int128(b))
        case (.integer(let a), .largeInteger(let b)): return _compare(Int128(a), b)
        case (.largeInteger(let a), .double(let b)): return _compare(a, b)
        case (.double(let a), .largeInteger(let b)): return _compare(b, a).reversed
        case (.date(let a), .date(let b)): return _compare(a, b)
        case (.string(let a), .string(let b)): return collation.compare(a, b)
        case (.bool(let a), .bool(let b)): return a == b ? .orderedSame : (a ? .orderedDescending : .orderedAscending)
        default: return _compare(lhs._typeRankWithNullFirst, rhs._typeRankWithNullFirst)
        }
    }

    public static func < (lhs: SortValue, rhs: SortValue) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }

    public static func == (lhs: SortValue, rhs: SortValue) -> Bool {
        compare(lhs, rhs) == .orderedSame
    }

    private var _typeRankWithNullFirst: Int { isNull ? -1 : _typeRank }
}

extension SortValue: Hashable {
    /// Hashes consistently with `==`: equal numbers hash alike whatever their type, and
    /// canonically equivalent strings hash alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .integer(let value):
            hasher.combine(2)
            if let exact = Double(exactly: value) { hasher.combine(exact) } else { hasher.combine(value) }
        case .largeInteger(let value):
            // Never equal to an `.integer`; equal to a double only when the double is exact.
            hasher.combine(2)
            if let exact = Double(exactly: value) { hasher.combine(exact) } else { hasher.combine(value) }
        case .double(let value):
            hasher.combine(2)
            if value.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(value == 0 ? 0 : value) }
        case .date(let value): hasher.combine(3); hasher.combine(value)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        }
    }
}

extension ComparisonResult {
    /// The opposite result: ascending becomes descending and the other way round.
    @inlinable
    public var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}

/// Doubles in the sort-value order: NaN after every other number and equal to NaN, -0 == 0.
@inlinable
internal func _compare(_ a: Double, _ b: Double) -> ComparisonResult {
    if a < b { return .orderedAscending }
    if b < a { return .orderedDescending }
    if a.isNaN != b.isNaN { return a.isNaN ? .orderedDescending : .orderedAscending }
    return .orderedSame
}

/// A 128-bit integer against a double by exact value.
@inlinable
internal func _compare(_ a: Int128, _ b: Double) -> ComparisonResult {
    if b.isNaN { return .orderedAscending }
    if b >= 170_141_183_460_469_231_731_687_303_715_884_105_728.0 { return .orderedAscending }
    if b < -170_141_183_460_469_231_731_687_303_715_884_105_728.0 { return .orderedDescending }
    let whole = b.rounded(.towardZero)
    let wholeInt = Int128(whole)
    if a != wholeInt { return a < wholeInt ? .orderedAscending : .orderedDescending }
    let fraction = b - whole
    return fraction > 0 ? .orderedAscending : (fraction < 0 ? .orderedDescending : .orderedSame)
}

/// An integer against a double by exact value; no rounding through `Double(a)`, which would
/// make 2^53 + 1 equal to 2^53 and break transitivity. (Every Int64 is an Int128.)
@inlinable
internal func _compare(_ a: Int64, _ b: Double) -> ComparisonResult {
    _compare(Int128(a), b)
}
