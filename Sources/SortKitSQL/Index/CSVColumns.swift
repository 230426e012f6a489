import Foundation
import SortKit

/// A CSV file read into columns: per column, every record's cell one after another in a byte
/// arena — the form both an import's inserts and a table's in-memory index read, without a
/// `String` per cell.
///
/// Cells are stored as a store keeps them: NFC, and empty for blank (whitespace-only) text,
/// which is null. The file is scanned in one slice per core (a slice starts after a line end
/// outside quotes); malformed CSV is reported with its line by a sequential scan, as
/// ``CSV/parse(_:delimiter:)`` reports it.
package struct _CSVColumns: Sendable {
    package var header: [String]
    /// Per column, the records' cells.
    var columns: [_ByteArena]
    /// Records read (the header not counted).
    package var count: Int { columns.first?.count ?? 0 }
    /// Per column, its distinct cells numbered (``_ColumnNumbering``), once ``number()`` ran;
    /// empty before.
    var numbered: [_ColumnNumbering?] = []

    /// Numbers the distinct cells of every column whose cells repeat, on every core: what
    /// typing the columns, parsing their typed values and ranking them each did again (a tenth
    /// of a 1M-row import's CPU, the same hashing three times).
    mutating func number() {
        let results = _ResultSlots<_ColumnNumbering?>(count: columns.count)
        let columns = self.columns
        _concurrentPerform(iterations: columns.count, _UncheckedBox { index in results.set(index, _ColumnNumbering(columns[index])) })
        numbered = results.values
    }

    /// Column `index`'s numbering if it has no more than `limit` distinct cells: from
    /// ``number()``, or before it, what `_numberDistinct` finds under `limit`.
    func numbering(_ index: Int, limit: Int) -> _ColumnNumbering? {
        guard numbered.isEmpty else { return numbered[index].flatMap { $0.firsts.count <= limit ? $0 : nil } }
        return _ColumnNumbering(columns[index], limit: limit)
    }

    /// The text of record `record`'s cell in `column`.
    package func text(_ record: Int, _ column: Int) -> String {
        columns[column].bytes.withUnsafeBufferPointer { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[columns[column].range(record)]), as: UTF8.self)
        }
    }

    /// Reads `csv`: a header line, then records with as many fields. The bytes are let go once
    /// scanned (when the caller passed its last reference, `consume`), before the slices'
    /// arenas are joined into columns, and each slice's arena of a column goes once that column
    /// is joined: the file, the slices and the joined columns were all held at once, the peak of
    /// a 1M-row import (75 + 129 + 124 MB).
    ///
    ///     let columns = try _CSVColumns.read(consume bytes, delimiter: UInt8(ascii: ","))
    ///     columns.header   // ["csv_id", "title", …]: a column named `id` is renamed
    ///
    /// - Throws: ``CSVError`` naming the line of malformed CSV; ``TableStoreError`` for a file
    ///   without a header line.
    package static func read(_ csv: consuming [UInt8], delimiter: UInt8, minimumSlice: Int = 1 << 20) throws -> _CSVColumns {
        guard CSV.isValidDelimiter(delimiter) else {
            throw TableStoreError.invalid("the CSV delimiter must be an ASCII character other than a quote or a line break")
        }
        if let nul = csv.firstIndex(of: 0) {
            // PostgreSQL's text can't hold U+0000, so no store takes it.
            let line = 1 + csv[..<nul].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw TableStoreError.invalid("line \(line): a NUL character (U+0000) can't be stored")
        }
        let (header, slices) = try csv.withUnsafeBufferPointer { bytes -> ([String], _ResultSlots<[_ByteArena]?>) in
            var scanner = _CSVRecordScanner(delimiter: delimiter, wanted: nil)
            var position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            guard let header = try scanner.next(bytes, at: &position, final: true) else {
                throw TableStoreError.invalid("the CSV file is empty: it needs a header line")
            }
            let width = header.fields.count
            // Before any record is read: a table that can't be stored isn't parsed first.
            guard width <= TableSchema.maxColumns else { throw TableStoreError.tooManyColumns(width) }
            let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, (bytes.count - position) / max(1, minimumSlice)))
            let first = position
            let bounds =
                [first]
                + (1..<slices).map {
                    _CSVRecordScanner.recordStart(near: first + (bytes.count - first) * $0 / slices, from: first, in: bytes)
                } + [bytes.count]
            let results = _ResultSlots<[_ByteArena]?>(count: slices)
            let start = scanner
            let buffer = _UncheckedBox(bytes)
            // Each slice reads its own range of the (immutable) input.
            _concurrentPerform(
                iterations: slices,
                _UncheckedBox { slice in
                    var scanner = start
                    var position = bounds[slice]
                    let part = UnsafeBufferPointer(rebasing: buffer.value[..<bounds[slice + 1]])
                    results.set(slice, try? Self.scan(part, from: &position, scanner: &scanner, width: width))
                })
            if results.values.contains(where: { $0 == nil }) {
                // A slice found malformed CSV: scan from the start on one core, which names
                // the first problem with its line.
                var scanner = start
                var position = first
                _ = try Self.scan(bytes, from: &position, scanner: &scanner, width: width)
                throw TableStoreError.invalid("the CSV file could not be read")
            }
            return (header.fields, results)
        }
        _ = consume csv
        var parts = slices.values.map { $0! }
        for slice in parts.indices { slices.set(slice, nil) }
        var columns: [_ByteArena] = []
        columns.reserveCapacity(header.count)
        for column in header.indices {
            columns.append(_ByteArena.joined(parts.map { $0[column] }))
            for slice in parts.indices { parts[slice][column] = _ByteArena() }
        }
        return _CSVColumns(header: Self.renamingRowID(header), columns: columns)
    }

    /// The header with a column named `id` renamed `csv_id` (`csv_id_2`, … if that is taken):
    /// `id` is the row id in every row a store returns (`{"id": 7, …}`), so a column can't
    /// have that name.
    static func renamingRowID(_ header: [String]) -> [String] {
        guard let index = header.firstIndex(of: TableSchema.rowIDName) else { return header }
        var name = "csv_id", suffix = 1
        while header.contains(name) {
            suffix += 1
            name = "csv_id_\(suffix)"
        }
        var header = header
        header[index] = name
        return header
    }

    /// Scans records from `position` to the end of `bytes` into column arenas.
    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, from position: inout Int, scanner: inout _CSVRecordScanner, width: Int
    ) throws -> [_ByteArena] {
        var columns = [_ByteArena](repeating: _ByteArena(), count: width)
        for column in columns.indices {
            columns[column].bytes.reserveCapacity((bytes.count - position) / width + 16)
            columns[column].ends.reserveCapacity((bytes.count - position) / (width * 8) + 16)
        }
        var value: [UInt8] = []
        var composer = _MarkComposer()
        while try scanner.scan(bytes, at: &position, final: true) != nil {
            for (column, span) in scanner.spans.enumerated() {
                // A field without doubled quotes is its bytes: no copy on the way.
                _CSVRecordScanner.withValue(span, in: bytes, scratch: &value) {
                    Self.appendCell($0, to: &columns[column].bytes, composer: &composer)
                }
                columns[column].close()
            }
        }
        return columns
    }

    /// Appends a cell as stored: nothing for blank text, the NFC form otherwise. The cell is
    /// well-formed UTF-8: the scanner rejects a record that isn't, and a field of a
    /// well-formed record (its quotes undone) is well-formed.
    static func appendCell(_ cell: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8], composer: inout _MarkComposer) {
        assert(_isValidUTF8(cell), "the scanner validates records")
        if _isASCII(cell) {
            // ASCII is its own NFC form; blank is spaces and control whitespace only.
            guard cell.contains(where: { !($0 == 0x20 || (0x09...0x0D).contains($0)) }) else { return }
            bytes.append(contentsOf: cell)
            return
        }
        // Well-formed text whose every scalar is its own NFC (most text in Latin, Greek,
        // Cyrillic and CJK scripts) is stored as it is, read from its bytes: a `String` per
        // cell and its scalars walked to find that out were a sixth of a multilingual import.
        // So is text with accents typed apart from their letters ("Cafe\u{301}"), composed
        // pair by pair.
        let start = bytes.count
        if composer.appendNFC(cell, to: &bytes) {
            let blank = bytes.withUnsafeBufferPointer { _isBlank(UnsafeBufferPointer(rebasing: $0[start...])) }
            if blank { bytes.removeLast(bytes.count - start) }
            return
        }
        let text = String(decoding: cell, as: UTF8.self)
        guard !_isBlank(text) else { return }
        bytes.append(contentsOf: Collation.normalized(text).utf8)
    }

    /// Each column's type, inferred from all its values (``ColumnType/infer(_:)``): columns
    /// side by side on the cores; a column with few distinct values reads each one once.
    func inferredTypes() -> [ColumnType] {
        let results = _ResultSlots<ColumnType>(count: columns.count)
        let columns = self.columns
        _concurrentPerform(
            iterations: columns.count,
            _UncheckedBox { index in
                let column = columns[index]
                var inference = _TypeInference()
                // A column of many distinct values (titles) is typed by its first values (one that
                // settles it as text stops the scan) rather than numbered first.
                let records = numbering(index, limit: max(16, min(column.count / 2, 65_536)))?.firsts ?? Array(0..<column.count)
                column.bytes.withUnsafeBufferPointer { bytes in
                    for record in records {
                        inference.add(utf8: UnsafeBufferPointer(rebasing: bytes[column.range(record)]))
                        if inference.isSettled { break }
                    }
                }
                results.set(index, inference.type)
            })
        return results.values
    }
}

extension _CSVColumns {
    /// What both an import's inserts and its index need, computed once on every core: the
    /// cells as the index keeps them (a repeating column numbered), the folded search text
    /// (a numbered column's once per distinct cell), and per typed column its values.
    ///
    /// The folded text of numbered columns used to be folded for every record and held whole
    /// beside the index's copy without them: 72 MB on 1M multilingual books at the import's peak.
    func derived(_ schema: TableSchema) -> (cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues]) {
        let typedColumns = schema.columns.indices.filter { schema.columns[$0].type != .string }
        let results = _ResultSlots<_TypedValues>(count: typedColumns.count)
        let columns = self.columns, count = self.count
        let cells = _Cells(base: columns, baseCount: count, numbered: numbered)
        func typedValues(_ task: Int) {
            let column = typedColumns[task], type = schema.columns[column].type, arena = columns[column]
            func value(_ record: Int) -> SortValue {
                arena.bytes.withUnsafeBufferPointer { bytes in
                    let cell = UnsafeBufferPointer(rebasing: bytes[arena.range(record)])
                    if type == .integer, let integer = _plainInteger(cell) { return .integer(integer) }
                    return type.sortValue(String(decoding: cell, as: UTF8.self))
                }
            }
            // Prices, dates and counts repeat: each distinct value is parsed once and kept once,
            // with the column's numbering (its 4-byte ids, which the columns hold anyway).
            if let numbered = numbering(column, limit: max(16, arena.count / 4)) {
                results.set(task, _TypedValues(distinct: numbered.firsts.map(value), ids: numbered.ids))
            } else {
                // Integers alone (ids) straight into 8 bytes a record; else a value per record,
                // the parse going on from the first value that isn't an integer.
                var integers: [Int64] = []
                integers.reserveCapacity(arena.count)
                for record in 0..<arena.count {
                    guard case .integer(let integer) = value(record) else { break }
                    integers.append(integer)
                }
                results.set(
                    task,
                    integers.count == arena.count && !integers.isEmpty
                        ? _TypedValues(integers: integers)
                        : _TypedValues(integers.map(SortValue.integer) + (integers.count..<arena.count).map(value)))
            }
        }
        // The typed columns on the cores (each one task), then the folded text (split by rows
        // inside): a typed column is far less work than folding.
        _concurrentPerform(iterations: typedColumns.count, _UncheckedBox { typedValues($0) })
        let folded = _FoldedText(columns: columns, cells: cells)
        return (cells, folded, Dictionary(uniqueKeysWithValues: zip(typedColumns, results.values)))
    }
}

/// A typed column's value per record: for a column whose cells repeat (prices, dates, counts),
/// each distinct cell's value once and each record's number, else a value per record. At 1M
/// rows a value per record was 24 MB a column, held through the import's peak.
///
///     let prices = _TypedValues(distinct: [.double(9.5), .double(12)], ids: [1, 0, 1])
///     prices[2]   // .double(12)
struct _TypedValues: Sendable, ExpressibleByArrayLiteral {
    /// The distinct values (with `ids`), or a value per record (unless `integers`).
    let values: [SortValue]
    /// Per record, the number of its value in `values`.
    let ids: [UInt32]?
    /// Per record its integer, for a column of integers alone (ids, counts that don't repeat):
    /// 8 bytes a record, not a `SortValue`'s 24.
    let integers: [Int64]?

    init(_ values: [SortValue]) {
        self.values = values
        ids = nil
        integers = nil
    }

    init(integers: [Int64]) {
        values = []
        ids = nil
        self.integers = integers
    }

    init(distinct values: [SortValue], ids: [UInt32]) {
        self.values = values
        self.ids = ids
        integers = nil
    }

    init(arrayLiteral values: SortValue...) { self.init(values) }

    var count: Int { ids?.count ?? integers?.count ?? values.count }

    @inline(__always)
    subscript(record: Int) -> SortValue {
        if let ids { return values[Int(ids[record])] }
        if let integers { return .integer(integers[record]) }
        return values[record]
    }

    /// A value per record.
    var perRecord: [SortValue] { ids == nil && integers == nil ? values : (0..<count).map { self[$0] } }

    /// Whether the values are integers, each above the one before (an id column).
    var strictlyAscendingIntegers: Bool {
        guard let integers else { return false }
        return zip(integers, integers.dropFirst()).allSatisfy { $0 < $1 }
    }
}

/// A cell of ASCII digits with an optional sign that fits in 64 bits, read without a `String`
/// (what `ColumnType.integer` reads it as); `nil` for anything else, which the caller parses
/// the general way.
private func _plainInteger(_ cell: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard !cell.isEmpty, cell.count <= 18 else { return nil }
    var index = 0
    let negative = cell[0] == 0x2D
    if negative || cell[0] == 0x2B { index = 1 }
    guard index < cell.count else { return nil }
    var value: Int64 = 0
    while index < cell.count {
        let digit = cell[index]
        guard digit >= 0x30, digit <= 0x39 else { return nil }
        value = value * 10 + Int64(digit - 0x30)
        index += 1
    }
    return negative ? -value : value
}

/// A column's distinct cells numbered by their bytes (`_numberDistinct`): per record its
/// number, per number its first record.
struct _ColumnNumbering: Sendable {
    let ids: [UInt32]
    let firsts: [Int]

    /// The numbering of a column whose cells repeat (`_valuesRepeat`) with at most `limit`
    /// distinct cells (three quarters of them by default: the most any reader takes).
    init?(_ column: _ByteArena, limit: Int? = nil) {
        guard _valuesRepeat(column), let (ids, firsts) = _numberDistinct(column, limit: limit ?? column.count * 3 / 4) else { return nil }
        self.ids = ids
        self.firsts = firsts
    }
}
