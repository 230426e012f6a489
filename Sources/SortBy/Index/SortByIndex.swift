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

    private struct _Replica {
        var permutation: _BlockedPermutation
    }

    /// An index with presets, each a list of sort keys, and optional initial rows (sorted once
    /// per preset with the fast engine).
    public init(presets: [String: [SortKey<Row>]], rows initial: [Row] = []) {
        presetKeys = presets
        rows = initial.map { $0 }
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
        for name in presetKeys.keys { place(id, in: name) }
        return Int(id)
    }

    /// Replaces a row's values and moves it in every replica. Returns whether the id existed.
    @discardableResult
    public mutating func update(_ id: Int, to row: Row) -> Bool {
        guard self[id] != nil else { return false }
        for name in presetKeys.keys { unplace(UInt32(id), from: name) }
        rows[id] = row
        for name in presetKeys.keys { place(UInt32(id), in: name) }
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
        let position = replicas[name]!.permutation.partitionPoint { precedes($0, id, keys: keys) }
        replicas[name]!.permutation.insert(id, at: position)
    }

    private mutating func unplace(_ id: UInt32, from name: String) {
        let keys = presetKeys[name]!
        let position = replicas[name]!.permutation.partitionPoint { precedes($0, id, keys: keys) }
        precondition(replicas[name]!.permutation.ids(in: position..<position + 1) == [id], "replica out of sync")
        replicas[name]!.permutation.remove(at: position)
    }
}
