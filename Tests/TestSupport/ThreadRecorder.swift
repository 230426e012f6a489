import Foundation

/// Notes the threads a closure runs on, for tests of which thread reads rows.
///
///     let recorder = ThreadRecorder()
///     _ = rows.sortedIndices(by: [SortKey { recorder.note(); return $0.price }])
///     #expect(recorder.threads == ["\(pthread_self())"])
public final class ThreadRecorder: @unchecked Sendable {
    // Unchecked: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen: Set<String> = []

    public init() {}

    /// Notes the calling thread.
    public func note() {
        let thread = "\(pthread_self())"
        lock.withLock { _ = seen.insert(thread) }
    }

    /// The threads noted so far.
    public var threads: Set<String> { lock.withLock { seen } }
}
