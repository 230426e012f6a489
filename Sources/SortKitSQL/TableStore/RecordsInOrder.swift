import Foundation
import SortKit
import Synchronization

/// A download of every row of a table served from the database, in an order one key's index
/// keeps, read in row order and put in order in memory (``_SQLTableStore/streamInRowOrder(ids:table:columns:csv:batchRows:_:)``).
///
/// Walking a key's index, SQLite looks each row up at its own place in the table (by title at
/// 1M rows: 2.0–2.2 s, against DuckDB's `COPY … TO` of 0.69–0.81 s); PostgreSQL's rows cost
/// PostgresNIO 2.5 µs each to decode, read one by one (see `PostgresRowOrder.swift`). Instead the ids are read in the view's order off the index alone, the table is read in its
/// own order — in parts, ranges of ids each read on a core of its own — with each row's CSV
/// record written into its part's buffer and its place noted, and the records are handed on
/// in the view's order. They are the bytes the index walk writes (`CSVExport.appendCell`).
/// Up to ``maximumRows`` rows and ``maximumBytes`` of records they are held in memory until
/// sent; past either, each part writes them to a temporary file of its own, and they are read
/// back and handed on a window of the view at a time (``Limits``, ``_Spill``; a read that
/// passes the bytes is done again that way). Ids sparser than four per row are walked; the
/// store's stream slots bound how many downloads run at once.
///
///     var records = _RecordsInOrder(order: [3, 1, 2])!                // ids in the view's order
///     var part = _RecordsInOrder.Part()                                // read in row order
///     _ = records.record(of: 1, into: &part) { $0 += Array("one".utf8) }
///     _ = records.record(of: 2, into: &part) { $0 += Array("two".utf8) }
///     _ = records.record(of: 3, into: &part) { $0 += Array("three".utf8) }
///     _ = records.add(part)                                            // handed on: three, one, two
struct _RecordsInOrder: Sendable {
    /// The most rows of a download put in order in memory; past them, through files
    /// (``Limits``).
    static let maximumRows = 2_000_000
    /// The most bytes of records a download put in order in memory holds.
    static let maximumBytes = 256 << 20

    /// Where a download's records are held: in memory up to ``inMemoryRows`` rows, past them
    /// written to temporary files (``_SpillFile``) window by window of the view and read back
    /// one window at a time, at most ``holdBytes`` of it held at once.
    ///
    /// At 10M rows (729 MB of CSV), walking the title's index looked each row up in turn:
    /// 24.0 s on SQLite against DuckDB's `COPY … TO` of 7.4–9.1 s. Written to files, the table
    /// is read in its own order as below 2M rows: 6.6–7.8 s.
    struct Limits: Sendable {
        /// Up to this many rows, the records are held in memory.
        var inMemoryRows = _RecordsInOrder.maximumRows
        /// The most bytes of records held in memory; a read past them is done again through
        /// files (see ``spilling``).
        var inMemoryBytes = _RecordsInOrder.maximumBytes
        /// The most rows put in order at all: the view's ids and places take 12–24 bytes a row
        /// (1.2 GB at 50M rows); a bigger view is walked.
        var maximumRows = 50_000_000
        /// The rows of the view in a window of the files: a window of rows up to 128 bytes
        /// fits in ``holdBytes`` and is read twice.
        var windowRows = 1 << 19
        /// The most bytes of a window's records held at once (a record longer is held alone).
        var holdBytes = 64 << 20
        /// A part writes a window's records to its file once they pass this many bytes.
        var flushBytes = 256 << 10
        /// Where the files are made: the temporary folder (`TMPDIR`), or, for SQLite, its
        /// database's folder (a disk chosen for big data, where `/tmp` may be memory).
        var folder = FileManager.default.temporaryDirectory

        static let standard = Limits()

        /// These limits with every view's records written to files.
        var spilling: Limits {
            var limits = self
            limits.inMemoryRows = 0
            return limits
        }

        /// `read` with these limits, and once more with ``spilling`` where the records it held in
        /// memory passed their bytes (`overflowed`): a download of wide rows.
        func readSpillingPastMemory(
            _ read: (Limits) async throws -> (records: _RecordsInOrder?, parts: Int, overflowed: Bool)
        ) async throws -> (records: _RecordsInOrder?, parts: Int) {
            let first = try await read(self)
            guard first.records == nil, first.overflowed else { return (first.records, first.parts) }
            let again = try await read(spilling)
            return (again.records, again.parts)
        }

        /// These limits with every view's records held in memory (up to ``inMemoryBytes``).
        var holdingInMemory: Limits {
            var limits = self
            limits.inMemoryRows = .max
            return limits
        }
    }

    let limits: Limits
    private let low: Int64
    /// Each id's place in the view (from `low`), -1 for an id not in it.
    private var place: [Int32]
    /// The rows of the view.
    private let count: Int
    /// The records as read, part by part.
    private var parts: [Part] = []
    /// Per place in the view: the part that holds its record (-1 for a row not read), and the
    /// record's start and length there (empty when spilled).
    private var part: [Int8]
    private var starts: [Int]
    private var lengths: [Int]
    /// Past ``Limits/inMemoryRows``: where each window's records were written.
    private var spill: _Spill?

    /// Records of rows read in row order into a buffer of their own (a range of ids read on
    /// one core), each with its place in the view; or, when spilled, into a file of their own.
    struct Part: Sendable {
        fileprivate var bytes: [UInt8] = []
        fileprivate var records: [(place: Int32, start: Int)] = []
        /// The most bytes of records this part holds: its share of ``Limits/inMemoryBytes``.
        fileprivate let limit: Int
        fileprivate var spill: _PartSpill?

        /// A part of `parts`, holding its share of `bytes` in memory.
        init(of parts: Int = 1, bytes: Int = _RecordsInOrder.maximumBytes) {
            limit = bytes / max(1, parts)
        }

        /// Room for `records` records of about `bytes` bytes in all (within the part's share):
        /// grown as written instead, a part's copies and fresh pages cost a download a fifth
        /// of its CPU.
        mutating func reserve(records: Int, bytes: Int) {
            guard spill == nil else { return }
            self.records.reserveCapacity(records)
            self.bytes.reserveCapacity(min(bytes, limit + 1))
        }
    }

    /// The places of the ids of a view, in its order; `nil` for too many, or ids sparser than
    /// four per row (a place per id would outnumber the rows).
    init?(order: [Int64], limits: Limits = .standard) {
        guard order.count <= limits.maximumRows else { return nil }
        let low = order.min() ?? 0, high = order.max() ?? -1
        let span = high >= low ? Int(high - low) + 1 : 0
        guard span <= 4 * order.count + 1_024 else { return nil }
        self.limits = limits
        self.low = low
        count = order.count
        place = [Int32](repeating: -1, count: span)
        for (position, id) in order.enumerated() { place[Int(id - low)] = Int32(position) }
        if order.count > limits.inMemoryRows {
            (part, starts, lengths) = ([], [], [])
            spill = _Spill(windows: (order.count + limits.windowRows - 1) / max(1, limits.windowRows))
        } else {
            part = [Int8](repeating: -1, count: order.count)
            starts = [Int](repeating: 0, count: order.count)
            lengths = [Int](repeating: 0, count: order.count)
        }
    }

    /// How long a download's read in row order may take: `limit` (the store's stream limit)
    /// per 10M rows. A bigger table takes longer to read (10M rows: 6.6–10.8 s here); cut
    /// off, the read would be thrown away and the download walked.
    static func readLimit(_ limit: Duration, rows: Int) -> Duration {
        limit * max(1, (rows + 9_999_999) / 10_000_000)
    }

    /// Whether the records go to temporary files (the view has more than
    /// ``Limits/inMemoryRows`` rows).
    var spills: Bool { spill != nil }

    /// A part to read `1 / parts` of the records into; `nil` if a spilled part's file can't
    /// be made.
    func makePart(of parts: Int) -> Part? {
        var part = Part(of: parts, bytes: limits.inMemoryBytes)
        if let spill {
            guard let file = _SpillFile(in: limits.folder) else { return nil }
            part.spill = _PartSpill(file: file, limits: limits, windows: spill.chunks.count)
        }
        return part
    }

    /// The smallest and largest id of the view (a range to read the table in).
    var ids: ClosedRange<Int64>? { place.isEmpty ? nil : low...(low + Int64(place.count - 1)) }

    /// ``ids`` in `count` ranges of about as many ids, in order (fewer for fewer ids, and at
    /// most 127: see ``add(_:)``).
    func ids(in count: Int) -> [ClosedRange<Int64>] {
        guard let ids else { return [] }
        let span = Int64(place.count), count = Int64(max(1, min(count, place.count, Int(Int8.max))))
        return (0..<count).map { ids.lowerBound + span * $0 / count...ids.lowerBound + span * ($0 + 1) / count - 1 }
    }

    /// Writes the record of row `id` into `part` (its cells, by `write`; the line break is
    /// added) if the view holds it; `false` once the part passes its share of
    /// ``Limits/inMemoryBytes``, or a spilled part can't write its file.
    func record(of id: Int64, into part: inout Part, _ write: (inout [UInt8]) -> Void) -> Bool {
        guard id >= low, id - low < Int64(place.count) else { return true }
        let position = place[Int(id - low)]
        guard position >= 0 else { return true }
        if part.spill != nil { return part.spill!.add(position, write) }
        let start = part.bytes.count
        write(&part.bytes)
        part.bytes.append(0x0A)
        part.records.append((position, start))
        return part.bytes.count <= part.limit
    }

    /// Takes in a part's records (parts of disjoint ids, at most 127); `false` once the
    /// records of every part taken in pass ``Limits/inMemoryBytes``, or a spilled part can't
    /// write its file.
    mutating func add(_ part: Part) -> Bool {
        if var written = part.spill {
            guard written.flush(), spill != nil else { return false }
            for chunk in written.chunks { spill!.chunks[chunk.window].append((written.file, chunk.offset, chunk.length)) }
            return true
        }
        precondition(parts.count < Int(Int8.max), "at most 127 parts")
        let index = Int8(parts.count)
        for (number, record) in part.records.enumerated() {
            let end = number + 1 < part.records.count ? part.records[number + 1].start : part.bytes.count
            let position = Int(record.place)
            (self.part[position], starts[position], lengths[position]) = (index, record.start, end - record.start)
        }
        parts.append(part)
        return parts.reduce(0) { $0 + $1.bytes.count } <= limits.inMemoryBytes
    }

    /// Hands the records on in the view's order, `batchRows` a batch, once fewer than two are
    /// ahead of the client (a row not read has none).
    func handOn(batchRows: Int, into sink: AsyncThrowingStream<_StreamBatch, any Error>.Continuation, ahead: _StreamBatch.Ahead) async throws {
        if let spill { return try await spill.handOn(count: count, limits: limits, batchRows: batchRows, into: sink, ahead: ahead) }
        var position = 0
        while position < part.count {
            // The batch's rows and bytes first: its buffer is allocated once, at its size
            // (grown as appended, the copies and fresh pages were an eighth of a download's CPU).
            var end = position, rows = 0, bytes = 0
            while end < part.count, rows < batchRows {
                if part[end] >= 0 { (rows, bytes) = (rows + 1, bytes + lengths[end]) }
                end += 1
            }
            guard rows > 0 else { break }
            var batch = _StreamBatch()
            batch.csv = []
            batch.csv!.reserveCapacity(bytes)
            for position in position..<end where part[position] >= 0 {
                let start = starts[position]
                batch.csv!.append(contentsOf: parts[Int(part[position])].bytes[start..<start + lengths[position]])
            }
            batch.count = rows
            position = end
            try await batch.send(into: sink, ahead: ahead)
        }
    }
}

extension _StreamBatch {
    /// Sends the batch on once fewer than two are ahead of the client.
    func send(into sink: AsyncThrowingStream<_StreamBatch, any Error>.Continuation, ahead: _StreamBatch.Ahead) async throws {
        while ahead.count.load(ordering: .acquiring) >= 2 {
            guard !ahead.gone.load(ordering: .acquiring) else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(2))
        }
        ahead.count.add(1, ordering: .releasing)
        guard case .enqueued = sink.yield(self) else { throw CancellationError() }
    }
}

/// The rows of a view read in row order (``_RecordsInOrder``): a query that selects their ids
/// in the view's order, or the ids in order (of an order SortKit computed).
enum _ViewIDs: Sendable {
    case query((sql: String, arguments: [SQLValue]))
    case known([Int64])
}

/// What a read of a view's records (``_RecordsInOrder``), or of a part of them, found.
enum _RecordsRead<Found: Sendable>: Sendable {
    case read(Found)
    /// Past ``_RecordsInOrder``'s bounds: the view is walked instead.
    case tooBig
    /// The reader's snapshot doesn't have the table's versions.
    case changed
}

extension _StreamSlots {
    /// Streams the records `read` reads (``_RecordsInOrder``) in the view's order,
    /// `batchRows` a batch, in one of the slots: `nil` (having handed on nothing) when the
    /// slots are all taken, `read` finds nothing to put in order (`nil`: past the bounds), it
    /// takes longer than `limit`, or it fails (a statement past the query budget, a replica
    /// gone: the view is then read the usual way, which reports an error of its own).
    ///
    ///     let end = try await streams.streamRecords(body, batchRows: 1_000, within: .seconds(30)) { try await read() }
    func streamRecords(
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void, batchRows: Int, within limit: Duration,
        read: @escaping @Sendable () async throws -> _RecordsInOrder?
    ) async throws -> _StreamEnd? {
        let end = try await stream(body) { sink, ahead in
            let found: _RecordsInOrder??
            do {
                found = try await _withDeadline(limit, read)
            } catch let error where !(error is CancellationError) && !Task.isCancelled {
                found = nil
            }
            guard let records = found ?? nil else { return .notStreamed }
            try await records.handOn(batchRows: batchRows, into: sink, ahead: ahead)
            return .finished
        }
        return end == .notStreamed ? nil : end
    }
}
