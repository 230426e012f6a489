import Synchronization

/// Counts the catalog reads of a task and its child tasks, for tests that check a request reads
/// the catalog once.
///
///     let reads = _CatalogReads()
///     try await _CatalogReads.$counter.withValue(reads) { _ = try await store.page(of: "books", PageRequest()) }
///     reads.count   // 1
package final class _CatalogReads: Sendable {
    @TaskLocal package static var counter: _CatalogReads?
    private let value = Mutex(0)

    package init() {}

    package var count: Int { value.withLock { $0 } }

    func add() { value.withLock { $0 += 1 } }
}
