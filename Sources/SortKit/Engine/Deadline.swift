/// `body`'s result, or `nil` when it hasn't finished within `budget`; then its task is
/// cancelled (GRDB turns that into an interrupt of the running statement, a body read stops).
/// One mechanism for the stores' query budgets and the server's body deadline.
///
///     guard let rows = try await _withDeadline(.seconds(5), { try await read() }) else { throw timedOut }
package func _withDeadline<T: Sendable>(_ budget: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: budget)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
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
