/// What a ``SortKey`` sorts by, for equality — two keys are equal when they read the same thing
/// the same way, in the same direction, collation and null placement. SwiftUI's `Table` finds a
/// column's comparator in its `sortOrder` by equality, so a key must equal the key a view builds
/// again on its next update: key-path keys do, and closure keys do once ``SortKey/named(_:)``.
@usableFromInline
internal enum _SortKeyIdentity: Hashable, Sendable {
    /// How a key path is read.
    @usableFromInline
    internal enum Reading: Hashable, Sendable {
        /// Its ``SortValue``.
        case value
        /// With `<` (a `Comparable` property).
        case comparable
        /// Its rank in an explicit order, told apart by the order's `String(reflecting:)`:
        /// values whose descriptions coincide (class instances without one) make orders that
        /// compare equal.
        case order(String)
    }

    case keyPath(_KeyPathBox, Reading)
    case name(String)
    case unique(_SortKeyToken)
}

/// A key path held for equality. Key paths are immutable once formed, but the standard library
/// doesn't mark `AnyKeyPath` `Sendable`; keys made from a `KeyPath & Sendable` only ever store
/// those.
@usableFromInline
internal struct _KeyPathBox: Hashable, @unchecked Sendable {
    @usableFromInline let keyPath: AnyKeyPath

    @inlinable init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// The identity of a closure key: equal only to itself, so copies of a key are equal and two
/// closures (which Swift can't compare) are not.
@usableFromInline
internal final class _SortKeyToken: Hashable, Sendable {
    @usableFromInline init() {}

    @usableFromInline static func == (lhs: _SortKeyToken, rhs: _SortKeyToken) -> Bool { lhs === rhs }
    @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension SortKey: Hashable {
    /// Whether two keys sort alike: the same key path read the same way (or the same name, or
    /// copies of one closure key), direction, collation and null placement.
    ///
    ///     SortKey(\Book.price) == SortKey(\Book.price)               // true
    ///     SortKey(\Book.price) == SortKey(\Book.price, .descending)  // false
    public static func == (lhs: SortKey, rhs: SortKey) -> Bool {
        lhs._identity == rhs._identity && lhs.direction == rhs.direction
            && lhs.collation == rhs.collation && lhs.nulls == rhs.nulls
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(_identity)
        hasher.combine(direction)
        hasher.combine(collation)
        hasher.combine(nulls)
    }

    /// This key with a name as its identity: keys with the same name (and direction, collation
    /// and null placement) are equal, whatever closures they hold. Give closure keys a name
    /// when a SwiftUI `Table` column sorts by them, so the column finds its key again after the
    /// view is rebuilt.
    ///
    ///     let total = SortKey<Order>(.descending) { $0.price * Double($0.quantity) }.named("total")
    ///     total == SortKey<Order>(.descending) { $0.price * Double($0.quantity) }.named("total")   // true
    public func named(_ name: String) -> SortKey {
        var key = self
        key._identity = .name(name)
        return key
    }

    /// The key's name, if it was given one with ``named(_:)`` (keys that ``SortSpec``s and
    /// ``SortFields`` make are named by their column).
    public var name: String? {
        if case .name(let name) = _identity { return name }
        return nil
    }
}
