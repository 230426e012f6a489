import Foundation

/// One key of a multi-key sort of `Row` values: what to sort by, in which direction, with which
/// string collation and where nulls go.
///
/// Combine keys into an array; the first key decides, later keys break its ties, and rows that
/// tie on every key keep their input order (every SortKit sort is stable):
///
///     struct Book { var title: String; var author: String; var price: Double?; var status: Status }
///     enum Status: CaseIterable { case todo, reading, done }
///
///     books.sorted(by: [
///         SortKey(declaredOrderOf: \.status),        // todo < reading < done
///         SortKey(\.author),                         // natural collation: "Ng" < "ng 2" < "Ng 10"
///         SortKey(\.price, .descending),             // nulls last in both directions
///     ])
///
/// A key sorts by one of three things:
/// - a value (a key path to a ``SortValueConvertible`` property, an extractor closure, or an
///   enum's rank in a declared or explicit order) — such keys are encoded once per row, so a
///   sort compares precomputed values instead of calling closures;
/// - a `Comparable` property of any other type, compared with `<`;
/// - a full comparator closure, for orders no value expresses (semantic versions, say).
public struct SortKey<Row>: Sendable {
    @usableFromInline
    internal enum _Source: Sendable {
        /// A value per row; encodable.
        case value(@Sendable (Row) -> SortValue)
        /// A comparison of two rows, with an optional null test so the null policy applies.
        case comparator(isNull: (@Sendable (Row) -> Bool)?, compare: @Sendable (Row, Row) -> ComparisonResult)
    }

    @usableFromInline
    internal var _source: _Source

    /// For a key path to a stored property: reads the value straight from a row's memory at
    /// the property's offset, which is several times faster than applying the key path. Used
    /// when rows are stored contiguously.
    @usableFromInline
    internal var _load: (@Sendable (UnsafeRawPointer) -> SortValue)? = nil

    /// For a key path to a stored `String` property: its offset in the row, so a top-k
    /// selection can compare the string where it is stored, without retaining it (strings
    /// shared by many rows are retained from every core, which contends).
    @usableFromInline
    internal var _stringOffset: Int? = nil

    /// For a value that is a row's text (`.string`, blank text null) stored as valid UTF-8: the
    /// row's bytes, so that a top-k selection compares them where they are, without a `String`
    /// per row (a CSV page's key column; ``SortSpec/Key/_sortKeys(readingText:utf8:columnType:)``).
    /// `nil` from it for a row whose text isn't stored so. The bytes must outlive the selection.
    @usableFromInline
    internal var _utf8: (@Sendable (Row) -> UnsafeBufferPointer<UInt8>?)? = nil

    /// What the key sorts by, for equality: a key path (with how it is read), a name given
    /// with ``named(_:)``, or — for closures — a token unique to this key and its copies.
    @usableFromInline
    internal var _identity: _SortKeyIdentity

    /// The key's direction.
    public var direction: SortDirection
    /// How string values compare.
    public var collation: Collation
    /// Where null values go.
    public var nulls: NullPlacement

    @usableFromInline
    internal init(
        _source: _Source, direction: SortDirection, collation: Collation, nulls: NullPlacement,
        identity: _SortKeyIdentity? = nil
    ) {
        self._source = _source
        self._identity = identity ?? .unique(_SortKeyToken())
        self.direction = direction
        self.collation = collation
        self.nulls = nulls
    }

    /// Whether this key sorts by a precomputable value (as opposed to a comparator).
    public var isValueKey: Bool {
        if case .value = _source { return true }
        return false
    }

    /// Whether `row` is null for this key: its value is null, or a comparator key's null test
    /// says so. Null rows go where ``nulls`` puts them, in either direction.
    ///
    ///     SortKey(\Book.price).isNull(bookWithoutPrice)   // true
    public func isNull(_ row: Row) -> Bool {
        switch _source {
        case .value(let extract): extract(row).isNull
        case .comparator(let isNull, _): isNull?(row) ?? false
        }
    }

    /// The key's sort value for `row`, or `nil` for a comparator key.
    ///
    ///     SortKey(\Book.price).value(for: book)   // .double(12.5)
    public func value(for row: Row) -> SortValue? {
        if case .value(let extract) = _source { return extract(row) }
        return nil
    }

    /// This key in the other direction.
    public var reversed: SortKey {
        var key = self
        key.direction = direction.reversed
        return key
    }

    /// Compares two rows by this key, direction and null placement applied.
    ///
    ///     SortKey(\Book.price, .descending).compare(cheap, dear)   // .orderedDescending
    public func compare(_ lhs: Row, _ rhs: Row) -> ComparisonResult {
        switch _source {
        case .value(let extract):
            return compareValues(extract(lhs), extract(rhs))
        case .comparator(let isNull, let compare):
            if let isNull {
                let (a, b) = (isNull(lhs), isNull(rhs))
                if a || b { return nulls._compareNulls(a, b, direction) }
            }
            return direction._apply(compare(lhs, rhs))
        }
    }

    /// Compares two of this key's values, direction and null placement applied.
    public func compareValues(_ lhs: SortValue, _ rhs: SortValue) -> ComparisonResult {
        if lhs.isNull || rhs.isNull { return nulls._compareNulls(lhs.isNull, rhs.isNull, direction) }
        return direction._apply(SortValue.compare(lhs, rhs, collation: collation))
    }
}

extension Array {
    /// Compares two values by a list of sort keys: the first key that doesn't tie decides.
    ///
    ///     [SortKey(\Book.author), SortKey(\.title)].compare(a, b)
    public func compare<Row>(_ lhs: Row, _ rhs: Row) -> ComparisonResult where Element == SortKey<Row> {
        for key in self {
            let result = key.compare(lhs, rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }

    /// A predicate for the standard library's `sort(by:)` and friends.
    ///
    ///     let predicate = [SortKey(\Book.price)].areInIncreasingOrder
    ///     books.min(by: predicate)
    public func areInIncreasingOrder<Row>() -> (Row, Row) -> Bool where Element == SortKey<Row> {
        { self.compare($0, $1) == .orderedAscending }
    }
}

/// One row's keys prepared for many comparisons with other rows — a binary search for where
/// the row goes: its values are read once, and a string value's sort key is built once and
/// compared with each other string as that string's key is generated (ASCII stops at the
/// first differing byte), instead of building both keys at every comparison.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public struct _SortProbe<Row> {
    // Inlinable, so that a caller's specialized code (SortByIndex's binary search) compares
    // without generic metadata lookups per key.
    @usableFromInline let keys: [SortKey<Row>]
    @usableFromInline let row: Row
    @usableFromInline let values: [SortValue?]
    /// The sort key of each string value (non-binary collations), else `nil`.
    @usableFromInline let stringKeys: [[UInt8]?]
    @usableFromInline var scratch = _KeyScratch()

    @inlinable
    package init(keys: [SortKey<Row>], row: Row) {
        self.keys = keys
        self.row = row
        values = keys.map { $0.value(for: row) }
        stringKeys = zip(keys, values).map { key, value in
            if case .string(let text)? = value { return key.collation.sortKey(for: text) }
            return nil
        }
    }

    /// How `other` compares with the probe's row: the first key that doesn't tie decides.
    @inlinable
    package mutating func compare(_ other: Row) -> ComparisonResult {
        withUnsafePointer(to: other) { compare(at: $0) }
    }

    /// How the row at `pointer` compares with the probe's row, read in place: a caller that
    /// holds rows in an array passes `base + i`, where passing `rows[i]` copies the row (and
    /// retains each of its fields) for this generic code.
    @inlinable
    package mutating func compare(at pointer: UnsafePointer<Row>) -> ComparisonResult {
        let raw = UnsafeRawPointer(pointer)
        for index in keys.indices {
            let key = keys[index]
            let result: ComparisonResult
            if let stringKey = stringKeys[index], let offset = key._stringOffset {
                // A stored String property, compared where it is stored (no copy, no retain).
                let text = (raw + offset).assumingMemoryBound(to: String.self)
                result = key.direction._apply(
                    stringKey.withUnsafeBufferPointer { key.collation.compare(stringAt: text, toSortKey: $0, scratch: &scratch) })
            } else if let value = values[index], let otherValue = key._load.map({ $0(raw) }) ?? key.value(for: pointer.pointee) {
                if let stringKey = stringKeys[index], case .string(let text) = otherValue {
                    result = key.direction._apply(key.collation.compare(text, toSortKey: stringKey, scratch: &scratch))
                } else {
                    result = key.compareValues(otherValue, value)
                }
            } else {
                result = key.compare(pointer.pointee, row)
            }
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}
