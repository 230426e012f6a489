import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Threads that run search scans below the priority of everything else in the process, so a
/// stream of new search terms takes the cores only while sorted pages (and the HTTP server's
/// own threads) leave them idle.
///
/// A scan splits into one slice per core. On Dispatch's threads (or Swift's cooperative pool)
/// the slices compete with page requests as equals: on 2 cores, new-term searches cut sorted
/// pages' throughput to 56% of theirs alone (`Benchmarks/load.sh`). Here each thread lowers its own scheduling
/// priority once (Linux: a nice value of 19, about 1.5% of a normal thread's CPU share when
/// both want a core; Apple platforms: the utility QoS class), and a scan's slices are shared
/// by the calling worker and the others, so an idle machine still scans on every core.
/// Neither Dispatch nor Swift concurrency can lower a thread's priority on Linux (QoS classes
/// are ignored there), which is why these are plain threads.
final class _ScanThreads: @unchecked Sendable {
    /// The process's scan threads: one per core.
    static let shared = _ScanThreads(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// The nice value scan threads take on Linux.
    /// 19 (the lowest priority) rather than 10: measured with `Benchmarks/load.sh`'s setup on 2 cores
    /// and 1M rows (wrk, 1 thread and 8 connections each), sorted pages beside a stream of
    /// new-term searches kept 90% of their throughput alone at 19 (2,303 of 2,557 requests/s,
    /// p99 8.4 ms), 73% at 10 and 56% at normal priority; the searches beside them went from 23/s
    /// to 11.6/s and 9/s. Searches alone are as fast as before: nothing else wants the cores.
    static let niceValue: Int32 = 19

    private let condition = NSCondition()
    /// Jobs waiting for a thread (guarded by `condition`).
    private var jobs: [() -> Void] = []
    let threadCount: Int

    private init(threads: Int) {
        threadCount = max(1, threads)
        for number in 0..<threadCount {
            let thread = Thread { [self] in work() }
            thread.name = "sortkit-scan-\(number)"
            thread.start()
        }
    }

    /// Runs `body` on a scan thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `work` for every iteration from 0 to `iterations - 1`, in parallel, and returns when
    /// all are done: on a scan thread, shared with the other scan threads at their priority;
    /// elsewhere, `DispatchQueue.concurrentPerform`.
    /// (`work` is escaping because a helper that starts after the last iteration still holds
    /// the batch; the batch drops `work` when the last iteration ends.)
    static func perform(iterations: Int, _ work: @escaping @Sendable (Int) -> Void) {
        guard iterations > 1, Thread.current.threadDictionary[_scanThreadKey] != nil else {
            return DispatchQueue.concurrentPerform(iterations: iterations, execute: work)
        }
        let batch = _Batch(iterations: iterations, work: work)
        for _ in 0..<min(iterations, shared.threadCount) - 1 { shared.submit { batch.help() } }
        batch.help()
        batch.wait()
    }

    private func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        Self.lowerPriority()
        Thread.current.threadDictionary[_scanThreadKey] = true
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }

    /// Lowers the calling thread's scheduling priority (on Linux the nice value is per thread).
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceValue)
        #elseif canImport(Darwin)
        _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
        #endif
    }

    /// The calling thread's nice value (Linux), for tests.
    static func currentNiceValue() -> Int32? {
        #if os(Linux)
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? value : nil
        #else
        return nil
        #endif
    }
}

private let _scanThreadKey = "sortkit.scanThread"

/// One `perform`'s iterations, claimed one at a time by the threads that help. The work
/// closure is dropped once every iteration has run, so a helper that starts late finds
/// nothing to do and holds nothing of the caller's.
private final class _Batch: @unchecked Sendable {
    private let condition = NSCondition()
    private var next = 0
    private var done = 0
    private let iterations: Int
    private var work: (@Sendable (Int) -> Void)?

    init(iterations: Int, work: @escaping @Sendable (Int) -> Void) {
        self.iterations = iterations
        self.work = work
    }

    func help() {
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

    func wait() {
        condition.lock()
        while done < iterations { condition.wait() }
        condition.unlock()
    }
}
