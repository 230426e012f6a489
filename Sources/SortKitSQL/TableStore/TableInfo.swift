import Foundation
import SortKit

/// A table's catalog entry: its schema, physical name and stored key columns.
struct _TableInfo {
    var id: Int64
    var schema: TableSchema
    var variants: Set<KeyVariant>
    /// Rows in the table, kept in the catalog by every write (a `COUNT(*)` costs a scan).
    var rowCount: Int = 0
    /// The schema's version (raised by every schema change) and the rows' (raised by every
    /// row write, which logs the row's id): what an in-memory index is current for.
    var schemaVersion: Int64 = 1
    var dataVersion: Int64 = 0
    /// Whether the manual order is written out in full (`ordered_item` holds every row);
    /// otherwise — an imported table — a row without an entry sits at a label computed from
    /// its id (``_ImplicitLabels``).
    var manualReady: Bool = true
    /// The text collation of the database's own indexes on every column (both directions)
    /// and its trigram search index, when the table has them (``IndexPlacement/database``);
    /// `nil` when it has its presets' indexes only.
    var databaseIndex: Collation? = nil
    /// Whether the search index of a table served from the database is made: on SQLite, an
    /// import's is made after the import commits (``_IndexBuilder``), and a search meanwhile
    /// reads the folded text of every row.
    var searchIndexed: Bool = true

    /// The table's data version as a statement's snapshot has it, -1 where its schema version
    /// isn't ``schemaVersion``: a read on a reader of its own checks that its snapshot is the
    /// table as a request saw it (``dataVersion``).
    var dataVersionQuery: (sql: String, arguments: [SQLValue]) {
        ("SELECT coalesce((SELECT data_version FROM sortkit_table WHERE id = $1 AND version = $2), -1)", [.integer(id), .integer(schemaVersion)])
    }

    /// The physical table: named by its catalog id, never by user text.
    var physical: String { "st_\(id)" }
    /// The rows a read sees: on SQLite, a table served from the database is read through
    /// ``live`` (its deleted rows wait in ``gone`` for ``_TombstoneCompactor``); elsewhere,
    /// the table itself.
    func rows(_ dialect: SQLDialect) -> String { tombstoned(dialect) ? live : physical }
    /// Whether a delete only marks the rows (``gone``) and a compactor removes them later: an
    /// SQLite table served from the database, whose every column has two indexes, so that
    /// removing 1,000 rows at once rewrote ~120 MB of B-tree pages (``_Tombstones``).
    func tombstoned(_ dialect: SQLDialect) -> Bool { dialect == .sqlite && databaseIndex != nil }
    /// The ids of rows deleted but not yet removed (SQLite tables served from the database).
    var gone: String { "st_\(id)_gone" }
    /// The view of the table's rows less those in ``gone``.
    var live: String { "st_\(id)_live" }
    /// The search index: SQLite's FTS5 table, PostgreSQL's GIN index.
    var searchIndex: String { "st_\(id)_search" }
    /// The manual order's list in `ordered_item`.
    var list: String { "sortkit:st_\(id)" }

    /// The columns a row write sets, in ``rowValues(_:)``'s order.
    var physicalColumns: [String] {
        var names: [String] = []
        for (index, column) in schema.columns.enumerated() {
            names.append("c\(index)")
            if column.type != .string { names.append("n\(index)") }
        }
        return names + variants.sorted().map(\.columnName) + ["s"]
    }

    /// The values of ``physicalColumns`` for a row's cells: text in NFC (so "C"/BINARY order
    /// is code point order of NFC, as in memory), typed values, key bytes, folded text.
    func rowValues(_ cells: [String]) -> [SQLValue] {
        var values: [SQLValue] = []
        values.reserveCapacity(schema.columns.count * 2 + variants.count + 1)
        for (index, column) in schema.columns.enumerated() {
            // Blank (whitespace only) is null, as in memory.
            let text = Collation.normalized(cells[index])
            values.append(_isBlank(text) ? .null : .text(text))
            if column.type != .string { values.append(SQLValue(column.type.sortValue(text))) }
        }
        for variant in variants.sorted() {
            values.append(variant.key(of: cells[variant.column], type: schema.columns[variant.column].type).map { .blob($0) } ?? .null)
        }
        values.append(.text(SearchQuery.foldedFields(cells)))
        return values
    }

    /// Calls `body` with an import's rows as ``physicalColumns`` values, read straight from the
    /// cells and what else ``_CSVColumns/derived(_:)`` made of the CSV's columns (valid only inside
    /// `body`): what ``rowValues(_:)`` gives for each record's cells, without a `String` per cell.
    /// `keys`: what ``importKeys(_:)`` made of `cells` (made here when not given): a caller
    /// that reads the rows in parts makes them once for all.
    func withImportRows<Result>(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], keys: [_ImportRows.Key]? = nil,
        _ body: (_ImportRows) throws -> Result
    ) rethrows -> Result {
        let typedByColumn = schema.columns.indices.map { typed[$0] }
        let keys = keys ?? importKeys(cells)
        let columnCount = schema.columns.count
        let distinct = folded.distinct
        let cached = keys.compactMap(\.distinct)
        return try _CellColumn.withViews(cells.base) { columns in
            try _ByteArena.withViews([folded.base] + distinct.map(\.folded) + cached) { views in
                var next = 1 + distinct.count
                let cachedKeys = keys.map { key -> _ArenaView? in
                    guard key.distinct != nil else { return nil }
                    defer { next += 1 }
                    return views[next]
                }
                return try _withBuffers(distinct.map(\.ids)) { ids in
                    let fills = distinct.indices.map { _ImportRows.Fill(column: distinct[$0].column, folded: views[1 + $0], ids: ids[$0]) }
                    return try body(
                        _ImportRows(
                            views: columns, foldedBase: views[0], fills: fills, longestFills: fills.reduce(0) { $0 + $1.longest },
                            typed: typedByColumn, keys: keys, cachedKeys: cachedKeys, columnCount: columnCount))
                }
            }
        }
    }

    /// The stored key columns of an import of `cells`, in ``physicalColumns`` order, a
    /// repeating column's keys made once per distinct cell (``_ImportRows/Key/cached(_:records:)``).
    func importKeys(_ cells: _Cells) -> [_ImportRows.Key] {
        let keys = variants.sorted().map { variant in
            _ImportRows.Key(column: variant.column, key: variant.key, collation: variant.collation, type: schema.columns[variant.column].type)
        }
        return _CellColumn.withViews(cells.base) { columns in keys.map { $0.cached(columns[$0.column], records: cells.baseCount) } }
    }

    /// The full row for a partial write: `values` (column name → text) over `cells`.
    func merging(_ values: [String: String], into cells: [String]) throws -> [String] {
        var cells = cells
        for (name, value) in values { cells[try schema.columnIndex(name)] = value }
        try schema.validate(cells: cells)
        return cells
    }
}

extension TableSchema {
    /// Decodes the JSON a store keeps in its catalog.
    static func decode(_ json: String) throws -> TableSchema {
        try JSONDecoder().decode(TableSchema.self, from: Data(json.utf8))
    }

    /// The JSON a store keeps in its catalog.
    var json: String {
        // Encoding plain structs of strings can't fail.
        // Sorted keys: the same text from every process.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Checks every cell against its column's type.
    ///
    /// - Throws: ``TableStoreError/invalidValue(_:column:type:line:)`` for the first bad cell.
    func validate(cells: [String]) throws {
        for (column, text) in zip(columns, cells) {
            guard column.type.accepts(text) else { throw TableStoreError.invalidValue(text, column: column.name, type: column.type) }
            // PostgreSQL's text can't hold U+0000, so no store takes it: the same data in both.
            guard !text.utf8.contains(0) else {
                throw TableStoreError.invalid("column '\(column.name)' can't hold a NUL character (U+0000)")
            }
        }
    }

    /// Checks names: not empty, no duplicates, presets naming known columns.
    func validateDefinition() throws {
        try Self.checkName(name)
        guard !columns.isEmpty else { throw TableStoreError.invalid("table '\(name)' needs at least one column") }
        guard columns.count <= Self.maxColumns else { throw TableStoreError.tooManyColumns(columns.count) }
        var seen: Set<String> = []
        for column in columns {
            guard !column.name.isEmpty else { throw TableStoreError.invalid("line 1: a column of '\(name)' has no name") }
            guard column.name != TableSchema.rowIDName else {
                throw TableStoreError.invalid("table '\(name)' can't have a column named 'id': that name is the row id (a CSV import names it 'csv_id')")
            }
            guard seen.insert(column.name).inserted else {
                throw TableStoreError.invalid("line 1: table '\(name)' names column '\(column.name)' twice")
            }
        }
        for spec in presets.values { try validate(spec) }
    }

    /// The most columns a table may have. Each column takes up to three stored columns (its
    /// text, its typed value, a sort key), and SQLite allows 2,000 per table, PostgreSQL 1,600.
    public static let maxColumns = 500

    /// Throws ``TableStoreError`` (`invalid`) for a name no table may have: empty, over 128
    /// scalars, `.` or `..`, with a control or format character (zero-width, bidi controls:
    /// text that shows as another name), a line or paragraph separator, a private-use,
    /// unassigned or noncharacter code point, or spaces at either end. Names are compared as stored: give them in NFC, as the server does.
    ///
    ///     try TableSchema.checkName("books\u{200B}")   // throws: a format character U+200B
    public static func checkName(_ name: String) throws {
        guard !name.isEmpty else { throw TableStoreError.invalid("a table needs a name") }
        let scalars = name.unicodeScalars
        // Counted in scalars: a name of one letter and 100,000 combining marks is one Character.
        guard scalars.count <= 128 else { throw TableStoreError.invalid("a table name has at most 128 characters; this one has \(scalars.count)") }
        guard name != ".", name != ".." else { throw TableStoreError.invalid("'\(name)' can't name a table: its page address would be a folder's") }
        if let bad = scalars.first(where: { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: true
            default: scalar.properties.isNoncharacterCodePoint
            }
        }) {
            let hex = "U+" + String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw TableStoreError.invalid(
                "a table name has no control characters, format characters (zero-width, bidi controls) or unassigned ones; this one holds \(hex)")
        }
        if _isWhitespace(scalars.first!) || _isWhitespace(scalars.last!) {
            throw TableStoreError.invalid("a table name can't start or end with a space")
        }
    }

    /// The stored key columns a table needs: those its presets read, for their indexes, and —
    /// served from the database under `databaseIndex` — those of every column's own order.
    /// Other orders are served by the store's in-memory index (or, on SQLite's SQL path, by keys
    /// computed in the query), so reads never add columns.
    func requiredVariants(_ dialect: SQLDialect, databaseIndex: Collation? = nil) throws -> Set<KeyVariant> {
        var variants: Set<KeyVariant> = []
        for spec in Array(presets.values) + columnOrders(databaseIndex) {
            variants.formUnion(try SQLOrdering(.spec(spec), schema: self, dialect: dialect).variants)
        }
        try KeyVariant.checkDistinctColumns(variants)
        return variants
    }

    /// Every column's order in both directions under `collation` (none without one): the
    /// orders a table served from the database has an index for.
    func columnOrders(_ collation: Collation?) -> [SortSpec] {
        guard let collation else { return [] }
        return columns.flatMap { column in
            [SortDirection.ascending, .descending].map { SortSpec([SortSpec.Key(column.name, $0)]).withDefaultCollation(collation) }
        }
    }

    /// The database indexes of a table served from the database, by name suffix: per column
    /// `c<i>a` and `c<i>d`, the index columns of its order each way, and the key column they
    /// read (PostgreSQL's indexes include it: see `createIndexes`).
    func columnIndexes(_ dialect: SQLDialect, _ collation: Collation?) throws -> [(column: Int, suffix: String, columns: String, key: String?)] {
        try columnOrders(collation).enumerated().map { number, spec in
            let key = try SQLOrdering(.spec(spec), schema: self, dialect: dialect).variants.first?.columnName
            return (number / 2, "c\(number / 2)" + (number % 2 == 0 ? "a" : "d"), try indexColumns(spec, dialect), key)
        }
    }

    /// The index column list that serves `spec`'s order.
    private func indexColumns(_ spec: SortSpec, _ dialect: SQLDialect) throws -> String {
        let columns = try SQLOrdering(.spec(spec), schema: self, dialect: dialect).indexColumns.render(dialect)
        precondition(columns.arguments.isEmpty, "order expressions are literal")
        return columns.sql
    }

    /// The presets' index column lists, by index number (presets sorted by name).
    func presetIndexes(_ dialect: SQLDialect) throws -> [String] {
        try presets.keys.sorted().map { try indexColumns(presets[$0]!, dialect) }
    }
}

extension SQLValue {
    /// A typed value as stored in a `n<i>` column: dates as seconds since the reference date,
    /// booleans as 0 or 1, integers beyond 64 bits as their nearest double (where SQL orders
    /// by the typed column such values are as exact as a double; the sort-key columns and the
    /// in-memory index are exact).
    init(_ value: SortValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .integer(flag ? 1 : 0)
        case .integer(let integer): self = .integer(integer)
        case .largeInteger(let integer): self = .double(Double(integer))
        case .double(let double): self = .double(double)
        case .date(let date): self = .double(date.timeIntervalSinceReferenceDate)
        case .string(let text): self = .text(text)
        }
    }
}

/// Memory a record's whole folded text is written into, record after record, by
/// ``_ImportRows/forEachValue(of:scratch:_:)``: owned, so the text's pointer stays valid until
/// the next record is written (SQLite binds it without a copy).
struct _FoldScratch: ~Copyable {
    private var buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 512)

    init() {}

    deinit { buffer.deallocate() }

    /// At least `count` bytes to write at (what was written before may be lost).
    mutating func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if buffer.count < count {
            buffer.deallocate()
            buffer = .allocate(capacity: max(count, 2 * buffer.count))
        }
        return buffer.baseAddress!
    }
}

/// An import's rows as ``_TableInfo/physicalColumns`` values (see
/// ``_TableInfo/withImportRows(_:folded:typed:_:)``): the bulk insert of SQLite and the `COPY`
/// of PostgreSQL write what it hands on, each in its own form.
struct _ImportRows {
    /// One value of a row.
    enum Value {
        /// A non-empty cell's text as stored (NFC); an empty cell is `.value(.null)`.
        case cell(UnsafeBufferPointer<UInt8>)
        /// A typed value or a key column's bytes.
        case value(SQLValue)
        /// The row's folded search text (empty is empty text, not null).
        case folded(UnsafeBufferPointer<UInt8>)
        /// A key column's bytes (of a repeating column's distinct cell): a blob, never null.
        case key(UnsafeBufferPointer<UInt8>)
    }

    /// A stored key column's reading of its cells, built once per import rather than per cell
    /// (``KeyVariant/key(of:type:)`` builds its `SortSpec.Key` on each call).
    struct Key {
        let column: Int
        let key: SortSpec.Key
        let collation: Collation
        let type: ColumnType

        /// For a column whose cells repeat (numbered), its distinct cells' keys by number, made
        /// once rather than per record (see ``cached(_:records:)``): each a byte 0 (null) or 1
        /// and then the key's bytes. Read through views (``_ImportRows/cachedKeys``), which
        /// threads copy without touching a reference count: shared key arrays made atomic
        /// retains a fifth of a `COPY`'s encoding.
        var distinct: _ByteArena? = nil

        /// The key bytes of a cell's text, null for a null value.
        func value(of text: String) -> SQLValue {
            key.sortValue(of: text, columnType: type).sortKey(collation: collation).map { .blob($0) } ?? .null
        }

        /// This key with ``distinct`` made when `view` is numbered with at most a quarter as
        /// many distinct cells as `records` (a key per distinct cell costs no more than one per
        /// record). A 1M-row books import computed 5 of its 7 key columns (PostgreSQL; 2 of 3
        /// on SQLite) once per record before.
        func cached(_ view: _CellView, records: Int) -> Key {
            guard view.ids != nil, view.cells.ends.count <= records / 4 else { return self }
            var arena = _ByteArena()
            for id in view.cells.ends.indices {
                if case .blob(let bytes) = value(of: String(decoding: view.cells[id], as: UTF8.self)) {
                    arena.bytes.append(1)
                    arena.bytes.append(contentsOf: bytes)
                } else {
                    arena.bytes.append(0)
                }
                arena.close()
            }
            var key = self
            key.distinct = arena
            return key
        }
    }

    /// Per column its cells (a repeating column's through its numbering).
    let views: [_CellView]
    /// The folded text's base rows (a numbered column's field empty).
    let foldedBase: _ArenaView
    /// Per numbered column (ascending), its distinct cells' folded text and each record's number:
    /// what fills the base rows' empty fields (``_FoldedText``).
    let fills: [Fill]
    /// The most bytes the numbered fields fill into a row.
    let longestFills: Int

    struct Fill {
        let column: Int
        let folded: _ArenaView
        let ids: UnsafeBufferPointer<UInt32>
        /// The longest distinct cell's folded bytes.
        let longest: Int

        init(column: Int, folded: _ArenaView, ids: UnsafeBufferPointer<UInt32>) {
            self.column = column
            self.folded = folded
            self.ids = ids
            longest = folded.ends.indices.reduce(0) { longest, id in max(longest, folded.ends[id] - (id == 0 ? 0 : folded.ends[id - 1])) }
        }
    }
    /// Per column its typed values, if it has any.
    let typed: [_TypedValues?]
    /// The stored key columns, in ``_TableInfo/physicalColumns`` order.
    let keys: [Key]
    /// Per key, a view of its ``Key/distinct`` keys if it has them.
    let cachedKeys: [_ArenaView?]
    let columnCount: Int

    /// Calls `visit` with each value of `record`, in ``_TableInfo/physicalColumns`` order;
    /// `scratch` holds the record's whole folded text when a column is numbered (then a
    /// `.folded` value's bytes stay valid until `scratch` is used for another record).
    @inline(__always)
    func forEachValue(of record: Int, scratch: inout _FoldScratch, _ visit: (Value) throws -> Void) rethrows {
        try forEachCellValue(of: record, visit)
        let stored = foldedBase[record]
        guard !fills.isEmpty else { return try visit(.folded(stored)) }
        let target = scratch.reserve(stored.count + longestFills)
        try visit(.folded(UnsafeBufferPointer(start: target, count: writeFolded(record, stored, to: target))))
    }

    /// ``forEachValue(of:scratch:_:)`` without the last value, the folded text (which the
    /// caller has: ``foldedTexts(_:)``).
    @inline(__always)
    func forEachCellValue(of record: Int, _ visit: (Value) throws -> Void) rethrows {
        for column in 0..<columnCount {
            let cell = views[column][record]
            try visit(cell.isEmpty ? .value(.null) : .cell(cell))
            if let values = typed[column] { try visit(.value(SQLValue(values[record]))) }
        }
        for index in keys.indices {
            let column = keys[index].column
            if let cached = cachedKeys[index], let ids = views[column].ids {
                let entry = cached[Int(ids[record])]
                try visit(entry[0] == 0 ? .value(.null) : .key(UnsafeBufferPointer(rebasing: entry[1...])))
            } else {
                try visit(.value(keys[index].value(of: String(decoding: views[column][record], as: UTF8.self))))
            }
        }
    }

    /// Whether a record's folded text is filled in (a column is numbered), else its base row.
    var fillsFoldedText: Bool { !fills.isEmpty }

    /// The whole folded texts of `records`, one string each.
    ///
    ///     let texts = rows.foldedTexts(0..<16_384)
    ///     texts.withBytes(0) { String(decoding: $0, as: UTF8.self) }   // "7\u{1F}island ocean 691\u{1F}jurgen 2…"
    func foldedTexts(_ records: Range<Int>) -> _ByteArena {
        var texts = _ByteArena()
        texts.ends.reserveCapacity(records.count)
        var scratch = _FoldScratch()
        for record in records {
            let stored = foldedBase[record]
            let target = scratch.reserve(stored.count + longestFills)
            texts.bytes.append(contentsOf: UnsafeBufferPointer(start: target, count: writeFolded(record, stored, to: target)))
            texts.close()
        }
        return texts
    }

    /// Writes `record`'s whole folded text at `target` (room for its `stored` base row and
    /// ``longestFills``) and returns its length: as ``_FoldedText/fill(_:_:into:)`` does, from
    /// views, field by field (array appends per field made a 1M-row load 0.3 s slower).
    @inline(__always)
    private func writeFolded(_ record: Int, _ stored: UnsafeBufferPointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) -> Int {
        var at = 0, field = 0, next = 0, start = 0
        @inline(__always) func copy(_ from: UnsafePointer<UInt8>, _ count: Int) {
            guard count > 0 else { return }
            (target + at).initialize(from: from, count: count)
            at += count
        }
        @inline(__always) func fill() {
            guard next < fills.count, fills[next].column == field else { return }
            let fill = fills[next], id = Int(fill.ids[record])
            let lower = id == 0 ? 0 : fill.folded.ends[id - 1], upper = fill.folded.ends[id]
            if upper > lower { copy(fill.folded.bytes.baseAddress! + lower, upper - lower) }
            next += 1
        }
        fill()
        // An empty base row (one column, numbered) may have no address: it is its fill alone.
        while start < stored.count, let base = stored.baseAddress, let found = memchr(base + start, 0x1F, stored.count - start) {
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
            copy(base + start, end - start)
            start = end
            field += 1
            fill()
        }
        if let base = stored.baseAddress { copy(base + start, stored.count - start) }
        return at
    }
}

extension String {
    /// The text with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
