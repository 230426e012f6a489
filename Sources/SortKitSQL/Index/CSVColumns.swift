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
struct _CSVColumns: Sendable {
    var header: [String]
    /// Per column, the records' cells.
    var columns: [_ByteArena]
    /// Records read (the header not counted).
    var count: Int { columns.first?.count ?? 0 }

    /// The text of record `record`'s cell in `column`.
    func text(_ record: Int, _ column: Int) -> String {
        columns[column].bytes.withUnsafeBufferPointer { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[columns[column].range(record)]), as: UTF8.self)
        }
    }

    /// Reads `csv`: a header line, then records with as many fields.
    ///
    /// - Throws: ``CSVError`` naming the line of malformed CSV; ``TableStoreError`` for a file
    ///   without a header line.
    static func read(_ csv: [UInt8], delimiter: UInt8, minimumSlice: Int = 1 << 20) throws -> _CSVColumns {
        try csv.withUnsafeBufferPointer { bytes in
            var scanner = _CSVRecordScanner(delimiter: delimiter, wanted: nil)
            var position = csv.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            guard let header = try scanner.next(bytes, at: &position, final: true) else {
                throw TableStoreError.invalid("the CSV file is empty: it needs a header line")
            }
            let width = header.fields.count
            let slices = max(1, min(ProcessInfo.processInfo.activeProcessorCount, (bytes.count - position) / max(1, minimumSlice)))
            let first = position
            let bounds = [first] + (1..<slices).map {
                _CSVRecordScanner.recordStart(near: first + (bytes.count - first) * $0 / slices, from: first, in: bytes)
            } + [bytes.count]
            let results = _ResultSlots<[_ByteArena]?>(count: slices)
            let start = scanner
            let buffer = _UncheckedBox(bytes)
            // Each slice reads its own range of the (immutable) input.
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                var scanner = start
                var position = bounds[slice]
                let part = UnsafeBufferPointer(rebasing: buffer.value[..<bounds[slice + 1]])
                results.set(slice, try? Self.scan(part, from: &position, scanner: &scanner, width: width))
            }
            var parts: [[_ByteArena]] = []
            for part in results.values {
                guard let part else {
                    // A slice found malformed CSV: scan from the start on one core, which names
                    // the first problem with its line.
                    var scanner = start
                    var position = first
                    _ = try Self.scan(bytes, from: &position, scanner: &scanner, width: width)
                    throw TableStoreError.invalid("the CSV file could not be read")
                }
                parts.append(part)
            }
            let columns = (0..<width).map { column in _ByteArena.joined(parts.map { $0[column] }) }
            return _CSVColumns(header: header.fields, columns: columns)
        }
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
        while try scanner.scan(bytes, at: &position, final: true) != nil {
            for (column, span) in scanner.spans.enumerated() {
                value.removeAll(keepingCapacity: true)
                _CSVRecordScanner.appendValue(span, in: bytes, to: &value)
                value.withUnsafeBufferPointer { Self.appendCell($0, to: &columns[column].bytes) }
                columns[column].close()
            }
        }
        return columns
    }

    /// Appends a cell as stored: nothing for blank text, the NFC form otherwise.
    static func appendCell(_ cell: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        if _isASCII(cell) {
            // ASCII is its own NFC form; blank is spaces and control whitespace only.
            guard cell.contains(where: { !($0 == 0x20 || (0x09...0x0D).contains($0)) }) else { return }
            bytes.append(contentsOf: cell)
            return
        }
        let text = String(decoding: cell, as: UTF8.self)
        guard !text.unicodeScalars.allSatisfy(\.properties.isWhitespace) else { return }
        bytes.append(contentsOf: Collation.normalized(text).utf8)
    }

    /// Each column's type, inferred from all its values (``ColumnType/infer(_:)``): columns
    /// side by side on the cores; a column with few distinct values reads each one once.
    func inferredTypes() -> [ColumnType] {
        let results = _ResultSlots<ColumnType>(count: columns.count)
        let columns = self.columns
        DispatchQueue.concurrentPerform(iterations: columns.count) { index in
            let column = columns[index]
            var inference = _TypeInference()
            let records = _numberDistinct(column, limit: max(16, column.count / 2))?.firsts ?? Array(0..<column.count)
            column.bytes.withUnsafeBufferPointer { bytes in
                for record in records {
                    inference.add(String(decoding: UnsafeBufferPointer(rebasing: bytes[column.range(record)]), as: UTF8.self))
                    if inference.isSettled { break }
                }
            }
            results.set(index, inference.type)
        }
        return results.values
    }
}
