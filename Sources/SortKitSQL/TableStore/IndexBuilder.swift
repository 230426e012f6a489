import Foundation
import Synchronization

/// Makes the indexes of tables served from the database after the write that needed them
/// commits, one index at a time, in the background.
///
/// Such a table has an index per column and direction and a trigram search index. Made in the
/// import's transaction, they took most of it: a 1M-row multilingual import spent 3.8 s
/// writing its rows on SQLite, then 9.8 s on fourteen B-trees (0.3–1.0 s each) and 6.0 s on
/// the search index; on PostgreSQL 4.5 s for its rows and primary key, then 25 s and 15 s
/// (2026-12-02, `big-table.sh`'s file). So an import commits its rows alone and is served, and
/// each index is made on its own: on SQLite by a write of its own through the store's write
/// turns (a user's write waits for one index at most), on PostgreSQL by `CREATE INDEX
/// CONCURRENTLY` (writes go on meanwhile). Until an index is made, the planner scans instead,
/// and on SQLite a search reads every row's folded text (``_TableInfo/searchIndexed``); the
/// answers are the same.
///
/// ``poke(_:)`` after such a commit (and when the store opens: an interrupted run) starts a
/// run unless one is going; the run calls `step` until it makes nothing. Each step looks at
/// what the database lacks when it starts, so a dropped or changed table, another process's
/// run, or a crash between steps leaves nothing to undo. A failed step is tried again after
/// 1, 2 and 4 s, then left for the next poke.
///
///     builder.poke { try await store.indexStep() }
final class _IndexBuilder: Sendable {
    /// A step: makes one missing index; returns whether it made one.
    typealias Step = @Sendable () async throws -> Bool

    private struct State {
        var runs = _RunSwitch<Step>()
        /// Callers of ``idle()`` waiting for the run's end.
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Taken by a PostgreSQL step, and by a schema change or drop of the store: PostgreSQL
    /// fails a `DROP TABLE` that comes between the transactions of a `CREATE INDEX
    /// CONCURRENTLY` on its table ("tuple concurrently updated").
    private let turns = _WriteTurns()

    /// Runs `body` while no step or other `exclusive` body of this builder runs.
    func exclusive<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await turns.take()
        defer { turns.pass() }
        return try await body()
    }

    /// Stops runs from starting, and a running one after its step (tests look at a table
    /// served before its indexes are made).
    func pause() { state.withLock { $0.runs.pause() } }

    /// Lets runs start again, and starts one if a write poked meanwhile.
    func resume() {
        if let step = state.withLock({ $0.runs.resume() }) { poke(step) }
    }

    /// Starts a run with `step` unless one is going or the builder is paused.
    func poke(_ step: @escaping Step) {
        guard state.withLock({ $0.runs.poke(step) }) else { return }
        Task.detached(priority: .utility) { await self.run(step) }
    }

    /// Returns once no run is going.
    func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.runs.running { state.waiting.append(waiter) }
                return !state.runs.running
            }
            if now { waiter.resume() }
        }
    }

    private func run(_ step: Step) async {
        while true {
            let (pokes, paused) = state.withLock { ($0.runs.pokes, $0.runs.paused) }
            let made = paused ? false : await _retrying(step) ?? false
            // Nothing left to make (or paused, or failed for good): the run ends, unless a
            // write poked after its step began.
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                guard state.runs.end(found: made, pokes: pokes) else { return nil }
                defer { state.waiting = [] }
                return state.waiting
            }
            if let waiting {
                for waiter in waiting { waiter.resume() }
                return
            }
        }
    }
}

/// An index a table served from the database has once ``_IndexBuilder`` is done.
enum _DatabaseIndex: Equatable {
    /// A B-tree named `name` on `columns` (one column and direction, then the id), whose key
    /// column is `key` (`nil`: a typed column).
    case column(name: String, columns: String, key: String?)
    /// The trigram search index (``SQLiteTableStore/createSearchIndex(_:_:)``).
    case search

    /// Its name in `sqlite_master`.
    func name(_ info: _TableInfo) -> String {
        switch self {
        case .column(let name, _, _): name
        case .search: info.searchIndex
        }
    }
}

extension _SQLTableStore {
    /// Called after a write that left a table served from the database without some of its
    /// indexes committed: they are made in the background.
    func databaseIndexesMissing() {
        builder.poke(indexStepper)
    }

    /// Runs a schema change or drop (`body`) apart from the builder's steps on PostgreSQL
    /// (``_IndexBuilder/exclusive(_:)``); SQLite's steps are writes, which take turns anyway.
    func apartFromIndexBuilds<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        Self.dialect == .postgresql ? try await builder.exclusive(body) : try await body()
    }

    /// The indexes `info` has once built: its columns' (but those a preset's index serves),
    /// then its search index. None for a table held in memory.
    static func databaseIndexes(_ info: _TableInfo) throws -> [_DatabaseIndex] {
        guard info.databaseIndex != nil else { return [] }
        let presets = try info.schema.presetIndexes(dialect)
        let columns = try info.schema.columnIndexes(dialect, info.databaseIndex).filter { !presets.contains($0.columns) }
        return columns.map { .column(name: "\(info.physical)_\($0.suffix)", columns: $0.columns, key: $0.key) } + [.search]
    }

    public func buildIndexes() async throws {
        let step = indexStepper
        while try await step() {}
        // The background run's step, if one was going, has ended too.
        await builder.idle()
    }
}
