import Foundation
import GRDB
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// The write-ahead log is checkpointed off the writing connection: no commit copies it (the
/// automatic checkpoint is off), and `_WALCheckpointer` copies it on a connection of its own.
@Suite("WAL checkpoints")
struct WALCheckpointerTests {
    @Test("No commit checkpoints; the checkpointer copies the log into the database file on its own connection")
    func checkpointsOffTheWriter() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path)
        let autocheckpoint = try await store.database.read { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") }
        #expect(autocheckpoint == 0)
        // The log file is cut back to the threshold when SQLite starts it over, so its size
        // says what is waiting (after a big import it would otherwise stay over it for good).
        let limit = try await store.database.write { try Int.fetchOne($0, sql: "PRAGMA journal_size_limit") }
        #expect(limit == _WALCheckpointer.defaultThreshold)
        var csv = "title,price\n"
        for row in 0..<20_000 { csv += "Title \(row) é,\(row % 977).5\n" }
        try await store.importCSV(Array(csv.utf8), as: "books")
        // The import's pages are in the log (under the store's own threshold: no checkpoint).
        func size(_ file: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0 }
        let before = size(path)
        #expect(size(path + "-wal") > before, "the import is in the log")
        _WALCheckpointer(path: path, threshold: 0).afterWrite()
        let deadline = ContinuousClock.now + .seconds(20)
        while size(path) <= before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(size(path) > before, "the checkpoint copied the log into the database file")
        // A log over four times the threshold is cut back by the checkpointer, not by the next write.
        while size(path + "-wal") > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(size(path + "-wal") == 0, "the checkpointer truncated the log")
        // Writes and reads go on as before.
        let id = try await store.insert(["title": "After", "price": "1"], into: "books")
        #expect(try await store.row(id, in: "books").cells == ["After", "1"])
    }

    @Test("The checkpointer truncates the log only when nothing is left to copy: a reader of an older snapshot holds no write")
    func truncatesOnlyWhenCopied() async throws {
        let path = try temporaryDatabase()
        // The tests' budget: under the full suite's load a read took past the default 5 s.
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        var csv = "title,price\n"
        for row in 0..<5_000 { csv += "Title \(row),\(row)\n" }
        try await store.importCSV(Array(csv.utf8), as: "books")
        func size(_ file: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0 }
        // A reader (a download, say) keeps the snapshot from before the next write.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: configuration)
        let count = try await reader.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN DEFERRED")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM sortkit_table")
        }
        #expect(count == 1)
        _ = try await store.insert(["title": "Later", "price": "1"], into: "books")
        let checkpointer = _WALCheckpointer(path: path, threshold: 0)
        // The frames after the reader's snapshot can't be copied: no TRUNCATE, which would
        // hold the write lock waiting for the reader.
        #expect(try checkpointer.run() == false)
        #expect(size(path + "-wal") > 0)
        // Told to wait, it waits for the reader a bounded time, then gives up.
        #expect(throws: DatabaseError.self) { try checkpointer.run(waiting: 50) }
        #expect(size(path + "-wal") > 0)
        let id = try await store.insert(["title": "Meanwhile", "price": "2"], into: "books")
        #expect(try await store.row(id, in: "books").cells == ["Meanwhile", "2"])
        try await reader.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        // With the reader gone, everything is copied and the log cut back.
        #expect(try checkpointer.run() == true)
        #expect(size(path + "-wal") == 0)
        #expect(try await store.page(of: "books", PageRequest(search: "meanwhile")).rows.map(\.id) == [id])
    }
}
