import Foundation

/// Above this many rows, keys are extracted and encoded on several cores.
@usableFromInline
package let _parallelThreshold = 50_000

/// Write-once slots filled from `concurrentPerform`, each index by exactly one iteration.
@usableFromInline
package final class _ResultSlots<Value>: @unchecked Sendable {
    @usableFromInline var slots: [Value?]
    @usableFromInline let lock = NSLock()
    @inlinable package init(count: Int) { slots = Array(repeating: nil, count: count) }
    @inlinable package func set(_ index: Int, _ value: Value) { lock.withLock { slots[index] = value } }
    @inlinable package var values: [Value] { lock.withLock { slots.map { $0! } } }
}

/// Shares read-only inputs with `concurrentPerform`: the key inputs are only read. A
/// comparator input's closure is not called during encoding.
@usableFromInline
package struct _UncheckedBox<Value>: @unchecked Sendable {
    @usableFromInline package let value: Value
    @inlinable package init(_ value: Value) { self.value = value }
}

/// `DispatchQueue.concurrentPerform` outside generic code, so its closure captures no
/// generic metatypes.
@usableFromInline
package func _concurrentPerform(iterations: Int, _ work: _UncheckedBox<(Int) -> Void>) {
    DispatchQueue.concurrentPerform(iterations: iterations) { work.value($0) }
}
