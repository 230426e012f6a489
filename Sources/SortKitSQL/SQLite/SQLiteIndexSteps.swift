import Foundation
import GRDB

/// SQLite's steps of ``_IndexBuilder``: each makes one index in a write transaction of its own.
extension SQLiteTableStore {
    /// The tables served from the database (table `name` alone, if given) that lack indexes in
    /// `db`'s file, each with those it lacks, in the order they are made; the file's names
    /// read once.
    static func missingIndexes(_ db: Database, table name: String? = nil) throws -> [(info: _TableInfo, missing: [_DatabaseIndex])] {
        let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'table')"))
        return try catalogRows(db, tombstoned: true).filter { name == nil || $0.schema.name == name }.compactMap { info in
            let missing = try databaseIndexes(info).filter { !present.contains($0.name(info)) }
            return missing.isEmpty ? nil : (info, missing)
        }
    }

    /// ``indexStep()`` of the store while it lives (weak: the builder keeps its step, and the
    /// store keeps the builder).
    var indexStepper: _IndexBuilder.Step { { [weak self] in try await self?.indexStep() ?? false } }

    /// Makes one index that a table served from the database lacks (of the first such table),
    /// in one write; returns whether it made one (`false`: none is missing).
    func indexStep() async throws -> Bool {
        let made = try await write { session in
            guard let (info, missing) = try await session.onConnection({ db in try Self.missingIndexes(db).first }) else { return false }
            switch missing[0] {
            case .column(let name, let columns, _):
                try await Self.withIndexSorter(session) {
                    try await session.execute("CREATE INDEX IF NOT EXISTS \(name) ON \(info.physical) (\(columns))", [], long: true)
                }
            case .search:
                try await Self.createSearchIndex(info, session)
            }
            return true
        }
        // The search index's rebuild reads the whole table through the writing connection's
        // cache beside its 64 MB term buffer: both go back once a step is made (95 MB were
        // kept after a 1M-row table's indexes).
        if made { await releaseWriterMemory() }
        return made
    }

    /// Whether table `table` is served from the database and lacks some of its indexes
    /// (being made in the background).
    public func indexesPending(of table: String) async throws -> Bool {
        let pending = try await database.read { db in try !Self.missingIndexes(db, table: table).isEmpty }
        // A run that gave up (another process held the file's write lock throughout its
        // retries) starts again when someone asks.
        if pending { databaseIndexesMissing() }
        return pending
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

    /// The trigram index of the folded search text (`s`), which serves the search's
    /// substring tests (see ``PageQuery``): on SQLite an FTS5 `trigram` table over the
    /// table's rows, kept by triggers (PostgreSQL's `pg_trgm` GIN index: see
    /// ``PostgresTableStore/indexStep()``).
    static func createSearchIndex(_ info: _TableInfo, _ session: _SQLiteSession) async throws {
        let table = info.physical, search = info.searchIndex
        guard try await session.integer("SELECT count(*) FROM sqlite_master WHERE name = $1", [.text(search)]) == 0 else { return }
        // `detail='none'`: a third of the index's size; `LIKE` is served all the same.
        try await session.execute(
            "CREATE VIRTUAL TABLE \(search) USING fts5(s, content='\(table)', content_rowid='id', tokenize='trigram', detail='none')")
        // A 64 MB term buffer (1 MB by default) writes a third fewer segments: the
        // rebuild of 1M rows takes 8.9 s instead of 12.8 s.
        try await session.execute("INSERT INTO \(search)(\(search), rank) VALUES ('hashsize', 67108864)")
        try await session.execute("INSERT INTO \(search)(\(search)) VALUES ('rebuild')", [], long: true)
        // The rebuild leaves a few big segments, each a flush of the term buffer. FTS5
        // merges a level's segments once it holds 16 (its "crisis merge") inside whichever
        // write adds the 16th, so some later write rewrote all of them (1M rows): the
        // slowest of 30 inserts after an import took 1.2–1.5 s, a compaction step of 64
        // rows 1.3 s. Merged into one now (the import served 0.6–0.9 s later), later
        // segments merge among themselves: the slowest insert 0.54 s (the first write after
        // the import), the slowest of 79 compaction steps 85 ms.
        try await session.execute("INSERT INTO \(search)(\(search)) VALUES ('optimize')", [], long: true)
        let remove = "INSERT INTO \(search)(\(search), rowid, s) VALUES ('delete', old.id, old.s);"
        let add = "INSERT INTO \(search)(rowid, s) VALUES (new.id, new.s);"
        try await session.execute("CREATE TRIGGER \(search)_i AFTER INSERT ON \(table) BEGIN \(add) END")
        try await session.execute("CREATE TRIGGER \(search)_d AFTER DELETE ON \(table) BEGIN \(remove) END")
        try await session.execute("CREATE TRIGGER \(search)_u AFTER UPDATE OF s ON \(table) BEGIN \(remove) \(add) END")
    }
}
