import Foundation

/// Eight bytes that keep the order of one key's values where they differ: the first bytes of
/// a string's sort key, or a number's bits in an order-preserving form. Where two fences of
/// the same kind differ, the values differ in the same way; where they are equal (strings
/// sharing a prefix, or a value with no fence: null, a comparator key, a date against a
/// number) only the values can tell.
///
/// What `SortBy`'s replicas keep per block of ids: an update's binary search over the blocks
/// compares its row's fence with the blocks' (one array, no row read) and reads a block's
/// last row only where the fences tie. Public only so that its `@inlinable` members inline
/// in SortKit's other modules; not API.
///
///     let key = SortKey(\Book.title)
///     let a = _SortFence(key, value: .string("Dune")), b = _SortFence(key, value: .string("Emma"))
///     a.order(of: b)   // .orderedDescending: b's row goes after a's
@frozen
public struct _SortFence: Equatable, Sendable {
    /// 0: no fence (it decides nothing); 1: a string's sort key; 2: a number; 3: a date.
    @usableFromInline let kind: UInt8
    @usableFromInline let bits: UInt64

    @inlinable init(kind: UInt8, bits: UInt64) {
        self.kind = kind
        self.bits = bits
    }

    /// The fence that decides nothing.
    @inlinable package static var undecided: _SortFence { _SortFence(kind: 0, bits: 0) }

    /// The fence of `value` under `key` (its collation; the direction is applied by
    /// ``order(of:direction:)``).
    @inlinable package init<Row>(_ key: SortKey<Row>, value: SortValue?) {
        switch value {
        case .string(let text)?: self.init(sortKey: key.collation.sortKey(for: text))
        case .integer(let integer)?: self.init(number: Double(integer))
        case .double(let double)?: self.init(number: double)
        case .date(let date)?: self.init(number: date.timeIntervalSinceReferenceDate, kind: 3)
        default: self = .undecided
        }
    }

    /// The fence of a string whose sort key is `key`: its first eight bytes, big-endian, zeros
    /// after a shorter key (a key that is a prefix of another sorts first, and its zeros
    /// never make its fence the larger).
    @inlinable package init(sortKey key: [UInt8]) {
        var bits: UInt64 = 0
        for index in 0..<8 { bits = bits << 8 | UInt64(index < key.count ? key[index] : 0) }
        self.init(kind: 1, bits: bits)
    }

    /// A number's fence: the double's bits flipped so that unsigned order is numeric order
    /// (rounding an integer to a double never reverses two integers' order, so fences that
    /// differ still tell). Zero and minus zero, equal numbers, get one fence; NaN gets none.
    /// `kind` 3: a date's seconds, which never compare with numbers.
    @inlinable init(number: Double, kind: UInt8 = 2) {
        guard !number.isNaN else {
            self = .undecided
            return
        }
        let pattern = (number == 0 ? 0.0 : number).bitPattern
        self.init(kind: kind, bits: pattern & (1 << 63) != 0 ? ~pattern : pattern | 1 << 63)
    }

    /// How a row fenced by `other` compares with this fence's row under a key in `direction`
    /// (as ``_SortProbe/compare(at:)`` answers), or `nil` when the fences can't tell.
    @inlinable package func order(of other: _SortFence, direction: SortDirection) -> ComparisonResult? {
        guard kind != 0, other.kind == kind, other.bits != bits else { return nil }
        let ascending: ComparisonResult = other.bits < bits ? .orderedAscending : .orderedDescending
        return direction == .ascending ? ascending : ascending.reversed
    }
}

extension _SortProbe {
    /// The fence of the probe's row under its first key (made from what the probe already
    /// read: no key is computed again).
    @inlinable package var fence: _SortFence {
        guard let key = keys.first, let value = values.first ?? nil else { return .undecided }
        if let stringKey = stringKeys.first ?? nil { return _SortFence(sortKey: stringKey) }
        return _SortFence(key, value: value)
    }
}
