import Foundation

/// What a table adds to the sort people pick: fixed keys before and after it (DataTables'
/// `orderFixed` pre and post: group by status first, break ties by date last) and columns that
/// sort by other keys (DataTables' `orderData`: a "Name" column sorted by last name, then first
/// name). ``applied(to:)`` turns a picked spec into the one a table sorts by, so every layer —
/// memory, SQL, presets, the server — sorts by plain specs and agrees.
///
///     let rules = SortRules(
///         before: try SortSpec(parsing: "status:enum=todo|doing|done"),
///         after: try SortSpec(parsing: "-updated"),
///         sortsBy: ["Name": try SortSpec(parsing: "last,first")])
///     try rules.applied(to: SortSpec(parsing: "-Name")).description
///     // "status:enum=todo|doing|done,-last,-first,-updated"
///
/// A column named again after it already sorts is dropped (a fixed key wins over the same
/// column picked by a person, as in DataTables).
public struct SortRules: Sendable, Hashable, Codable {
    /// Keys applied before the picked ones.
    public var before: SortSpec
    /// Keys applied after the picked ones.
    public var after: SortSpec
    /// Per column, the keys a key on it sorts by; a descending key reverses each of them.
    public var sortsBy: [String: SortSpec]

    /// Rules; the defaults change nothing.
    public init(before: SortSpec = SortSpec(), after: SortSpec = SortSpec(), sortsBy: [String: SortSpec] = [:]) {
        self.before = before
        self.after = after
        self.sortsBy = sortsBy
    }

    /// Whether the rules change no spec.
    public var isEmpty: Bool { before.isEmpty && after.isEmpty && sortsBy.isEmpty }

    /// The spec a table sorts by when `spec` is picked: `before`, then `spec` with each key on a
    /// ``sortsBy`` column replaced by that column's keys (reversed for a descending key), then
    /// `after`. A column that one of them sorts by already is not added again by a later one
    /// (a fixed key wins over a picked key on its column), and no key that reads a column the
    /// way an earlier key does is added; within one of them a column may be read several ways
    /// (`sortsBy: ["name": "name:len,name"]`).
    public func applied(to spec: SortSpec) -> SortSpec {
        var keys: [(key: SortSpec.Key, source: Int)] = []
        func add(_ key: SortSpec.Key, from source: Int) {
            guard !keys.contains(where: { ($0.source != source && $0.key.column == key.column) || $0.key.reading == key.reading })
            else { return }
            keys.append((key, source))
        }
        for key in before.keys { add(key, from: 0) }
        for key in spec.keys {
            guard let replacement = sortsBy[key.column] else {
                add(key, from: 1)
                continue
            }
            for inner in replacement.keys { add(key.direction == .descending ? inner.reversed : inner, from: 1) }
        }
        for key in after.keys { add(key, from: 2) }
        return SortSpec(keys.map(\.key))
    }

    /// The columns the rules name, for checking them against a table's.
    public var columns: [String] {
        before.keys.map(\.column) + after.keys.map(\.column) + sortsBy.keys.sorted() + sortsBy.keys.sorted().flatMap { sortsBy[$0]!.keys.map(\.column) }
    }
}
