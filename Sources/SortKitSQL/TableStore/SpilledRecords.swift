import Foundation

/// A download's records past memory's bounds (``_RecordsInOrder/Limits``): each part (a range
/// of ids read on one core) writes its records to a file of its own, and each window of
/// ``_RecordsInOrder/Limits/windowRows`` places in the view is read back from every part's
/// file and handed on in order, with at most ``_RecordsInOrder/Limits/holdBytes`` of it held
/// at once.
///
/// A record is written as its place in the view and its length (4 bytes each, little-endian),
/// then its bytes with their line break; a part keeps one buffer per window and writes it out
/// as a chunk once it passes ``_RecordsInOrder/Limits/flushBytes``.
///
/// A window is read once for its records' lengths (each record's start in the window then
/// follows from the places before it), then once for each run of places within the bytes held
/// (one run, unless the window's records pass ``_RecordsInOrder/Limits/holdBytes``), copying
/// each record in the run to its start. The records of a run are then one buffer in the view's
/// order, handed on a batch at a time. A place read twice, or a length that doesn't match,
/// is ``Unreadable``: the download ends with an error rather than wrong bytes.
struct _Spill: Sendable {
    /// Per window, the chunks written to it, in no order.
    var chunks: [[(file: _SpillFile, offset: Int, length: Int)]]

    init(windows: Int) {
        chunks = Array(repeating: [], count: windows)
    }

    /// A spilled window can't be read back (the file was cut short under it).
    struct Unreadable: Error, CustomStringConvertible {
        var description: String { "a download's temporary file could not be read back" }
    }

    /// Hands the records of the view's `count` places on in its order, `batchRows` a batch, in
    /// the windows `limits` set.
    func handOn(
        count: Int, limits: _RecordsInOrder.Limits, batchRows: Int, into sink: AsyncThrowingStream<_StreamBatch, any Error>.Continuation,
        ahead: _StreamBatch.Ahead
    ) async throws {
        var chunk: [UInt8] = []
        for (window, pieces) in chunks.enumerated() {
            let first = window * limits.windowRows, size = min(limits.windowRows, count - first)
            guard size > 0 else { break }
            // Each place's record length (-1: a row not read).
            var lengths = [Int](repeating: -1, count: size)
            try Self.forEachRecord(in: pieces, buffer: &chunk) { place, record in
                guard place >= first, place - first < size, lengths[place - first] < 0 else { throw Unreadable() }
                lengths[place - first] = record.count
            }
            var start = 0
            while start < size {
                // The run of places from `start` whose records fit in the bytes held.
                var end = start, bytes = 0
                while end < size, end == start || bytes + max(0, lengths[end]) <= limits.holdBytes {
                    bytes += max(0, lengths[end])
                    end += 1
                }
                var offsets = [Int](repeating: 0, count: end - start)
                var total = 0
                for place in start..<end {
                    offsets[place - start] = total
                    total += max(0, lengths[place])
                }
                var held = [UInt8](repeating: 0, count: total)
                try held.withUnsafeMutableBufferPointer { held in
                    try Self.forEachRecord(in: pieces, buffer: &chunk) { place, record in
                        let at = place - first
                        guard at >= start, at < end else { return }
                        guard record.count == lengths[at] else { throw Unreadable() }
                        if let bytes = record.baseAddress { (held.baseAddress! + offsets[at - start]).update(from: bytes, count: record.count) }
                    }
                }
                // Batches of `batchRows` rows read, each a run of the held bytes.
                var place = start
                while place < end {
                    var last = place, rows = 0
                    while last < end, rows < batchRows {
                        if lengths[last] >= 0 { rows += 1 }
                        last += 1
                    }
                    guard rows > 0 else { break }
                    let from = offsets[place - start], to = last == end ? total : offsets[last - start]
                    var batch = _StreamBatch()
                    batch.csv = Array(held[from..<to])
                    batch.count = rows
                    try await batch.send(into: sink, ahead: ahead)
                    place = last
                }
                start = end
            }
        }
    }

    /// Calls `body` with each record of `pieces`: its place in the view and its bytes, read into
    /// `buffer` a chunk at a time.
    private static func forEachRecord(
        in pieces: [(file: _SpillFile, offset: Int, length: Int)], buffer: inout [UInt8],
        _ body: (_ place: Int, _ record: UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        for piece in pieces {
            guard piece.file.read(into: &buffer, count: piece.length, at: piece.offset) else { throw Unreadable() }
            try buffer.withUnsafeBytes { chunk in
                var at = 0
                while at + 8 <= chunk.count {
                    let place = Int(UInt32(littleEndian: chunk.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                    let length = Int(UInt32(littleEndian: chunk.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                    guard at + 8 + length <= chunk.count else { throw Unreadable() }
                    try body(place, UnsafeRawBufferPointer(rebasing: chunk[(at + 8)..<(at + 8 + length)]).assumingMemoryBound(to: UInt8.self))
                    at += 8 + length
                }
            }
        }
    }
}

/// A part's records past memory's bounds, written to its file window by window (``_Spill``).
struct _PartSpill: Sendable {
    let file: _SpillFile
    let limits: _RecordsInOrder.Limits
    /// Per window, the records not yet written.
    private var buffers: [[UInt8]]
    /// The chunks written: their window, and where they are in the file.
    private(set) var chunks: [(window: Int, offset: Int, length: Int)] = []
    private var written = 0
    private var failed = false

    init(file: _SpillFile, limits: _RecordsInOrder.Limits, windows: Int) {
        self.file = file
        self.limits = limits
        buffers = Array(repeating: [], count: windows)
    }

    /// Writes the record at `place` in the view (its bytes by `write`, then a line break);
    /// `false` once the file can't be written.
    mutating func add(_ place: Int32, _ write: (inout [UInt8]) -> Void) -> Bool {
        let window = Int(place) / limits.windowRows
        let start = buffers[window].count
        Self.append(UInt32(place), to: &buffers[window])
        Self.append(0, to: &buffers[window])
        write(&buffers[window])
        buffers[window].append(0x0A)
        // A record past 4 GB (cells near SQLite's 1 GB each) can't be written: walked instead.
        guard let length = UInt32(exactly: buffers[window].count - start - 8) else {
            failed = true
            return false
        }
        for byte in 0..<4 { buffers[window][start + 4 + byte] = UInt8(truncatingIfNeeded: length >> (8 * byte)) }
        if buffers[window].count >= limits.flushBytes { flush(window) }
        return !failed
    }

    /// Writes out every window's records; `false` if the file couldn't be written.
    mutating func flush() -> Bool {
        for window in buffers.indices { flush(window) }
        return !failed
    }

    private mutating func flush(_ window: Int) {
        guard !buffers[window].isEmpty, !failed else { return }
        if file.write(buffers[window], at: written) {
            chunks.append((window, written, buffers[window].count))
            written += buffers[window].count
        } else {
            failed = true
        }
        // (A buffer a huge record grew is given back.)
        buffers[window].removeAll(keepingCapacity: buffers[window].capacity <= 2 * limits.flushBytes)
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
