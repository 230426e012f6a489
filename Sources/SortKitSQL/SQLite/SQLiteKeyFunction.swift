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
        let code = sqlite3_create_function_v2(
            db.sqliteConnection, "sortkit_key", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, call, nil, nil, nil)
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
        if let names = sqlite3_get_auxdata(context, 1) {
            reader = Unmanaged<Names>.fromOpaque(names).takeUnretainedValue().reader
        } else {
            guard let parsed = KeyVariant.ComputedKeyReader(names: (1..<Int(count)).map { _SQLiteKeyFunction.text(arguments[$0]) })
            else { return sqlite3_result_null(context) }
            reader = parsed
            // SQLite may release it at once (then the next row parses again).
            sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(Names(parsed)).toOpaque()) { names in
                if let names { Unmanaged<Names>.fromOpaque(names).release() }
            }
        }
        // A NULL cell reads as empty text, as a stored key column's does.
        guard let key = reader.key(of: text(arguments[0]) ?? "") else { return sqlite3_result_null(context) }
        key.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                sqlite3_result_blob(context, base, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            } else {
                sqlite3_result_zeroblob(context, 0)
            }
        }
    }

    /// A value's text (all of its bytes, as stored), `nil` for NULL.
    private static func text(_ value: OpaquePointer?) -> String? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL, let start = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }
}
