import Foundation
import SortKit

/// One column's base cells in an index. A column whose cells repeat (statuses, authors,
/// prices, dates, page counts) keeps each distinct cell once and per slot the number of its
/// cell — 4 bytes a slot, where a cell of its own costs its bytes and an 8-byte end; other
/// columns (titles, ids) keep a cell per slot.
///
/// Why: the cells were the index's largest structure. On the 1M-row multilingual books table
/// five of seven columns repeat, and numbered they take a fraction of their plain bytes (see
/// the SortKitSQL article "Serving big tables"). The numbering is the one an import made
/// already (``_CSVColumns/number()``), and the rankings that rank a column by its distinct
/// cells (``_Ranking/byDistinctValues(_:of:live:collation:_:)``) read it rather than number
/// the column again.
///
///     let column = _CellColumn(arena, numbering: _ColumnNumbering(arena))   // "done", "todo", "done", …
///     column.text(2)                             // "done"
///     column.numbering?.ids[2]                   // 0: the number of slot 0's cell
struct _CellColumn: Sendable {
    /// Per slot its cell; with ``numbering``, per number its cell.
    let arena: _ByteArena
    /// Per slot the number of its cell (numbers in order of first appearance), and per number
    /// the first slot with it; `nil` for a column whose cells don't repeat.
    let numbering: _ColumnNumbering?

    /// A column of `cells` (one per slot), numbered by `numbering` (``_ColumnNumbering/init(_:limit:)``
    /// numbers a column whose cells repeat; `nil` keeps a cell per slot).
    init(_ cells: _ByteArena, numbering: _ColumnNumbering?) {
        guard let numbering else {
            arena = cells.compacted()
            self.numbering = nil
            return
        }
        var distinct = _ByteArena()
        distinct.ends.reserveCapacity(numbering.firsts.count)
        cells.bytes.withUnsafeBufferPointer { bytes in
            distinct.bytes.reserveCapacity(numbering.firsts.reduce(0) { $0 + cells.range($1).count })
            for first in numbering.firsts {
                distinct.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[cells.range(first)]))
                distinct.close()
            }
        }
        arena = distinct
        self.numbering = numbering
    }

    /// Whether `cells` are kept numbered by `numbering`: when at most a quarter of them are
    /// distinct (a search looks its terms up in each distinct cell, on one core) and that takes
    /// less memory than a cell per slot (short codes with many distinct values don't).
    static func keepsNumbered(_ cells: _ByteArena, _ numbering: _ColumnNumbering) -> Bool {
        let distinct = numbering.firsts.count, count = cells.count
        guard distinct <= count / 4 else { return false }
        let distinctBytes = numbering.firsts.reduce(0) { $0 + cells.range($1).count }
        return 4 * count + distinctBytes + 24 * distinct < cells.bytes.count + 8 * count
    }

    /// Slots.
    var count: Int { numbering?.ids.count ?? arena.count }

    /// The bytes the column has allocated.
    var byteCount: Int {
        arena.bytes.capacity + arena.ends.capacity * MemoryLayout<Int>.stride
            + (numbering.map { $0.ids.capacity * MemoryLayout<UInt32>.stride + $0.firsts.capacity * MemoryLayout<Int>.stride } ?? 0)
    }

    /// Calls `body` with the bytes of slot `slot`'s cell.
    @inline(__always)
    func withBytes<Result>(_ slot: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        arena.withBytes(numbering.map { Int($0.ids[slot]) } ?? slot, body)
    }

    /// The text of slot `slot`'s cell.
    func text(_ slot: Int) -> String { withBytes(slot) { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with a view of each column (valid inside `body` only).
    static func withViews<Result>(_ columns: [_CellColumn], _ body: ([_CellView]) throws -> Result) rethrows -> Result {
        try _ByteArena.withViews(columns.map(\.arena)) { views in
            try _withBuffers(columns.map { $0.numbering?.ids ?? [] }) { ids in
                try body(columns.indices.map { _CellView(cells: views[$0], ids: columns[$0].numbering == nil ? nil : ids[$0]) })
            }
        }
    }

    /// `body` over `0..<count` cut into `parts` ranges, side by side on the cores, each with
    /// views of `columns` (only read); the results in range order.
    static func inSlices<Result>(
        _ columns: [_CellColumn], count: Int, parts: Int, _ body: @escaping ([_CellView], Range<Int>) -> Result
    ) -> [Result] {
        withViews(columns) { views in _inSlices(views, count: count, parts: parts, body) }
    }
}

/// A column's cells by slot through pointers, from ``_CellColumn/withViews(_:_:)``.
struct _CellView {
    let cells: _ArenaView
    /// Per slot the number of its cell, for a numbered column.
    let ids: UnsafeBufferPointer<UInt32>?

    @inline(__always)
    subscript(slot: Int) -> UnsafeBufferPointer<UInt8> {
        if let ids { return cells[Int(ids[slot])] }
        return cells[slot]
    }
}
