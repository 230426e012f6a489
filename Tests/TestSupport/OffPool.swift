import Foundation

/// Runs a test's CPU-heavy work on threads of its own instead of the Swift concurrency pool.
///
/// The pool has one thread per core (two here). Synchronous tests run on it, so two tests that
/// each compute for tens of seconds stall every asynchronous test of the run — the SQL stores'
/// query budgets and the server's timeouts then fire on work that was merely waiting to
/// resume. The work keeps its task, so `#expect` still reports to its test.
///
///     @Test func heavy() async { await offPool { #expect(bigSort() == oracle()) } }
public func offPool<T>(_ work: () throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(HeavyWorkExecutor.shared) {
        // A suspension point, so the rest runs on the preferred executor.
        await Task.yield()
        return try work()
    }
}

/// An executor that runs each job on a thread of its own, at most two at a time (so heavy
/// tests' memory doesn't add up). Not Dispatch's global queues: on Linux the concurrency pool
/// is made of their threads, as many as there are cores.
final class HeavyWorkExecutor: TaskExecutor {
    static let shared = HeavyWorkExecutor()
    private let running = DispatchSemaphore(value: 2)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let running = running
        let thread = Thread {
            running.wait()
            defer { running.signal() }
            job.runSynchronously(on: executor)
        }
        thread.name = "test-heavy-work"
        thread.start()
    }
}

/// Runs blocking work (a socket read with a timeout) on a thread made for it, so the awaiting
/// task's pool thread stays free. Two tests blocked in `recv` on the pool's two threads froze
/// the in-process server they were waiting for, until the reads timed out a minute later.
///
///     let reply = await onOwnThread { connection.blockingRead(until: "\r\n\r\n") }
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.start()
    }
}
