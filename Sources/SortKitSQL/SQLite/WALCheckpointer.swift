import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints an SQLite store's write-ahead log in the background, on a connection of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the
/// writing connection: the write that happened to cross it waited for the copy (75–120 ms in
/// `big-table.sh`), and the first write after a 1M-row import waited 0.58 s for the import's
/// log. The store turns the automatic checkpoint off and calls ``afterWrite()``: when the log
/// has grown past ``threshold`` bytes, one PASSIVE checkpoint runs on another connection, which
/// copies what no reader still needs without taking the write lock. The writer goes on; SQLite
/// starts the log over at the first write after a checkpoint that copied everything. A log four
/// times the threshold is then truncated by the checkpointer itself.
///
///     let checkpointer = _WALCheckpointer(path: "library.sqlite")
///     checkpointer.afterWrite()   // after a commit: checkpoints when the log is big
final class _WALCheckpointer: Sendable {
    /// The log size that starts a checkpoint: SQLite's default (1,000 pages) at this store's
    /// 16 KB pages. The store's connections set `journal_size_limit` to it, so the log file is
    /// cut back to it when SQLite starts the log over after a checkpoint, and its size keeps
    /// saying how much is waiting.
    static let defaultThreshold = 16 << 20

    /// This checkpointer's threshold (tests use a small one).
    let threshold: Int

    private let path: String
    private let state = Mutex<(running: Bool, connection: DatabaseQueue?)>((false, nil))

    init(path: String, threshold: Int = _WALCheckpointer.defaultThreshold) {
        self.path = path
        self.threshold = threshold
    }

    /// Starts a checkpoint if the log is over ``threshold`` and none is running.
    func afterWrite() {
        guard logSize > threshold else { return }
        checkpoint()
    }

    /// The log file's size in bytes (0 without one).
    private var logSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Starts a checkpoint now, unless one is running.
    func checkpoint() {
        guard
            state.withLock({ state in
                if state.running { return false }
                state.running = true
                return true
            })
        else { return }
        Task.detached(priority: .utility) {
            defer { self.state.withLock { $0.running = false } }
            // A log left over four times the threshold is tried again half a second later, a
            // few times (writes may have stopped). A log over sixteen times it is, the last
            // time, truncated waiting up to 0.2 s for readers (and copying what is left, the
            // writes waiting): with a reader always there (downloads back to back), a
            // checkpoint that never waits would never cut it back. A failed checkpoint leaves
            // the log as it is: the next write tries again, and SQLite checkpoints when the
            // last connection closes.
            for attempt in 0..<Self.attempts {
                let last = attempt == Self.attempts - 1
                let truncated = try? self.run(waiting: last && self.logSize > 16 * self.threshold ? 200 : 0)
                guard truncated != true, self.logSize > 4 * self.threshold, attempt < Self.attempts - 1 else { return }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// How many times one checkpoint tries to cut a big log back.
    static let attempts = 4

    /// One checkpoint on this checkpointer's connection: PASSIVE, then TRUNCATE if the log is
    /// over four times the threshold and the PASSIVE copied all of it — or, `waiting` (ms) for
    /// a writer or readers at most, whatever the PASSIVE copied. Returns whether the log was
    /// truncated.
    ///
    /// A log far over the threshold (a big import's) is cut back here, off the request path:
    /// SQLite would cut it at the next write, which then waited for the kernel to drop the
    /// file's cached pages (most of the 0.1-0.18 s first bulk delete after a 1M-row import).
    /// TRUNCATE holds the write lock while it copies what is left and waits for readers, so
    /// unless told to wait it runs only when nothing is left to copy, and gives up at once
    /// (this connection waits for no lock) when a writer or a reader of an older snapshot (a
    /// download) is there: else every write waited behind it (a block move after four bulk
    /// deletes of a table served from the database waited 0.34 s). Truncating a 358 MB log
    /// with nothing to copy takes 0.09 s; when it gives up, the next checkpoint tries again.
    /// PASSIVE never waits.
    @discardableResult
    func run(waiting: Int32 = 0) throws -> Bool {
        let connection = try connection()
        let passive = try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
        guard logSize > 4 * threshold, waiting > 0 || passive.walFrameCount == passive.checkpointedFrameCount else { return false }
        _ = try connection.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, waiting)
            defer { sqlite3_busy_timeout(db.sqliteConnection, 0) }
            return try db.checkpoint(.truncate)
        }
        return true
    }

    private func connection() throws -> DatabaseQueue {
        if let connection = state.withLock({ $0.connection }) { return connection }
        var configuration = Configuration()
        // SQLITE_BUSY at once: see `run()`.
        configuration.busyMode = .immediateError
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        state.withLock { $0.connection = connection }
        return connection
    }
}
