// libFuzzer target: the CSV scanners. Run by Fuzz/run.sh.
import Foundation
import SortKit
import SortKitSQL

/// Any bytes: `CSV.parse` (sequential) returns records or throws `CSVError`; the parallel column
/// scanner of imports (`_CSVColumns.read`, cut into slices at every byte count it can) agrees
/// with it: the same records, cells stored as imports keep them (NFC, blank as empty), or an
/// error exactly when `CSV.parse` fails; a file with a NUL character, or a header wider than
/// ``TableSchema/maxColumns``, is refused.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let read = Result { try _CSVColumns.read(bytes, delimiter: UInt8(ascii: ","), minimumSlice: 1) }
    let columns = try? read.get()
    // A NUL character can't be stored (PostgreSQL can't hold it): the import refuses the file.
    if bytes.contains(0) {
        if columns != nil { fatalError("the column scanner read a file with a NUL character") }
        return 0
    }
    let records = try? CSV.parse(bytes)
    guard let records, let header = records.first else {
        // CSV.parse failed or found no header line: the import fails too.
        if let columns, !(records?.isEmpty ?? false) || columns.count > 0 {
            fatalError("CSV.parse failed but the column scanner read \(columns.count) records")
        }
        return 0
    }
    if header.count > TableSchema.maxColumns {
        // Too wide to store: refused before any record is read, with the error that says so.
        guard case .failure(let error) = read, error as? TableStoreError == .tooManyColumns(header.count) else {
            fatalError("a header of \(header.count) columns wasn't refused as too wide: \(read)")
        }
        return 0
    }
    guard let columns else { fatalError("CSV.parse read \(records.count) records but the column scanner failed") }
    guard columns.header.count == header.count, columns.count == records.count - 1 else {
        fatalError("column scanner: \(columns.header.count) columns, \(columns.count) records; CSV.parse: \(header.count), \(records.count - 1)")
    }
    for (record, fields) in records.dropFirst().enumerated() {
        for (column, field) in fields.enumerated() {
            let stored = field.unicodeScalars.allSatisfy(\.properties.isWhitespace) ? "" : Collation.normalized(field)
            guard columns.text(record, column) == stored else {
                fatalError("record \(record + 1), column \(column): scanner '\(columns.text(record, column))', CSV.parse '\(stored)'")
            }
        }
    }
    return 0
}
