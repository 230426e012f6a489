import Foundation
import NIOCore
import PostgresNIO
import SortKit

extension _PostgresSession {
    /// Calls `body` with the terms of each row `query` scans (``PageQuery/scan(computing:)``:
    /// the order's terms, computed ones as their column's text, the id last), in one
    /// snapshot's statements: a range of ids at a time, each range's rows as one row of arrays,
    /// one per term, all the statements within `budget` (each one's `statement_timeout` is
    /// what is left of it).
    ///
    /// Read a row at a time, PostgresNIO spends about 2.5 µs of CPU on each (its state machine,
    /// a buffer and a cell per value): 2.5 s of a 1M-row scan for a first page by `title:len`,
    /// where PostgreSQL's own scan takes 0.3 s. The arrays are decoded here, an element at a
    /// time (``_PostgresArray``). A range holds `idsPerRead` ids, or by default about 32 MB
    /// of the table's storage (at most ``PostgresTableStore/rowsPerPart`` ids: a value is at
    /// most 1 GB, and PostgreSQL builds an array whole), in at most about twice as many
    /// statements as the rows need (ids left sparse by deletes); a filtered view or a kept
    /// order's page (few rows, and an index scan each statement would repeat) in one.
    ///
    ///     try await session.forEachScanned(query, computing: [0], budget: .seconds(5)) { terms in order.add(terms) }
    func forEachScanned(
        _ query: PageQuery, computing: Set<Int>, budget: Duration? = nil, idsPerRead: Int? = nil, _ body: ([SQLValue]) throws -> Void
    ) async throws {
        let started = ContinuousClock.now
        let physical = query.info.physical
        let bounds = try await select("SELECT min(id), max(id), pg_table_size('\(physical)'::regclass) FROM \(physical)", [], long: false).first
        guard case .integer(let low) = bounds?[0], case .integer(let high) = bounds?[1], high >= low else { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        var width = Int64.max
        if !overflow, span < Int64.max, query.isUnfiltered, query.only == nil {
            let rows = Int64(max(1, query.info.rowCount))
            let bytesPerRow: Int64 = if case .integer(let bytes) = bounds?[2] { max(1, bytes / rows) } else { 1 }
            let perRead = Int64(idsPerRead ?? Int(min(Int64(PostgresTableStore.rowsPerPart), max(1_024, (32 << 20) / bytesPerRow))))
            let statements = min((span + perRead) / perRead, 2 * ((rows + perRead - 1) / perRead) + 1)
            width = (span + statements) / statements
        }
        var start = low, first = true
        while true {
            let (end, overflow) = start.addingReportingOverflow(width - 1)
            let range = start...(overflow || end >= high ? Int64.max : end)
            if let budget, !first {
                let left = budget - (ContinuousClock.now - started)
                try await execute("SET LOCAL statement_timeout = \(max(1, left._nanoseconds / 1_000_000))", [], long: false)
            }
            first = false
            let scan = query.aggregatedScan(computing: computing, ids: range)
            for try await row in try await stream(scan.sql, scan.arguments) {
                let columns = try row.map { try _PostgresArray.values(in: $0.bytes) }
                let count = columns.first?.count ?? 0
                guard columns.allSatisfy({ $0.count == count }) else {
                    throw TableStoreError(.internal, "a scan of \(physical) arrived inconsistent; try again")
                }
                for index in 0..<count { try body(columns.map { $0[index] }) }
            }
            guard range.upperBound < Int64.max else { return }
            start = range.upperBound + 1
        }
    }
}

/// PostgreSQL's binary array format, decoded by hand (PostgresNIO's decoding resolves each
/// element's type generically).
enum _PostgresArray {
    /// The elements of a one-dimensional array (none for NULL or an empty array) as the
    /// ``SQLValue``s their type reads as one at a time (``SQLValue/init(_:)``): integers of any
    /// width and booleans as `.integer`, `float4`/`float8` as `.double`, `bytea` as `.blob`,
    /// anything else as `.text`; a NULL element as `.null`.
    ///
    ///     _PostgresArray.values(in: cell.bytes)    // [.integer(3), .null, .integer(1)]
    static func values(in buffer: ByteBuffer?) throws -> [SQLValue] {
        guard let buffer else { return [] }
        return try buffer.withUnsafeReadableBytes { bytes -> [SQLValue] in
            func int32(at offset: Int) -> Int32 { Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
            func cut() -> TableStoreError { TableStoreError(.internal, "an array PostgreSQL sent is cut short") }
            guard bytes.count >= 12 else { throw cut() }
            let dimensions = int32(at: 0)
            guard dimensions == 1 else {
                guard dimensions == 0 else { throw TableStoreError(.internal, "PostgreSQL sent an array of \(dimensions) dimensions") }
                return []
            }
            guard bytes.count >= 20 else { throw cut() }
            let type = UInt32(bitPattern: int32(at: 8)), count = Int(int32(at: 12))
            guard count >= 0, count <= (bytes.count - 20) / 4 else { throw cut() }
            var values: [SQLValue] = []
            values.reserveCapacity(count)
            var offset = 20
            for _ in 0..<count {
                guard offset + 4 <= bytes.count else { throw cut() }
                let length = Int(int32(at: offset))
                offset += 4
                guard length >= 0 else {
                    values.append(.null)
                    continue
                }
                guard length <= bytes.count - offset else { throw cut() }
                let element = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
                offset += length
                values.append(try value(element, type: type))
            }
            return values
        }
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
