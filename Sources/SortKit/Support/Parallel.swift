import Foundation

/// Above this many rows, keys are extracted and encoded on several cores.
@usableFromInline
package let _parallelThreshold = 50_000

/// Write-once slots filled from `concurrentPerform`, each index by exactly one iteration.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public final class _ResultSlots<Value>: @unchecked Sendable {
    @usableFromInline var slots: [Value?]
    @usableFromInline let lock = NSLock()
    @inlinable package init(count: Int) { slots = Array(repeating: nil, count: count) }
    @inlinable package func set(_ index: Int, _ value: Value) { lock.withLock { slots[index] = value } }
    @inlinable package var values: [Value] { lock.withLock { slots.map { $0! } } }
}

/// Shares read-only inputs with `concurrentPerform`: the key inputs are only read. A
/// comparator input's closure is not called during encoding.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public struct _UncheckedBox<Value>: @unchecked Sendable {
    @usableFromInline package let value: Value
    @inlinable package init(_ value: Value) { self.value = value }
}

/// Runs `work` for every iteration from 0 to `iterations - 1` in parallel, on the calling
/// thread and SortKit's worker threads (``_WorkerThreads``), and returns when all are done.
/// Outside generic code, so its closure captures no generic metatypes.
@usableFromInline
package func _concurrentPerform(iterations: Int, _ work: _UncheckedBox<(Int) -> Void>) {
    _WorkerThreads.shared.perform(iterations: iterations) { work.value($0) }
}

/// Threads of SortKit's own for the parallel parts of a sort: one fewer than the cores, since
/// the caller takes a share.
///
/// Not `DispatchQueue.concurrentPerform`: on Linux its iterations run on Dispatch's global
/// threads, which are Swift concurrency's pool — as many as there are cores. A server sorting
/// a million rows in one request, or a test doing so beside a hundred others, then held every
/// thread of the pool: every other request and task waited until it finished (60-second
/// stalls of a whole test run, 2026-11-26). On these threads the sort still takes its cores,
/// but the pool's threads stay free to run everything else between the scheduler's time slices.
///
/// Nested calls can't deadlock: a caller runs iterations itself until none is left unclaimed,
/// and then waits only for iterations that other threads are running.
package final class _WorkerThreads: @unchecked Sendable {
    /// The process's workers.
    package static let shared = _WorkerThreads(threads: ProcessInfo.processInfo.activeProcessorCount - 1)

    private let threads: _JobThreads

    private init(threads count: Int) {
        threads = _JobThreads(count: max(0, count)) { _nameCurrentThread("sortkit-work-\($0)") }
    }

    /// Runs `work` for each iteration, returning when all have run.
    package func perform(iterations: Int, _ work: @escaping @Sendable (Int) -> Void) {
        guard iterations > 1, threads.count > 0 else {
            for iteration in 0..<max(0, iterations) { work(iteration) }
            return
        }
        let batch = _ParallelBatch(iterations: iterations, work: work)
        for _ in 0..<min(iterations - 1, threads.count) { threads.submit { batch.help() } }
        batch.help()
        batch.wait()
    }
}

/// Threads that run submitted jobs in the order they come, each set up once by `setUp`
/// (given its number) before its first job: SortKit's workers, and the SQL index's scan
/// threads, which lower their priority there.
package final class _JobThreads: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs waiting for a thread (guarded by `condition`).
    private var jobs: [() -> Void] = []
    /// How many threads there are.
    package let count: Int

    package init(count: Int, setUp: @escaping @Sendable (Int) -> Void) {
        self.count = count
        for number in 0..<count {
            Thread { [self] in
                setUp(number)
                work()
            }.start()
        }
    }

    /// Queues `job` for the next free thread.
    package func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// Names the calling thread as `ps` and `top` show it. On Linux a thread starts with its
/// creator's name (a Dispatch worker's), and Foundation's `Thread.name` reaches the kernel
/// only when the thread is already known as started, which races with the thread's first
/// lines; `/proc/thread-self/comm` is the calling thread's name, whatever Foundation knows.
package func _nameCurrentThread(_ name: String) {
    #if os(Linux)
        try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
    #else
        Thread.current.name = name
    #endif
}

/// One parallel run's iterations, claimed one at a time by the threads that help. The work
/// closure is dropped once every iteration has run, so a helper that starts late finds
/// nothing to do and holds nothing of the caller's.
package final class _ParallelBatch: @unchecked Sendable {
    private let condition = NSCondition()
    private var next = 0
    private var done = 0
    private let iterations: Int
    private var work: (@Sendable (Int) -> Void)?

    package init(iterations: Int, work: @escaping @Sendable (Int) -> Void) {
        self.iterations = iterations
        self.work = work
    }

    /// Runs unclaimed iterations until there are none.
    package func help() {
        while true {
            condition.lock()
            guard next < iterations, let work else {
                condition.unlock()
                return
            }
            let iteration = next
            next += 1
            condition.unlock()
            work(iteration)
            condition.lock()
            done += 1
            if done == iterations {
                self.work = nil
                condition.broadcast()
            }
            condition.unlock()
        }
    }

    /// Waits until every iteration has run.
    package func wait() {
        condition.lock()
        while done < iterations { condition.wait() }
        condition.unlock()
    }
}
