import Foundation
import SortKit

/// A row as a write left it: its cells (as stored), or `nil` if it was deleted.
struct _RowChange: Sendable {
    var id: Int64
    var cells: [String]?
}

extension _TableIndex {
    /// The index after `changes` (rows written since ``dataVersion``), at `dataVersion`; `nil`
    /// when they can't be applied in place (a new row whose id isn't above every slot's) or are
    /// better served by rebuilding (more than a quarter of the rows).
    func applying(_ changes: [_RowChange], dataVersion: Int64) -> _TableIndex? {
        var index = self
        index.dataVersion = dataVersion
        guard !changes.isEmpty else { return index }
        guard changes.count * 4 <= max(slotCount, 64) else { return nil }
        var removed: Set<UInt32> = []
        var added: [UInt32] = []
        for change in changes {
            if let slot = index.slot(of: change.id) {
                if index.live[slot] { removed.insert(UInt32(slot)) }
                guard let row = change.cells else {
                    if index.live[slot] { index.liveCount -= 1 }
                    index.live[slot] = false
                    index.cells.written[slot] = nil
                    index.folded.written[slot] = nil
                    continue
                }
                if !index.live[slot] { index.liveCount += 1 }
                index.live[slot] = true
                index.set(row, at: slot)
                added.append(UInt32(slot))
            } else if let row = change.cells {
                guard change.id > (index.ids.last ?? Int64.min) else { return nil }
                let slot = index.ids.count
                index.ids.append(change.id)
                index.live.append(true)
                index.liveCount += 1
                index.set(row, at: slot)
                added.append(UInt32(slot))
            }
        }
        // A slot written twice joins once, with its last cells.
        added = Array(Set(added)).sorted().filter { index.live[Int($0)] }
        // Each kept ranking records the write and is brought up to date when a request reads
        // it (`_TableIndex.ranking(_:)`): a bulk delete pays for the order its next page uses.
        // One whose pending writes reach an eighth of the table is updated now, side by side
        // on every core (one pass over its order each), so none holds a large backlog.
        var due: [(KeyVariant, _Ranking)] = []
        for (variant, ranking) in index.rankings {
            let deferred = ranking.deferring(removing: removed, adding: added)
            if (deferred.pending?.count ?? 0) * 8 > max(index.slotCount, 64) {
                due.append((variant, deferred))
            } else {
                index.rankings[variant] = deferred
            }
        }
        let results = _ResultSlots<_Ranking>(count: due.count)
        let current = index
        _concurrentPerform(
            iterations: due.count,
            _UncheckedBox({ item in results.set(item, current.resolving(due[item].1, variant: due[item].0)) }))
        for (item, ranking) in results.values.enumerated() { index.rankings[due[item].0] = ranking }
        if index.cells.written.count * 4 > max(index.cells.baseCount, 64) { return index.compacted() }
        return index
    }

    /// Sets a slot's cells and folded text.
    private mutating func set(_ row: [String], at slot: Int) {
        cells.written[slot] = row
        var bytes: [UInt8] = []
        for (index, cell) in row.enumerated() {
            if index > 0 { bytes.append(0x1F) }
            Array(cell.utf8).withUnsafeBufferPointer { _FoldedText.append([$0], to: &bytes) }
        }
        folded.written[slot] = String(decoding: bytes, as: UTF8.self)
    }

    /// The index rebuilt with every live row in its base arenas (rows written since folded in),
    /// keeping its rankings' variants.
    func compacted() -> _TableIndex {
        let liveSlots = (0..<slotCount).filter { live[$0] }
        var columns = [_ByteArena](repeating: _ByteArena(), count: schema.columns.count)
        for slot in liveSlots {
            for column in columns.indices {
                columns[column].bytes.append(contentsOf: cells.text(slot, column).utf8)
                columns[column].close()
            }
        }
        return _TableIndex(
            schema: schema, schemaVersion: schemaVersion, dataVersion: dataVersion, ids: _RowIDs(liveSlots.map { ids[$0] }),
            columns: columns, variants: Set(rankings.keys))
    }
}
