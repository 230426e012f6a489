import Foundation

extension SortKey {
    /// Sorts by a property whose type converts to a ``SortValue``: `String`, `Int`, `Double`,
    /// `Date`, `Bool`, optionals of them, or your own ``SortValueConvertible`` type.
    ///
    ///     people.sorted(by: [SortKey(\.lastName), SortKey(\.age, .descending)])
    ///     tasks.sorted(by: [SortKey(\.dueDate, nulls: .first)])   // dueDate: Date?
    ///
    /// - Parameters:
    ///   - keyPath: The property.
    ///   - direction: Ascending (default) or descending.
    ///   - collation: How strings compare; ``Collation/natural`` by default.
    ///   - nulls: Where nulls go; ``NullPlacement/last`` by default.
    @inlinable
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ keyPath: any KeyPath<Row, Value> & Sendable, _ direction: SortDirection = .ascending,
        collation: Collation = .default, nulls: NullPlacement = .last
    ) {
        self.init(
            _source: .value { $0[keyPath: keyPath].sortValue }, direction: direction, collation: collation, nulls: nulls,
            identity: .keyPath(_KeyPathBox(keyPath), .value))
        if let offset = MemoryLayout<Row>.offset(of: keyPath) {
            _load = { $0.load(fromByteOffset: offset, as: Value.self).sortValue }
            if Value.self == String.self { _stringOffset = offset }
        }
    }

    /// Sorts by a `Comparable` property of a type that has no sort value, compared with `<`.
    ///
    ///     releases.sorted(by: [SortKey(comparable: \.version)])   // SemanticVersion: Comparable
    ///
    /// Prefer a ``SortValueConvertible`` property where there is one: such keys are encoded once
    /// per row, where this one calls `<` for every comparison.
    @inlinable
    public init<Value: Comparable & SendableMetatype>(
        comparable keyPath: any KeyPath<Row, Value> & Sendable, _ direction: SortDirection = .ascending
    ) {
        self.init(
            _source: .comparator(isNull: nil) { _compare($0[keyPath: keyPath], $1[keyPath: keyPath]) },
            direction: direction, collation: .default, nulls: .last, identity: .keyPath(_KeyPathBox(keyPath), .comparable))
    }

    /// Sorts by an optional `Comparable` property of a type that has no sort value; `nil` is
    /// null.
    @inlinable
    public init<Value: Comparable & SendableMetatype>(
        comparable keyPath: any KeyPath<Row, Value?> & Sendable, _ direction: SortDirection = .ascending,
        nulls: NullPlacement = .last
    ) {
        self.init(
            _source: .comparator(isNull: { $0[keyPath: keyPath] == nil }) {
                _compare($0[keyPath: keyPath]!, $1[keyPath: keyPath]!)
            },
            direction: direction, collation: .default, nulls: nulls, identity: .keyPath(_KeyPathBox(keyPath), .comparable))
    }

    /// Sorts by a computed value.
    ///
    ///     orders.sorted(by: [SortKey(.descending) { $0.price * Double($0.quantity) }])
    @inlinable
    public init<Value: SortValueConvertible & SendableMetatype>(
        _ direction: SortDirection = .ascending, collation: Collation = .default,
        nulls: NullPlacement = .last, by value: @escaping @Sendable (Row) -> Value
    ) {
        self.init(_source: .value { value($0).sortValue }, direction: direction, collation: collation, nulls: nulls)
    }

    /// Sorts with a full comparator, for orders no single value expresses.
    ///
    ///     SortKey<Release>(comparing: { a, b in a.version.compare(b.version, options: .numeric) })
    ///
    /// The comparator's result is reversed for ``SortDirection/descending``. The fast engine
    /// calls it only to order rows that tie on the keys before it.
    @inlinable
    public init(
        _ direction: SortDirection = .ascending,
        comparing compare: @escaping @Sendable (Row, Row) -> ComparisonResult
    ) {
        self.init(_source: .comparator(isNull: nil, compare: compare), direction: direction, collation: .default, nulls: .last)
    }

    /// Sorts an enum property in the order its cases are declared — not alphabetically, and
    /// with no `Comparable` conformance or raw value needed.
    ///
    ///     enum Status: CaseIterable { case todo, reading, done }
    ///     books.sorted(by: [SortKey(declaredOrderOf: \.status)])   // todo, reading, done
    @inlinable
    public init<Value: CaseIterable & Equatable & SendableMetatype>(
        declaredOrderOf keyPath: any KeyPath<Row, Value> & Sendable, _ direction: SortDirection = .ascending
    ) where Value.AllCases: Sendable {
        self.init(keyPath, order: Array(Value.allCases), direction)
    }

    /// Sorts an optional enum property in declared case order; `nil` is null.
    @inlinable
    public init<Value: CaseIterable & Equatable & SendableMetatype>(
        declaredOrderOf keyPath: any KeyPath<Row, Value?> & Sendable, _ direction: SortDirection = .ascending,
        nulls: NullPlacement = .last
    ) where Value.AllCases: Sendable {
        self.init(keyPath, order: Array(Value.allCases), direction, nulls: nulls)
    }

    /// Sorts a property in an explicit order of values; values not in the list come after them.
    ///
    ///     SortKey(\.priority, order: ["high", "medium", "low"])
    ///
    /// - Complexity: O(*k*) per row to find the rank, where *k* is the length of `order`.
    @inlinable
    public init<Value: Equatable & SendableMetatype>(
        _ keyPath: any KeyPath<Row, Value> & Sendable, order: [Value], _ direction: SortDirection = .ascending
    ) {
        let ranks = _Ranks(order)
        self.init(
            _source: .value { ranks.rank(of: $0[keyPath: keyPath]) }, direction: direction, collation: .binary, nulls: .last,
            identity: .keyPath(_KeyPathBox(keyPath), .order(String(reflecting: order))))
        if let offset = MemoryLayout<Row>.offset(of: keyPath) {
            _load = { ranks.rank(at: $0 + offset) }
        }
    }

    /// Sorts an optional property in an explicit order of values; `nil` is null and values not
    /// in the list come after the listed ones.
    @inlinable
    public init<Value: Equatable & SendableMetatype>(
        _ keyPath: any KeyPath<Row, Value?> & Sendable, order: [Value], _ direction: SortDirection = .ascending,
        nulls: NullPlacement = .last
    ) {
        let ranks = _Ranks(order)
        self.init(
            _source: .value { row in row[keyPath: keyPath].map { ranks.rank(of: $0) } ?? .null },
            direction: direction, collation: .binary, nulls: nulls,
            identity: .keyPath(_KeyPathBox(keyPath), .order(String(reflecting: order))))
        if let offset = MemoryLayout<Row>.offset(of: keyPath) {
            _load = { $0.load(fromByteOffset: offset, as: Value?.self).map { ranks.rank(of: $0) } ?? .null }
        }
    }
}

/// An explicit order of values, kept as a box so the key's closure is `Sendable` without
/// requiring `Value: Sendable`: the values are never mutated after creation. They live in a
/// buffer rather than an array so that reading them costs no reference counting: a top-k
/// selection reads them for every row on every core, and retaining one shared array from two
/// cores made the rank lookup a sixth of the selection's time.
///
/// A one-byte plain value (a case of a payload-free enum, a `Bool`) is also ranked by a table
/// of its byte: the closures that read ranks run unspecialized, where each `==` of the scan is
/// a call through the type's witness table, and a top-k selection asks once per row. A byte
/// the table doesn't hold (a value outside the list) takes the scan, so the answer is the
/// scan's for every value.
@usableFromInline
internal final class _Ranks<Value: Equatable>: @unchecked Sendable {
    @usableFromInline let order: UnsafeMutableBufferPointer<Value>
    /// Per byte, the rank of the listed value with that byte, or `UInt8.max`; empty unless
    /// `Value` is a one-byte plain type and the list is shorter than 255.
    @usableFromInline let byteRanks: UnsafeMutableBufferPointer<UInt8>

    @inlinable init(_ order: [Value]) {
        self.order = .allocate(capacity: order.count)
        _ = self.order.initialize(from: order)
        guard _isPOD(Value.self), MemoryLayout<Value>.size == 1, order.count < Int(UInt8.max) else {
            byteRanks = UnsafeMutableBufferPointer(start: nil, count: 0)
            return
        }
        byteRanks = .allocate(capacity: 256)
        byteRanks.initialize(repeating: UInt8.max)
        for value in order {
            let byte = withUnsafeBytes(of: value) { $0[0] }
            byteRanks[Int(byte)] = UInt8(Self.scan(value, in: self.order))
        }
    }

    deinit {
        order.deinitialize()
        order.deallocate()
        byteRanks.deallocate()
    }

    @inlinable func rank(of value: Value) -> SortValue {
        .integer(Int64(Self.scan(value, in: order)))
    }

    /// The rank of the value stored at `pointer`, read in place.
    @inlinable func rank(at pointer: UnsafeRawPointer) -> SortValue {
        if !byteRanks.isEmpty {
            let rank = byteRanks[Int(pointer.load(as: UInt8.self))]
            if rank != UInt8.max { return .integer(Int64(rank)) }
        }
        return rank(of: pointer.load(as: Value.self))
    }

    @inlinable static func scan(_ value: Value, in order: UnsafeMutableBufferPointer<Value>) -> Int {
        var rank = 0
        while rank < order.count, order[rank] != value { rank += 1 }
        return rank
    }
}
