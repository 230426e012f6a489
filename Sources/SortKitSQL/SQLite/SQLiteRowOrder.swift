import Foundation
import GRDB
import GRDBSQLite
import SortKit

extension SQLiteTableStore {
    /// Streams the rows `ids` selects (one column: the ids, in the view's order) from `table`
    /// as CSV records, `batchRows` a batch, read in row order (``_RecordsInOrder``, past 2M
    /// rows through temporary files beside the database) within ``streamLimit``; `nil`
    /// (having handed on nothing) where its ids are too sparse to place or too many
    /// (``_RecordsInOrder/Limits/maximumRows``), or its files can't be written.
    ///
    /// The ids are read on one reader; the table in two halves of their range side by side,
    /// each on a reader of its own (a 1M-row table's read and CSV took 0.76–0.79 s on one
    /// core). Each reader has its own snapshot, so each reads the table's catalog entry in it:
    /// where one doesn't have `table`'s versions (a write came between), the whole read is done
    /// again on one reader, in one snapshot.
    func streamInRowOrder(
        ids select: _ViewIDs, table: _TableInfo, columns: Int, csv export: CSVExport, batchRows: Int,
        _ body: (_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws -> Void
    ) async throws -> _StreamEnd? {
        let database = database
        var limits = _RecordsInOrder.Limits()
        limits.folder = URL(fileURLWithPath: database.path).deletingLastPathComponent()
        let within = _RecordsInOrder.readLimit(streamLimit, rows: table.rowCount)
        return try await streams.streamRecords(body, batchRows: batchRows, within: within) { [limits] in
            try await Self.records(database, select, table, columns: columns, csv: export, parts: 2, limits: limits).records
        }
    }

    /// The records of the rows `select` names, read in row order in `parts` ranges of ids on
    /// readers of their own (`nil` past the bounds), and in how many parts they were read.
    /// Records past the bytes memory holds (wide rows) are read again through files.
    static func records(
        _ database: DatabasePool, _ select: _ViewIDs, _ table: _TableInfo, columns: Int, csv export: CSVExport,
        parts: Int, limits: _RecordsInOrder.Limits = .standard
    ) async throws -> (records: _RecordsInOrder?, parts: Int) {
        try await limits.readSpillingPastMemory { limits in
            try await Self.read(database, select, table, columns: columns, csv: export, parts: parts, limits: limits)
        }
    }

    /// ``records(_:_:_:columns:csv:parts:limits:)``, read once: `overflowed` when records held
    /// in memory passed their bytes.
    private static func read(
        _ database: DatabasePool, _ select: _ViewIDs, _ table: _TableInfo, columns: Int, csv export: CSVExport,
        parts: Int, limits: _RecordsInOrder.Limits
    ) async throws -> (records: _RecordsInOrder?, parts: Int, overflowed: Bool) {
        let current = Self.current(table)
        let ordered = try await database.read { db -> _RecordsRead<_RecordsInOrder> in
            guard parts > 1, try current(db) else { return .changed }
            return try Self.order(db, select, limits).map { .read($0) } ?? .tooBig
        }
        switch ordered {
        case .tooBig: return (nil, 0, false)
        case .changed: break
        case .read(var records):
            let ranges = records.ids(in: parts)
            switch try await Self.parts(database, of: records, ranges, table: table, columns: columns, csv: export) {
            case .tooBig: return (nil, ranges.count, !records.spills)
            case .changed: break
            case .read(let read):
                for part in read { guard records.add(part) else { return (nil, ranges.count, !records.spills) } }
                return (records, ranges.count, false)
            }
        }
        // In one snapshot: the catalog moved on between readers (or one part was asked for).
        let (records, overflowed) = try await database.read { db -> (_RecordsInOrder?, Bool) in
            guard var records = try Self.order(db, select, limits) else { return (nil, false) }
            guard let range = records.ids else { return (records, false) }
            guard let part = try Self.part(db, of: records, range, table: table.physical, columns: columns, csv: export, share: 1),
                records.add(part)
            else { return (nil, !records.spills) }
            return (records, false)
        }
        return (records, 1, overflowed)
    }

    /// Whether a reader's snapshot has `table`'s versions.
    private static func current(_ table: _TableInfo) -> @Sendable (Database) throws -> Bool {
        let query = table.dataVersionQuery
        return { db in
            try Int64.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments.map(\.databaseValue))) == table.dataVersion
        }
    }

    /// The parts of `records` among `ranges`, each read on a reader of its own; the others
    /// stop as soon as one is past its share of the bounds or finds the table changed. (Not in
    /// ``records(_:_:_:columns:csv:parts:)``: the copy of `records` the readers hold ends
    /// here, so the caller's takes the parts in without copying its arrays.)
    private static func parts(
        _ database: DatabasePool, of records: _RecordsInOrder, _ ranges: [ClosedRange<Int64>], table: _TableInfo, columns: Int,
        csv export: CSVExport
    ) async throws -> _RecordsRead<[_RecordsInOrder.Part]> {
        let current = Self.current(table)
        return try await withThrowingTaskGroup(of: (Int, _RecordsRead<_RecordsInOrder.Part>).self) { group in
            for (index, range) in ranges.enumerated() {
                group.addTask {
                    let read = try await database.read { db -> _RecordsRead<_RecordsInOrder.Part> in
                        guard try current(db) else { return .changed }
                        let part = try Self.part(db, of: records, range, table: table.physical, columns: columns, csv: export, share: ranges.count)
                        return part.map { .read($0) } ?? .tooBig
                    }
                    return (index, read)
                }
            }
            var parts = [_RecordsInOrder.Part?](repeating: nil, count: ranges.count)
            for try await (index, read) in group {
                switch read {
                case .read(let part): parts[index] = part
                case .tooBig:
                    group.cancelAll()
                    return .tooBig
                case .changed:
                    group.cancelAll()
                    return .changed
                }
            }
            return .read(parts.compactMap { $0 })
        }
    }

    /// The view's ids in its order, as ``_RecordsInOrder``; `nil` past its bounds.
    private static func order(_ db: Database, _ view: _ViewIDs, _ limits: _RecordsInOrder.Limits) throws -> _RecordsInOrder? {
        guard case .query(let (sql, arguments)) = view else {
            guard case .known(let ids) = view else { return nil }
            return _RecordsInOrder(order: ids, limits: limits)
        }
        var order: [Int64] = []
        let ids = try Int64.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
        while let id = try ids.next() {
            order.append(id)
            if order.count > limits.maximumRows { return nil }
        }
        return _RecordsInOrder(order: order, limits: limits)
    }

    /// The records of the view's rows among `ids`, read in row order, a part of `share`; `nil`
    /// past its share of the bounds.
    private static func part(
        _ db: Database, of records: _RecordsInOrder, _ ids: ClosedRange<Int64>, table: String, columns: Int, csv export: CSVExport,
        share: Int
    ) throws -> _RecordsInOrder.Part? {
        guard var part = records.makePart(of: share) else { return nil }
        let cells = (0..<columns).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(cells) FROM \(table) WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        let rows = try Row.fetchCursor(statement, arguments: [ids.lowerBound, ids.upperBound])
        let handle = statement.sqliteStatement
        while try rows.next() != nil {
            let fits = records.record(of: sqlite3_column_int64(handle, 0), into: &part) { bytes in
                for column in 0..<columns {
                    let text = sqlite3_column_text(handle, Int32(column + 1))
                    let cell = UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(column + 1))))
                    export.appendCell(cell, column: column, count: columns, to: &bytes)
                }
            }
            guard fits else { return nil }
        }
        return part
    }
}
