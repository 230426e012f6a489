import Foundation
import SortKit

/// Rows with pre-sorted "replicas": each preset keeps a permutation of row ids (4 bytes per
/// row), computed once with SortKit's engine and kept current on insert, update and delete
/// with O(log n) comparisons each — no re-sort — so switching preset or page returns a page
/// without sorting.
///
///     var index = SortByIndex<Book>(presets: [
///         "title": [SortKey(\.title)],
///         "price-desc": [SortKey(\.price, .descending)],
///     ])
///     let id = index.insert(Book(title: "Dune", price: 9.99))
///     index.page(preset: "price-desc", offset: 0, limit: 50)   // [Book], already in order
///     index.update(id, to: Book(title: "Dune", price: 4))        // moves in each replica
///
/// Rows that tie on a preset's keys keep insertion (row id) order, as SortKit's stable sorts do.
public struct SortByIndex<Row> {
    private var rows: [Row?] = []
    private var replicas: [String: _Replica] = [:]
    private let presetKeys: [String: [SortKey<Row>]]
    /// The searchable fields of a row, and each row's folded search text.
    private let searchable: ((Row) -> [String])?
    private var searchText: [String] = []

    private struct _Replica {
        var permutation: _BlockedPermutation
    }

    /// An index with presets, each a list of sort keys, optional initial rows (sorted once per
    /// preset with the fast engine), and the fields a search looks at.
    public init(presets: [String: [SortKey<Row>]], rows initial: [Row] = [], searchable: ((Row) -> [String])? = nil) {
        presetKeys = presets
        self.searchable = searchable
        rows = initial.map { $0 }
        if let searchable { searchText = initial.map { SearchQuery.foldedFields(searchable($0)) } }
        for (name, keys) in presets {
            let order = initial.sortedIndices(by: keys).map { UInt32($0) }
            replicas[name] = _Replica(permutation: _BlockedPermutation(sorted: order))
        }
    }

    /// The number of live rows.
    public var count: Int { replicas.values.first?.permutation.count ?? rows.lazy.filter { $0 != nil }.count }

    /// The preset names.
    public var presetNames: [String] { presetKeys.keys.sorted() }

    /// The row with id `id`, if it exists.
    public subscript(id: Int) -> Row? {
        id >= 0 && id < rows.count ? rows[id] : nil
    }

    /// Adds a row; returns its id. O(p log n) comparisons for p presets.
    @discardableResult
    public mutating func insert(_ row: Row) -> Int {
        let id = UInt32(rows.count)
        rows.append(row)
        if let searchable { searchText.append(SearchQuery.foldedFields(searchable(row))) }
        for name in presetKeys.keys { place(id, in: name) }
        return Int(id)
    }

    /// Replaces a row's values and moves it in the replicas whose keys it changed (elsewhere its
    /// place stands: the keys and the id tie-break are the same). Returns whether the id existed.
    @discardableResult
    public mutating func update(_ id: Int, to row: Row) -> Bool {
        guard let old = self[id] else { return false }
        let moved = presetKeys.filter { $0.value.compare(old, row) != .orderedSame }.map(\.key)
        for name in moved { unplace(UInt32(id), from: name) }
        rows[id] = row
        if let searchable { searchText[id] = SearchQuery.foldedFields(searchable(row)) }
        for name in moved { place(UInt32(id), in: name) }
        return true
    }

    /// Removes a row. Returns whether the id existed.
    @discardableResult
    public mutating func delete(_ id: Int) -> Bool {
        guard self[id] != nil else { return false }
        for name in presetKeys.keys { unplace(UInt32(id), from: name) }
        rows[id] = nil
        return true
    }

    /// Row ids of a page in a preset's order, without sorting. O(n / 512 + limit).
    ///
    /// - Precondition: `preset` names a preset.
    public func ids(preset: String, offset: Int, limit: Int) -> [Int] {
        guard let replica = replicas[preset] else { preconditionFailure("unknown preset '\(preset)'") }
        let start = Swift.min(Swift.max(offset, 0), replica.permutation.count)
        let end = Swift.min(start + Swift.max(limit, 0), replica.permutation.count)
        return replica.permutation.ids(in: start..<end).map(Int.init)
    }

    /// A page of rows in a preset's order.
    public func page(preset: String, offset: Int, limit: Int) -> [Row] {
        ids(preset: preset, offset: offset, limit: limit).map { rows[$0]! }
    }

    /// Row ids of a page of the rows matching `query`, in a preset's order: the replica is read
    /// in order and filtered, so no sort happens. A blank query is the unfiltered page.
    ///
    /// - Precondition: The index was created with `searchable` fields, or the query is blank.
    public func ids(preset: String, matching query: SearchQuery, offset: Int, limit: Int) -> [Int] {
        if query.isBlank { return ids(preset: preset, offset: offset, limit: limit) }
        precondition(searchable != nil, "the index has no searchable fields")
        guard let replica = replicas[preset] else { preconditionFailure("unknown preset '\(preset)'") }
        var skipped = 0
        var result: [Int] = []
        for block in replica.permutation.blocks {
            for id in block where query.matches(folded: searchText[Int(id)]) {
                if skipped < offset { skipped += 1; continue }
                result.append(Int(id))
                if result.count >= limit { return result }
            }
        }
        return result
    }

    /// How many rows match `query`.
    public func count(matching query: SearchQuery) -> Int {
        if query.isBlank { return count }
        return rows.indices.filter { rows[$0] != nil && query.matches(folded: searchText[$0]) }.count
    }

    /// Bytes one preset's replica holds: 4 per row id plus each block's array header.
    package func _replicaBytes(preset: String) -> Int {
        guard let replica = replicas[preset] else { return 0 }
        return replica.permutation.count * 4 + replica.permutation.blocks.count * 32
    }

    /// Whether `a` comes before `b` in a preset: its keys, then row id.
    private func precedes(_ a: UInt32, _ b: UInt32, keys: [SortKey<Row>]) -> Bool {
        switch keys.compare(rows[Int(a)]!, rows[Int(b)]!) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: a < b
        }
    }

    private mutating func place(_ id: UInt32, in name: String) {
        let keys = presetKeys[name]!
        let place = replicas[name]!.permutation.partitionPoint { precedes($0, id, keys: keys) }
        replicas[name]!.permutation.insert(id, at: place)
    }

    private mutating func unplace(_ id: UInt32, from name: String) {
        let keys = presetKeys[name]!
        let place = replicas[name]!.permutation.partitionPoint { precedes($0, id, keys: keys) }
        precondition(replicas[name]!.permutation.id(at: place) == id, "replica out of sync")
        replicas[name]!.permutation.remove(at: place)
    }
}
