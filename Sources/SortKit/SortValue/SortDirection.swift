import Foundation

/// The direction of one sort key.
///
///     SortDirection.ascending.reversed   // .descending
public enum SortDirection: String, Sendable, Hashable, CaseIterable, Codable {
    /// Smallest first: 1, 2, 10; "a", "b".
    case ascending
    /// Largest first: 10, 2, 1; "b", "a".
    case descending

    /// The other direction.
    @inlinable
    public var reversed: SortDirection { self == .ascending ? .descending : .ascending }

    /// An ascending comparison's result as this direction orders it: unchanged ascending,
    /// reversed descending. Every layer orders by direction through this one rule.
    @inlinable
    internal func _apply(_ result: ComparisonResult) -> ComparisonResult {
        self == .ascending ? result : result.reversed
    }
}

/// Where a key puts null values (blank cells, `nil`).
///
///     // due dates, nulls last in both directions (the default)
///     SortKey(\Task.due, .descending, nulls: .last)
public enum NullPlacement: String, Sendable, Hashable, CaseIterable, Codable {
    /// Nulls after every value, ascending and descending — what spreadsheets do. The default.
    case last
    /// Nulls before every value, ascending and descending.
    case first
    /// Nulls are the smallest values: first ascending, last descending — what Foundation's
    /// `SortDescriptor` does with optionals.
    case natural

    /// Whether nulls come first for a key sorted in `direction`.
    @inlinable
    public func nullsFirst(_ direction: SortDirection) -> Bool {
        switch self {
        case .last: false
        case .first: true
        case .natural: direction == .ascending
        }
    }

    /// The order of two values of which at least one is null, for a key sorted in
    /// `direction`: equal if both are null, else the null one first or last by this placement.
    /// Every layer places nulls through this one rule.
    @inlinable
    internal func _compareNulls(_ lhsIsNull: Bool, _ rhsIsNull: Bool, _ direction: SortDirection) -> ComparisonResult {
        if lhsIsNull == rhsIsNull { return .orderedSame }
        return lhsIsNull == nullsFirst(direction) ? .orderedAscending : .orderedDescending
    }
}
