import Synchronization

/// `body`'s result, or `nil` when it hasn't finished within `budget`; then its task is
/// cancelled (GRDB turns that into an interrupt of the running statement, a body read stops).
/// One mechanism for the stores' query budgets and the server's body deadline.
///
///     guard let rows = try await _withDeadline(.seconds(5), { try await read() }) else { throw timedOut }
///
/// `finished`, when given, says whether the work itself ended within the budget though its
/// task hasn't returned yet: a statement that ended on a database thread while every thread
/// of the concurrency pool was busy (a burst of CPU-bound work) would otherwise lose the race
/// to the timer once the pool frees, and a query that took milliseconds would be reported as
/// over its budget. When the timer wakes and `finished` says so, the result is awaited instead.
package func _withDeadline<T: Sendable>(
    _ budget: Duration, finished: (@Sendable () -> Bool)? = nil, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: _DeadlineOutcome<T>.self) { group in
        group.addTask { .value(try await body()) }
        group.addTask {
            try await Task.sleep(for: budget)
            return .deadline
        }
        defer { group.cancelAll() }
        while let outcome = try await group.next() {
            switch outcome {
            case .value(let value): return value
            case .deadline: if finished?() != true { return nil }
            }
        }
        return nil
    }
}

/// What finished first in ``_withDeadline(_:finished:_:)``.
package enum _DeadlineOutcome<T: Sendable>: Sendable {
    case value(T)
    case deadline
}

/// A flag set once, read from any thread: "the work is done" for
/// ``_withDeadline(_:finished:_:)``.
package final class _DoneFlag: Sendable {
    private let done = Atomic(false)

    package init() {}

    /// Marks the work done.
    package func set() { done.store(true, ordering: .releasing) }

    /// Whether the work is done.
    package var isSet: Bool { done.load(ordering: .acquiring) }
}

extension Duration {
    /// Whole nanoseconds.
    package var _nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }

    /// Seconds to the millisecond as short text: `30`, `0.5`, `0.005`.
    package var _secondsText: String {
        let milliseconds = (_nanoseconds + 500_000) / 1_000_000
        var fraction = String(milliseconds % 1_000)
        guard fraction != "0" else { return String(milliseconds / 1_000) }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(milliseconds / 1_000).\(fraction)"
    }
}
