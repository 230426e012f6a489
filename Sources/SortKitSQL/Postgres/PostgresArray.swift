import Foundation
import NIOCore
import SortKit

/// PostgreSQL's binary array format, decoded by hand: PostgresNIO's decoding resolves each
/// element's type generically (a third of a 1M-row download's CPU). A one-dimensional array is
/// its dimension count, a NULL flag, its element type (an OID), its length and lower bound, then
/// each element's length (-1 for NULL) and big-endian bytes; an empty one has no dimensions.
enum _PostgresArray {
    /// The elements of an `int8[]` or `int4[]` without NULLs (`nil` for NULL).
    ///
    ///     _PostgresArray.integers(Int32.self, in: cell.bytes)    // [3, 1, 2]
    static func integers<Integer: FixedWidthInteger>(_: Integer.Type, in buffer: ByteBuffer?) throws -> [Integer]? {
        guard let buffer else { return nil }
        let width = MemoryLayout<Integer>.size
        return try buffer.withUnsafeReadableBytes { bytes -> [Integer] in
            guard let (_, count) = try header(bytes) else { return [] }
            guard bytes.count == 20 + count * (4 + width) else { throw TableStoreError(.internal, "an array PostgreSQL sent has the wrong size") }
            return try [Integer](unsafeUninitializedCapacity: count) { elements, initialized in
                var offset = 20
                for index in 0..<count {
                    // A NULL (length -1) or an element of another width.
                    guard int32(bytes, at: offset) == Int32(width) else {
                        initialized = index
                        throw TableStoreError(.internal, "an array PostgreSQL sent holds a NULL or an element of another type")
                    }
                    elements[index] = Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: Integer.self))
                    offset += 4 + width
                    initialized = index + 1
                }
            }
        }
    }

    /// The elements of an array (none for NULL or an empty array) as the ``SQLValue``s their
    /// type reads as one at a time (``SQLValue/init(_:)``): integers of any width and booleans
    /// as `.integer`, `float4`/`float8` as `.double`, `bytea` as `.blob`, anything else as
    /// `.text` (a scan's terms are `bigint`, `double precision`, `bytea`, `boolean` or text);
    /// a NULL element as `.null`.
    ///
    ///     _PostgresArray.values(in: cell.bytes)    // [.integer(3), .null, .integer(1)]
    static func values(in buffer: ByteBuffer?) throws -> [SQLValue] {
        guard let buffer else { return [] }
        return try buffer.withUnsafeReadableBytes { bytes -> [SQLValue] in
            guard let (type, count) = try header(bytes) else { return [] }
            var values: [SQLValue] = []
            values.reserveCapacity(count)
            var offset = 20
            for _ in 0..<count {
                guard offset + 4 <= bytes.count else { throw cutShort }
                let length = Int(int32(bytes, at: offset))
                offset += 4
                guard length >= 0 else {
                    values.append(.null)
                    continue
                }
                guard length <= bytes.count - offset else { throw cutShort }
                values.append(try value(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), type: type))
                offset += length
            }
            return values
        }
    }

    /// An array's element type and count (its elements start at byte 20); `nil` for an empty
    /// array. Any but one dimension is an error.
    private static func header(_ bytes: UnsafeRawBufferPointer) throws -> (type: UInt32, count: Int)? {
        guard bytes.count >= 12 else { throw cutShort }
        let dimensions = int32(bytes, at: 0)
        guard dimensions == 1 else {
            guard dimensions == 0 else { throw TableStoreError(.internal, "PostgreSQL sent an array of \(dimensions) dimensions") }
            return nil
        }
        guard bytes.count >= 20 else { throw cutShort }
        let count = Int(int32(bytes, at: 12))
        guard count >= 0, count <= (bytes.count - 20) / 4 else { throw cutShort }
        return (UInt32(bitPattern: int32(bytes, at: 8)), count)
    }

    private static var cutShort: TableStoreError { TableStoreError(.internal, "an array PostgreSQL sent is cut short") }

    private static func int32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
        Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }

    /// One element of type `type` (an OID).
    private static func value(_ bytes: UnsafeRawBufferPointer, type: UInt32) throws -> SQLValue {
        func wrong() -> TableStoreError { TableStoreError(.internal, "an array element PostgreSQL sent has the wrong size") }
        switch type {
        case 20: // int8
            guard bytes.count == 8 else { throw wrong() }
            return .integer(Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)))
        case 23: // int4
            guard bytes.count == 4 else { throw wrong() }
            return .integer(Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self))))
        case 21: // int2
            guard bytes.count == 2 else { throw wrong() }
            return .integer(Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self))))
        case 16: // bool
            guard bytes.count == 1 else { throw wrong() }
            return .integer(bytes[0] == 0 ? 0 : 1)
        case 700: // float4
            guard bytes.count == 4 else { throw wrong() }
            return .double(Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))))
        case 701: // float8
            guard bytes.count == 8 else { throw wrong() }
            return .double(Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))))
        case 17: // bytea
            return .blob([UInt8](bytes))
        default: // text, varchar, …: UTF-8 (the connection asks for it)
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
