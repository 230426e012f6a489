import Foundation
import SortKit

/// Brings a table's kept rankings up to date after a data change, while the caller goes on.
///
/// On a large table the rankings are updated off the calling thread, several at once, while
/// the caller folds the changed rows for search (user display closures, which are not
/// `@Sendable`, stay on the calling thread). A ranking update only reads rows, through its
/// key's `@Sendable` closures — the same reads the sort engine makes on both cores — so the
/// table asks for it only when its rows are `Sendable` (``DataTable``'s `readsRowsOnOtherThreads`).
///
///     let pending = _RankingUpdate(rankings, old: oldRows, new: rows, newPosition: moved,
///                                  changed: changed, identity: true, inBackground: true)
///     // … other work on the calling thread …
///     let (rankings, updated) = pending.wait()
final class _RankingUpdate<Row>: @unchecked Sendable {
    // Unchecked: each slot of `entries` is written only by the one `run` iteration for its
    // index, and read by `wait` after the group has finished; the rows are only read.
    private let entries: UnsafeMutableBufferPointer<(id: String, ranking: _ColumnRanking<Row>, updated: Bool)>
    private let old: [Row], new: [Row], newPosition: [Int], changed: [Bool], identity: Bool
    private let group = DispatchGroup()

    /// Starts updating `rankings` for the change (see
    /// ``_ColumnRanking/update(old:new:newPosition:changed:identity:)``): on other threads when
    /// `inBackground`, else before returning.
    init(
        _ rankings: [String: _ColumnRanking<Row>], old: [Row], new: [Row], newPosition: [Int], changed: [Bool], identity: Bool,
        inBackground: Bool
    ) {
        entries = .allocate(capacity: rankings.count)
        _ = entries.initialize(from: rankings.lazy.map { (id: $0.key, ranking: $0.value, updated: false) })
        self.old = old
        self.new = new
        self.newPosition = newPosition
        self.changed = changed
        self.identity = identity
        if inBackground && !entries.isEmpty {
            DispatchQueue.global().async(group: group) { self.run(concurrently: true) }
        } else {
            run(concurrently: false)
        }
    }

    deinit {
        entries.deinitialize()
        entries.deallocate()
    }

    private func run(concurrently: Bool) {
        if concurrently {
            DispatchQueue.concurrentPerform(iterations: entries.count) { self.update(at: $0) }
        } else {
            for index in entries.indices { update(at: index) }
        }
    }

    private func update(at index: Int) {
        entries[index].updated = entries[index].ranking.update(
            old: old, new: new, newPosition: newPosition, changed: changed, identity: identity)
    }

    /// The updated rankings and the ids of those that changed, once every update is done.
    func wait() -> (rankings: [String: _ColumnRanking<Row>], updated: Set<String>) {
        group.wait()
        return (
            Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0.ranking) }),
            Set(entries.filter(\.updated).map(\.id))
        )
    }
}
