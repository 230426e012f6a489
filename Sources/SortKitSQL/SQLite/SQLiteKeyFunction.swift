import Foundation
import GRDB
import GRDBSQLite
import SortKit

/// `sortkit_key(text, interpretation, collation, type[, transform])`, the key SQLite computes
/// in a query for an order a table doesn't store (see ``KeyVariant/computedExpression(type:)``),
/// registered through SQLite's own API.
///
/// Written by hand rather than as a GRDB `DatabaseFunction`, which turns every argument of
/// every row into a `DatabaseValue` holding a new `String` (the four names too) that the key
/// then parsed again: a scan of 1M rows by `title:len` spent about 0.9 of its 1.1 s there
/// (perf). Here the names are parsed once per statement (SQLite's auxiliary data on the
/// second argument, a constant), and the cell is read as its bytes.
///
///     try _SQLiteKeyFunction.register(db)
///     // SELECT id FROM st_1 ORDER BY sortkit_key("c1", 'text', 'natural', 'string', 'len'), id
enum _SQLiteKeyFunction {
    /// Registers the function on `db`'s connection (deterministic, UTF-8).
    static func register(_ db: Database) throws {
        // Direct calls only: a trigger, view or index in a database file can't run it.
        let code = sqlite3_create_function_v2(
            db.sqliteConnection, "sortkit_key", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nil, call, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "registering sortkit_key") }
    }

    /// The parsed names, held by SQLite as the statement's auxiliary data.
    private final class Names {
        let reader: KeyVariant.ComputedKeyReader
        init(_ reader: KeyVariant.ComputedKeyReader) { self.reader = reader }
    }

    private static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, count, arguments in
        guard let context, let arguments, count == 4 || count == 5 else { return sqlite3_result_null(context) }
        let reader: KeyVariant.ComputedKeyReader
        // SQLite keeps a statement's auxiliary data only on constant arguments: the names are
        // reused while every one of them still has its own.
        if let names = sqlite3_get_auxdata(context, 1), (2..<count).allSatisfy({ sqlite3_get_auxdata(context, $0) != nil }) {
            reader = Unmanaged<Names>.fromOpaque(names).takeUnretainedValue().reader
        } else {
            var names: [String?] = []
            for index in 1..<Int(count) {
                guard let value = arguments[index], sqlite3_value_type(value) != SQLITE_NULL else { return sqlite3_result_null(context) }
                guard let name = text(value) else { return sqlite3_result_error_nomem(context) }
                names.append(name)
            }
            guard let parsed = KeyVariant.ComputedKeyReader(names: names) else { return sqlite3_result_null(context) }
            reader = parsed
            // SQLite may release it at once (then the next row parses again).
            sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(Names(parsed)).toOpaque()) { names in
                if let names { Unmanaged<Names>.fromOpaque(names).release() }
            }
            for index in 2..<count { sqlite3_set_auxdata(context, index, UnsafeMutableRawPointer(bitPattern: 1), nil) }
        }
        // A NULL cell reads as empty text, as a stored key column's does.
        var cell = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        if let value = arguments[0], sqlite3_value_type(value) != SQLITE_NULL {
            guard let start = sqlite3_value_text(value) else { return sqlite3_result_error_nomem(context) }
            cell = UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
        }
        guard let key = reader.key(ofUTF8: cell) else { return sqlite3_result_null(context) }
        key.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                sqlite3_result_blob64(context, base, sqlite3_uint64(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            } else {
                sqlite3_result_zeroblob(context, 0)
            }
        }
    }

    /// A value's text, all of its bytes as stored (`nil` only when SQLite is out of memory).
    private static func text(_ value: OpaquePointer) -> String? {
        guard let start = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }
}
