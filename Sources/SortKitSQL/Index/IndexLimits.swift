import Foundation
import SortKit
import Synchronization

/// Bounds on what a store's in-memory indexes keep, and on the work one request may start.
///
/// A ranking (one sort variant's order of a table: `title`, `title:nocase`, `price:abs`…)
/// takes 8 bytes a row and is kept current on every write. Requests choose variants freely, so
/// without bounds a stream of GETs that each sort a new way would make the index keep every
/// ranking forever (and update each on every write). Rankings are kept least recently used
/// first out under two byte budgets, per table and for all tables together; a request may
/// need at most ``newVariantsPerRequest`` rankings that aren't built yet; and searches of one
/// table wait in a bounded line, their wait counted in their time budget.
///
///     let store = try SQLiteTableStore(path: "db.sqlite", indexLimits: IndexLimits(rankingBytes: 256 << 20))
public struct IndexLimits: Sendable, Hashable {
    /// Bytes of rankings one table keeps; beyond them the least recently used go (and are
    /// built again when a request needs them).
    public var rankingBytesPerTable: Int
    /// Bytes of rankings all the store's tables keep together.
    public var rankingBytes: Int
    /// Rankings one request may need that the table hasn't built yet (a 400 beyond).
    public var newVariantsPerRequest: Int
    /// Searches of one table that may wait for the one running (a 503 beyond).
    public var waitingSearchesPerTable: Int
    /// Bytes all tables' in-memory indexes may take together (`sortkit serve --index-memory`),
    /// by their estimated size (``IndexPlacement/estimatedBytes(rows:textBytes:columns:)``); a
    /// table whose index doesn't fit beside those already held is served from the database's own
    /// indexes instead. `nil`: every table is held in memory.
    public var indexBytes: Int?
    /// The text collation the database's column indexes serve, for tables served from the
    /// database: the server's default (`sortkit serve --locale`), `natural` otherwise.
    public var databaseCollation: Collation

    /// Limits; the defaults keep 256 MB of rankings per table (32 orders of a 1M-row table)
    /// and 1 GB in all, and every table in memory.
    ///
    ///     IndexLimits(indexBytes: 64 << 20)   // tables past 64 MB of indexes are served by SQL
    public init(
        rankingBytesPerTable: Int = 256 << 20, rankingBytes: Int = 1 << 30, newVariantsPerRequest: Int = 4,
        waitingSearchesPerTable: Int = 16, indexBytes: Int? = nil, databaseCollation: Collation = .natural
    ) {
        self.rankingBytesPerTable = max(0, rankingBytesPerTable)
        self.rankingBytes = max(0, rankingBytes)
        self.newVariantsPerRequest = max(1, newVariantsPerRequest)
        self.waitingSearchesPerTable = max(0, waitingSearchesPerTable)
        self.indexBytes = indexBytes.map { max(0, $0) }
        self.databaseCollation = databaseCollation
    }
}

/// Where a store answers a table's sorted pages from (`GET /api/tables` shows it as `served`).
///
///     try await store.indexPlacement(of: "books")   // .memory, or .database under --index-memory
public enum IndexPlacement: String, Sendable, Hashable {
    /// The store's in-memory index: every sort variant, search and deep page in milliseconds.
    case memory
    /// The database's own indexes: a B-tree per column and direction (under
    /// ``IndexLimits/databaseCollation``), a trigram index for search (SQLite FTS5 `trigram`,
    /// PostgreSQL `pg_trgm`), exact counts by SQL. Other sort variants (`title:len`,
    /// `title:locale=sv`) are a scan, keyed by SQLite's query or by SortKit as PostgreSQL's rows
    /// arrive; the whole order of all rows is then kept for the table's version as row ids, 8
    /// bytes a row in the room the held indexes leave (`_KeptOrders`).
    case database

    /// The estimated bytes of a table's in-memory index: its cells and folded search text
    /// (twice the text), their offsets (8 bytes a cell), and per row its id, liveness and
    /// three kept orders. What ``IndexLimits/indexBytes`` counts.
    ///
    ///     IndexPlacement.estimatedBytes(rows: 1_000_000, textBytes: 62 << 20, columns: 7)   // about 216 MB
    public static func estimatedBytes(rows: Int, textBytes: Int, columns: Int) -> Int {
        2 * textBytes + rows * (8 * (columns + 1) + 8 + 1 + 3 * 8)
    }
}

/// What a table's in-memory index holds now, for `GET /api/tables` and monitoring.
public struct IndexUsage: Sendable, Hashable {
    /// Rows the index holds (live).
    public var rows: Int
    /// Rankings kept, and their bytes.
    public var rankings: Int
    public var rankingBytes: Int
    /// The budget of ``rankingBytes`` (``IndexLimits/rankingBytesPerTable``).
    public var rankingBudget: Int
    /// The bytes each structure of the index holds (allocated, not only used), by name:
    /// `cells` (every cell's bytes and its end, 8 bytes), `folded` (the search text and its
    /// end per row), `ids` (none while the ids run 1…n with no gaps, else 8 bytes a row), `live`
    /// (1 byte a row), `rankings`.
    ///
    ///     usage.structureBytes["cells"]! / usage.rows   // bytes per row of the cells
    public var structureBytes: [String: Int] = [:]
}

/// The moment a request's work must be done by: its time budget from the moment the request
/// reached the store, so time spent waiting for a search before it counts.
struct _Deadline: Sendable {
    let end: ContinuousClock.Instant
    let budget: Duration

    init(_ budget: Duration) {
        self.budget = budget
        end = ContinuousClock.now + budget
    }

    var hasPassed: Bool { ContinuousClock.now > end }

    /// Throws ``TableStoreError/timedOut(_:)`` once the deadline has passed.
    func check() throws {
        if hasPassed { throw TableStoreError.timedOut(budget) }
    }

    /// The time left (zero once past).
    var remaining: Duration { max(.zero, end - ContinuousClock.now) }
}

/// Work of one kind run one at a time, in the order it arrives, with a bounded line: a caller
/// that finds ``maxWaiting`` callers waiting is refused (`busy`), and one whose deadline
/// passes while it waits leaves the line (`timedOut`).
///
/// An actor alone doesn't serialize: awaiting a nonisolated async closure leaves the actor, so
/// a second call would start while the first runs. The actor only guards a flag and the line;
/// the work runs off it.
actor _Line {
    private var busy = false
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 0
    let maxWaiting: Int

    init(maxWaiting: Int = .max) {
        self.maxWaiting = maxWaiting
    }

    /// Runs `body` when the work before it has finished.
    ///
    /// - Throws: `unavailable` when the line is full; `timedOut` when `deadline` passes first.
    func run<T: Sendable>(deadline: _Deadline? = nil, _ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            guard waiting.count < maxWaiting else {
                throw TableStoreError(.unavailable, "\(waiting.count) searches of this table are waiting already; try again shortly")
            }
            nextID += 1
            let id = nextID
            var timer: Task<Void, Never>?
            if let deadline {
                timer = Task { [weak self] in
                    try? await Task.sleep(for: deadline.remaining)
                    await self?.leave(id)
                }
            }
            let admitted = await withCheckedContinuation { waiting.append((id, $0)) }
            timer?.cancel()
            guard admitted else { throw TableStoreError.timedOut(deadline?.budget ?? .zero) }
        }
        busy = true
        defer { next() }
        return try await body()
    }

    /// Lets the first waiter in, or marks the line free.
    private func next() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().continuation.resume(returning: true)
        }
    }

    /// Takes a waiter whose deadline passed out of the line.
    private func leave(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
    }

    /// Callers waiting now (for tests).
    var waitingCount: Int { waiting.count }
}
