import Foundation

/// A list of sort keys as one Foundation `SortComparator`: for an API that takes a single
/// comparator, such as SwiftUI's `TableColumn(_:sortUsing:)` — a "Name" column sorted by last
/// name, then first name.
///
///     let byName = SortKeys([SortKey(\Person.lastName), SortKey(\Person.firstName)]).named("name")
///     people.sorted(using: byName)              // SortKit's engine
///     var flipped = byName
///     flipped.order = .reverse                  // every key descending; nulls stay last
///
/// Reversing the list reverses each key's direction: null placement and collations keep
/// SortKit's meaning in both orders, and ties still keep input order.
public struct SortKeys<Row>: SortComparator, Sendable {
    /// The keys as given, most significant first.
    public var keys: [SortKey<Row>]
    /// `.forward` sorts by ``keys`` as given; `.reverse` by each key reversed.
    public var order: SortOrder
    /// The list's name, if any; see ``named(_:)``.
    public private(set) var name: String?

    /// A comparator over `keys`, in their given directions.
    public init(_ keys: [SortKey<Row>], order: SortOrder = .forward) {
        self.keys = keys
        self.order = order
    }

    /// The keys in the list's current order: as given, or each one reversed.
    public var effectiveKeys: [SortKey<Row>] {
        order == .forward ? keys : keys.map(\.reversed)
    }

    /// Compares two rows by ``effectiveKeys``: the first key that doesn't tie decides.
    public func compare(_ lhs: Row, _ rhs: Row) -> ComparisonResult {
        for key in keys {
            let result = (order == .forward ? key : key.reversed).compare(lhs, rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// This list named, so a SwiftUI column that builds it again finds it equal; lists are
    /// equal when their names (or keys, for unnamed lists) and orders are.
    public func named(_ name: String) -> SortKeys {
        var copy = self
        copy.name = name
        return copy
    }

    public static func == (lhs: SortKeys, rhs: SortKeys) -> Bool {
        guard lhs.order == rhs.order, lhs.name == rhs.name else { return false }
        return lhs.name != nil || lhs.keys == rhs.keys
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(order)
        if let name { hasher.combine(name) } else { hasher.combine(keys) }
    }
}
