import Foundation
import GRDB
import Synchronization

/// Statements of a write (on the writing connection, inside the transaction ``SQLiteTableStore``
/// opened) or of a read (each on a reader), with `$n` placeholders read as SQLite's `?n`.
struct _SQLiteSession: _SQLSession {
    let database: DatabasePool
    let writing: Bool

    func select(_ sql: String, _ values: [SQLValue], long: Bool) async throws -> [[SQLValue]] {
        let sql = Self.numbered(sql)
        let read: @Sendable (Database) throws -> [[SQLValue]] = { db in
            try db.sqlValueRows(sql, values, cached: true)
        }
        return long || !writing ? try await onConnection(read) : try visit(read)
    }

    func execute(_ sql: String, _ values: [SQLValue], long: Bool) async throws {
        let sql = Self.numbered(sql)
        let run: @Sendable (Database) throws -> Void = { db in try db.execute(sql: sql, arguments: StatementArguments(values.map(\.databaseValue))) }
        long || !writing ? try await onConnection(run) : try visit(run)
    }

    /// One statement of a write on the writing connection, waited for in place: inside the
    /// transaction the write holds the file's lock and its turn, so the writer's queue is idle
    /// and the statement short, and the wait costs a fraction of a task's suspension and
    /// resumption (which made an insert over HTTP 1.5× slower). Reads are awaited: every reader
    /// may be busy with a long page query. So are `long` statements and `BEGIN`, which can wait
    /// for another process's lock.
    private func visit<T>(_ body: (Database) throws -> T) throws -> T {
        try database.writeWithoutTransaction(body)
    }

    /// Runs `body` on the session's connection (for work done in one visit: a bulk insert).
    func onConnection<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        writing ? try await database.writeWithoutTransaction(body) : try await database.read(body)
    }

    /// `sql` with each `$` before a digit as `?`: SQLite's numbered parameters.
    static func numbered(_ sql: String) -> String {
        var bytes = Array(sql.utf8)
        for index in bytes.indices.dropLast() where bytes[index] == UInt8(ascii: "$") && (0x30...0x39).contains(bytes[index + 1]) {
            bytes[index] = UInt8(ascii: "?")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Turns to write, taken in the order asked: one writer at a time, without blocking a thread.
final class _WriteTurns: Sendable {
    private let state = Mutex<(taken: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if !state.taken {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func pass() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
