import Foundation
import GRDB
import Synchronization

/// Makes the indexes of SQLite tables served from the database after the write that needed
/// them commits, one index per write transaction, in the background.
///
/// Such a table has an index per column and direction and a trigram search index. Made in the
/// import's transaction, they took most of it: a 1M-row multilingual import spent 3.8 s
/// writing its rows, then 9.8 s on fourteen B-trees (0.3–1.0 s each) and 6.0 s on the search
/// index (2026-12-02, `big-table.sh`'s file). So an import commits its rows alone and is
/// served, and each index is made by a write of its own through the store's write turns: a
/// user's write waits for one index at most. Until an index is made, SQLite's planner scans
/// instead (a first page of 1M rows in about 0.3 s), and a search reads every row's folded
/// text (``_TableInfo/searchIndexed``); the answers are the same.
///
/// ``poke(_:)`` after such a commit (and when the store opens: an interrupted run) starts a
/// run unless one is going; the run calls `step` until it makes nothing. Each step looks at
/// what the file lacks in its own transaction, so a dropped or changed table, another
/// process's run, or a crash between steps leaves nothing to undo. A failed step is tried
/// again after 1, 2 and 4 s, then left for the next poke.
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
    /// A B-tree named `name` on `columns` (one column and direction, then the id).
    case column(name: String, columns: String)
    /// The trigram search index (``SQLiteTableStore/createSearchIndex(_:_:)``).
    case search

    /// Its name in `sqlite_master`.
    func name(_ info: _TableInfo) -> String {
        switch self {
        case .column(let name, _): name
        case .search: info.searchIndex
        }
    }
}

extension SQLiteTableStore {
    /// Called after a write that left a table served from the database without some of its
    /// indexes committed: they are made in the background.
    func databaseIndexesMissing() {
        // Weak: the builder keeps its step, and the store keeps the builder.
        builder.poke { [weak self] in try await self?.indexStep() ?? false }
    }

    /// The indexes `info` has once built: its columns' (but those a preset's index serves),
    /// then its search index. None for a table held in memory.
    static func databaseIndexes(_ info: _TableInfo) throws -> [_DatabaseIndex] {
        guard info.databaseIndex != nil else { return [] }
        let presets = try info.schema.presetIndexes(.sqlite)
        let columns = try info.schema.columnIndexes(.sqlite, info.databaseIndex).filter { !presets.contains($0.columns) }
        return columns.map { .column(name: "\(info.physical)_\($0.suffix)", columns: $0.columns) } + [.search]
    }

    /// The indexes of `info` that `db`'s file lacks, in the order they are made.
    static func missingIndexes(_ info: _TableInfo, _ db: Database) throws -> [_DatabaseIndex] {
        let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'table')"))
        return try databaseIndexes(info).filter { !present.contains($0.name(info)) }
    }

    /// Makes one index that a table served from the database lacks (of the first such table),
    /// in one write; returns whether it made one (`false`: none is missing).
    func indexStep() async throws -> Bool {
        try await write { session in
            let missing = try await session.onConnection { db in
                try Self.catalogRows(db, tombstoned: true).lazy.compactMap { info in try Self.missingIndexes(info, db).first.map { (info, $0) } }
                    .first
            }
            guard let (info, index) = missing else { return false }
            switch index {
            case .column(let name, let columns):
                try await Self.withIndexSorter(session) {
                    try await session.execute("CREATE INDEX IF NOT EXISTS \(name) ON \(info.physical) (\(columns))", [], long: true)
                }
            case .search:
                try await Self.createSearchIndex(info, session)
            }
            return true
        }
    }

    /// Makes now every index that tables served from the database lack (what the store's
    /// builder does in the background after an import), and returns once the builder is idle.
    ///
    ///     try await store.importCSV(csv, as: "books")   // served from the database
    ///     try await store.buildIndexes()                  // its column and search indexes made
    public func buildIndexes() async throws {
        while try await indexStep() {}
        // The background run's step, if one was going, has ended too.
        await builder.idle()
    }

    /// Whether table `table` is served from the database and lacks some of its indexes
    /// (being made in the background).
    public func indexesPending(of table: String) async throws -> Bool {
        try await database.read { db in
            let info = try Self.catalogRows(db, tombstoned: true).first { $0.schema.name == table }
            return try info.map { try !Self.missingIndexes($0, db).isEmpty } ?? false
        }
    }

    /// Runs `body` (an index's statement) with SQLite's sorter set for it: runs as big as a
    /// 2 MB page cache, sorted on worker threads beside the reading. Runs of 2 MB on both cores
    /// built a text key's index over 1M rows in 0.59–0.63 s, against 1.29–1.34 s in one run of
    /// the connection's 64 MB (a number's 0.42–0.49 against 0.83–0.94). The connection's
    /// settings are put back after it.
    static func withIndexSorter(_ session: _SQLiteSession, _ body: () async throws -> Void) async throws {
        let cacheSize = try await session.integer("PRAGMA cache_size") ?? -Int64(pageCacheKiB)
        let threads = try await session.integer("PRAGMA threads") ?? 0
        func sorter(cacheSize: Int64, threads: Int64) async throws {
            try await session.execute("PRAGMA cache_size = \(cacheSize)")
            try await session.execute("PRAGMA threads = \(threads)")
        }
        try await sorter(cacheSize: -2048, threads: 2)
        do {
            try await body()
        } catch {
            try? await sorter(cacheSize: cacheSize, threads: threads)
            throw error
        }
        try await sorter(cacheSize: cacheSize, threads: threads)
    }
}
