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
/// ``allowsUnsorted`` a third tap returns to unsorted. A plain tap makes the column the only
/// key (cycling its direction if it already was the primary key); an additive tap appends it as
/// the next key, or cycles it where it stands. A tap on a column that isn't sortable changes
/// nothing — neither the order nor any indicator.
public struct HeaderSortState: Sendable, Hashable {
    /// The current keys, most significant first.
    public var keys: [SortSpec.Key]
    /// Whether a tap on a descending column returns it to unsorted (three-state cycle).
    public var allowsUnsorted: Bool

    /// A state with the given keys.
    ///
    /// - Parameters:
    ///   - spec: The initial sort (a table's default sort); empty by default.
    ///   - allowsUnsorted: Whether the cycle includes unsorted; `false` by default.
    public init(_ spec: SortSpec = SortSpec(), allowsUnsorted: Bool = false) {
        self.keys = spec.keys
        self.allowsUnsorted = allowsUnsorted
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
        if additive {
            if let position = keys.firstIndex(where: { $0.column == column }) {
                if let next = nextDirection(after: keys[position].direction) {
                    keys[position].direction = next
                } else {
                    keys.remove(at: position)
                }
            } else {
                keys.append(SortSpec.Key(column, .ascending, modifiers))
            }
        } else if let primary = keys.first, primary.column == column {
            if let next = nextDirection(after: primary.direction) {
                keys = [SortSpec.Key(column, next, primary.modifiers)]
            } else {
                keys = []
            }
        } else {
            let existing = keys.first { $0.column == column }?.modifiers ?? modifiers
            keys = [SortSpec.Key(column, .ascending, existing)]
        }
        return keys != before
    }

    private func nextDirection(after direction: SortDirection) -> SortDirection? {
        switch direction {
        case .ascending: .descending
        case .descending: allowsUnsorted ? nil : .ascending
        }
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
    private enum CodingKeys: String, CodingKey { case sort, allowsUnsorted }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try container.decode(SortSpec.self, forKey: .sort),
            allowsUnsorted: try container.decodeIfPresent(Bool.self, forKey: .allowsUnsorted) ?? false)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(spec, forKey: .sort)
        try container.encode(allowsUnsorted, forKey: .allowsUnsorted)
    }
}
