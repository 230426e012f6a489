import Foundation
import SortKit

/// One table held in memory to answer pages: every row's cells, its folded search text, and
/// per sort variant a ranking of the rows — the database stays the store of record.
///
/// Why in memory: a page of a million rows sorted by any column, any combination of columns,
/// at any offset, with a folded substring search and its exact count, is what people click
/// through, and no set of SQL indexes serves all of that (an index per column and direction
/// serves single-column orders only; substring search scans). With each sortable column
/// ranked once (the engine's sort), a single-column page is a slice of the column's order, a
/// multi-column page a radix sort or top-k of packed rank tuples, and a search a scan of folded
/// text in memory — see the SortKitSQL article "Serving big tables".
///
/// The index is a value: a snapshot a request computes on without locks, while a newer one
/// replaces it (``_TableIndexCache``). Memory per row: its cells (a repeating column's as 4-byte
/// numbers, ``_CellColumn``) and folded text, 12 bytes per ranking.
struct _TableIndex: Sendable {
    var schema: TableSchema
    /// The catalog's schema version and data version this index reflects.
    var schemaVersion: Int64
    var dataVersion: Int64
    /// Per slot, the row's id, ascending (a run of ids as two numbers, ``_RowIDs``).
    var ids: _RowIDs
    /// Per slot, whether the row exists.
    var live: [Bool]
    var liveCount: Int
    /// The rows' cells: a base column per column for the slots it was built with, and the
    /// cells of rows written since.
    var cells: _Cells
    /// Per slot, the folded search text (`SearchQuery.foldedFields(_:)`).
    var folded: _FoldedText
    /// Rankings built so far, by variant.
    var rankings: [KeyVariant: _Ranking]

    var slotCount: Int { ids.count }

    /// The bytes each structure has allocated (capacities, not counts), by
    /// ``IndexUsage/structureBytes``' names; rows written since the base count their text and
    /// 16 bytes a string.
    var structureBytes: [String: Int] {
        let written = cells.written.values.reduce(0) { sum, row in sum + row.reduce(0) { $0 + $1.utf8.count + 16 } }
        return [
            "cells": cells.base.reduce(0) { $0 + $1.byteCount } + written,
            "folded": folded.byteCount,
            "ids": ids.byteCount,
            "live": live.capacity,
            "rankings": rankings.values.reduce(0) { $0 + $1.byteCount },
        ]
    }

    /// The slot of row `id`, if it has one (live or not).
    func slot(of id: Int64) -> Int? { ids.slot(of: id) }
}

/// A column's cells as UTF-8 bytes, from ``_Cells/withCellReader(_:_:)``.
struct _CellReader {
    let cells: _Cells
    let column: Int
    let base: _CellView

    func callAsFunction<Result>(_ slot: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if !cells.written.isEmpty, let row = cells.written[slot] { return _withUTF8(row[column], body) }
        return body(base[slot])
    }
}

/// The integer a key reads from a cell's bytes where it needs no `String`: `len`, and
/// `random=` of text (the cells are stored in NFC). A value, not a closure: a closure called
/// per row on every core had its context retained and released each time.
enum _BytesInteger: Sendable {
    case length
    case random(seed: UInt64)

    /// `nil` for keys that read otherwise.
    init?(_ key: SortSpec.Key, type: ColumnType) {
        guard key.enumOrder == nil else { return nil }
        let text = key.interpretation == .text || (key.interpretation == .inferred && type == .string)
        switch key.transform {
        case .length: self = .length
        case .random(let seed) where text: self = .random(seed: seed)
        default: return nil
        }
    }

    /// The cell's integer; `nil` for null (blank).
    @inline(__always)
    func callAsFunction(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        switch self {
        case .length: _lengthUnlessBlank(bytes)
        case .random(let seed): _randomNumberOfNFCText(bytes, seed: seed)
        }
    }
}

/// Cells by slot and column: base columns, and the rows written since as strings.
struct _Cells: Sendable {
    /// Per column, the cells of slots `0..<baseCount`.
    var base: [_CellColumn]
    var baseCount: Int
    /// All cells of slots written after the base was built (updated, or new).
    var written: [Int: [String]] = [:]

    /// Cells `columns` (each with a cell per slot, `baseCount` slots) as base columns, those
    /// whose cells repeat numbered (``_CellColumn/keepsNumbered(_:_:)``): by `numbered` when an
    /// import numbered its columns already (``_CSVColumns/number()``), else here, the columns
    /// side by side on the cores.
    init(base columns: [_ByteArena], baseCount: Int, numbered: [_ColumnNumbering?] = []) {
        let results = _ResultSlots<_CellColumn>(count: columns.count)
        _concurrentPerform(
            iterations: columns.count,
            _UncheckedBox { index in
                let numbering = numbered.isEmpty ? _ColumnNumbering(columns[index], limit: columns[index].count / 4) : numbered[index]
                results.set(index, _CellColumn(columns[index], numbering: numbering.flatMap { _CellColumn.keepsNumbered(columns[index], $0) ? $0 : nil }))
            })
        base = results.values
        self.baseCount = baseCount
    }

    /// Column `column`'s base cells numbered, if they repeat and have at most `limit` distinct
    /// values: the column's own numbering, or for a column kept a cell per slot (more than a
    /// quarter distinct) one made now, as a ranking by distinct values needs.
    func numbering(_ column: Int, limit: Int) -> _ColumnNumbering? {
        guard let numbering = base[column].numbering else { return _ColumnNumbering(base[column].arena, limit: limit) }
        return numbering.firsts.count <= limit ? numbering : nil
    }

    /// The cell's text as stored (NFC, empty for blank).
    func text(_ slot: Int, _ column: Int) -> String {
        // A table no one wrote to since its import skips the lookup (a hash per row in a scan).
        if !written.isEmpty, let row = written[slot] { return row[column] }
        return base[column].text(slot)
    }

    /// `body` with a reader of `column`'s cells as UTF-8 bytes (``text(_:_:)`` without a
    /// `String` for a base cell, read through a view of its arena); valid inside `body` only.
    func withCellReader<Result>(_ column: Int, _ body: (_CellReader) -> Result) -> Result {
        _CellColumn.withViews([base[column]]) { views in body(_CellReader(cells: self, column: column, base: views[0])) }
    }

    /// The value `key` reads from the cell's text, as ``SortSpec/Key/sortValue(of:columnType:)``
    /// reads it: what ``reader(_:_:type:distinct:)`` falls back to for rows written since the
    /// base was built and for `enum=` keys (base cells it reads from their bytes).
    func value(_ slot: Int, _ column: Int, _ key: SortSpec.Key, type: ColumnType) -> SortValue {
        key.sortValue(of: text(slot, column), columnType: type)
    }

    /// The value `key` reads from a slot's cell, as a function of the slot, for reading a
    /// column row after row: `len` and `random=` on text from the base cell's bytes, without a
    /// `String` (the cells are stored in NFC, as a string's binary key has them);
    /// the key's rules and the column's cells are read once, not per row (per row, reading
    /// them retained and released shared arrays, most of the time a first page by a new key
    /// kind took). With `distinct`, a column whose values repeat (prices, dates, authors)
    /// has each distinct cell's value computed once, not a parse per row (`len` and `random=`
    /// of text excepted: they are cheaper per row than finding the row's distinct cell).
    ///
    ///     let price = cells.reader(4, try SortSpec(parsing: "-price:abs").keys[0], type: .float, distinct: true)
    ///     price(17)   // .double(12.5)
    func reader(_ column: Int, _ key: SortSpec.Key, type: ColumnType, distinct: Bool) -> @Sendable (Int) -> SortValue {
        let cells = self
        guard key.enumOrder == nil else { return { cells.value($0, column, key, type: type) } }
        let stored = base[column], baseCount = baseCount, written = written
        // A base cell's value: `len` and `random=` of text from its bytes, which costs less per
        // row than numbering the distinct cells does (a hash and a compare per row, on one
        // core); other keys as `value` reads its text.
        let fromBytes = _BytesInteger(key, type: type)
        let fromText: @Sendable (Int) -> SortValue = { slot in
            key.sortValue(of: stored.text(slot), columnType: type)
        }
        let fromBase =
            fromBytes.map { integer in { @Sendable slot in stored.withBytes(slot) { integer($0).map(SortValue.integer) ?? .null } } } ?? fromText
        if distinct, fromBytes == nil, baseCount >= 4_096, let numbered = numbering(column, limit: max(16, baseCount / 4)) {
            let ids = numbered.ids, values = numbered.firsts.map(fromText)
            return { slot in
                guard slot < baseCount, written.isEmpty || written[slot] == nil else { return cells.value(slot, column, key, type: type) }
                return values[Int(ids[slot])]
            }
        }
        return { slot in
            guard slot < baseCount, written.isEmpty || written[slot] == nil else { return cells.value(slot, column, key, type: type) }
            return fromBase(slot)
        }
    }

    /// Every cell of a slot.
    func row(_ slot: Int) -> [String] {
        written[slot] ?? base.indices.map { text(slot, $0) }
    }

    /// The rows of `slots` as CSV records, written from the arenas' bytes: no `String` per
    /// cell. A download reads rows in a sort order, so each cell is a cache miss, and the time
    /// goes to waiting on memory: the page is written in one slice per core, and in each the
    /// cells' byte ranges are read first, in a loop of independent loads whose misses the
    /// processor overlaps, then the bytes copied.
    func csv(_ slots: ArraySlice<Int>, _ export: CSVExport) -> [UInt8] {
        let columns = base.count, slots = Array(slots), baseCount = baseCount, written = written
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, slots.count / 2_048))
        let outputs = _CellColumn.inSlices(base, count: slots.count, parts: parts) { views, range in
            let mine = slots[range]
            var cells: [UnsafeBufferPointer<UInt8>] = []
            cells.reserveCapacity(mine.count * columns)
            var size = 0
            for slot in mine {
                for column in 0..<columns {
                    let cell = slot < baseCount ? views[column][slot] : UnsafeBufferPointer(start: nil, count: 0)
                    size += cell.count + 1
                    cells.append(cell)
                }
            }
            var output: [UInt8] = []
            output.reserveCapacity(size + size / 16 + 64)
            var next = 0
            for slot in mine {
                if !written.isEmpty, let row = written[slot] {
                    export.appendRecords([row], to: &output)
                } else {
                    for column in 0..<columns {
                        export.appendCell(cells[next + column], column: column, count: columns, to: &output)
                    }
                    output.append(0x0A)
                }
                next += columns
            }
            return output
        }
        return outputs.count == 1 ? outputs[0] : _concatenated(outputs)
    }
}

@inline(__always)
func _withUTF8Text<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = text
    return copy.withUTF8(body)
}

extension _TableIndex {
    /// An index of rows with `ids` (ascending) and cells in `columns` (as stored), with the
    /// rankings of `variants`; everything on every core.
    init(schema: TableSchema, schemaVersion: Int64, dataVersion: Int64, ids: _RowIDs, columns: [_ByteArena], variants: Set<KeyVariant>) {
        let cells = _Cells(base: columns, baseCount: ids.count)
        self.init(
            schema: schema, schemaVersion: schemaVersion, dataVersion: dataVersion, ids: ids, cells: cells,
            folded: _FoldedText(columns: columns, cells: cells), variants: variants)
    }

    /// An index of rows with `ids` (ascending), their `cells` and `folded` text, with the
    /// rankings of `variants`. An import passes what ``_CSVColumns/derived(_:)`` made, which its
    /// inserts use too, and `typedValues` (per typed column every row's value).
    init(
        schema: TableSchema, schemaVersion: Int64, dataVersion: Int64, ids: _RowIDs, cells: _Cells, folded: _FoldedText,
        variants: Set<KeyVariant>, typedValues: [Int: _TypedValues] = [:]
    ) {
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.dataVersion = dataVersion
        self.ids = ids
        live = [Bool](repeating: true, count: ids.count)
        liveCount = ids.count
        self.cells = cells
        self.folded = folded
        rankings = [:]
        let built = Self.buildRankings(Array(variants), cells: cells, live: live, schema: schema, typedValues: typedValues)
        for (variant, ranking) in zip(variants, built) { rankings[variant] = ranking }
    }

    /// The folded search text of rows `range`, from views of every column's cells; the fields
    /// of columns `skipped` left empty.
    static func fold(_ views: [_ArenaView], _ range: Range<Int>, skipping skipped: Set<Int> = []) -> _ByteArena {
        let folded = views.indices.filter { !skipped.contains($0) }
        var part = _ByteArena()
        part.ends.reserveCapacity(range.count + 1)
        let text = folded.reduce(0) { total, column in
            let ends = views[column].ends
            return total + (range.isEmpty ? 0 : ends[range.upperBound - 1] - (range.lowerBound == 0 ? 0 : ends[range.lowerBound - 1]))
        }
        part.bytes.reserveCapacity(text + range.count + 16)
        var cells = [UnsafeBufferPointer<UInt8>](repeating: UnsafeBufferPointer(start: nil, count: 0), count: views.count)
        for slot in range {
            for column in folded { cells[column] = views[column][slot] }
            _FoldedText.append(cells, to: &part.bytes)
            part.close()
        }
        return part
    }

    /// The variant a spec key reads on this table: its column, how its text is read and the
    /// collation, with equivalent forms made one (a string column read by type is read as
    /// text; a typed column read by type ignores the collation).
    static func variant(_ key: SortSpec.Key, schema: TableSchema) throws -> KeyVariant {
        let column = try schema.columnIndex(key.column)
        var interpretation = key.enumOrder == nil ? key.interpretation : .text
        var collation = key.collation
        if schema.columns[column].type == .string, interpretation == .inferred { interpretation = .text }
        if schema.columns[column].type != .string, interpretation == .inferred { collation = .natural }
        return KeyVariant(column: column, interpretation: interpretation, collation: collation, transform: key.transform)
    }

    /// The variants a table is served with from the start, in the order an index builds and
    /// keeps them: the presets' keys (presets by name, keys in order), then each column's own
    /// order (read by its type) in schema order.
    ///
    ///     // columns title, price; preset "cheap" = -price,title
    ///     try _TableIndex.defaultVariantsByPriority(schema).map(\.column)   // [1, 0]
    static func defaultVariantsByPriority(_ schema: TableSchema) throws -> [KeyVariant] {
        var ordered: [KeyVariant] = [], seen: Set<KeyVariant> = []
        func add(_ variant: KeyVariant) { if seen.insert(variant).inserted { ordered.append(variant) } }
        for name in schema.presets.keys.sorted() {
            for key in schema.presets[name]?.keys ?? [] { add(try variant(key, schema: schema)) }
        }
        for column in schema.columns.indices {
            add(KeyVariant(column: column, interpretation: schema.columns[column].type == .string ? .text : .inferred, collation: .natural))
        }
        return ordered
    }

    /// The default variants, by ``defaultVariantsByPriority(_:)``, whose rankings of `rows` rows
    /// fit `budget` bytes (the per-table ranking budget) at 12 bytes a row each: what an import
    /// and a table read into memory build. Building every order and dropping what doesn't fit
    /// cost 10M-row imports about 600 MB of peak and the time of five orders thrown away, and
    /// which ones stayed depended on a dictionary's order.
    ///
    ///     // 10M rows, 256 MB a table: two orders of 120 MB
    ///     try _TableIndex.defaultVariants(schema, rows: 10_000_000, budget: 256 << 20).count   // 2
    static func defaultVariants(_ schema: TableSchema, rows: Int, budget: Int) throws -> Set<KeyVariant> {
        // A ranking's order and ranks, and its groups' starts (one more than its groups).
        let each = 12 * max(0, rows) + 4
        return Set(try defaultVariantsByPriority(schema).prefix(max(0, budget) / each))
    }

    /// The ranking of `variant`, current: its pending writes applied, or built now if the
    /// index had none (without changing the index: the caller keeps it if the index is still
    /// current).
    func ranking(_ variant: KeyVariant) -> _Ranking {
        if let kept = rankings[variant] { return resolving(kept, variant: variant) }
        return Self.buildRankings([variant], cells: cells, live: live, schema: schema)[0]
    }

    /// `ranking` (of `variant`, kept by this index) with its pending writes applied.
    func resolving(_ ranking: _Ranking, variant: KeyVariant) -> _Ranking {
        guard !ranking.isCurrent else { return ranking }
        let type = schema.columns[variant.column].type
        return ranking.resolved(
            live: live, slotCount: slotCount, { variant.value(of: cells.text(Int($0), variant.column), type: type) }, collation: variant.collation)
    }

    /// Rankings of several variants: those read from the cells one at a time (each on every
    /// core), then those of typed values side by side; a typed column read by its type takes
    /// its values from `typedValues` when given.
    static func buildRankings(
        _ variants: [KeyVariant], cells: _Cells, live: [Bool], schema: TableSchema, typedValues: [Int: _TypedValues] = [:]
    ) -> [_Ranking] {
        guard !variants.isEmpty else { return [] }
        let results = _ResultSlots<_Ranking>(count: variants.count)
        let allLive = live.allSatisfy { $0 }
        // Per variant, the typed values its order is made from, or `nil` to read the cells.
        let typed = variants.map { variant in
            variant.interpretation == .inferred && variant.transform == nil && allLive ? typedValues[variant.column] : nil
        }
        func build(_ index: Int) {
            let variant = variants[index]
            if let values = typed[index] {
                let distinct = _Ranking.byDistinctValues(variant.column, of: cells, live: live, collation: variant.collation) { values[$0] }
                if distinct == nil, values.strictlyAscendingIntegers {
                    // An id column is its own order: no value per row made to find that out.
                    results.set(index, _Ranking(ascending: values.count))
                } else {
                    results.set(index, distinct ?? _Ranking(values: values.perRecord, collation: variant.collation))
                }
            } else {
                results.set(index, _Ranking(variant, cells: cells, live: live, schema: schema))
            }
        }
        // Orders read from the cells first, one at a time: each builds its keys and sorts on
        // every core itself, and a text column's keys and sort records are the import's
        // memory peak, which another order built beside it raised.
        for index in variants.indices where typed[index] == nil { build(index) }
        let fromValues = variants.indices.filter { typed[$0] != nil }
        _concurrentPerform(iterations: fromValues.count, _UncheckedBox { build(fromValues[$0]) })
        return results.values
    }
}

extension KeyVariant {
    /// The spec key (ascending) whose values this variant orders by.
    var key: SortSpec.Key {
        SortSpec.Key("", .ascending, [.interpretation(interpretation), .collation(collation)] + (transform.map { [.transform($0)] } ?? []))
    }

    /// The sort value of a cell's text in a column of `type`.
    func value(of text: String, type: ColumnType) -> SortValue {
        key.sortValue(of: text, columnType: type)
    }
}
