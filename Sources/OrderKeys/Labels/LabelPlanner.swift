/// Plans the label writes of inserts and moves against a ``LabelReader``; never writes itself.
///
///     var random = SystemRandomNumberGenerator()
///     let writes = try LabelPlanner.insert("x", after: "a", in: list, using: &random)
///     // usually [LabelWrite(id: "x", label: …)]; a relabel adds the neighbours it re-spaces
public enum LabelPlanner {
    /// The writes that place `id` right after `predecessor` (or first, if `nil`).
    ///
    /// `id` must not be in the list (remove it first to move it).
    ///
    /// - Throws: ``OrderKeyError`` if `predecessor` isn't in the list or the list is full.
    public static func insert<Reader: LabelReader, Random: RandomNumberGenerator>(
        _ id: Reader.ID, after predecessor: Reader.ID?, in list: Reader, using random: inout Random
    ) throws -> [LabelWrite<Reader.ID>] {
        try insert(id, .after(predecessor), in: list, using: &random)
    }

    /// The writes that place `id` right before `successor` (or last, if `nil`): an append
    /// when `successor` is `nil`, 2^32 after the last label.
    ///
    ///     let writes = try LabelPlanner.insert("z", before: nil, in: list, using: &random)
    ///     // [LabelWrite(id: "z", label: last + 2^32)]
    ///
    /// - Throws: ``OrderKeyError`` if `successor` isn't in the list or the list is full.
    public static func insert<Reader: LabelReader, Random: RandomNumberGenerator>(
        _ id: Reader.ID, before successor: Reader.ID?, in list: Reader, using random: inout Random
    ) throws -> [LabelWrite<Reader.ID>] {
        try insert(id, .before(successor), in: list, using: &random)
    }

    /// The writes that place `id` at `placement`: the one planner behind both spellings.
    ///
    ///     let writes = try LabelPlanner.insert("x", .after("a"), in: list, using: &random)
    ///
    /// - Throws: ``OrderKeyError`` if the anchor isn't in the list or the list is full.
    public static func insert<Reader: LabelReader, Random: RandomNumberGenerator>(
        _ id: Reader.ID, _ placement: LabelPlacement<Reader.ID>, in list: Reader, using random: inout Random
    ) throws -> [LabelWrite<Reader.ID>] {
        let low: UInt64?
        let high: UInt64?
        switch placement {
        case .after(let predecessor):
            low = try anchorLabel(predecessor, in: list)
            high = try low.map { try list.label(after: $0) } ?? list.firstLabel()
        case .before(let successor):
            high = try anchorLabel(successor, in: list)
            low = try high.map { try list.label(before: $0) } ?? list.lastLabel()
        }
        return try place(id, between: low, and: high, in: list, using: &random)
    }

    /// The label of an anchor: `nil` for none (the list's start or end).
    ///
    /// - Throws: ``OrderKeyError/unknownID(_:)`` for an anchor that isn't in the list.
    static func anchorLabel<Reader: LabelReader>(_ anchor: Reader.ID?, in list: Reader) throws -> UInt64? {
        guard let anchor else { return nil }
        guard let label = try list.label(of: anchor) else { throw OrderKeyError.unknownID(anchor) }
        return label
    }

    /// Places `id` between two adjacent labels (`nil`: the list's start or end).
    static func place<Reader: LabelReader, Random: RandomNumberGenerator>(
        _ id: Reader.ID, between low: UInt64?, and high: UInt64?, in list: Reader, using random: inout Random
    ) throws -> [LabelWrite<Reader.ID>] {
        switch (low, high) {
        case (nil, nil):
            return [LabelWrite(id: id, label: OrderLabels.first)]
        case (let low?, nil) where low < OrderLabels.limit - OrderLabels.step:
            return [LabelWrite(id: id, label: low + OrderLabels.step)]
        case (nil, let high?) where high >= OrderLabels.step:
            return [LabelWrite(id: id, label: high - OrderLabels.step)]
        default:
            // Between two labels, or near an end of the label space: the middle half of the gap.
            let lower = low.map { Int128($0) } ?? -1
            let upper = high.map { Int128($0) } ?? Int128(OrderLabels.limit)
            let gap = upper - lower
            if gap >= 2 {
                let from = max(lower + 1, lower + gap / 4)
                let to = min(upper - 1, upper - gap / 4)
                return [LabelWrite(id: id, label: UInt64(Int128.random(in: from...to, using: &random)))]
            }
            return try relabel(id, after: low, before: high, in: list)
        }
    }

    /// Re-spaces the smallest aligned range around the insertion point whose density, with the
    /// new item, is under its threshold.
    static func relabel<Reader: LabelReader>(
        _ id: Reader.ID, after low: UInt64?, before high: UInt64?, in list: Reader
    ) throws -> [LabelWrite<Reader.ID>] {
        let anchor = low ?? high!
        for level in 1...62 {
            let size = UInt64(1) << UInt64(level)
            let start = anchor & ~(size - 1)
            let range = start...(start + (size - 1))
            let count = try list.count(in: range) + 1
            guard Double(count) <= OrderLabels.capacity(level: level), UInt64(count) <= size else { continue }
            var items = try list.items(in: range)
            let position = low.map { label in items.firstIndex { $0.label > label } ?? items.count } ?? 0
            items.insert((id, 0), at: position)
            var writes: [LabelWrite<Reader.ID>] = []
            for (k, item) in items.enumerated() {
                // Centred even spacing: (2k + 1) · size / (2 · count), without overflow.
                let label = start + UInt64((Int128(2 * k + 1) * Int128(size)) / Int128(2 * items.count))
                if item.id == id || item.label != label { writes.append(LabelWrite(id: item.id, label: label)) }
            }
            return writes
        }
        throw OrderKeyError.full
    }
}

/// Where an item goes in an ordered list: right after an item (first, for `nil`) or right
/// before one (last, for `nil`).
///
///     let placement: LabelPlacement<String> = .before(nil)   // append
public enum LabelPlacement<ID: Hashable>: Hashable {
    /// Right after the item (`nil`: at the front).
    case after(ID?)
    /// Right before the item (`nil`: at the end).
    case before(ID?)

    /// The anchor item, if any.
    public var anchor: ID? {
        switch self {
        case .after(let id), .before(let id): id
        }
    }
}

extension LabelPlacement: Sendable where ID: Sendable {}

/// A manual-order operation that can't be done.
public struct OrderKeyError: Error, Hashable, CustomStringConvertible {
    private enum Kind: Hashable { case unknownID, duplicateID, full, offset }
    private let kind: Kind
    /// What went wrong, naming the id or offset.
    public let description: String

    private init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// An id the list doesn't hold.
    public static func unknownID(_ id: some Hashable) -> OrderKeyError {
        OrderKeyError(.unknownID, "unknown id \(id) in the ordered list")
    }

    /// An id the list already holds.
    public static func duplicateID(_ id: some Hashable) -> OrderKeyError {
        OrderKeyError(.duplicateID, "id \(id) is already in the ordered list")
    }

    /// An offset outside the list.
    public static func offset(_ offset: Int, count: Int) -> OrderKeyError {
        OrderKeyError(.offset, "offset \(offset) is outside the list of \(count) items")
    }

    /// The label space can't hold another item near the insertion point.
    public static let full = OrderKeyError(.full, "the ordered list is full")

    /// Whether the error is an unknown id.
    public var isUnknownID: Bool { kind == .unknownID }
}
