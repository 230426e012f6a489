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
    func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (PostgresRandomAccessRow) throws -> Void) async throws {
        for try await row in try await stream(sql, values) { try body(row.makeRandomAccess()) }
    }

    /// Runs a statement.
    func execute(_ sql: String, _ values: [SQLValue], long: Bool) async throws {
        _ = try await rows(sql, values)
    }

    /// Streams `rows` into `table` with `COPY … FROM STDIN` (text format), in chunks.
    func copy(into table: String, columns: [String], rows: some Sequence<[SQLValue]>) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            for row in rows {
                _CopyText.append(row, to: &buffer)
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
    }

    /// `COPY` of buffers already in the text format, in the order `chunks` gives them.
    func copy(into table: String, columns: [String], chunks: some Sequence<ByteBuffer>) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            for chunk in chunks { try await writer.write(chunk) }
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

/// PostgreSQL's `COPY` text format: tab-separated, `\N` for NULL, backslash escapes, bytea
/// as `\\x` hex. (PostgresNIO streams the bytes; the encoding of values is ours.)
enum _CopyText {
    static func append(_ row: [SQLValue], to buffer: inout ByteBuffer) {
        for (index, value) in row.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            append(value, to: &buffer)
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    static func append(_ value: SQLValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null: buffer.writeStaticString("\\N")
        case .integer(let integer): buffer.writeString(String(integer))
        case .double(let double):
            buffer.writeString(double.isNaN ? "NaN" : double.isInfinite ? (double < 0 ? "-Infinity" : "Infinity") : "\(double)")
        case .text(let text): escape(text, to: &buffer)
        case .blob(let bytes):
            buffer.writeStaticString("\\\\x")
            let digits = Array("0123456789abcdef".utf8)
            for byte in bytes {
                buffer.writeInteger(digits[Int(byte >> 4)])
                buffer.writeInteger(digits[Int(byte & 15)])
            }
        }
    }

    /// An import's rows (ids 1…n) in the text format, straight from the columns read from the
    /// CSV and what ``_CSVColumns/derived(_:)`` made of them: the values ``_TableInfo/rowValues(_:)``
    /// gives, without a `String` per cell. `rowsPerChunk` rows per buffer; the chunks of one
    /// group (one per core) are encoded side by side as the sequence reaches them, so memory
    /// stays bounded for any number of rows.
    static func chunks(
        _ columns: _CSVColumns, folded: _ByteArena, typed: [Int: [SortValue]], info: _TableInfo, rowsPerChunk: Int = 16_384
    ) -> some Sequence<ByteBuffer> {
        let count = columns.count, cores = ProcessInfo.processInfo.activeProcessorCount
        return stride(from: 0, to: count, by: rowsPerChunk * cores).lazy.flatMap { groupStart in
            let chunks = (0..<cores).map { groupStart + $0 * rowsPerChunk }.filter { $0 < count }
            let results = _ResultSlots<ByteBuffer>(count: chunks.count)
            info.withImportRows(columns, folded: folded, typed: typed) { rows in
                // The arenas are only read here.
                let shared = _UncheckedBox(rows)
                _concurrentPerform(
                    iterations: chunks.count,
                    _UncheckedBox { index in
                        let rows = shared.value
                        var buffer = ByteBuffer()
                        buffer.reserveCapacity(rowsPerChunk * 160)
                        for record in chunks[index]..<min(chunks[index] + rowsPerChunk, count) {
                            buffer.writeString(String(record + 1))
                            rows.forEachValue(of: record) { value in
                                buffer.writeInteger(UInt8(ascii: "\t"))
                                switch value {
                                case .cell(let text), .folded(let text): escape(text, to: &buffer)
                                case .value(let value): append(value, to: &buffer)
                                }
                            }
                            buffer.writeInteger(UInt8(ascii: "\n"))
                        }
                        results.set(index, buffer)
                    })
            }
            return results.values
        }
    }

    private static func escape(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { escape($0, to: &buffer) }
    }

    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
        var start = 0
        for (index, byte) in bytes.enumerated() {
            let escaped: UInt8
            switch byte {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
            buffer.writeInteger(UInt8(ascii: "\\"))
            buffer.writeInteger(escaped)
            start = index + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
    }
}
