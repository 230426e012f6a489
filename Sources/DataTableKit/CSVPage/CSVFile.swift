import Foundation
import SortKit

/// A CSV file's bytes, scanned in one slice per core for ``CSVPage``: where its records
/// start, each column's type, and the records a search keeps with their sort keys' text.
///
/// A slice starts after a line end outside quotes. Malformed CSV in any slice is reported by
/// scanning from the first record on one core, which names the first problem with its line
/// (as ``CSV/parse(_:delimiter:)`` does).
struct _CSVFile: Sendable {
    let bytes: [UInt8]
    let columns: [String]
    /// The scanner after the header (field count and line end known).
    private let scanner: _CSVRecordScanner
    /// The first record's position.
    private let first: Int
    /// Where each record starts, after ``scan(keyColumns:)``: one part per slice, kept apart
    /// (joining them would copy them all once more at the peak of memory).
    private var starts = _Segments<Int>(parts: [])
    /// Per sort-key column, each record's value as a packed span of ``bytes`` (``_PackedSpan``):
    /// 8 bytes a record, where a copy of the text would be its length plus 8.
    private var keySpans: [Int: _Segments<UInt64>] = [:]
    /// Spans too long to pack, by column and record.
    private var longSpans: [Int: [Int: _CSVRecordScanner.Span]] = [:]

    init(_ bytes: [UInt8], delimiter: UInt8, hasHeader: Bool) throws {
        precondition(
            delimiter < 0x80 && delimiter != 0x22 && delimiter != 0x0A && delimiter != 0x0D,
            "CSV delimiter must be an ASCII character other than a quote or a line break")
        self.bytes = bytes
        var scanner = _CSVRecordScanner(delimiter: delimiter, wanted: nil)
        var position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if hasHeader {
            let header = try bytes.withUnsafeBufferPointer { try scanner.next($0, at: &position, final: true) }
            columns = header?.fields ?? []
        } else {
            // Columns named 1, 2, … after the first record's fields (read again as a record).
            var peek = scanner, at = position
            let record = try bytes.withUnsafeBufferPointer { try peek.next($0, at: &at, final: true) }
            columns = (0..<(record?.fields.count ?? 0)).map { String($0 + 1) }
        }
        self.scanner = scanner
        first = position
    }

    /// The position of the column named `name`, as `TextTable.columnIndex(_:)` finds it.
    func columnIndex(_ name: String) throws -> Int {
        if let index = columns.firstIndex(of: name) { return index }
        let matches = columns.indices.filter { Collation.caseInsensitive.areEquivalent(columns[$0], name) }
        if matches.count == 1 { return matches[0] }
        throw SortSpecError.unknownColumn(name, known: columns)
    }

    /// Records in the file, after ``scan(keyColumns:)``.
    var count: Int { starts.count }

    /// Scans every record: where it starts, each column's type from all its values, and the
    /// spans of the `keyColumns` values.
    ///
    /// - Throws: `CSVError` naming the line of malformed CSV.
    mutating func scan(keyColumns: [Int]) throws -> [ColumnType] {
        struct Part {
            var starts: [Int] = []
            var inference: [_TypeInference]
            var keys: [[UInt64]]
            var long: [[Int: _CSVRecordScanner.Span]]
        }
        let width = columns.count
        let slices = bytes.withUnsafeBufferPointer { bytes in _slices(bytes) }
        let results = _ResultSlots<Part?>(count: slices.count - 1)
        let start = scanner
        bytes.withUnsafeBufferPointer { all in
            let buffer = _UncheckedBox(all)
            // Each slice reads its own range of the (immutable) bytes.
            DispatchQueue.concurrentPerform(iterations: slices.count - 1) { slice in
                var scanner = start, position = slices[slice]
                let bytes = UnsafeBufferPointer(rebasing: buffer.value[..<slices[slice + 1]])
                var part = Part(
                    inference: Array(repeating: _TypeInference(), count: width),
                    keys: Array(repeating: [], count: keyColumns.count), long: Array(repeating: [:], count: keyColumns.count))
                let expected = (slices[slice + 1] - position) / 48 + 16
                part.starts.reserveCapacity(expected)
                for key in keyColumns.indices { part.keys[key].reserveCapacity(expected) }
                var unsettled = Array(0..<width)
                var value: [UInt8] = []
                do {
                    while let (range, _) = try scanner.scan(bytes, at: &position, final: true) {
                        for (key, column) in keyColumns.enumerated() {
                            let span = scanner.spans[column]
                            let packed = _PackedSpan.pack(span)
                            if packed == _PackedSpan.tooLong { part.long[key][part.starts.count] = span }
                            part.keys[key].append(packed)
                        }
                        part.starts.append(range.lowerBound)
                        guard !unsettled.isEmpty else { continue }
                        for column in unsettled {
                            _CSVRecordScanner.withValue(scanner.spans[column], in: bytes, scratch: &value) { part.inference[column].add(utf8: $0) }
                        }
                        if unsettled.contains(where: { part.inference[$0].isSettled }) { unsettled.removeAll { part.inference[$0].isSettled } }
                    }
                    results.set(slice, part)
                } catch {
                    results.set(slice, nil)
                }
            }
        }
        let parts = results.values
        guard parts.allSatisfy({ $0 != nil }) else { throw sequentialError() }
        starts = _Segments(parts: parts.map { $0!.starts })
        for (key, column) in keyColumns.enumerated() {
            keySpans[column] = _Segments(parts: parts.map { $0!.keys[key] })
            var long: [Int: _CSVRecordScanner.Span] = [:]
            for (index, part) in parts.enumerated() {
                for (record, span) in part!.long[key] { long[starts.bases[index] + record] = span }
            }
            if !long.isEmpty { longSpans[column] = long }
        }
        return (0..<width).map { column in
            parts.dropFirst().reduce(into: parts[0]!.inference[column]) { $0.merge($1!.inference[column]) }.type
        }
    }

    /// The text of each record's value in a key column given to ``scan(keyColumns:)``, by
    /// record: the column's spans looked up once, not per record (hashing the column per
    /// record was 2% of `sortkit view` on 10M rows).
    func keyTexts(_ column: Int) -> @Sendable (_ record: Int) -> String {
        let spans = keySpans[column]!, long = longSpans[column], bytes = self.bytes
        return { record in
            let packed = spans[record]
            let span = packed == _PackedSpan.tooLong ? long![record]! : _PackedSpan.unpack(packed)
            return bytes.withUnsafeBufferPointer { _CSVRecordScanner.text(span, in: $0) }
        }
    }

    /// Each record's value in a key column given to ``scan(keyColumns:)`` as its bytes in
    /// `bytes` (``bytes`` read through a pointer that outlives the closure's use): `nil` for a
    /// value with doubled quotes, or too long to pack, which ``keyTexts(_:)`` reads. The scan
    /// checked that they are UTF-8.
    func keyUTF8(_ column: Int, in bytes: UnsafeBufferPointer<UInt8>) -> @Sendable (_ record: Int) -> UnsafeBufferPointer<UInt8>? {
        let spans = keySpans[column]!, base = _UncheckedBox(bytes)
        return { record in
            let packed = spans[record]
            guard packed != _PackedSpan.tooLong, packed & 1 == 0 else { return nil }
            return UnsafeBufferPointer(rebasing: base.value[_PackedSpan.unpack(packed).range])
        }
    }

    /// What a search keeps: the matching records (numbers from 0, in data order; `nil` for
    /// all), and, with `measureAll`, every column's width sum and maximum over them.
    struct Matches: Sendable {
        var records: _Segments<Int>?
        var widths: [_WidthStats] = []
    }

    /// The records matching `query` on each cell's text and typed value (as a ``DataTable``
    /// folds a row for search), after ``scan(keyColumns:)``.
    func matching(_ query: SearchQuery, types: [ColumnType], measureAll: Bool) -> Matches {
        struct Part {
            var records: [Int] = []
            var widths: [_WidthStats]
        }
        guard !query.isBlank || measureAll else { return Matches() }
        let count = starts.count, width = columns.count
        let sliceCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 16_384))
        let results = _ResultSlots<Part>(count: sliceCount)
        let start = scanner, starts = self.starts
        bytes.withUnsafeBufferPointer { all in
            let buffer = _UncheckedBox(all)
            // Each slice reads its own records of the (immutable) bytes.
            DispatchQueue.concurrentPerform(iterations: sliceCount) { slice in
                let bytes = buffer.value
                var scanner = start
                // Checked by the first scan.
                scanner.validatesUTF8 = false
                var part = Part(widths: measureAll ? Array(repeating: _WidthStats(), count: width) : [])
                var folded: [UInt8] = [], value: [UInt8] = []
                for record in (count * slice / sliceCount)..<(count * (slice + 1) / sliceCount) {
                    var position = starts[record]
                    // These records scanned once already: no error now.
                    guard (try? scanner.scan(bytes, at: &position, final: true)) != nil else { continue }
                    if !query.isBlank {
                        folded.removeAll(keepingCapacity: true)
                        for column in 0..<width {
                            _CSVRecordScanner.withValue(scanner.spans[column], in: bytes, scratch: &value) { cell in
                                SearchQuery._appendFolded(cell, to: &folded)
                                folded.append(0x1F)
                                _appendFoldedValueText(cell, type: types[column], to: &folded)
                            }
                        }
                        guard folded.withUnsafeBufferPointer({ query.matches(foldedBytes: $0) }) else { continue }
                    }
                    part.records.append(record)
                    if measureAll {
                        for column in 0..<width {
                            let cellWidth = _CSVRecordScanner.withValue(scanner.spans[column], in: bytes, scratch: &value) { _utf8Width($0) }
                            part.widths[column].sum += cellWidth
                            part.widths[column].max = Swift.max(part.widths[column].max, cellWidth)
                        }
                    }
                }
                results.set(slice, part)
            }
        }
        let parts = results.values
        var matches = Matches(records: query.isBlank ? nil : _Segments(parts: parts.map(\.records)))
        if measureAll {
            matches.widths = (0..<width).map { column in
                parts.reduce(into: _WidthStats()) { stats, part in
                    stats.sum += part.widths[column].sum
                    stats.max = Swift.max(stats.max, part.widths[column].max)
                }
            }
        }
        return matches
    }

    /// The cells of the records numbered `records` (from 0), after ``scan(keyColumns:)``.
    func fields(ofRecords records: [Int]) -> [[String]] {
        var scanner = scanner
        scanner.wanted = nil
        return bytes.withUnsafeBufferPointer { bytes in
            records.map { record in
                var position = starts[record]
                return (try? scanner.next(bytes, at: &position, final: true))?.fields ?? []
            }
        }
    }

    /// Slice bounds: the first record's position, one record start per further core, the end.
    private func _slices(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
        let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, (bytes.count - first) / (1 << 20)))
        return [first]
            + (1..<slices).map {
                _CSVRecordScanner.recordStart(near: first + (bytes.count - first) * $0 / slices, from: first, in: bytes)
            } + [bytes.count]
    }

    /// The first problem in the records, found on one core so that its line is right.
    private func sequentialError() -> any Error {
        var scanner = scanner, position = first
        do {
            try bytes.withUnsafeBufferPointer { bytes in
                while try scanner.scan(bytes, at: &position, final: true) != nil {}
            }
        } catch {
            return error
        }
        return CocoaError(.fileReadCorruptFile)
    }
}

/// Arrays made on several cores, read as one without copying them together.
struct _Segments<Element: Sendable>: Sendable {
    let parts: [[Element]]
    /// Each part's first index.
    let bases: [Int]
    let count: Int

    init(parts: [[Element]]) {
        self.parts = parts
        var bases: [Int] = [], total = 0
        for part in parts {
            bases.append(total)
            total += part.count
        }
        self.bases = bases
        count = total
    }

    subscript(index: Int) -> Element {
        var part = parts.count - 1
        while part > 0, bases[part] > index { part -= 1 }
        return parts[part][index - bases[part]]
    }
}

/// A field's span packed in 64 bits: start (40 bits), length (23 bits), escaped (1 bit).
enum _PackedSpan {
    /// Marks a span that doesn't fit (a value of 8 MiB or more, or a file of 1 TiB).
    static let tooLong = UInt64.max

    static func pack(_ span: _CSVRecordScanner.Span) -> UInt64 {
        let start = UInt64(span.range.lowerBound), length = UInt64(span.range.count)
        guard start < 1 << 40, length < (1 << 23) - 1 else { return tooLong }
        return start << 24 | length << 1 | (span.escaped ? 1 : 0)
    }

    static func unpack(_ packed: UInt64) -> _CSVRecordScanner.Span {
        let start = Int(packed >> 24), length = Int(packed >> 1 & ((1 << 23) - 1))
        return _CSVRecordScanner.Span(range: start..<start + length, escaped: packed & 1 == 1)
    }
}

/// A cell's width in terminal cells, as a table measures its text (clamped as it stores it).
private func _utf8Width(_ cell: UnsafeBufferPointer<UInt8>) -> Int {
    if cell.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return min(cell.count, Int(UInt16.max)) }
    return _cellWidth(String(decoding: cell, as: UTF8.self))
}

/// The folded text of a typed cell's value, and a separator, when it differs from the cell's
/// text — what a ``DataTable`` adds to a row's search text. Common shapes are recognised
/// without a parse: plain integers and decimals read back as written, and a date's value is
/// its text at midnight UTC.
private func _appendFoldedValueText(_ cell: UnsafeBufferPointer<UInt8>, type: ColumnType, to folded: inout [UInt8]) {
    switch type {
    case .string: return
    case .integer:
        if _NumberShape(cell) == .digits, cell.count == 1 || cell[0] != 0x30 { return }
    case .float:
        if _NumberShape(cell) == .decimal, let point = cell.firstIndex(of: 0x2E), cell[cell.count - 1] != 0x30,
            cell[0] != 0x30 || (point == 1 && cell[2] != 0x30)
        {
            return
        }
    case .date:
        if cell.count == 10, cell[4] == 0x2D, cell[7] == 0x2D, cell[0] != 0x30, cell[0] != 0x31 || cell[1] >= 0x36,
            _NumberShape(UnsafeBufferPointer(rebasing: cell[0..<4])) == .digits
        {
            // The table's value text is the ISO date-time: the date itself, then midnight UTC.
            SearchQuery._appendFolded(cell, to: &folded)
            folded.append(contentsOf: Array("t00:00:00z".utf8))
            folded.append(0x1F)
            return
        }
    case .bool: break
    }
    let text = String(decoding: cell, as: UTF8.self)
    let valueText = DataTableColumn<TextRow>.text(type.sortValue(text))
    guard valueText != text else { return }
    folded.append(contentsOf: SearchQuery.fold(valueText).utf8)
    folded.append(0x1F)
}
