import Foundation
import SortKit

#if canImport(Glibc)
    import Glibc
#endif

/// Threads that run search scans below the priority of everything else in the process, so a
/// stream of new search terms takes the cores only while sorted pages (and the HTTP server's
/// own threads) leave them idle.
///
/// A scan splits into one slice per core. On Dispatch's threads (or Swift's cooperative pool)
/// the slices compete with page requests as equals: on 2 cores, new-term searches cut sorted
/// pages' throughput to 56% of theirs alone (`Benchmarks/load.sh`). Here each thread lowers its
/// own scheduling priority once (Linux: a nice value of 15, ``niceValue``; Apple platforms: the
/// utility QoS class). A request awaits its scan (``run(_:)``), so its thread serves other
/// requests meanwhile.
///
/// Scan threads run nothing but scans: on Linux a thread inherits its creator's nice value, so
/// a scan thread that resumed a task or started Dispatch work could leave a pool thread at nice
/// 15 for good (a thread can't raise its priority again without privileges). So a finished
/// scan's task is resumed by a thread of normal priority made for that, and the page itself is
/// made after the scan, on the request's own thread.
/// Dispatch on Linux sets its workers' nice values from a fixed table by QoS class (utility
/// work ran at nice 2 here) and Swift's task priorities map onto those classes: a nice value
/// of our choosing needs threads of our own.
final class _ScanThreads: @unchecked Sendable {
    /// The process's scan threads: one per core.
    static let shared = _ScanThreads(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// The nice value scan threads take on Linux: 15, about 4.5% of a normal thread's CPU
    /// share when both want a core. Measured on 2 cores and 1M rows with `Benchmarks/load.sh`'s
    /// requests (wrk, 1 thread and 8 connections each, 10 s, 2026-11-26), sorted pages beside a
    /// stream of new-term searches kept 80% of their throughput alone at nice 10 (searches
    /// beside them 55/s), 85% at 15 (50/s) and 93% at 19 (33/s, p99 484 ms). 19 would starve
    /// scans on a machine kept busy by other work (1.5% of a core: a scan 60 times slower, up
    /// to the request's time budget); 15 keeps nearly all of the pages' throughput and every
    /// scan within a few hundred milliseconds. Searches alone run as fast at any value.
    static let niceValue: Int32 = 15

    private let threads: _JobThreads
    var threadCount: Int { threads.count }
    private let resumer = _Resumer()

    private init(threads count: Int) {
        // SortKit's workers first: a thread inherits its creator's nice value on Linux, so
        // workers first made from a scan (which may sort) would run at nice 15 for good.
        _ = _WorkerThreads.shared
        threads = _JobThreads(count: max(1, count)) { number in
            _nameCurrentThread("sortkit-scan-\(number)")
            Self.lowerPriority()
            Thread.current.threadDictionary[_scanThreadKey] = true
        }
    }

    /// Runs `scan` on a scan thread and returns its result; the awaiting task is resumed by a
    /// thread of normal priority. `scan` must not start tasks or Dispatch work (see above);
    /// its parallel parts use ``perform(iterations:_:)``.
    func run<T: Sendable>(_ scan: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let resumer = resumer
            threads.submit {
                let result = Result { try scan() }
                resumer.resume { continuation.resume(with: result) }
            }
        }
    }

    /// Runs `work` for every iteration from 0 to `iterations - 1` in parallel on the scan
    /// threads, and returns when all are done: on a scan thread, the iterations are shared with
    /// the other scan threads; elsewhere the caller waits for them (it takes no share: it would
    /// run at its own priority). `work` must not start threads, tasks or Dispatch work.
    /// (`work` is escaping because a thread that starts after the last iteration still holds
    /// the batch; the batch drops `work` when the last iteration ends.)
    static func perform(iterations: Int, _ work: @escaping @Sendable (Int) -> Void) {
        guard iterations > 0 else { return }
        let batch = _ParallelBatch(iterations: iterations, work: work)
        let onScanThread = Thread.current.threadDictionary[_scanThreadKey] != nil
        for _ in 0..<min(iterations, shared.threadCount) - (onScanThread ? 1 : 0) { shared.threads.submit { batch.help() } }
        if onScanThread { batch.help() }
        batch.wait()
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

/// A thread of normal priority that resumes the tasks whose scans finished, so that no scan
/// thread enqueues work on Swift's or Dispatch's pools (see ``_ScanThreads``).
private final class _Resumer: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [() -> Void] = []

    init() {
        Thread { [self] in
            _nameCurrentThread("sortkit-resume")
            while true {
                condition.lock()
                while pending.isEmpty { condition.wait() }
                let ready = pending
                pending.removeAll()
                condition.unlock()
                for resume in ready { resume() }
            }
        }.start()
    }

    func resume(_ body: @escaping () -> Void) {
        condition.lock()
        pending.append(body)
        condition.signal()
        condition.unlock()
    }
}
