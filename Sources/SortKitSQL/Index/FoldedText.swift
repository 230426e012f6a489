import Foundation
import SortKit

/// Folded search text by slot: the base rows' fields folded and joined by U+001F, and the
/// rows written since.
///
/// A column kept numbered (``_CellColumn``: its cells repeat) has its field left empty in the
/// base rows: its folded text is kept once per distinct cell, and a row's is found through the
/// column's numbering. On 1M multilingual books that is five of seven fields (authors,
/// statuses, prices, dates, page counts), 40 of a row's 72 bytes. A search scans the base
/// rows for its longest term and, for a term in a numbered column, the few distinct cells
/// (``_TableIndex/scanMatches``); a row is tested whole with its fields filled in
/// (``withBytes(_:_:)``, ``fill(_:_:into:)``).
///
///     base row:   "7\u{1F}island ocean 691\u{1F}\u{1F}\u{1F}\u{1F}\u{1F}"
///     whole row:  "7\u{1F}island ocean 691\u{1F}jurgen 2\u{1F}done\u{1F}92.61\u{1F}1975-04-30\u{1F}1383"
struct _FoldedText: Sendable {
    /// Per base slot its folded fields, a numbered column's empty.
    var base: _ByteArena
    /// The numbered columns, by column: each distinct cell's folded text, and per slot its
    /// number (the cells' own numbering, shared).
    var distinct: [Distinct]
    var written: [Int: String] = [:]

    struct Distinct: Sendable {
        let column: Int
        let folded: _ByteArena
        let ids: [UInt32]
    }

    /// The folded text of `cells`' base rows, the numbered columns' fields kept once per
    /// distinct cell (on one core: a few thousand cells), the other fields folded from
    /// `columns` (the base cells, a cell per slot) on every core.
    init(columns: [_ByteArena], cells: _Cells) {
        distinct = cells.base.indices.compactMap { column in
            guard let numbering = cells.base[column].numbering else { return nil }
            let stored = cells.base[column].arena
            var folded = _ByteArena()
            folded.ends.reserveCapacity(stored.count)
            for value in 0..<stored.count {
                stored.withBytes(value) { _FoldedText.append([$0], to: &folded.bytes) }
                folded.close()
            }
            return Distinct(column: column, folded: folded.compacted(), ids: numbering.ids)
        }
        base = Self.foldAll(columns, count: cells.baseCount, skipping: Set(distinct.map(\.column))).compacted()
    }

    /// The folded search text of every row, in one slice per core; the fields of columns
    /// `skipped` (by index) left empty.
    private static func foldAll(_ columns: [_ByteArena], count: Int, skipping skipped: Set<Int>) -> _ByteArena {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 16_384))
        return _ByteArena.joined(
            _ByteArena.inSlices(columns, count: count, parts: slices) { views, range in _TableIndex.fold(views, range, skipping: skipped) })
    }

    /// The bytes the folded text has allocated; rows written since count their text and 16
    /// bytes a string.
    var byteCount: Int {
        func arena(_ arena: _ByteArena) -> Int { arena.bytes.capacity + arena.ends.capacity * MemoryLayout<Int>.stride }
        return arena(base) + distinct.reduce(0) { $0 + arena($1.folded) } + written.values.reduce(0) { $0 + $1.utf8.count + 16 }
    }

    /// The bytes of every base row's whole folded text (numbered fields filled in), as the
    /// database's search column holds it.
    var wholeByteCount: Int {
        distinct.reduce(base.bytes.count) { total, column in
            let lengths = (0..<column.folded.count).map { column.folded.range($0).count }
            return total + column.ids.reduce(0) { $0 + lengths[Int($1)] }
        }
    }

    /// Calls `body` with the slot's whole folded text (numbered fields filled in).
    func withBytes<Result>(_ slot: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let text = written[slot] { return _withUTF8Text(text, body) }
        return base.bytes.withUnsafeBufferPointer { bytes in
            let stored = UnsafeBufferPointer(rebasing: bytes[base.range(slot)])
            guard !distinct.isEmpty else { return body(stored) }
            var whole: [UInt8] = []
            fill(slot, stored, into: &whole)
            return whole.withUnsafeBufferPointer(body)
        }
    }

    /// Base row `slot`'s whole folded text into `whole` (emptied first), from its `stored` fields.
    func fill(_ slot: Int, _ stored: UnsafeBufferPointer<UInt8>, into whole: inout [UInt8]) {
        whole.removeAll(keepingCapacity: true)
        var field = 0, next = 0
        func fillField() {
            guard next < distinct.count, distinct[next].column == field else { return }
            let column = distinct[next]
            column.folded.withBytes(Int(column.ids[slot])) { whole.append(contentsOf: $0) }
            next += 1
        }
        fillField()
        // Field by field, each copied whole: an import fills every row it inserts (byte by
        // byte appends took 0.5 s of a 1M-row load).
        var start = 0
        for index in stored.indices where stored[index] == 0x1F {
            whole.append(contentsOf: UnsafeBufferPointer(rebasing: stored[start...index]))
            start = index + 1
            field += 1
            fillField()
        }
        whole.append(contentsOf: UnsafeBufferPointer(rebasing: stored[start...]))
    }

    /// The folded fields of a row, as `SearchQuery.foldedFields(_:)` joins them, appended to
    /// `bytes`: ASCII cells lowercased byte by byte, others folded as text.
    static func append(_ cells: [UnsafeBufferPointer<UInt8>], to bytes: inout [UInt8]) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { bytes.append(0x1F) }
            SearchQuery._appendFolded(cell, to: &bytes)
        }
    }
}
