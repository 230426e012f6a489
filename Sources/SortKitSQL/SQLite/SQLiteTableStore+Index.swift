import Foundation
import GRDB
import GRDBSQLite
import SortKit

extension SQLiteTableStore {
    /// Reads a table into a new index (its cells straight into arenas).
    static func loadIndex(_ info: _TableInfo, _ db: Database, rankingBudget: Int) throws -> _TableIndex {
        let width = info.schema.columns.count
        let columns = (0..<width).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(columns) FROM \(info.rows(dialect)) ORDER BY id")
        let handle = statement.sqliteStatement
        var ids: [Int64] = []
        ids.reserveCapacity(info.rowCount)
        var arenas = [_ByteArena](repeating: _ByteArena(), count: width)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            ids.append(sqlite3_column_int64(handle, 0))
            for column in 0..<width {
                if let text = sqlite3_column_text(handle, Int32(column + 1)) {
                    arenas[column].bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, Int32(column + 1)))))
                }
                arenas[column].close()
            }
        }
        sqlite3_reset(handle)
        return _TableIndex(
            schema: info.schema, schemaVersion: info.schemaVersion, dataVersion: info.dataVersion, ids: _RowIDs(ids), columns: arenas,
            variants: try _TableIndex.defaultVariants(info.schema, rows: ids.count, budget: rankingBudget))
    }

    /// Inserts every record as rows 1…n, binding cells straight from the arenas: per row one
    /// `sqlite3_step`, no `String` for text that is stored as it was read. Where a row's folded
    /// text is filled in from numbered columns, each batch's texts are filled on another core
    /// while the batch before is inserted: filled on this thread, the fill was 0.25 s of a 1M-row
    /// load, the import's longest path.
    /// The thread that fills a SQLite import's next batch of search texts: not Dispatch's
    /// global threads, which on Linux are Swift concurrency's pool (see `_WorkerThreads`), busy
    /// with the index an import builds meanwhile.
    private static let fillThread = _JobThreads(count: 1) { _ in _nameCurrentThread("sortkit-import-fill") }

    static func bulkInsert(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], _ info: _TableInfo, _ db: Database
    ) throws {
        let physical = info.physicalColumns
        let marks = Array(repeating: "?", count: physical.count + 1).joined(separator: ", ")
        let statement = try db.makeStatement(sql: "INSERT INTO \(info.physical) (id, \(physical.joined(separator: ", "))) VALUES (\(marks))")
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let count = cells.baseCount, batch = 16_384
        // 8 MB of page cache while the rows go in, 64 MB again after (the connection's setting):
        // the load only appends, and its dirty pages spill to the write-ahead log, which the OS
        // caches until the commit. With 64 MB they were a 1M-row import's peak (318-324 MiB
        // against 280; served in the same time within noise, four alternating pairs).
        try db.execute(sql: "PRAGMA cache_size = -8192")
        defer { try? db.execute(sql: "PRAGMA cache_size = -\(pageCacheKiB)") }
        // The arenas stay put while statements read them: cells are bound without a copy.
        try info.withImportRows(cells, folded: folded, typed: typed) { rows in
            // Bound without a copy too: a row's filled search text, here or in a batch's texts
            // (a binding into texts let go is rebound before the next step).
            var scratch = _FoldScratch()
            // No binding outlives the arenas and the scratch.
            defer { sqlite3_clear_bindings(handle) }
            func bind(_ value: _ImportRows.Value, _ parameter: Int32) {
                switch value {
                case .folded(let text) where text.isEmpty: sqlite3_bind_text(handle, parameter, "", 0, transient)
                // Not copied: the bytes stay until the row is inserted.
                case .cell(let text), .folded(let text):
                    sqlite3_bind_text(handle, parameter, UnsafeRawPointer(text.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(text.count), nil)
                // As `SQLValue(_:)` stores them: dates as seconds, booleans as 0 or 1.
                // Not copied either: a key arena stays until the load ends. (A zero-length blob
                // with no address would bind null.)
                case .key(let key) where key.isEmpty: sqlite3_bind_zeroblob(handle, parameter, 0)
                case .key(let key): sqlite3_bind_blob(handle, parameter, key.baseAddress!, Int32(key.count), nil)
                case .value(.null): sqlite3_bind_null(handle, parameter)
                case .value(.integer(let integer)): sqlite3_bind_int64(handle, parameter, integer)
                case .value(.double(let double)): sqlite3_bind_double(handle, parameter, double)
                case .value(.text(let string)): sqlite3_bind_text(handle, parameter, string, -1, transient)
                case .value(.blob(let bytes)): sqlite3_bind_blob(handle, parameter, bytes, Int32(bytes.count), transient)
                }
            }
            func insert(_ record: Int, folded text: UnsafeBufferPointer<UInt8>?, scratch: inout _FoldScratch) throws {
                var parameter: Int32 = 1
                sqlite3_bind_int64(handle, parameter, Int64(record + 1))
                if let text {
                    rows.forEachCellValue(of: record) { value in
                        parameter += 1
                        bind(value, parameter)
                    }
                    parameter += 1
                    bind(.folded(text), parameter)
                } else {
                    rows.forEachValue(of: record, scratch: &scratch) { value in
                        parameter += 1
                        bind(value, parameter)
                    }
                }
                let code = sqlite3_step(handle)
                sqlite3_reset(handle)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
            }
            guard rows.fillsFoldedText, count > batch else {
                for record in 0..<count { try insert(record, folded: nil, scratch: &scratch) }
                return
            }
            // The rows' views are only read, by this thread and the filling one.
            let shared = _UncheckedBox(rows)
            var texts = rows.foldedTexts(0..<batch)
            for start in stride(from: 0, to: count, by: batch) {
                let next = _ResultSlots<_ByteArena>(count: 1), filling = DispatchGroup()
                if start + batch < count {
                    filling.enter()
                    Self.fillThread.submit {
                        next.set(0, shared.value.foldedTexts((start + batch)..<min(start + 2 * batch, count)))
                        filling.leave()
                    }
                }
                // The filling thread reads the views: it is done before they go (or an error leaves).
                defer { filling.wait() }
                try texts.bytes.withUnsafeBufferPointer { bytes in
                    for record in start..<min(start + batch, count) {
                        let range = texts.range(record - start)
                        try insert(record, folded: UnsafeBufferPointer(rebasing: bytes[range]), scratch: &scratch)
                    }
                }
                filling.wait()
                if start + batch < count { texts = next.values[0] }
            }
        }
    }
}
