/// A list of callbacks for one event, each removable by the token `subscribe` returns.
@MainActor
public final class Observers<Value> {
    private var callbacks: [Int: (Value) -> Void] = [:]
    private var nextToken = 0

    /// An empty list.
    public init() {}

    /// Adds `callback`; returns the token that removes it.
    @discardableResult
    public func subscribe(_ callback: @escaping (Value) -> Void) -> Int {
        nextToken += 1
        callbacks[nextToken] = callback
        return nextToken
    }

    /// Removes the callback `subscribe` returned `token` for.
    public func cancel(_ token: Int) {
        callbacks[token] = nil
    }

    /// How many callbacks are registered.
    public var count: Int { callbacks.count }

    /// Calls every callback with `value`, in subscription order.
    public func fire(_ value: Value) {
        for token in callbacks.keys.sorted() { callbacks[token]?(value) }
    }
}
