import Foundation

/// Waits for a started `Process` to exit without blocking a thread.
///
/// Not `waitUntilExit()`: on Linux it spins the calling thread's run loop until Foundation's
/// process-monitor thread reports the exit, which, called from the concurrency pool under
/// load (hundreds of children, kill -9s, parallel tests), lost the exit and parked the test
/// forever — the full suite hung with every thread idle while each test passed alone. The
/// termination handler is the notification Foundation does deliver; `isRunning` covers an exit
/// reported before the handler was set.
///
///     try process.launchAlone()
///     let status = await exitStatus(of: process)
@discardableResult
public func exitStatus(of process: Process) async -> Int32 {
    let once = ResumeOnce()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        once.set(continuation)
        process.terminationHandler = { _ in once.resume() }
        if !process.isRunning { once.resume() }
    }
    return process.terminationStatus
}

/// A continuation resumed at most once, from whichever thread gets there first.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume() {
        lock.withLock {
            let waiting = continuation
            continuation = nil
            return waiting
        }?.resume()
    }
}

/// ``exitStatus(of:)`` for synchronous code (a `defer` that stops a server): blocks on a
/// semaphore the termination handler signals, not on `waitUntilExit()`'s run loop.
///
///     defer { if process.isRunning { process.terminate() }; waitForExit(process) }
@discardableResult
public func waitForExit(_ process: Process) -> Int32 {
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    if process.isRunning { exited.wait() }
    return process.terminationStatus
}

/// The lock around every child process's launch in the tests.
private let launching = NSLock()

extension Process {
    /// `run()`, one launch at a time in the test process. Foundation's `Process.run()` on
    /// Linux crashed in a `memcpy` inside the launch while other tests launched children at
    /// the same moment (a clean-clone `.ci/run`, 2026-11-27: `InputEdgesTests.shell` beside
    /// `DifferentialCLITests`); launches are short, and waiting for the exit stays outside.
    ///
    ///     try process.launchAlone()
    ///     let status = await exitStatus(of: process)
    ///
    /// This launch still crashed twice, from `CommandRunner`, which now uses ``SpawnedProcess``.
    public func launchAlone() throws {
        try launching.withLock { try run() }
    }
}
