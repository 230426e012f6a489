import Foundation

/// The sort state of a table's headers: which columns sort, in which direction and priority,
/// and what a tap on a header does.
///
///     var state = HeaderSortState()
///     state.tap("title")                   // title ▲
///     state.tap("title")                   // title ▼
///     state.tap("author", additive: true)  // title ▼, then author ▲ (shift-click)
///     state.spec.description               // "-title,author"
///     state.tap("price", isSortable: false)   // returns false: nothing changes
///
/// The cycle per column is unsorted → ascending → descending → ascending …; with
/// ``allowsUnsorted`` a third tap returns to unsorted. A column may declare its own
/// ``SortCycle`` in ``cycles`` (descending first for prices and dates, one direction only, with
/// or without unsorted). A plain tap makes the column the only key (cycling its direction if it
/// already was the primary key); an additive tap appends it as the next key, or cycles it where
/// it stands. With ``maxKeys``, an additive tap past the cap drops the oldest added key. A tap
/// on a column that isn't sortable changes nothing — neither the order nor any indicator.
///
///     var prices = HeaderSortState(cycles: ["price": .descendingFirst], maxKeys: 2)
///     prices.tap("price")                       // -price (most expensive first)
///     prices.tap("title", additive: true)       // -price,title
///     prices.tap("year", additive: true)        // -price,year: the cap drops title
///     prices.remove("price")                    // year
public struct HeaderSortState: Sendable, Hashable {
    /// The current keys, most significant first.
    public var keys: [SortSpec.Key]
    /// Whether a tap on a descending column returns it to unsorted (three-state cycle), for
    /// columns without their own cycle.
    public var allowsUnsorted: Bool
    /// Per column name, the directions its header cycles through; other columns cycle
    /// ascending first (with unsorted when ``allowsUnsorted``).
    public var cycles: [String: SortCycle]
    /// The most keys a multi-column sort keeps; `nil` for no cap. An additive tap past it drops
    /// the oldest added key (the primary key stays), so a cap of 1 makes every tap plain.
    public var maxKeys: Int?

    /// A state with the given keys.
    ///
    /// - Parameters:
    ///   - spec: The initial sort (a table's default sort); empty by default.
    ///   - allowsUnsorted: Whether the cycle includes unsorted; `false` by default.
    ///   - cycles: Per-column cycles; ascending first for every other column.
    ///   - maxKeys: A cap on the number of keys; none by default.
    public init(_ spec: SortSpec = SortSpec(), allowsUnsorted: Bool = false, cycles: [String: SortCycle] = [:], maxKeys: Int? = nil) {
        self.keys = spec.keys
        self.allowsUnsorted = allowsUnsorted
        self.cycles = cycles
        self.maxKeys = maxKeys.map { max(1, $0) }
        if let cap = self.maxKeys, keys.count > cap { keys.removeLast(keys.count - cap) }
    }

    /// The cycle `column`'s header taps through.
    public func cycle(of column: String) -> SortCycle {
        cycles[column] ?? (allowsUnsorted ? SortCycle.ascendingFirst.withUnsorted() : .ascendingFirst)
    }

    /// Removes `column`'s key from the sort, keeping the others in their order (a "×" on a
    /// multi-sort badge). Returns whether it was there.
    ///
    ///     var state = HeaderSortState(try SortSpec(parsing: "a,-b,c"))
    ///     state.remove("b")        // true: "a,c"
    @discardableResult
    public mutating func remove(_ column: String) -> Bool {
        guard let position = keys.firstIndex(where: { $0.column == column }) else { return false }
        keys.remove(at: position)
        return true
    }

    /// The state as a sort spec.
    public var spec: SortSpec {
        get { SortSpec(keys) }
        set { keys = newValue.keys }
    }

    /// Applies a tap on the header of `column`.
    ///
    /// - Parameters:
    ///   - column: The column's name.
    ///   - additive: Whether the tap adds the column as a further key (shift-click).
    ///   - isSortable: Whether the column may sort now; resolve it with
    ///     ``isSortable(userOverride:columnDefinition:)``.
    ///   - modifiers: Modifiers for the key when the column is newly added (its collation,
    ///     null placement, interpretation).
    /// - Returns: Whether the state changed. A tap on a non-sortable column returns `false`
    ///   and changes nothing; the caller still reports the tap as a header-tap event.
    @discardableResult
    public mutating func tap(
        _ column: String, additive: Bool = false, isSortable: Bool = true,
        modifiers: [SortSpec.Modifier] = []
    ) -> Bool {
        guard isSortable else { return false }
        let before = keys
        let cycle = cycle(of: column)
        if additive && maxKeys != 1 {
            if let position = keys.firstIndex(where: { $0.column == column }) {
                if let next = cycle.next(after: keys[position].direction) {
                    keys[position].direction = next
                } else {
                    keys.remove(at: position)
                }
            } else {
                keys.append(SortSpec.Key(column, cycle.first, modifiers))
                if let cap = maxKeys, keys.count > cap { keys.remove(at: 1) }
            }
        } else if let primary = keys.first, primary.column == column {
            if let next = cycle.next(after: primary.direction) {
                keys = [SortSpec.Key(column, next, primary.modifiers)]
            } else {
                keys = []
            }
        } else {
            let existing = keys.first { $0.column == column }?.modifiers ?? modifiers
            keys = [SortSpec.Key(column, cycle.first, existing)]
        }
        return keys != before
    }

    /// The direction `column` sorts in, or `nil` if it doesn't sort.
    public func direction(of column: String) -> SortDirection? {
        keys.first { $0.column == column }?.direction
    }

    /// The 1-based priority of `column` among the keys (1 is the primary key), or `nil`.
    public func priority(of column: String) -> Int? {
        keys.firstIndex { $0.column == column }.map { $0 + 1 }
    }

    /// Resolves whether a column is sortable: the user's override, else the column
    /// definition, else sortable.
    ///
    ///     HeaderSortState.isSortable(userOverride: nil, columnDefinition: false)   // false
    ///     HeaderSortState.isSortable(userOverride: true, columnDefinition: false)  // true
    public static func isSortable(userOverride: Bool?, columnDefinition: Bool?) -> Bool {
        userOverride ?? columnDefinition ?? true
    }
}

extension HeaderSortState: Codable {
    private enum CodingKeys: String, CodingKey { case sort, allowsUnsorted, cycles, maxKeys }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(SortSpec.self, forKey: .sort),
            allowsUnsorted: try container.decodeIfPresent(Bool.self, forKey: .allowsUnsorted) ?? false,
            cycles: try container.decodeIfPresent([String: SortCycle].self, forKey: .cycles) ?? [:],
            maxKeys: try container.decodeIfPresent(Int.self, forKey: .maxKeys))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(spec, forKey: .sort)
        try container.encode(allowsUnsorted, forKey: .allowsUnsorted)
        if !cycles.isEmpty { try container.encode(cycles, forKey: .cycles) }
        try container.encodeIfPresent(maxKeys, forKey: .maxKeys)
    }
}

/// The directions a column's header cycles through on taps, and whether "unsorted" is one of
/// the steps (after the last direction).
///
///     SortCycle.ascendingFirst                  // ▲ → ▼ → ▲ …  (text)
///     SortCycle.descendingFirst                 // ▼ → ▲ → ▼ …  (prices, dates: newest first)
///     SortCycle.descendingFirst.withUnsorted()  // ▼ → ▲ → unsorted → ▼ …
///     SortCycle.ascendingOnly                   // ▲ only: a second tap changes nothing
///
/// Codable as its text form: the steps as `asc`/`desc`, and `none` for unsorted
/// (`"desc,asc,none"`).
public struct SortCycle: Sendable, Hashable {
    /// The directions in tap order; never empty, no direction twice.
    public let directions: [SortDirection]
    /// Whether a tap after the last direction returns the column to unsorted.
    public let includesUnsorted: Bool

    /// A cycle through `directions` (empty means ascending), then unsorted if asked.
    public init(_ directions: [SortDirection], includesUnsorted: Bool = false) {
        var unique: [SortDirection] = []
        for direction in directions where !unique.contains(direction) { unique.append(direction) }
        self.directions = unique.isEmpty ? [.ascending] : unique
        self.includesUnsorted = includesUnsorted
    }

    /// ▲ → ▼: the default.
    public static let ascendingFirst = SortCycle([.ascending, .descending])
    /// ▼ → ▲: numbers and dates people want largest or newest first.
    public static let descendingFirst = SortCycle([.descending, .ascending])
    /// ▲ only.
    public static let ascendingOnly = SortCycle([.ascending])
    /// ▼ only.
    public static let descendingOnly = SortCycle([.descending])

    /// This cycle with unsorted after its last direction (or without it).
    public func withUnsorted(_ includesUnsorted: Bool = true) -> SortCycle {
        SortCycle(directions, includesUnsorted: includesUnsorted)
    }

    /// The direction of a first tap.
    public var first: SortDirection { directions[0] }

    /// The step after `direction`: the next direction, `nil` for unsorted. A direction the
    /// cycle doesn't have (a spec set from code) steps to the first.
    public func next(after direction: SortDirection) -> SortDirection? {
        guard let index = directions.firstIndex(of: direction) else { return first }
        if index + 1 < directions.count { return directions[index + 1] }
        return includesUnsorted ? nil : directions[0]
    }
}

extension SortCycle: _TextCodable {
    /// The text form, such as `desc,asc,none`.
    public var description: String {
        (directions.map { $0 == .ascending ? "asc" : "desc" } + (includesUnsorted ? ["none"] : [])).joined(separator: ",")
    }

    /// Parses `asc`, `desc` and a final `none`, comma-separated; `nil` for anything else.
    ///
    ///     SortCycle("desc,asc,none") == SortCycle.descendingFirst.withUnsorted()   // true
    public init?(_ description: String) {
        var steps = description.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let unsorted = steps.last == "none"
        if unsorted { steps.removeLast() }
        let directions = steps.map { step -> SortDirection? in step == "asc" ? .ascending : step == "desc" ? .descending : nil }
        let valid = directions.compactMap { $0 }
        guard !valid.isEmpty, valid.count == directions.count, Set(valid).count == valid.count else { return nil }
        self.init(valid, includesUnsorted: unsorted)
    }
}
