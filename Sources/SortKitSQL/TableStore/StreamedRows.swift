import Foundation
import Synchronization

/// A batch of a streamed view: its rows, or their CSV records.
struct _StreamBatch: Sendable {
    var rows: [TableRow] = []
    var csv: [UInt8]? = nil
    var count = 0

    /// The batches read but not yet handed on, and whether the client stopped reading.
    final class Ahead: Sendable {
        let count = Atomic<Int>(0)
        /// Set once nothing more will be handed on: a reader waiting for room on a thread of
        /// its own (SQLite's), which no task cancellation reaches, stops.
        let gone = Atomic<Bool>(false)
        /// The order values of the last row handed on, where a reader that may be stopped
        /// from outside keeps them (SQLite's, by its deadline).
        let handed = Mutex<[SQLValue]?>(nil)
        /// Set once the last batch is handed on: the read is finished, whatever stops it after.
        let complete = Atomic<Bool>(false)
    }
}

/// The one-query reads of views a store runs at once (each holds a connection while its
/// client reads), and the side that hands their batches on, which both stores share.
final class _StreamSlots: Sendable {
    private let running = Mutex(0)
    let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Runs `read` as a task of its own, which yields batches into its sink while fewer than
    /// two are `ahead` of `body` (the client), and hands each to `body` in order. A client that
    /// goes away (`body` throws, or the task is cancelled) cancels the read at once.
    /// ``_StreamEnd/notStreamed``, having read nothing, when `maximum` reads run already; a
    /// read's slot is given back when it ends. The sink is finished here when `read` ends
    /// (with its error when it throws: the client's loop ends instead of waiting for batches).
    func stream(
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void,
        read: @escaping @Sendable (AsyncThrowingStream<_StreamBatch, any Error>.Continuation, _StreamBatch.Ahead) async throws -> _StreamEnd
    ) async throws -> _StreamEnd {
        let maximum = maximum
        let admitted = running.withLock { running in
            guard running < maximum else { return false }
            running += 1
            return true
        }
        guard admitted else { return .notStreamed }
        let (batches, sink) = AsyncThrowingStream<_StreamBatch, any Error>.makeStream()
        let ahead = _StreamBatch.Ahead()
        sink.onTermination = { _ in ahead.gone.store(true, ordering: .releasing) }
        return try await withThrowingTaskGroup(of: _StreamEnd.self) { group in
            group.addTask {
                defer { self.running.withLock { $0 -= 1 } }
                do {
                    let end = try await read(sink, ahead)
                    sink.finish()
                    return end
                } catch {
                    sink.finish(throwing: error)
                    throw error
                }
            }
            do {
                for try await batch in batches {
                    try await body(batch.rows, batch.csv, batch.count)
                    ahead.count.subtract(1, ordering: .releasing)
                }
                // A cancelled task's loop ends as if the rows had: not a finished download.
                try Task.checkCancellation()
            } catch {
                // The client is gone (or the read failed): the reading task stops at once.
                ahead.gone.store(true, ordering: .releasing)
                group.cancelAll()
                throw error
            }
            return try await group.next() ?? .finished
        }
    }
}
