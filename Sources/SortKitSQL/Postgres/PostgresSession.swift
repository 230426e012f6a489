import Foundation
import Logging
import NIOCore
import PostgresNIO
import SortKit

/// One leased connection, with ``SQLValue`` bindings and ``SQLValue`` results.
struct _PostgresSession: _SQLSession {
    let connection: PostgresConnection
    let logger: Logger

    /// The rows of `sql` with `values` bound to `$1`, `$2`, …, as they arrive; PostgreSQL sends
    /// more as the sequence is read.
    func stream(_ sql: String, _ values: [SQLValue] = []) async throws -> PostgresRowSequence {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), logger: logger)
    }

    /// The rows of `sql`, collected.
    func rows(_ sql: String, _ values: [SQLValue] = []) async throws -> [PostgresRandomAccessRow] {
        try await stream(sql, values).collect().map { $0.makeRandomAccess() }
    }

    func select(_ sql: String, _ values: [SQLValue], long: Bool) async throws -> [[SQLValue]] {
        // Each row's cells in order, without a random-access copy of each row first.
        try await stream(sql, values).collect().map { row in try row.map { try SQLValue($0) } }
    }

    /// Calls `body` with each row of `sql` as it arrives, without collecting them.
    /// The row's cells are read in order (a random-access copy of each row cost more than
    /// reading it: 1M rows of a scan).
    func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (PostgresRow) throws -> Void) async throws {
        for try await row in try await stream(sql, values) { try body(row) }
    }

    /// Runs a statement.
    func execute(_ sql: String, _ values: [SQLValue], long: Bool) async throws {
        _ = try await rows(sql, values)
    }

    /// `COPY` in the binary format (``_CopyBinary``) of `groups` groups of rows, `group(n)`
    /// making the n-th; this writes the format's header and trailer. The next group is made
    /// while PostgreSQL reads the one before: without that the backend waited for each group's
    /// encoding (0.4–0.5 s of a 1M-row import's 2.1–2.3 s `COPY`).
    ///
    /// `freeze`: the rows are written frozen and their pages marked all-visible (`COPY …
    /// FREEZE`, for a table made in this transaction): an index-only scan reads no heap page
    /// of them, from the first read after the commit, without waiting for a vacuum.
    func copyBinary(
        into table: String, columns: [String], groups: Int, freeze: Bool = false, _ group: @escaping @Sendable (Int) throws -> [ByteBuffer]
    ) async throws {
        // PostgresNIO's `copyFrom` has the text format only: it writes `COPY "<table>"(<columns>)
        // FROM STDIN WITH (FORMAT text)` on one line. Our statement goes in as its table, and
        // ends in a line comment the library's own tail falls into. The names are ours (`st_7`,
        // `c0`, `k2_text_loc_sv_se`, …) and go unquoted, so PostgreSQL folds them to lower case
        // as `CREATE TABLE` did; anything else is refused rather than spliced in. Should the
        // library's statement change, the import fails on PostgreSQL's parse error, not silently.
        let plain = { (name: String) in
            !name.isEmpty
                && name.utf8.allSatisfy {
                    $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0)
                }
        }
        guard plain(table), columns.allSatisfy(plain) else { throw TableStoreError.invalid("COPY into \(table): a name isn't a plain identifier") }
        let statement = "\(table)\" (\(columns.joined(separator: ", "))) FROM STDIN WITH (FORMAT binary\(freeze ? ", FREEZE" : "")) --"
        try await connection.copyFrom(table: statement, columns: [], logger: logger) { writer in
            // One group ahead. When a write fails (or the import is cancelled), the group being
            // made is waited for before the error goes on, so nothing reads the import's columns
            // after it returns.
            var next = groups > 0 ? Task.detached { try group(0) } : nil
            do {
                try await writer.write(ByteBuffer(bytes: _CopyBinary.header))
                for number in 0..<groups {
                    let buffers = try await next!.value
                    next = number + 1 < groups ? Task.detached { try group(number + 1) } : nil
                    try Task.checkCancellation()
                    for buffer in buffers { try await writer.write(buffer) }
                }
                try await writer.write(ByteBuffer(bytes: _CopyBinary.trailer))
            } catch {
                _ = try? await next?.value
                throw error
            }
        }
    }

    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .double(let double): bindings.append(double)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return bindings
    }
}

extension SQLValue {
    /// A result cell as a value: integers, doubles, bytea and text; NULL as ``null``.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8: self = .double(try cell.decode(Double.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: self = .blob(Array(buffer: try cell.decode(ByteBuffer.self)))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
