import Foundation
import Synchronization

/// Whole orders of tables served from the database, kept as their row ids in order, for the
/// orders those tables have no index for (`title:len`, `price:abs`, `title:random=7`,
/// `title:locale=sv`): a scan computes every row's key once (in the background after the
/// order's first page), and the next pages, deep offsets and cursors of the same table version
/// are a slice of the ids (see ``_SQLTableStore/keptOrderPage(_:cursor:_:_:)``).
///
/// The ids take 8 bytes a row, counted in ``IndexLimits/indexBytes`` beside the tables held in
/// memory: an order is kept only if it fits in the room they leave, the oldest going first to
/// make room, and a table's import or placement in memory takes the room back
/// (``free(_:)``). At most ``limit`` orders are kept; a table's orders of an older version go
/// when a newer one is kept.
///
///     let orders = _KeptOrders()
///     orders.keep([3, 1, 2], key: "1/1/7|title:len", table: 1, room: 1 << 20)   // true
///     orders["1/1/7|title:len"]                                               // [3, 1, 2]
final class _KeptOrders: Sendable {
    private struct Entry {
        let table: Int64
        /// The table's versions (the key up to `|`).
        let version: Substring
        let ids: [Int64]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys, oldest first.
        var keys: [String] = []
        var bytes = 0
        /// Builds running, by key.
        var building: Set<String> = []
    }

    private let state = Mutex(State())
    /// The most orders kept.
    static let limit = 4

    /// The ids of the order kept under `key`.
    subscript(key: String) -> [Int64]? {
        state.withLock { $0.entries[key]?.ids }
    }

    /// The bytes the kept orders hold.
    var bytes: Int {
        state.withLock { $0.bytes }
    }

    /// The bytes an order of `rows` rows holds.
    static func bytes(rows: Int) -> Int { 8 * rows }

    /// Keeps `ids` under `key` (the table's versions, `|`, the order), within `room` bytes for
    /// all kept orders: `table`'s orders of other versions go first, then the oldest of any
    /// table. `false`, keeping nothing new, when the order alone is larger than `room`.
    func keep(_ ids: [Int64], key: String, table: Int64, room: Int) -> Bool {
        let size = Self.bytes(rows: ids.count)
        guard size <= room else { return false }
        let version = key.prefix { $0 != "|" }
        state.withLock { state in
            for old in state.keys where state.entries[old].map({ $0.table == table && $0.version != version }) == true {
                Self.remove(old, &state)
            }
            Self.remove(key, &state)
            while !state.keys.isEmpty, state.bytes + size > room || state.keys.count >= Self.limit { Self.remove(state.keys[0], &state) }
            state.entries[key] = Entry(table: table, version: version, ids: ids)
            state.keys.append(key)
            state.bytes += size
        }
        return true
    }

    /// Drops the oldest orders until `bytes` are freed or none is left.
    func free(_ bytes: Int) {
        state.withLock { state in
            var freed = 0
            while freed < bytes, let oldest = state.keys.first {
                freed += Self.bytes(rows: state.entries[oldest]?.ids.count ?? 0)
                Self.remove(oldest, &state)
            }
        }
    }

    /// Drops `table`'s orders (it was dropped or replaced).
    func forget(table: Int64) {
        state.withLock { state in
            for key in state.keys where state.entries[key]?.table == table { Self.remove(key, &state) }
        }
    }

    /// Whether a build of `key` should start: not while another one runs (one scan of a table at
    /// a time, on cores requests use). Call ``finished(_:)`` when done.
    func start(_ key: String) -> Bool {
        state.withLock { state in
            guard state.building.isEmpty, state.entries[key] == nil else { return false }
            return state.building.insert(key).inserted
        }
    }

    /// Forgets a finished build.
    func finished(_ key: String) {
        state.withLock { _ = $0.building.remove(key) }
    }

    /// Whether a build is running (for tests).
    var isBuilding: Bool {
        state.withLock { !$0.building.isEmpty }
    }

    private static func remove(_ key: String, _ state: inout State) {
        guard let entry = state.entries.removeValue(forKey: key) else { return }
        state.keys.removeAll { $0 == key }
        state.bytes -= bytes(rows: entry.ids.count)
    }
}
