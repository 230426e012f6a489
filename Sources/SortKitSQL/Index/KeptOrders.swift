import Foundation
import Synchronization

/// Whole orders of tables served from the database, kept as their row ids in order, for the
/// orders those tables have no index for (`title:len`, `price:abs`, `title:random=7`,
/// `title:locale=sv`): a scan computes every row's key once (in the background after the
/// order's first page), and the next pages, deep offsets and cursors of the same table version
/// are a slice of the ids (see ``_SQLTableStore/keptOrderPage(_:cursor:_:_:)``).
///
/// The ids take 8 bytes a row, counted in ``IndexLimits/indexBytes`` beside the tables held in
/// memory: an order is kept only if it fits in the room they leave, the least recently read
/// going first to make room, and a table's import or placement in memory takes the room back
/// (``free(_:)``). At most ``limit`` orders are kept; a table's orders of another version go
/// when one of its orders is kept. A build that comes out of date (a write during its scan),
/// doesn't fit or fails holds off the table's next builds for twice its time.
///
///     let orders = _KeptOrders()
///     orders.keep([3, 1, 2], key: "1/1/7|title:len", table: 1, room: 1 << 20)   // true
///     orders["1/1/7|title:len"]                                               // [3, 1, 2]
final class _KeptOrders: Sendable {
    private struct Entry {
        let table: Int64
        /// The table's schema and data versions (in the key, after the table).
        let version: [Int64]
        let ids: [Int64]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys, least recently read first.
        var keys: [String] = []
        var bytes = 0
        /// Builds running, by key.
        var building: Set<String> = []
        /// Per table, when its next build may start (after one that came to nothing).
        var holdUntil: [Int64: ContinuousClock.Instant] = [:]
        /// Pages served from kept ids (for tests).
        var served = 0
        /// Tables dropped or replaced: a build that read one before it went keeps nothing.
        var forgotten: Set<Int64> = []
    }

    private let state = Mutex(State())
    /// The most orders kept.
    static let limit = 4

    /// The ids of the order kept under `key` (now the most recently read).
    subscript(key: String) -> [Int64]? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if state.keys.last != key {
                state.keys.removeAll { $0 == key }
                state.keys.append(key)
            }
            return entry.ids
        }
    }

    /// The bytes the kept orders hold.
    var bytes: Int {
        state.withLock { $0.bytes }
    }

    /// The bytes an order of `rows` rows holds.
    static func bytes(rows: Int) -> Int { 8 * rows }

    /// Keeps `ids` under `key` (`table/schemaVersion/dataVersion|order`), within `room` bytes
    /// for all kept orders: `table`'s orders of older versions go first, then the least
    /// recently read of any table. `false`, keeping nothing new, when the order alone is larger
    /// than `room`, the table keeps an order of a newer version (this one was read on a standby
    /// behind), or the table was dropped.
    func keep(_ ids: [Int64], key: String, table: Int64, room: Int) -> Bool {
        let size = Self.bytes(rows: ids.count)
        let version = key.prefix { $0 != "|" }.split(separator: "/").dropFirst().compactMap { Int64($0) }
        return state.withLock { state in
            guard !state.forgotten.contains(table) else { return false }
            let others = state.keys.filter { state.entries[$0].map { $0.table == table && $0.version != version } == true }
            guard !others.contains(where: { state.entries[$0]!.version.lexicographicallyPrecedes(version) == false }) else { return false }
            for old in others { Self.remove(old, &state) }
            guard size <= room else { return false }
            Self.remove(key, &state)
            while !state.keys.isEmpty, state.bytes + size > room || state.keys.count >= Self.limit { Self.remove(state.keys[0], &state) }
            state.entries[key] = Entry(table: table, version: version, ids: ids)
            state.keys.append(key)
            state.bytes += size
            return true
        }
    }

    /// Drops the least recently read orders until `bytes` are freed or none is left.
    func free(_ bytes: Int) {
        state.withLock { state in
            var freed = 0
            while freed < bytes, let oldest = state.keys.first {
                freed += Self.bytes(rows: state.entries[oldest]?.ids.count ?? 0)
                Self.remove(oldest, &state)
            }
        }
    }

    /// Drops `table`'s orders, for good (it was dropped or replaced: table ids aren't used
    /// again).
    func forget(table: Int64) {
        state.withLock { state in
            for key in state.keys where state.entries[key]?.table == table { Self.remove(key, &state) }
            state.holdUntil[table] = nil
            state.forgotten.insert(table)
        }
    }

    /// Whether a build of `key` for `table` should start: not while another one runs (one scan
    /// at a time, on cores requests use), nor while the table's builds are held off. Call
    /// ``finished(_:table:kept:took:)`` when done.
    func start(_ key: String, table: Int64) -> Bool {
        state.withLock { state in
            guard state.building.isEmpty, state.entries[key] == nil else { return false }
            if let until = state.holdUntil[table], ContinuousClock.now < until { return false }
            return state.building.insert(key).inserted
        }
    }

    /// Forgets a finished build; one that kept nothing holds off `table`'s next for twice the
    /// time it `took`.
    func finished(_ key: String, table: Int64, kept: Bool, took: Duration) {
        state.withLock { state in
            state.building.remove(key)
            state.holdUntil[table] = kept ? nil : ContinuousClock.now + took * 2
        }
    }

    /// Counts a page served from kept ids.
    func countServed() {
        state.withLock { $0.served += 1 }
    }

    /// Whether a build is running, and the pages served from kept ids (for tests).
    var isBuilding: Bool { state.withLock { !$0.building.isEmpty } }
    var served: Int { state.withLock { $0.served } }

    private static func remove(_ key: String, _ state: inout State) {
        guard let entry = state.entries.removeValue(forKey: key) else { return }
        state.keys.removeAll { $0 == key }
        state.bytes -= bytes(rows: entry.ids.count)
    }
}
