import Foundation
import NIOCore
import PostgresNIO
import SortKit

extension PostgresTableStore {
    /// Streams the rows of `ids` (a query selecting them in the view's order, or the ids of an
    /// order SortKit computed) from `table` as CSV records, `batchRows` a batch, read in row
    /// order (``_RecordsInOrder``, past 2M rows through temporary files) within
    /// ``streamLimit``; `nil` (having handed on nothing) where its ids are too sparse to place
    /// or too many, its files can't be written, or the read fails (the view is then read row
    /// by row).
    ///
    /// PostgresNIO decodes a row in about 2.5 µs (its state machine, a buffer and a cell per
    /// value): 2.2–2.5 s of the server's CPU for a 1M-row download read row by row, beside
    /// PostgreSQL's own sort of the rows (1.1–1.2 s on its workers); a 1M-row download by title
    /// took 2.2–3.1 s against DuckDB's `COPY … TO` of 0.6 s. Here PostgreSQL hands over few,
    /// large values instead (1.2–1.5 s, 0.6–0.8 s of the server's CPU):
    /// - the view's ids as one `int8[]` (`SELECT ARRAY(…)`), read off the key's index alone;
    /// - the table in parts, one per ``rowsPerPart`` rows (at least two, at most one per id),
    ///   ranges of the ids of now (the first and last open-ended) each read in a snapshot of
    ///   its own, two at a time beside the ids: per part and column, the cells run together
    ///   (`string_agg`) and their lengths (an `int4[]`), with the rows' ids, in one row
    ///   (``part(_:_:table:columns:holding:)``).
    ///
    /// Each snapshot of the ids and the parts checks that it has `table`'s versions (the
    /// catalog's data version moves with every write; a replica's snapshot may be behind);
    /// where one doesn't, the ids and the parts are read again in one snapshot. Ids given (an
    /// order SortKit computed) come from a scan's snapshot of their own, which isn't checked:
    /// a row deleted since is left out, one changed since has its new cells in its old place.
    /// A table of more than 2M rows, or whose storage passes four times
    /// ``_RecordsInOrder/maximumBytes`` (each part is built and sent whole before its size can
    /// be checked), writes its records to temporary files, in parts of about
    /// ``spilledPartBytes`` of storage. A download holds up to three connections at once, each
    /// for one transaction (one stream slot per four of the pool's connections; a pool of
    /// fewer than four takes turns).
    func streamInRowOrder(
        ids select: _ViewIDs, table: _TableInfo, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd? {
        return try await streams.streamRecords(body, batchRows: batchRows, within: _RecordsInOrder.readLimit(streamLimit, rows: table.rowCount)) {
            try await self.records(select, table, columns: columns, csv: export).records
        }
    }

    /// The rows in a part: about 8 MB of a table of 60-byte rows.
    static let rowsPerPart = 131_072
    /// The storage in a part of a download whose records go to files: about 32 MB (wide rows
    /// make more parts, up to 127).
    static let spilledPartBytes = 32 << 20

    /// What a snapshot of a download read: the view's ids, or a part of the table.
    private enum _Fetched: Sendable {
        case order(_RecordsRead<_RecordsInOrder>)
        case part(_RecordsRead<_RawPart>)
    }

    /// The records of the rows `select` names, read in row order in parts of `rowsPerPart`
    /// rows (`nil` past the bounds, or for a table without rows), and in how many parts they
    /// were read. The ids and the first parts are read at once, the rest of the parts as parts
    /// are done, two at a time (besides the ids); a part's records are written once the ids
    /// are in. Records past the bytes memory holds are read again through files.
    func records(
        _ select: _ViewIDs, _ table: _TableInfo, columns: Int, csv export: CSVExport,
        rowsPerPart: Int = PostgresTableStore.rowsPerPart, limits: _RecordsInOrder.Limits = .standard
    ) async throws -> (records: _RecordsInOrder?, parts: Int) {
        try await limits.readSpillingPastMemory { limits in
            try await self.read(select, table, columns: columns, csv: export, rowsPerPart: rowsPerPart, limits: limits)
        }
    }

    /// ``records(_:_:columns:csv:rowsPerPart:limits:)``, read once: `overflowed` when records
    /// held in memory passed their bytes.
    private func read(
        _ select: _ViewIDs, _ table: _TableInfo, columns: Int, csv export: CSVExport, rowsPerPart: Int, limits: _RecordsInOrder.Limits
    ) async throws -> (records: _RecordsInOrder?, parts: Int, overflowed: Bool) {
        // No rows (now): read row by row.
        guard let (low, high, bytes) = try await readTransaction({ try await $0.ids(of: table.physical) }) else { return (nil, 0, false) }
        // A table far past what a download holds in memory (its cells, keys and search text:
        // 389 MB for 1M multilingual rows) writes its records to files: PostgreSQL builds and
        // sends a part before its size can be checked. Ids too sparse to place aren't read in
        // parts.
        // The choice is made here, once, for the records and the parts alike (the ids' count
        // may differ from the catalog's).
        let spills = table.rowCount > limits.inMemoryRows || bytes > 4 * Int64(limits.inMemoryBytes)
        let limits = spills ? limits.spilling : limits.holdingInMemory
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < 4 * Int64(max(1, table.rowCount)) + 1_024 else { return (nil, 0, false) }
        // Spilled, parts of about `spilledPartBytes` of storage too (each part is held whole
        // until its records are written).
        let byBytes = spills ? Int(bytes / Int64(Self.spilledPartBytes)) + 1 : 0
        let parts = max(2, min(Int(Int8.max), max(byBytes, (table.rowCount + rowsPerPart - 1) / max(1, rowsPerPart))))
        let count = Int(min(Int64(parts), span + 1))
        // A spilled part bigger than this (wide rows past 127 parts) is read row by row instead.
        let holding = spills ? 4 * Self.spilledPartBytes : limits.inMemoryBytes / count
        // Balanced on the ids of now; the first and the last open-ended, so that a row written
        // since (or seen by a replica that is behind) is in a part.
        let ranges = (0..<Int64(count)).map { part -> ClosedRange<Int64> in
            let lower = part == 0 ? Int64.min : low + (span + 1) * part / Int64(count)
            let upper = part == Int64(count) - 1 ? Int64.max : low + (span + 1) * (part + 1) / Int64(count) - 1
            return lower...upper
        }
        var overflowed = false
        let read = try await withThrowingTaskGroup(of: _Fetched.self) { group -> _RecordsRead<_RecordsInOrder> in
            group.addTask {
                // Ids given (an order SortKit computed) need no snapshot.
                if case .known(let ids) = select { return .order(_RecordsInOrder(order: ids, limits: limits).map { .read($0) } ?? .tooBig) }
                return .order(
                    try await self.inSnapshot { session in
                        guard try await Self.isCurrent(table, session) else { return .changed }
                        return try await Self.order(session, select, limits).map { .read($0) } ?? .tooBig
                    })
            }
            var next = 0
            func start() {
                guard next < ranges.count else { return }
                let range = ranges[next]
                next += 1
                _ = group.addTaskUnlessCancelled {
                    .part(
                        try await self.inSnapshot { session in
                            guard try await Self.isCurrent(table, session) else { return .changed }
                            return try await Self.part(session, range, table: table.physical, columns: columns, holding: holding)
                        })
                }
            }
            start()
            start()
            var records: _RecordsInOrder? = nil
            var waiting: [_RawPart] = []
            // Parts not started while two wait for the ids (each is held whole until then).
            var deferred = 0
            for try await fetched in group {
                try Task.checkCancellation()
                switch fetched {
                case .order(.read(let ordered)):
                    records = ordered
                    for _ in 0..<deferred { start() }
                    deferred = 0
                case .part(.read(let part)):
                    if records == nil && waiting.count >= 1 { deferred += 1 } else { start() }
                    waiting.append(part)
                case .order(.tooBig):
                    group.cancelAll()
                    return .tooBig
                case .part(.tooBig):
                    group.cancelAll()
                    overflowed = !spills
                    return .tooBig
                case .order(.changed), .part(.changed):
                    group.cancelAll()
                    return .changed
                }
                guard records != nil else { continue }
                for part in waiting {
                    guard let written = part.records(of: records!, csv: export, share: ranges.count), records!.add(written) else {
                        group.cancelAll()
                        overflowed = !spills
                        return .tooBig
                    }
                }
                waiting = []
            }
            return records.map { .read($0) } ?? .tooBig
        }
        switch read {
        case .read(let records): return (records, ranges.count, false)
        case .tooBig: return (nil, ranges.count, overflowed)
        case .changed: break
        }
        // In one snapshot, part after part: the catalog moved on between snapshots.
        let (records, tooBig) = try await inSnapshot { session -> (_RecordsInOrder?, Bool) in
            guard var records = try await Self.order(session, select, limits) else { return (nil, false) }
            for range in ranges {
                guard
                    case .read(let part) = try await Self.part(session, range, table: table.physical, columns: columns, holding: holding),
                    let written = part.records(of: records, csv: export, share: ranges.count), records.add(written)
                else { return (nil, !spills) }
            }
            return (records, false)
        }
        return (records, 1, tooBig)
    }

    /// Whether a snapshot has `table`'s versions.
    private static func isCurrent(_ table: _TableInfo, _ session: _PostgresSession) async throws -> Bool {
        let query = table.dataVersionQuery
        return try await session.select(query.sql, query.arguments).first?.first == .integer(table.dataVersion)
    }

    /// The view's ids in its order, as ``_RecordsInOrder``; `nil` past its bounds.
    private static func order(_ session: _PostgresSession, _ view: _ViewIDs, _ limits: _RecordsInOrder.Limits) async throws -> _RecordsInOrder? {
        var ids: [Int64] = []
        switch view {
        case .known(let known): ids = known
        case .query(let (sql, arguments)):
            try await session.forEachRow("SELECT ARRAY(\(sql))", arguments) { row in
                ids = try _PostgresArray.integers(Int64.self, in: row.makeRandomAccess()[0].bytes) ?? []
            }
        }
        return _RecordsInOrder(order: ids, limits: limits)
    }

    /// The rows among `ids`: per column, the cells run together and their lengths, with the
    /// rows' ids. ``_RecordsRead/tooBig`` past `holding` bytes of cells, or where a column's
    /// cells run together pass what PostgreSQL builds in one value (1 GB).
    private static func part(
        _ session: _PostgresSession, _ ids: ClosedRange<Int64>, table: String, columns: Int, holding: Int
    ) async throws -> _RecordsRead<_RawPart> {
        // Aggregates of one query see its rows in one order. A NULL cell is empty, as a
        // download read row by row writes it.
        let cells = (0..<columns).map { ", string_agg(c\($0), ''), array_agg(coalesce(octet_length(c\($0)), 0))" }.joined()
        var row: PostgresRandomAccessRow?
        do {
            row = try await session.rows(
                "SELECT array_agg(id)\(cells) FROM \(table) WHERE id BETWEEN $1 AND $2", [.integer(ids.lowerBound), .integer(ids.upperBound)]
            ).first
        } catch let error as PSQLError where ["54000", "53200"].contains(error.serverInfo?[.sqlState] ?? "") {
            // "Cannot enlarge string buffer", "out of memory": the transaction rolls back.
            return .tooBig
        }
        var part = _RawPart()
        guard let row, let rowIDs = try _PostgresArray.integers(Int64.self, in: row[0].bytes) else { return .read(part) }
        part.ids = rowIDs
        for column in 0..<columns {
            part.texts.append(row[1 + 2 * column].bytes ?? ByteBuffer())
            let lengths = try _PostgresArray.integers(Int32.self, in: row[2 + 2 * column].bytes) ?? []
            // Lengths that don't add up to the cells (another encoding: the connection asks for
            // UTF-8): read row by row.
            guard lengths.count == rowIDs.count, lengths.allSatisfy({ $0 >= 0 }),
                lengths.reduce(0, { $0 + Int($1) }) == part.texts[column].readableBytes
            else { return .tooBig }
            part.lengths.append(lengths)
        }
        return part.texts.reduce(0, { $0 + $1.readableBytes }) <= holding ? .read(part) : .tooBig
    }
}

/// A part of a table as PostgreSQL sends it for a download (``PostgresTableStore/streamInRowOrder(ids:table:columns:csv:batchRows:_:)``):
/// the rows' ids, and per column the cells run together and their lengths.
private struct _RawPart: Sendable {
    var ids: [Int64] = []
    var texts: [ByteBuffer] = []
    var lengths: [[Int32]] = []

    /// The records of the view's rows among these, as a part of `share`; `nil` past its
    /// share of the bounds.
    func records(of records: _RecordsInOrder, csv export: CSVExport, share: Int) -> _RecordsInOrder.Part? {
        guard var part = records.makePart(of: share) else { return nil }
        // The cells, a comma or line break after each, and some quoting.
        let cells = texts.reduce(0) { $0 + $1.readableBytes }
        part.reserve(records: ids.count, bytes: cells + cells / 16 + ids.count * texts.count)
        var offsets = [Int](repeating: 0, count: texts.count)
        let columns = texts.count
        let fits = texts.withUnsafeReadableBuffers { buffers in
            for (number, id) in ids.enumerated() {
                let fits = records.record(of: id, into: &part) { bytes in
                    for column in 0..<columns {
                        let start = offsets[column]
                        export.appendCell(
                            UnsafeBufferPointer(rebasing: buffers[column][start..<start + Int(lengths[column][number])]), column: column, count: columns,
                            to: &bytes)
                    }
                }
                guard fits else { return false }
                for column in 0..<columns { offsets[column] += Int(lengths[column][number]) }
            }
            return true
        }
        return fits ? part : nil
    }
}

extension Array where Element == ByteBuffer {
    /// Calls `body` with the readable bytes of every buffer at once.
    fileprivate func withUnsafeReadableBuffers<Result>(_ body: ([UnsafeBufferPointer<UInt8>]) throws -> Result) rethrows -> Result {
        func nest(_ index: Int, _ collected: [UnsafeBufferPointer<UInt8>]) throws -> Result {
            guard index < count else { return try body(collected) }
            return try self[index].withUnsafeReadableBytes { try nest(index + 1, collected + [$0.assumingMemoryBound(to: UInt8.self)]) }
        }
        return try nest(0, [])
    }
}
