import Foundation

/// Reads a CSV file block by block and hands out its records (valid until the next call).
struct _RecordReader {
    let handle: FileHandle
    let blockSize: Int
    let size: Int64
    var scanner: _CSVRecordScanner
    private(set) var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// Input bytes consumed so far.
    private(set) var offset: Int64 = 0
    private(set) var hasBOM = false
    /// The header record's bytes, as written.
    private(set) var headerBytes: [UInt8]?

    init(_ url: URL, delimiter: UInt8, blockSize: Int) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CSVFileSorter.Failure("cannot read '\(url.path)'")
        }
        self.handle = handle
        self.blockSize = blockSize
        size = Int64((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0)
        scanner = _CSVRecordScanner(delimiter: delimiter, wanted: [])
    }

    /// Reads the header (or, without one, names the columns 1, 2, … from the first record).
    mutating func header(hasHeader: Bool) throws -> [String] {
        try fill()
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            hasBOM = true
            position = 3
        }
        if hasHeader {
            scanner.wanted = nil
            guard let record = try next() else { return [] }
            headerBytes = Array(buffer[record.bytes])
            return record.fields
        }
        var peek = self
        guard try peek.next() != nil, let count = peek.scanner.fieldCount else { return [] }
        scanner.terminator = peek.scanner.terminator
        return (1...count).map(String.init)
    }

    /// The next record; its `bytes` index ``buffer``.
    mutating func next() throws -> _CSVRecordScanner.Record? {
        while true {
            let final = atEnd
            let record = try buffer.withUnsafeBufferPointer { bytes in
                try scanner.next(bytes, at: &position, final: final)
            }
            if let record { return record }
            if atEnd { return nil }
            try fill()
        }
    }

    /// Drops consumed bytes and reads the next block.
    private mutating func fill() throws {
        if position > 0 {
            offset += Int64(position)
            buffer.removeSubrange(0..<position)
            position = 0
        }
        let data = try handle.read(upToCount: blockSize) ?? Data()
        if data.isEmpty { atEnd = true } else { buffer.append(contentsOf: data) }
    }
}

/// Records and their keys in two arenas, sorted by key (ties in input order). Keys are
/// encoded in batches on every core.
struct _Run {
    let sortKey: _CSVSortKey
    private var records: [UInt8] = []
    private var recordEnds: [Int] = []
    private var keys: [UInt8] = []
    private var keyEnds: [Int] = []
    /// Fields of records whose keys aren't encoded yet.
    private var pending: [[String]] = []
    /// One key cache per encoding stripe.
    private var caches: [_CSVSortKey.Cache]
    /// Record positions in sorted order, after ``sort()``.
    private(set) var order: [Int] = []

    init(key: _CSVSortKey) {
        sortKey = key
        caches = Array(repeating: key.emptyCache, count: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Empties the run for the next one, keeping its key caches and capacity.
    mutating func clear() {
        records.removeAll(keepingCapacity: true)
        recordEnds.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        keyEnds.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        order = []
    }

    var count: Int { recordEnds.count }
    var memory: Int { records.count + keys.count + count * 24 + pending.count * 64 }

    mutating func add(_ record: _CSVRecordScanner.Record, from reader: _RecordReader) {
        records.append(contentsOf: reader.buffer[record.bytes])
        recordEnds.append(records.count)
        pending.append(record.fields)
        if pending.count >= 8_192 { encodePending() }
    }

    /// Encodes the pending records' keys, in parallel stripes, appended in input order.
    private mutating func encodePending() {
        guard !pending.isEmpty else { return }
        let fields = pending
        pending.removeAll(keepingCapacity: true)
        var encoded = [[UInt8]](repeating: [], count: fields.count)
        let stripes = max(1, min(caches.count, fields.count / 512))
        let key = sortKey
        encoded.withUnsafeMutableBufferPointer { buffer in
            caches.withUnsafeMutableBufferPointer { caches in
                // Each stripe writes its own range of the output and its own cache.
                nonisolated(unsafe) let output = buffer
                nonisolated(unsafe) let caches = caches
                DispatchQueue.concurrentPerform(iterations: stripes) { stripe in
                    for index in (fields.count * stripe / stripes)..<(fields.count * (stripe + 1) / stripes) {
                        var bytes: [UInt8] = []
                        key.append(fields[index], to: &bytes, cache: &caches[stripe])
                        output[index] = bytes
                    }
                }
            }
        }
        for bytes in encoded {
            keys.append(contentsOf: bytes)
            keyEnds.append(keys.count)
        }
    }

    func key(_ index: Int) -> ArraySlice<UInt8> { keys[(index == 0 ? 0 : keyEnds[index - 1])..<keyEnds[index]] }
    func record(_ index: Int) -> ArraySlice<UInt8> { records[(index == 0 ? 0 : recordEnds[index - 1])..<recordEnds[index]] }

    /// Sorts by key with `memcmp`; equal keys keep input order (stable).
    mutating func sort() {
        encodePending()
        var order = Array(0..<count)
        let ends = keyEnds
        keys.withUnsafeBufferPointer { bytes in
            order.sort { a, b in
                let aStart = a == 0 ? 0 : ends[a - 1], bStart = b == 0 ? 0 : ends[b - 1]
                let aCount = ends[a] - aStart, bCount = ends[b] - bStart
                let common = memcmp(bytes.baseAddress! + aStart, bytes.baseAddress! + bStart, min(aCount, bCount))
                if common != 0 { return common < 0 }
                return aCount != bCount ? aCount < bCount : a < b
            }
        }
        self.order = order
    }

    /// Keeps only the first `limit` records in order (for `top`), as a new run in that order.
    mutating func sortAndKeep(_ limit: Int) {
        sort()
        var kept = _Run(key: sortKey)
        for index in order.prefix(limit) {
            kept.records.append(contentsOf: record(index))
            kept.recordEnds.append(kept.records.count)
            kept.keys.append(contentsOf: key(index))
            kept.keyEnds.append(kept.keys.count)
        }
        self = kept
    }

    /// Writes the sorted run to `url`: per record, key length, record length (UInt32, little
    /// endian), key, record.
    mutating func spill(to url: URL) throws -> URL {
        sort()
        let writer = try _BufferedWriter(url)
        for index in order {
            let keyBytes = self.key(index), recordBytes = self.record(index)
            withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { writer.write($0) }
            withUnsafeBytes(of: UInt32(recordBytes.count).littleEndian) { writer.write($0) }
            writer.write(keyBytes)
            writer.write(recordBytes)
        }
        try writer.close()
        return url
    }
}

/// Reads a spilled run back, one entry at a time.
private struct _RunReader {
    let handle: FileHandle
    var buffer: [UInt8] = []
    var position = 0
    var key: ArraySlice<UInt8> = []
    var record: ArraySlice<UInt8> = []

    init(_ url: URL) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw CSVFileSorter.Failure("cannot read the run '\(url.path)'") }
        self.handle = handle
    }

    /// Loads the next entry; `false` at the end.
    mutating func next() throws -> Bool {
        guard try ensure(8) else { return false }
        let keyCount = Int(UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) }))
        let recordCount = Int(UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self) }))
        guard try ensure(8 + keyCount + recordCount) else { throw CSVFileSorter.Failure("a spilled run is truncated") }
        key = buffer[(position + 8)..<(position + 8 + keyCount)]
        record = buffer[(position + 8 + keyCount)..<(position + 8 + keyCount + recordCount)]
        position += 8 + keyCount + recordCount
        return true
    }

    /// Makes `count` bytes available from `position`; `false` at a clean end of file.
    private mutating func ensure(_ count: Int) throws -> Bool {
        while buffer.count - position < count {
            if position > 0 {
                buffer.removeSubrange(0..<position)
                key = []
                record = []
                position = 0
            }
            let data = try handle.read(upToCount: max(1 << 20, count)) ?? Data()
            if data.isEmpty { return false }
            buffer.append(contentsOf: data)
        }
        return true
    }
}

/// Merges sorted runs (k-way, a binary heap of run positions); equal keys come from the
/// earlier run first, which keeps the sort stable. `body` returns `false` to stop.
func _merge(_ runs: [URL], _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Bool) throws {
    var readers: [_RunReader] = []
    for run in runs {
        var reader = try _RunReader(run)
        if try reader.next() { readers.append(reader) }
    }
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let order = _compare(readers[a].key, readers[b].key)
        return order != 0 ? order < 0 : a < b
    }
    var heap = Array(readers.indices)
    func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
    for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    while let top = heap.first {
        guard body(readers[top].key, readers[top].record) else { return }
        if try readers[top].next() {
            siftDown(0)
        } else {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            if !heap.isEmpty { siftDown(0) }
        }
    }
}

/// memcmp order of two byte strings, shorter first on a common prefix.
func _compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
    a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            let common = memcmp(a.baseAddress!, b.baseAddress!, min(a.count, b.count))
            return common != 0 ? Int(common) : a.count - b.count
        }
    }
}

/// Buffered writes to a file handle (1 MB at a time).
final class _BufferedWriter {
    private let handle: FileHandle
    private let closes: Bool
    private var buffer: [UInt8] = []

    /// Creates (or empties) the file at `url` and writes to it.
    init(_ url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: url.path)
        else { throw CSVFileSorter.Failure("cannot write '\(url.path)'") }
        self.handle = handle
        closes = true
        buffer.reserveCapacity(1 << 20)
    }

    init(_ handle: FileHandle) {
        self.handle = handle
        closes = false
        buffer.reserveCapacity(1 << 20)
    }

    func write<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        flush()
        if closes { try handle.close() }
    }
}
