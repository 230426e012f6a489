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
        // Each kept ranking is one pass over its order (memory-bound, random access by slot):
        // they are updated side by side on every core.
        let rankings = Array(index.rankings)
        let results = _ResultSlots<_Ranking>(count: rankings.count)
        let (cells, slotCount, schema) = (index.cells, index.slotCount, schema)
        let addedSlots = added
        _concurrentPerform(
            iterations: rankings.count,
            _UncheckedBox({ item in
                let (variant, ranking) = rankings[item]
                let type = schema.columns[variant.column].type
                results.set(
                    item,
                    ranking.updated(
                        removing: removed, adding: addedSlots, slotCount: slotCount,
                        { variant.value(of: cells.text(Int($0), variant.column), type: type) }, collation: variant.collation))
            }))
        for (item, ranking) in results.values.enumerated() { index.rankings[rankings[item].key] = ranking }
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
            schema: schema, schemaVersion: schemaVersion, dataVersion: dataVersion, ids: liveSlots.map { ids[$0] },
            columns: columns, variants: Set(rankings.keys))
    }
}
