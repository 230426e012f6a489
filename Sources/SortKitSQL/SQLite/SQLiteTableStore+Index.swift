import Foundation
import GRDB
import GRDBSQLite
import SortKit

extension SQLiteTableStore {
    /// Reads a table into a new index (its cells straight into arenas).
    static func loadIndex(_ info: _TableInfo, _ db: Database, rankingBudget: Int) throws -> _TableIndex {
        let width = info.schema.columns.count
        let columns = (0..<width).map { ", c\($0)" }.joined()
        let statement = try db.makeStatement(sql: "SELECT id\(columns) FROM \(info.physical) ORDER BY id")
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

    /// Inserts every record of `columns` as rows 1…n, binding cells straight from the arenas:
    /// per row one `sqlite3_step`, no `String` for text that is stored as it was read.
    static func bulkInsert(
        _ cells: _Cells, folded: _FoldedText, typed: [Int: _TypedValues], _ info: _TableInfo, _ db: Database
    ) throws {
        let physical = info.physicalColumns
        let marks = Array(repeating: "?", count: physical.count + 1).joined(separator: ", ")
        let statement = try db.makeStatement(sql: "INSERT INTO \(info.physical) (id, \(physical.joined(separator: ", "))) VALUES (\(marks))")
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        // The arenas stay put while statements read them: cells are bound without a copy.
        try info.withImportRows(cells, folded: folded, typed: typed) { rows in
            var scratch = _FoldScratch()
            // No binding outlives the arenas and the scratch.
            defer { sqlite3_clear_bindings(handle) }
            for record in 0..<cells.baseCount {
                var parameter: Int32 = 1
                sqlite3_bind_int64(handle, parameter, Int64(record + 1))
                rows.forEachValue(of: record, scratch: &scratch) { value in
                    parameter += 1
                    switch value {
                    case .folded(let text) where text.isEmpty: sqlite3_bind_text(handle, parameter, "", 0, transient)
                    // Not copied: a scratch's bytes stay until the next record is written.
                    case .cell(let text), .folded(let text):
                        sqlite3_bind_text(handle, parameter, UnsafeRawPointer(text.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(text.count), nil)
                    // As `SQLValue(_:)` stores them: dates as seconds, booleans as 0 or 1.
                    case .value(.null): sqlite3_bind_null(handle, parameter)
                    case .value(.integer(let integer)): sqlite3_bind_int64(handle, parameter, integer)
                    case .value(.double(let double)): sqlite3_bind_double(handle, parameter, double)
                    case .value(.text(let string)): sqlite3_bind_text(handle, parameter, string, -1, transient)
                    case .value(.blob(let bytes)): sqlite3_bind_blob(handle, parameter, bytes, Int32(bytes.count), transient)
                    }
                }
                let code = sqlite3_step(handle)
                sqlite3_reset(handle)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
            }
        }
    }
}
