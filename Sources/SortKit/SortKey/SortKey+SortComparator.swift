import Foundation

/// A ``SortKey`` is a Foundation `SortComparator`: hand it (or an array of keys) to anything that
/// takes one — `sorted(using:)`, SwiftUI's `Table(_:sortOrder:)` and `TableColumn(_:sortUsing:)`.
///
///     let keys = [SortKey(\Book.author), SortKey(\Book.price, .descending)]
///     books.sorted(using: keys)   // SortKit's engine, the same order as sorted(by: keys)
///
/// Flipping `order` flips ``SortKey/direction`` and nothing else: nulls stay where
/// ``SortKey/nulls`` puts them (last, by default, in both orders) and strings keep the key's
/// collation — where a comparator that merely reversed its result would move nulls first.
extension SortKey: SortComparator {
    /// The key's direction in Foundation's terms: `.forward` is ascending, `.reverse`
    /// descending. SwiftUI's `Table` sets it when a header is clicked.
    public var order: SortOrder {
        get { direction.order }
        set { direction = SortDirection(newValue) }
    }
}

extension Sequence {
    /// Sorts by one SortKit key with SortKit's engine — this overload is chosen over Foundation's
    /// generic `sorted(using:)`, which would call ``SortKey/compare(_:_:)`` for every comparison.
    /// Stable.
    ///
    ///     books.sorted(using: SortKey(\.price, .descending))
    @inlinable
    public func sorted(using key: SortKey<Element>) -> [Element] {
        sorted(by: [key])
    }

    /// Sorts by SortKit keys — an array, a slice, a lazy map — with SortKit's engine: the same
    /// order as `sorted(by:)` and the same speed. Stable.
    ///
    ///     books.sorted(using: [SortKey(\.author), SortKey(\.title)])
    @inlinable
    public func sorted<Keys: Sequence>(using keys: Keys) -> [Element] where Keys.Element == SortKey<Element> {
        sorted(by: Array(keys))
    }

    /// Sorts by a ``SortKeys`` comparator with SortKit's engine. Stable.
    @inlinable
    public func sorted(using keys: SortKeys<Element>) -> [Element] {
        sorted(by: keys.effectiveKeys)
    }

    /// Sorts by ``SortKeys`` comparators — a SwiftUI `Table`'s `sortOrder` when its columns
    /// sort by several keys each — with SortKit's engine. Stable.
    @inlinable
    public func sorted<Lists: Sequence>(using lists: Lists) -> [Element] where Lists.Element == SortKeys<Element> {
        sorted(by: lists.flatMap(\.effectiveKeys))
    }
}

extension Sequence where Element: Sendable {
    /// `sorted(using:)` for `Sendable` rows: a large input's keys are read on several cores.
    @inlinable
    public func sorted(using key: SortKey<Element>) -> [Element] {
        sorted(by: [key])
    }

    /// `sorted(using:)` for `Sendable` rows: a large input's keys are read on several cores.
    @inlinable
    public func sorted<Keys: Sequence>(using keys: Keys) -> [Element] where Keys.Element == SortKey<Element> {
        sorted(by: Array(keys))
    }

    /// `sorted(using:)` for `Sendable` rows: a large input's keys are read on several cores.
    @inlinable
    public func sorted(using keys: SortKeys<Element>) -> [Element] {
        sorted(by: keys.effectiveKeys)
    }

    /// `sorted(using:)` for `Sendable` rows: a large input's keys are read on several cores.
    @inlinable
    public func sorted<Lists: Sequence>(using lists: Lists) -> [Element] where Lists.Element == SortKeys<Element> {
        sorted(by: lists.flatMap(\.effectiveKeys))
    }
}

extension MutableCollection where Self: RandomAccessCollection, Index == Int {
    /// Sorts in place by one SortKit key with SortKit's engine. Stable.
    ///
    ///     books.sort(using: SortKey(\.title))
    @inlinable
    public mutating func sort(using key: SortKey<Element>) {
        _sort(by: [key], parallel: false)
    }

    /// Sorts in place by SortKit keys with SortKit's engine. Stable.
    @inlinable
    public mutating func sort<Keys: Sequence>(using keys: Keys) where Keys.Element == SortKey<Element> {
        _sort(by: Array(keys), parallel: false)
    }

    /// Sorts in place by a ``SortKeys`` comparator with SortKit's engine. Stable.
    @inlinable
    public mutating func sort(using keys: SortKeys<Element>) {
        _sort(by: keys.effectiveKeys, parallel: false)
    }

    /// Sorts in place by ``SortKeys`` comparators with SortKit's engine. Stable.
    @inlinable
    public mutating func sort<Lists: Sequence>(using lists: Lists) where Lists.Element == SortKeys<Element> {
        _sort(by: lists.flatMap(\.effectiveKeys), parallel: false)
    }
}

extension MutableCollection where Self: RandomAccessCollection, Index == Int, Element: Sendable {
    /// `sort(using:)` for `Sendable` elements: a large input's keys are read on several cores.
    @inlinable
    public mutating func sort(using key: SortKey<Element>) {
        _sort(by: [key], parallel: true)
    }

    /// `sort(using:)` for `Sendable` elements: a large input's keys are read on several cores.
    @inlinable
    public mutating func sort<Keys: Sequence>(using keys: Keys) where Keys.Element == SortKey<Element> {
        _sort(by: Array(keys), parallel: true)
    }

    /// `sort(using:)` for `Sendable` elements: a large input's keys are read on several cores.
    @inlinable
    public mutating func sort(using keys: SortKeys<Element>) {
        _sort(by: keys.effectiveKeys, parallel: true)
    }

    /// `sort(using:)` for `Sendable` elements: a large input's keys are read on several cores.
    @inlinable
    public mutating func sort<Lists: Sequence>(using lists: Lists) where Lists.Element == SortKeys<Element> {
        _sort(by: lists.flatMap(\.effectiveKeys), parallel: true)
    }
}
