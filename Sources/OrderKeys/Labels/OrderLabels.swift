/// The 64-bit order labels of a manually ordered list, and how they are planned.
///
/// Every row keeps an integer label (`pos INTEGER`/`bigint`); the list's order is the labels'
/// order (`ORDER BY pos, id`). Labels live in [0, 2^62); the first item sits at 2^61, an append
/// adds 2^32, a prepend subtracts 2^32, and an insert between two items takes a random label in
/// the middle half of their gap. When a gap is empty, the smallest aligned power-of-two label
/// range around the insertion point whose density is under its threshold is relabelled evenly
/// (Bender, Cole, Demaine, Farach-Colton and Zito, 2002): O(log n) amortized relabels, which is
/// optimal for labels of O(log n) bits. So a typical move writes one row, and no pattern of
/// inserts makes labels grow (they are always 8 bytes) or forces a rewrite of the whole list.
///
///     var list = OrderedList<String>()
///     list.append("a")                    // [("a", 2^61)]
///     list.append("c")                    // [("c", 2^61 + 2^32)]
///     list.insert("b", after: "a")        // one write: ("b", a label between a and c)
public enum OrderLabels {
    /// Labels are below this bound: 2^62.
    public static let limit: UInt64 = 1 << 62
    /// The first item's label: 2^61, the middle of the label space.
    public static let first: UInt64 = 1 << 61
    /// The distance an append or prepend keeps from its neighbour: 2^32.
    public static let step: UInt64 = 1 << 32

    /// The density threshold's base: an aligned range of 2^ℓ labels may hold at most
    /// (2 / growth)^ℓ items after an insert, but never fewer than 2^(ℓ − 30) — the floor keeps
    /// room for about 4 × 10^9 items at the top level. 1.6 was chosen by `sortkit-bench order`:
    /// 1.5 leaves relabelled ranges too dense for random inserts (1.73 rows per insert at 100k),
    /// 1.65 and above relabel too often when every insert hits one gap.
    public static let growth = 1.6

    /// The lowest density threshold, one item per 2^30 labels.
    public static let minimumDensityExponent = 30

    /// The most items an aligned range of 2^`level` labels may hold.
    public static func capacity(level: Int) -> Double {
        var capacity = 1.0
        for _ in 0..<level { capacity *= 2 / growth }
        let floor = level > minimumDensityExponent ? Double(UInt64(1) << UInt64(level - minimumDensityExponent)) : 0
        return Swift.max(capacity, floor)
    }
}

/// One row's new label, to be written by the caller.
public struct LabelWrite<ID: Hashable>: Hashable {
    /// The row.
    public var id: ID
    /// Its new label.
    public var label: UInt64

    /// A write of `label` for `id`.
    public init(id: ID, label: UInt64) {
        self.id = id
        self.label = label
    }
}

extension LabelWrite: Sendable where ID: Sendable {}

/// What the planner reads of a list: labels and neighbours by label, counts and items in label
/// ranges. An in-memory ``OrderedList`` and the SQL stores implement it.
public protocol LabelReader {
    associatedtype ID: Hashable
    /// The label of `id`, or `nil` if the list doesn't hold it.
    func label(of id: ID) throws -> UInt64?
    /// The smallest label greater than `label`, if any.
    func label(after label: UInt64) throws -> UInt64?
    /// The largest label smaller than `label`, if any.
    func label(before label: UInt64) throws -> UInt64?
    /// The smallest label, if the list isn't empty.
    func firstLabel() throws -> UInt64?
    /// The largest label, if the list isn't empty.
    func lastLabel() throws -> UInt64?
    /// How many items have labels in `range`.
    func count(in range: ClosedRange<UInt64>) throws -> Int
    /// The items with labels in `range`, in label order.
    func items(in range: ClosedRange<UInt64>) throws -> [(id: ID, label: UInt64)]
}
