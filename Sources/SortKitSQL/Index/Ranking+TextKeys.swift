import Foundation
import SortKit

extension _Ranking {
    /// The ranking of a text column read as text (no transform; `enum=` keys rank as text)
    /// that ``byDistinctValues(_:of:live:collation:_:)`` declines (values that rarely repeat,
    /// as titles; any column after writes): each live cell's collation key built from its
    /// bytes on every core (words cached, ``_SortKeyPieces``), the keys radix-sorted where they
    /// lie (`_sortByteKeys`, stable: ties in slot order), equal keys one group, blank cells
    /// (null) last in slot order. `nil` for other keys.
    ///
    /// The same order and groups as the engine's sort of the cells' values: the engine ranks
    /// strings by the same keys (``Collation/sortKey(for:)``, ties where the keys are equal).
    /// The keys are kept without their tie-break — a key ends with `00` and the text's NFC,
    /// which is the cell itself (cells are stored in NFC): 21 bytes a row of 1M titles — and
    /// keys found equal are ordered, and split into groups, by their NFC text afterwards.
    /// Through the engine, an import's title ranking made a `String` and a ``SortValue`` per
    /// row and joined the cores' key arenas into one: on 1M multilingual titles that was
    /// 61 MB of strings, 24 MB of values and 44 MB of joined keys held at the import's peak.
    ///
    ///     // Cells "b", "", "a", "b": "a", then the two "b"s as one group, the blank last.
    ///     let ranking = _Ranking.byTextKeys(variant, cells: cells, live: [true, true, true, true], type: .string)
    ///     ranking?.order         // [2, 0, 3, 1]
    ///     ranking?.groupStarts   // [0, 1, 3]
    static func byTextKeys(_ variant: KeyVariant, cells: _Cells, live: [Bool], type: ColumnType) -> _Ranking? {
        let key = variant.key
        guard key.enumOrder == nil, key.transform == nil,
            key.interpretation == .text || (key.interpretation == .inferred && type == .string),
            live.count < Int(UInt32.max)
        else { return nil }
        let count = live.count, parts = max(1, min(_scanCores, count / 65_536))
        // A binary key is the NFC text alone: nothing to cut.
        let cutsTieBreak = variant.collation != .binary
        // Per part (slots in order), the keys of its non-blank live cells, their slots, and
        // its blank live slots.
        // Per part also the slots whose cell isn't its own tie-break (not NFC, or ill-formed).
        let results = _ResultSlots<(keys: _ByteArena, slots: [UInt32], nulls: [UInt32], others: [UInt32])>(count: parts)
        cells.withCellReader(variant.column) { cell in
            // Each part reads its own slots' cells; `live` is only read.
            _concurrentPerform(
                iterations: parts,
                _UncheckedBox { part in
                    let range = (count * part / parts)..<(count * (part + 1) / parts)
                    var builder = _SortKeyPieces(variant.collation)
                    var keys = _ByteArena(), slots: [UInt32] = [], nulls: [UInt32] = [], others: [UInt32] = []
                    keys.ends.reserveCapacity(range.count)
                    slots.reserveCapacity(range.count)
                    for slot in range where live[slot] {
                        cell(slot) { bytes in
                            if _isValidUTF8(bytes) {
                                if _isBlank(bytes) {
                                    nulls.append(UInt32(slot))
                                    return
                                }
                                builder.appendSortKey(forValidUTF8: bytes, to: &keys.bytes)
                                if cutsTieBreak {
                                    let cut = Self.tieBreakLength(keys.bytes, cell: bytes)
                                    keys.bytes.removeLast(cut)
                                    if cut != bytes.count { others.append(UInt32(slot)) }
                                }
                            } else {
                                // As `String(decoding:)` reads the cell for the engine (the
                                // bytes' blank test assumes well-formed UTF-8).
                                let text = String(decoding: bytes, as: UTF8.self)
                                if _isBlank(text) {
                                    nulls.append(UInt32(slot))
                                    return
                                }
                                builder.appendSortKey(for: text, to: &keys.bytes)
                                if cutsTieBreak {
                                    keys.bytes.removeLast(Collation.normalized(text).utf8.count)
                                    others.append(UInt32(slot))
                                }
                            }
                            keys.close()
                            slots.append(UInt32(slot))
                        }
                    }
                    results.set(part, (keys, slots, nulls, others))
                })
        }
        var built = results.values
        let arenas = _ArenaParts(built.map(\.keys))
        var positions = _sortByteKeys(arenas)
        let keySlots = Array(built.map(\.slots).joined())
        // Per sorted position, whether its key equals the one before (the same group, unless
        // their texts differ: see below). Slices of the positions on every core: each reads
        // keys in sorted order, which is a cache miss a key (a serial second at 10M rows).
        var ties = [Bool](repeating: false, count: positions.count)
        _ByteArena.withViews(arenas.parts) { views in
            let firsts = arenas.firsts, total = positions.count, slices = max(1, min(_scanCores, total / 65_536))
            positions.withUnsafeBufferPointer { positions in
                ties.withUnsafeMutableBufferPointer { ties in
                    // Each slice writes its own positions' flags; keys and positions are only read.
                    let shared = _UncheckedBox((views, positions, ties))
                    _concurrentPerform(
                        iterations: slices,
                        _UncheckedBox { slice in
                            let (views, positions, ties) = shared.value
                            @inline(__always) func keyAt(_ position: Int) -> UnsafeBufferPointer<UInt8> {
                                var part = 0
                                while firsts[part + 1] <= position { part += 1 }
                                return views[part][position - firsts[part]]
                            }
                            let lower = max(1, total * slice / slices), upper = total * (slice + 1) / slices
                            guard lower < upper else { return }
                            var previous = keyAt(positions[lower - 1])
                            for index in lower..<upper {
                                let current = keyAt(positions[index])
                                ties[index] = _equalBytes(previous, current)
                                previous = current
                            }
                        })
                }
            }
        }
        // Whole keys (binary) tie exactly where their texts do.
        if cutsTieBreak {
            cells.withCellReader(variant.column) { cell in
                Self.orderEqualKeysByText(&positions, ties: &ties, slots: keySlots, others: Set(built.flatMap(\.others)), cell: cell)
            }
        }
        var sorted: [UInt32] = []
        sorted.reserveCapacity(positions.count + built.reduce(0) { $0 + $1.nulls.count })
        sorted.append(contentsOf: positions.lazy.map { keySlots[$0] })
        for part in built.indices { sorted.append(contentsOf: built[part].nulls) }
        built.removeAll()
        let nonNull = positions.count
        return _Ranking(slotCount: count, sorted: sorted, ties: ties, isNull: { $0 >= nonNull })
    }

    /// The length of the tie-break that ends `key`, the key of the valid UTF-8 `cell`: the
    /// cell's own bytes when they are its NFC (as stored cells are; checked against the key's
    /// end), else its NFC's.
    static func tieBreakLength(_ key: [UInt8], cell: UnsafeBufferPointer<UInt8>) -> Int {
        let count = cell.count
        let ownBytes =
            key.count > count
            && key.withUnsafeBufferPointer { key in
                _equalBytes(UnsafeBufferPointer(rebasing: key[(key.count - count)...]), cell) && key[key.count - count - 1] == 0
            }
        return ownBytes ? count : Collation.normalized(String(decoding: cell, as: UTF8.self)).utf8.count
    }

    /// Orders each run of equal keys (`ties`) in `positions` by its cells' NFC text, ties in
    /// position order, and keeps a tie only where the texts are equal too: what the keys'
    /// tie-break did. Cells are compared where they lie (they are their own NFC), but for the
    /// `others` slots, whose NFC is made; a run of equal cells (a repeated title) is left as it
    /// is. Nothing is kept per row of a run: after a write, a column of statuses "Done" and
    /// "done" is one run of them all under a case-blind collation.
    static func orderEqualKeysByText(_ positions: inout [Int], ties: inout [Bool], slots: [UInt32], others: Set<UInt32>, cell: _CellReader) {
        /// The NFC text of a cell, as the tie-break had it.
        func text(_ slot: UInt32) -> [UInt8] {
            cell(Int(slot)) { Array(Collation.normalized(String(decoding: $0, as: UTF8.self)).utf8) }
        }
        func compare(_ a: UInt32, _ b: UInt32) -> ComparisonResult {
            if !others.isEmpty, others.contains(a) || others.contains(b) {
                let (x, y) = (text(a), text(b))
                return x == y ? .orderedSame : x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
            }
            return cell(Int(a)) { x in cell(Int(b)) { y in _compareBytes(x, y) } }
        }
        var start = 0
        while start < positions.count {
            var end = start + 1
            while end < positions.count, ties[end] { end += 1 }
            let first = slots[positions[start]]
            if end - start > 1, !(start + 1..<end).allSatisfy({ compare(first, slots[positions[$0]]) == .orderedSame }) {
                let run = Array(positions[start..<end])
                let order = run.indices.sorted { a, b in
                    let result = compare(slots[run[a]], slots[run[b]])
                    return result == .orderedSame ? a < b : result == .orderedAscending
                }
                positions.replaceSubrange(start..<end, with: order.map { run[$0] })
                for offset in 1..<order.count {
                    ties[start + offset] = compare(slots[run[order[offset]]], slots[run[order[offset - 1]]]) == .orderedSame
                }
            }
            start = end
        }
    }
}
