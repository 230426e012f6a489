import Foundation
import SortKit

/// Records and their key columns' values in arenas; sorting builds the keys (``_RunKeys``)
/// and orders the records by them (ties in input order).
struct _Run: Sendable {
    private(set) var sortKey: _CSVSortKey
    /// The records' bytes: the run's own copies, or the whole input (``borrow(_:)``).
    private var records: [UInt8] = []
    private var starts: [Int] = []
    private var ends: [Int] = []
    private var borrows = false
    /// The scanned fields' values (doubled quotes undone), one arena per field.
    private var values: [_ByteArena]
    private var keys: _RunKeys?
    /// Record positions in sorted order, after ``sort()``.
    private(set) var order: [Int] = []

    init(key: _CSVSortKey) {
        sortKey = key
        values = Array(repeating: _ByteArena(), count: key.columns.count)
    }

    /// Keeps records as ranges of `input` (a whole file read at once) instead of copying them.
    mutating func borrow(_ input: [UInt8]) {
        records = input
        borrows = true
    }

    /// Empties the run for the next one, keeping its capacity.
    mutating func clear() {
        if !borrows { records.removeAll(keepingCapacity: true) }
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        for field in values.indices {
            values[field].bytes.removeAll(keepingCapacity: true)
            values[field].ends.removeAll(keepingCapacity: true)
        }
        keys = nil
        order = []
    }

    /// Sorts from now on with `key` (its column types resolved).
    mutating func setKey(_ key: _CSVSortKey) {
        sortKey = key
        keys = nil
    }

    var count: Int { ends.count }
    /// The bytes the run holds, and those its sort and write will add (``peakBytes(count:recordBytes:valueBytes:fields:components:)``).
    var memory: Int {
        Self.peakBytes(
            count: count, recordBytes: records.count, valueBytes: values.reduce(0) { $0 + $1.bytes.count },
            fields: values.count, components: sortKey.components.count)
    }

    /// What a run of `count` records takes at its peak — while it is sorted and written —
    /// with `recordBytes` of records (its copies, or the whole input it borrows), `valueBytes`
    /// of key values, `fields` key columns and `components` key components. One model for
    /// choosing to read a file whole and for when a run spills, so that `maxMemory` bounds the
    /// process (`Tests/sortkitTests/MemoryBudgetTests.swift` checks peak RSS against it).
    ///
    /// Held: the records, their starts and ends (16 bytes), the values and their ends (8 a
    /// field). Added by the sort: value numbers (4 a field), the encoded values and their ends
    /// (about twice the values, 8 a component), the sort keys' ends and cursors (16), two
    /// radix records (48), the order (8) and the list of records written (16); the encodings
    /// are counted at three times the values, which covers numbers, and the key builders' cached
    /// words at half the values (``_CSVSortKey/Component/plainKeys(grouping:textBytes:)``). A quarter is
    /// added for what the allocator keeps beside them: measured, the peak RSS of sorting a
    /// narrow file (1.2M records, 13 bytes each) grew 1.15 bytes per byte of budget without it.
    static func peakBytes(count: Int, recordBytes: Int, valueBytes: Int, fields: Int, components: Int) -> Int {
        let held = recordBytes + valueBytes + count * (16 + 8 * fields)
        let sorting = 7 * valueBytes / 2 + count * (4 * fields + 8 * components + 16 + 48 + 8 + 16)
        return (held + sorting) * 5 / 4
    }

    /// Adds the record the reader's scanner found last.
    mutating func add(_ range: Range<Int>, from reader: _RecordReader) {
        reader.buffer.withUnsafeBufferPointer { bytes in
            if borrows {
                starts.append(range.lowerBound)
                ends.append(range.upperBound)
            } else {
                starts.append(records.count)
                records.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
                ends.append(records.count)
            }
            for (field, span) in reader.scanner.spans.enumerated() {
                _CSVRecordScanner.appendValue(span, in: bytes, to: &values[field].bytes)
                values[field].close()
            }
        }
    }

    func record(_ index: Int) -> ArraySlice<UInt8> { records[starts[index]..<ends[index]] }

    /// Scans the rest of a whole-file reader's input in one slice per core and adds its records
    /// in order. A slice starts after a line end outside quotes — an even count of quotes
    /// before a byte means it is outside a quoted field. `false` (nothing added) if a slice
    /// finds malformed CSV: the caller then scans from the start of the rest sequentially,
    /// which reports the first problem with its line.
    mutating func addAll(from reader: _RecordReader, minimumSlice: Int) -> Bool {
        let input = reader.buffer, first = reader.position
        // Four slices a core: a core whose slice came slowly takes fewer (one slice a core left
        // one core scanning alone for the last 10–25 ms of a 75 MB file).
        let slices = max(1, min(4 * ProcessInfo.processInfo.activeProcessorCount, (input.count - first) / max(1, minimumSlice)))
        guard slices > 1, borrows else { return false }
        // Each slice's start is found from the one before (a record start too), so the quotes
        // before it are counted once over the whole input, not from the first byte per slice.
        let bounds = input.withUnsafeBufferPointer { bytes in
            var bounds = [first]
            for slice in 1..<slices {
                let target = max(bounds[slice - 1], first + (bytes.count - first) * slice / slices)
                bounds.append(_CSVRecordScanner.recordStart(near: target, from: bounds[slice - 1], in: bytes))
            }
            return bounds + [bytes.count]
        }
        var parts = [_Run?](repeating: nil, count: slices)
        let scanner = reader.scanner, empty = self
        parts.withUnsafeMutableBufferPointer { parts in
            nonisolated(unsafe) let parts = parts
            // Each slice writes only its own part.
            _concurrentPerform(
                iterations: slices,
                _UncheckedBox { slice in
                    var part = empty, scanner = scanner, position = bounds[slice]
                    let found: ()? = input.withUnsafeBufferPointer { bytes in
                        let bytes = UnsafeBufferPointer(rebasing: bytes[..<bounds[slice + 1]])
                        part.reserve(forBytes: bytes.count - position, sampleFrom: position, in: bytes, scanner: scanner)
                        while let (range, _) = try? scanner.scan(bytes, at: &position, final: true) {
                            part.starts.append(range.lowerBound)
                            part.ends.append(range.upperBound)
                            for (field, span) in scanner.spans.enumerated() {
                                _CSVRecordScanner.appendValue(span, in: bytes, to: &part.values[field].bytes)
                                part.values[field].close()
                            }
                        }
                        return position == bytes.count ? () : nil
                    }
                    if found != nil { parts[slice] = part }
                })
        }
        guard parts.allSatisfy({ $0 != nil }) else { return false }
        let all = parts.map { $0! }
        // One copy of each part, the parts copied into their places on every core: the copy
        // faults in fresh pages that the kernel zeroes, which on one core was a serial step.
        starts = _concatenated([starts] + all.map(\.starts))
        ends = _concatenated([ends] + all.map(\.ends))
        for field in values.indices { values[field] = .joined([values[field]] + all.map { $0.values[field] }) }
        return true
    }

    /// Reserves room for the records of `count` input bytes, estimated from the first records
    /// after `position`: arrays grown by appending are copied at every doubling and their new
    /// pages faulted and zeroed each time, which was a tenth of sorting a 687 MB file. An
    /// estimate a little high costs address space only: untouched pages are never faulted.
    private mutating func reserve(forBytes count: Int, sampleFrom position: Int, in bytes: UnsafeBufferPointer<UInt8>, scanner: _CSVRecordScanner) {
        var scanner = scanner, at = position, records = 0
        var fieldBytes = [Int](repeating: 0, count: values.count)
        while records < 1_000, let (_, _) = try? scanner.scan(bytes, at: &at, final: true) {
            records += 1
            // A quoted field's span is a little longer than its value: fine for an estimate.
            for (field, span) in scanner.spans.enumerated() { fieldBytes[field] += span.range.count }
        }
        guard records > 0, at > position else { return }
        // 10% over the sample's rate.
        let expected = count / Swift.max(1, (at - position) / records) * 11 / 10 + 16
        starts.reserveCapacity(expected)
        ends.reserveCapacity(expected)
        for field in values.indices {
            values[field].bytes.reserveCapacity(expected * (fieldBytes[field] + records - 1) / records + 16)
            values[field].ends.reserveCapacity(expected)
        }
    }

    /// Sorts by key; equal keys keep input order (stable). `primariesFirst` lets a locale
    /// collation's text be sorted by its primaries, ties by the whole keys (``_RunKeys``); the
    /// run's keys are then not whole (no spill or `unique` after it).
    mutating func sort(primariesFirst: Bool = false) {
        let keys = _RunKeys(key: sortKey, values: values, primariesFirst: primariesFirst)
        order = keys.order()
        self.keys = keys
    }

    /// Writes the sorted records to `output` (with `unique`, not those whose sort key equals
    /// the previous record's; at most its limit). The records are gathered into pieces of the
    /// output on every core at a time — moving records into a random order is most of a
    /// sort's memory traffic — and the pieces written in order.
    func write(to output: inout _Output) {
        guard let keys else { return }
        var chosen = order
        if output.unique {
            let sortKeys = keys.sortKeys
            chosen = order.indices.compactMap { position in
                position == 0 || !sortKeys[order[position - 1]].elementsEqual(sortKeys[order[position]])
                    ? order[position] : nil
            }
        }
        let written = chosen.prefix(max(0, output.limit - output.written))
        let terminator = output.terminator
        let pieceSize = 32_768, cores = ProcessInfo.processInfo.activeProcessorCount
        let pieceCount = (written.count + pieceSize - 1) / pieceSize
        let (starts, ends, records) = (starts, ends, records)
        @Sendable func pieceRecords(_ piece: Int) -> ArraySlice<Int> {
            written[(piece * pieceSize)..<min(written.count, (piece + 1) * pieceSize)]
        }
        @Sendable func gather(_ piece: Int, into bytes: inout [UInt8]) {
            let chosen = pieceRecords(piece)
            let size = chosen.reduce(0) { $0 + ends[$1] - starts[$1] } + chosen.count * terminator.count
            let base = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: size))
            bytes.withUnsafeMutableBytes { target in
                records.withUnsafeBytes { records in
                    starts.withUnsafeBufferPointer { starts in
                        ends.withUnsafeBufferPointer { ends in
                            terminator.withUnsafeBytes { terminator in
                                var cursor = base
                                for index in chosen {
                                    let count = ends[index] - starts[index]
                                    target.baseAddress!.advanced(by: cursor).copyMemory(from: records.baseAddress! + starts[index], byteCount: count)
                                    cursor += count
                                    target.baseAddress!.advanced(by: cursor).copyMemory(from: terminator.baseAddress!, byteCount: terminator.count)
                                    cursor += terminator.count
                                }
                            }
                        }
                    }
                }
            }
        }
        if let base = output.writer.positionForDirectWrites() {
            // Into a file: the pieces' sizes, then their places, worked out on every core (a
            // serial 17 ms of a 1M-row sort's write: each record's length is a cache miss).
            let sizes = _ResultSlots<Int>(count: pieceCount)
            _concurrentPerform(
                iterations: pieceCount,
                _UncheckedBox { piece in
                    sizes.set(piece, pieceRecords(piece).reduce(0) { $0 + ends[$1] - starts[$1] + terminator.count })
                })
            var offsets = [base]
            for size in sizes.values { offsets.append(offsets[offsets.count - 1] + size) }
            let places = offsets
            let writer = output.writer
            writer.allocate(upTo: places[pieceCount])
            // Each core gathers every `cores`-th piece and writes it at its place. A file takes
            // one write at a time (ext4 holds the inode's lock while it copies): a core that
            // finds another writing gathers its next piece instead of waiting, and writes the
            // pieces it holds when the file is free (waiting, two cores spent an eighth of the
            // write phase spinning on that lock).
            let writing = NSLock()
            _concurrentPerform(
                iterations: min(cores, pieceCount),
                _UncheckedBox { worker in
                    var held: [(piece: Int, bytes: [UInt8])] = [], spare: [[UInt8]] = []
                    func writeHeld() {
                        for (piece, bytes) in held {
                            writer.write(bytes, at: places[piece])
                            spare.append(bytes)
                        }
                        held.removeAll(keepingCapacity: true)
                    }
                    for piece in stride(from: worker, to: pieceCount, by: cores) {
                        var bytes = spare.popLast() ?? []
                        bytes.removeAll(keepingCapacity: true)
                        gather(piece, into: &bytes)
                        held.append((piece, bytes))
                        // At most two pieces wait (a slow write must not hold half the output).
                        if writing.try() {
                            writeHeld()
                            writing.unlock()
                        } else if held.count >= 2 {
                            writing.withLock { writeHeld() }
                        }
                    }
                    writing.withLock { writeHeld() }
                })
            writer.endDirectWrites(at: places[pieceCount])
        } else {
            // Into a pipe: pieces gathered on every core at a time, written in order.
            for batch in stride(from: 0, to: pieceCount, by: cores) {
                var pieces = [[UInt8]](repeating: [], count: min(cores, pieceCount - batch))
                pieces.withUnsafeMutableBufferPointer { pieces in
                    nonisolated(unsafe) let pieces = pieces
                    // Each iteration fills its own piece.
                    _concurrentPerform(iterations: pieces.count, _UncheckedBox { gather(batch + $0, into: &pieces[$0]) })
                }
                for piece in pieces { output.writer.write(piece) }
            }
        }
        output.written += written.count
    }

    /// Keeps only the first `limit` records in order (for `top`), as a new run in that order;
    /// with `unique`, the first record of each of the first `limit` groups of equal keys (kept
    /// records come before later input, so a later cut keeps them first in their groups).
    mutating func sortAndKeep(_ limit: Int, unique: Bool = false) {
        sort()
        var kept = _Run(key: sortKey)
        var chosen: [Int] = []
        if unique, let keys {
            let sortKeys = keys.sortKeys
            for position in order.indices where chosen.count < limit {
                if position == 0 || !sortKeys[order[position - 1]].elementsEqual(sortKeys[order[position]]) {
                    chosen.append(order[position])
                }
            }
        } else {
            chosen = Array(order.prefix(limit))
        }
        for index in chosen {
            kept.starts.append(kept.records.count)
            kept.records.append(contentsOf: record(index))
            kept.ends.append(kept.records.count)
            for field in values.indices {
                kept.values[field].bytes.append(contentsOf: values[field].bytes[values[field].range(index)])
                kept.values[field].close()
            }
        }
        self = kept
    }

    /// Writes the sorted run to `url`: per record, key length, record length (UInt32, little
    /// endian), key (the values' encodings, which compare across runs), record.
    mutating func spill(to url: URL) throws -> URL {
        sort()
        let writer = try _BufferedWriter(url)
        var key: [UInt8] = []
        for index in order {
            key.removeAll(keepingCapacity: true)
            keys!.fullKey(index, to: &key)
            _writeRunEntry(key: key, record: record(index), to: writer)
        }
        try writer.close()
        return url
    }
}
