import Foundation
import Synchronization

/// Deletes that mark rows gone, for SQLite tables served from the database.
///
/// Such a table has two indexes per column (every order, both directions, each ending with the
/// id) and a trigram search index. Removing 1,000 rows at once rewrote the B-tree leaves they
/// sit in — scattered through every index but the id's — about 120 MB of 16 KB pages in
/// 0.29–0.47 s (`big-table.sh`, 1M multilingual rows, 2026-12-01); with the column indexes
/// dropped it took 6–10 ms. So a delete writes the ids into the table's `gone` table instead
/// (one small B-tree, ~1 ms), and reads go through the `live` view, which leaves them out:
///
///     SELECT * FROM st_1 WHERE id < (SELECT coalesce(min(id), …) FROM st_1_gone)
///                           OR id > (SELECT coalesce(max(id), -1) FROM st_1_gone)
///                           OR NOT EXISTS (SELECT 1 FROM st_1_gone AS g WHERE g.id = st_1.id)
///
/// SQLite flattens the view into each query, so a page still walks the order's index; the
/// two bounds are computed once per statement, and only rows between them pay a lookup.
/// ``_TombstoneCompactor`` then removes the rows in steps of a few tens of milliseconds, each
/// a write of its own between the users' writes. The removal changes nothing a reader sees:
/// no version changes, and kept orders and cursors stay valid.
enum _Tombstones {
    /// The `gone` table and the `live` view of table `info` (kept if they exist).
    static func create(_ info: _TableInfo, _ session: some _SQLSession) async throws {
        for statement in statements(info) { try await session.execute(statement) }
    }

    /// ``create(_:_:)``'s statements.
    static func statements(_ info: _TableInfo) -> [String] {
        let table = info.physical, gone = info.gone
        return [
            "CREATE TABLE IF NOT EXISTS \(gone) (id INTEGER PRIMARY KEY)",
            """
            CREATE VIEW IF NOT EXISTS \(info.live) AS SELECT * FROM \(table) \
            WHERE id < (SELECT coalesce(min(id), 9223372036854775807) FROM \(gone)) \
            OR id > (SELECT coalesce(max(id), -1) FROM \(gone)) \
            OR NOT EXISTS (SELECT 1 FROM \(gone) AS g WHERE g.id = \(table).id)
            """,
        ]
    }

    /// Drops table `info`'s view and `gone` table, if it has them.
    static func drop(_ info: _TableInfo, _ session: some _SQLSession) async throws {
        try await session.execute("DROP VIEW IF EXISTS \(info.live)")
        try await session.execute("DROP TABLE IF EXISTS \(info.gone)")
    }

    /// Removes every row of `info` that is marked gone, now (before a schema change reads
    /// every row). Returns how many.
    @discardableResult
    static func purge(_ info: _TableInfo, _ session: some _SQLSession) async throws -> Int {
        guard info.tombstoned(.sqlite) else { return 0 }
        let ids = try await session.integers("SELECT id FROM \(info.gone) ORDER BY id")
        try await remove(ids, info, session)
        return ids.count
    }

    /// Removes rows `ids` of `info` (marked gone) and their marks.
    static func remove(_ ids: [Int64], _ info: _TableInfo, _ session: some _SQLSession) async throws {
        guard !ids.isEmpty else { return }
        let list = SQLDialect.sqlite.ids(ids), inIDs = SQLDialect.sqlite.inIDs(1)
        // A write since the delete can't have placed them again (every read leaves them out);
        // taken out all the same, so the order never names a row the table lacks.
        try await session.execute("DELETE FROM ordered_item WHERE list = $2 AND id \(inIDs)", [list, .text(info.list)])
        try await session.execute("DELETE FROM \(info.physical) WHERE id \(inIDs)", [list], long: true)
        try await session.execute("DELETE FROM \(info.gone) WHERE id \(inIDs)", [list])
    }
}

/// Removes the rows deletes marked gone (``_Tombstones``) in the background, a step at a time.
///
/// ``poke(_:)`` after a delete's commit starts it unless it runs: it waits for a quiet half
/// second (deletes often come in bursts; at most five seconds), then calls `step` with a
/// number of rows until it returns 0. Each step is one write transaction, so a user's write
/// waits for one step at most; the number adapts so a step takes 10–40 ms. A failed step
/// stops it; the next delete, or the next opening of the file, starts it again.
///
///     compactor.poke { limit in try await store.compactStep(limit: limit) }
final class _TombstoneCompactor: Sendable {
    private struct State {
        var running = false
        var paused = false
        /// Raised by every poke: a run that found nothing checks it wasn't poked meanwhile.
        var pokes = 0
        var lastPoke = ContinuousClock.now
        var limit = 256
    }

    private let state = Mutex(State())
    /// How long after the last poke a run starts, and at most after the first.
    let quiet: Duration
    let longest: Duration

    init(quiet: Duration = .milliseconds(500), longest: Duration = .seconds(5)) {
        self.quiet = quiet
        self.longest = longest
    }

    /// Stops runs from starting, and a running one after its step (tests look at rows marked
    /// gone; they remove them with their store's `compactTombstones()`).
    func pause() { state.withLock { $0.paused = true } }

    func resume() { state.withLock { $0.paused = false } }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// Starts a run with `step` unless one is running or the compactor is paused.
    func poke(_ step: @escaping @Sendable (_ limit: Int) async throws -> Int) {
        let start = state.withLock { state in
            state.pokes += 1
            state.lastPoke = .now
            guard !state.running, !state.paused else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        let first = ContinuousClock.now
        Task.detached(priority: .utility) {
            while true {
                let now = ContinuousClock.now
                let wait = self.state.withLock { min(self.quiet - (now - $0.lastPoke), self.longest - (now - first)) }
                guard wait > .zero else { break }
                try? await Task.sleep(for: wait)
            }
            await self.run(step)
        }
    }

    private func run(_ step: @Sendable (_ limit: Int) async throws -> Int) async {
        while true {
            let (pokes, limit, paused) = state.withLock { ($0.pokes, $0.limit, $0.paused) }
            let started = ContinuousClock.now
            let removed = paused ? 0 : ((try? await step(limit)) ?? 0)
            let took = ContinuousClock.now - started
            let done = state.withLock { state in
                if took < .milliseconds(10) && removed == limit { state.limit = min(state.limit * 2, 16_384) }
                if took > .milliseconds(40) { state.limit = max(state.limit / 2, 16) }
                // Nothing left (or paused, or failed): the run ends, unless a delete came
                // after its step began.
                guard removed == 0 else { return false }
                if state.pokes != pokes && !state.paused { return false }
                state.running = false
                return true
            }
            if done { return }
        }
    }
}
