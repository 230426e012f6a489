import Foundation
import SortKit

/// A first page by an order the table hasn't ranked yet: the engine's top-k over the cells,
/// narrowed first for a locale key (#36).
extension _TableIndex {
    /// The first `need` matching rows in `spec`'s order by the engine's top-k over the cells
    /// (SortKit's own semantics, enum ranks included), without rankings.
    func selected(_ spec: SortSpec, matches: _Matches, need: Int) throws -> [Int] {
        var keys: [SortKey<Int>] = []
        for key in spec.keys {
            let variant = try Self.variant(key, schema: schema)
            let type = schema.columns[variant.column].type
            let cells = cells
            if key.enumOrder == nil {
                // Read through the cells, which take `len` and `random=` from their bytes and a
                // repeating column's values once per distinct cell; the value has its
                // transform applied.
                keys += key._sortKeys(cells.reader(variant.column, key, type: type, distinct: true), enumText: nil)
                continue
            }
            // The key reads the text itself, so its transform applies once.
            keys += key.sortKeys(readingText: { slot in cells.text(slot, variant.column) }, columnType: type)
        }
        var slots = (0..<slotCount).filter { matches.contains($0, live: live) }
        if let first = spec.keys.first, let candidates = try leadingPrimaryCandidates(first, slots: slots, need: need) {
            slots = candidates
        }
        return slots.indices(ofMin: need, sortedBy: keys).map { slots[$0] }
    }

    /// For a first key that is text under a locale collation: the rows of `slots` that can be
    /// among the first `need`, a superset, in slot order; `nil` when it doesn't narrow.
    ///
    /// A locale key is costly to read (normalizing, contractions) but its first bytes are the
    /// text's first primary weight, which a letter that weighs alone gives at once. Every row
    /// whose first primary is larger (smaller, descending) than the `need`-th smallest sorts
    /// after `need` rows that have one, so it is left out; rows without a known first primary
    /// (blank: null; a first letter that needs the full key) stay in. The rows that start like
    /// the page's (a few percent; on English titles a twentieth: every row whose first word is
    /// the page's) are then bounded again by their full keys, built from cached words
    /// (``_SortKeyPieces``): a row whose key is past the `need`-th smallest also sorts after
    /// `need` rows, and rows whose keys tie stay for the later keys to order. The first pass
    /// runs on every core.
    func leadingPrimaryCandidates(_ key: SortSpec.Key, slots: [Int], need: Int) throws -> [Int]? {
        let column = try Self.variant(key, schema: schema).column
        let type = schema.columns[column].type
        guard case .locale(let locale) = key.collation, key.transform == nil, key.enumOrder == nil,
            key.interpretation == .text || (key.interpretation == .inferred && type == .string),
            need > 0, slots.count > 8 * need, column < cells.base.count
        else { return nil }
        let cells = cells
        // Per row its first primary, flipped for a descending key so that the rows a page
        // takes have the smallest values either way; 0 for unknown (a primary is below 2^24,
        // so neither it nor its complement is 0).
        let descending = key.direction == .descending
        func first(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
            guard !_isBlank(bytes), let p = locale.leadingPrimary(ofUTF8: bytes) else { return 0 }
            return descending ? ~p : p
        }
        var firsts = [UInt32](repeating: 0, count: slots.count)
        let parts = max(1, min(_scanCores, slots.count / 65_536))
        cells.withCellReader(column) { cell in
            firsts.withUnsafeMutableBufferPointer { firsts in
                nonisolated(unsafe) let firsts = firsts
                // Each part writes its own range; the cells are only read.
                _concurrentPerform(
                    iterations: parts,
                    _UncheckedBox { part in
                        for index in (slots.count * part / parts)..<(slots.count * (part + 1) / parts) {
                            firsts[index] = cell(slots[index], first)
                        }
                    })
            }
        }
        // The `need` smallest known values, as a max-heap: its top is the bound.
        var heap: [UInt32] = []
        heap.reserveCapacity(need)
        // Most rows are past the bound: tested here, before a call.
        for value in firsts where value != 0 && (heap.count < need || value < heap[0]) {
            _MaxHeap.keep(value, in: &heap, limit: need, by: <)
        }
        guard heap.count == need, let bound = heap.first else { return nil }
        let candidates = zip(slots, firsts).compactMap { slot, first in first == 0 || first <= bound ? slot : nil }
        return narrowedByKeys(candidates, key, column: column, need: need)
    }

    /// The rows of `candidates` (in slot order) that can be among the first `need` by `key`,
    /// by their full keys (words cached, ``_SortKeyPieces``; built on every core): the
    /// `need`-th smallest key (largest, descending) bounds them, and rows whose keys tie with
    /// it stay for the later keys to order, as do blank cells (null, placed by the null rule).
    private func narrowedByKeys(_ candidates: [Int], _ key: SortSpec.Key, column: Int, need: Int) -> [Int] {
        let parts = max(1, min(_scanCores, candidates.count / 16_384))
        let slots = _ResultSlots<(keys: _ByteArena, blank: [Bool])>(count: parts)
        let cells = cells
        cells.withCellReader(column) { cell in
            // Each part reads its own candidates' cells.
            _concurrentPerform(
                iterations: parts,
                _UncheckedBox { part in
                    let range = (candidates.count * part / parts)..<(candidates.count * (part + 1) / parts)
                    var builder = _SortKeyPieces(key.collation)
                    var keys = _ByteArena()
                    keys.bytes.reserveCapacity(range.count * 128)
                    keys.ends.reserveCapacity(range.count)
                    var blank = [Bool](repeating: false, count: range.count)
                    func add(_ bytes: UnsafeBufferPointer<UInt8>) {
                        if _isBlank(bytes) {
                            // No key: the row stays.
                            blank[keys.count] = true
                        } else if _isValidUTF8(bytes) {
                            builder.appendSortKey(forValidUTF8: bytes, to: &keys.bytes)
                        } else {
                            builder.appendSortKey(for: String(decoding: bytes, as: UTF8.self), to: &keys.bytes)
                        }
                        keys.close()
                    }
                    for slot in candidates[range] { cell(slot, add) }
                    slots.set(part, (keys, blank))
                })
        }
        let built = slots.values
        let keys = _ByteArena.joined(built.map(\.keys)), blank = Array(built.map(\.blank).joined())
        let descending = key.direction == .descending
        return keys.bytes.withUnsafeBufferPointer { bytes in
            func keyOf(_ position: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[keys.range(position)]) }
            // `a` is placed before `b` by the key alone.
            func before(_ a: Int, _ b: Int) -> Bool { _compareBytes(keyOf(a), keyOf(b)) == (descending ? .orderedDescending : .orderedAscending) }
            var heap: [Int] = []
            heap.reserveCapacity(need)
            for position in candidates.indices where !blank[position] {
                _MaxHeap.keep(position, in: &heap, limit: need, by: before)
            }
            guard heap.count == need, let bound = heap.first else { return candidates }
            return candidates.indices.compactMap { position in blank[position] || !before(bound, position) ? candidates[position] : nil }
        }
    }
}
