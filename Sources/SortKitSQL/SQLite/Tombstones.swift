import Foundation
import GRDB
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
    /// every row).
    static func purge(_ info: _TableInfo, _ session: some _SQLSession) async throws {
        for statement in removal(info, ids: "SELECT id FROM \(info.gone)") { try await session.execute(statement, [], long: true) }
    }

    /// Removes rows `ids` of `info` (marked gone) and their marks.
    static func remove(_ ids: [Int64], _ info: _TableInfo, _ session: some _SQLSession) async throws {
        guard !ids.isEmpty else { return }
        let list = SQLDialect.sqlite.ids(ids)
        for statement in removal(info, ids: "SELECT value FROM json_each($1)") { try await session.execute(statement, [list], long: true) }
    }

    /// The statements that remove the rows of `info` whose ids the query `ids` gives, with
    /// their marks. (Their manual-order entries went with the delete, and no write can place
    /// them again: every read leaves them out.)
    static func removal(_ info: _TableInfo, ids: String) -> [String] {
        [
            "DELETE FROM \(info.physical) WHERE id IN (\(ids))",
            "DELETE FROM \(info.gone) WHERE id IN (\(ids))",
        ]
    }
}

/// Removes the rows deletes marked gone (``_Tombstones``) in the background, a step at a time.
///
/// ``poke(_:)`` after a delete's commit starts it unless it runs: it waits for a quiet half
/// second (deletes often come in bursts; at most five seconds), then calls `step` with a
/// number of rows until it removes none. Each step is one write transaction, so a user's write
/// waits for one step at most; the number adapts so a step's statements take 10–40 ms. A
/// failed step (another process holding the file's write lock past the busy timeout) is tried
/// again after 1, 2 and 4 s, then left for the next delete or the next opening of the file.
///
///     compactor.poke { limit in try await store.compactStep(limit: limit) }
final class _TombstoneCompactor: Sendable {
    /// A step: removes up to `limit` rows; returns how many, and how long its statements took.
    typealias Step = @Sendable (_ limit: Int) async throws -> (removed: Int, took: Duration)

    private struct State {
        var runs = _RunSwitch<Step>()
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
    func pause() { state.withLock { $0.runs.pause() } }

    /// Lets runs start again, and starts one if a delete poked meanwhile.
    func resume() {
        if let step = state.withLock({ $0.runs.resume() }) { poke(step) }
    }

    /// Starts a run with `step` unless one is running or the compactor is paused.
    func poke(_ step: @escaping Step) {
        let start = state.withLock { state in
            state.lastPoke = .now
            return state.runs.poke(step)
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

    private func run(_ step: Step) async {
        while true {
            let (pokes, limit, paused) = state.withLock { ($0.runs.pokes, $0.limit, $0.runs.paused) }
            var removed = 0
            if !paused, let (count, took) = await _retrying({ try await step(limit) }) {
                removed = count
                state.withLock { state in
                    if took < .milliseconds(10) && count == limit { state.limit = min(state.limit * 2, 16_384) }
                    if took > .milliseconds(40) { state.limit = max(state.limit / 2, 16) }
                }
            }
            // Nothing left (or paused, or failed for good): the run ends, unless a delete
            // came after its step began.
            if state.withLock({ $0.runs.end(found: removed > 0, pokes: pokes) }) { return }
        }
    }
}

extension SQLiteTableStore {
    func rowsMarkedGone() {
        // Weak: the compactor keeps its step, and the store keeps the compactor.
        compactor.poke { [weak self] limit in try await self?.compactStep(limit: limit) ?? (0, .zero) }
    }

    /// Removes up to `limit` rows marked gone, of the first table that has some, in one write;
    /// returns how many (0: none are left) and how long its statements took.
    func compactStep(limit: Int) async throws -> (removed: Int, took: Duration) {
        try await write { session in
            let started = ContinuousClock.now
            // A table another process's older version served from the database since this
            // store opened the file has no marks table (and no marked rows).
            let tables = try await session.onConnection { db in try Self.catalogRows(db, tombstoned: true).filter { try db.tableExists($0.gone) } }
            for info in tables {
                let ids = try await session.integers("SELECT id FROM \(info.gone) ORDER BY id LIMIT $1", [.integer(Int64(limit))])
                guard !ids.isEmpty else { continue }
                try await _Tombstones.remove(ids, info, session)
                return (ids.count, ContinuousClock.now - started)
            }
            return (0, ContinuousClock.now - started)
        }
    }

    /// Removes every row marked gone now (what the compactor does in the background).
    func compactTombstones() async throws {
        while try await compactStep(limit: 4_096).removed > 0 {}
    }

    /// Gives every table served from the database its marks table and view, and drops those
    /// no table has: a file that an older version wrote to may lack them (it serves tables
    /// without marks) or keep a dropped table's. Reads, and writes only when something is
    /// amiss. Returns whether rows are marked gone.
    static func checkTombstones(_ database: DatabasePool) throws -> Bool {
        func survey(_ db: Database) throws -> (missing: [String], strays: [(String, String)], pending: Bool) {
            let tables = try catalogRows(db, tombstoned: true)
            var present: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, type FROM sqlite_master WHERE name GLOB 'st_[0-9]*_gone' OR name GLOB 'st_[0-9]*_live'") {
                let name: String = row[0]
                // Exactly `st_<digits>_gone` or `_live`: GLOB's `*` takes anything.
                if name.utf8.dropFirst(3).dropLast(5).allSatisfy({ (0x30...0x39).contains($0) }) { present[name] = row[1] }
            }
            var missing: [String] = [], pending = false
            for info in tables {
                let gone = present.removeValue(forKey: info.gone) != nil, live = present.removeValue(forKey: info.live) != nil
                if !gone || !live { missing += _Tombstones.statements(info) }
                if gone, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(info.gone))") == true { pending = true }
            }
            return (missing, present.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, pending)
        }
        let found = try database.read(survey)
        guard !found.missing.isEmpty || !found.strays.isEmpty else { return found.pending }
        // Best effort: another process holding the write lock past the busy timeout doesn't
        // keep the store from opening; the next opening repairs it.
        let repaired = try? database.write { db in
            let (missing, strays, pending) = try survey(db)
            for (name, type) in strays { try db.execute(sql: "DROP \(type == "view" ? "VIEW" : "TABLE") IF EXISTS \(name)") }
            for statement in missing { try db.execute(sql: statement) }
            return pending
        }
        return repaired ?? found.pending
    }
}
