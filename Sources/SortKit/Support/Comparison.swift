import Foundation

// The helpers below sit under every other folder of SortKit: they use nothing of it, and
// collation, values, keys and the engine all compare through them.

/// The three-way order of two comparable values.
///
///     _compare(1, 2)      // .orderedAscending
///     _compare("b", "b")  // .orderedSame
@inlinable
internal func _compare<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
}
