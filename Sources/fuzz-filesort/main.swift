// libFuzzer target: the file sorter's block reader. Run by Fuzz/run.sh.
import Foundation
import SortKit
import SortKitFiles

/// Any bytes (after one control byte) as a CSV file, sorted by its first column: read whole,
/// and read in blocks of 1 to 64 bytes with a budget that spills runs of a few records — with
/// or without a header, `--top`, `--unique` — gives the same output byte for byte, or the same
/// error. Records that straddle blocks (quotes, CRLF split between blocks, a BOM cut in two, a
/// first record longer than a block) are where the reader once lost rows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileSort(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let control = data[0]
    let csv = Data(bytes: data + 1, count: size - 1)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-filesort-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let input = folder.appendingPathComponent("in.csv")
    guard (try? csv.write(to: input)) != nil else { return 0 }
    let hasHeader = control & 0x40 == 0
    let unique = control & 0x80 != 0
    let top: Int? = control & 0x20 != 0 ? Int(control & 0x07) + 1 : nil
    let spec = try! SortSpec(parsing: hasHeader ? "" : "1")
    struct Failure: Error, Equatable { let text: String }
    func sorted(blockSize: Int?) -> Result<Data, Failure> {
        // With a header, the first column's name is read from the file.
        var keySpec = spec
        if hasHeader {
            guard let records = try? CSV.parse(Array(csv)), let first = records.first?.first else { return .failure(Failure(text: "no header")) }
            keySpec = SortSpec([SortSpec.Key(first)])
        }
        var sorter = CSVFileSorter(
            spec: keySpec, hasHeader: hasHeader, unique: unique, top: top,
            maxMemory: blockSize == nil ? 1 << 30 : 1 << 16, temporaryDirectory: folder)
        sorter.blockSizeForTesting = blockSize
        let output = folder.appendingPathComponent("out-\(blockSize ?? 0).csv")
        defer { try? FileManager.default.removeItem(at: output) }
        do {
            try sorter.sort(input, to: output)
            return .success(try Data(contentsOf: output))
        } catch {
            return .failure(Failure(text: "\(error)"))
        }
    }
    let whole = sorted(blockSize: Optional<Int>.none)
    let blocks = sorted(blockSize: Int(control & 0x1F) * 2 + 1)
    switch (whole, blocks) {
    case (.success(let a), .success(let b)) where a != b:
        fatalError("read whole and in blocks of \(Int(control & 0x1F) * 2 + 1) bytes, the outputs differ")
    case (.success, .failure(let error)):
        // Only a header the whole read finds but a block read can't would differ: never.
        fatalError("read in blocks failed (\(error)) where read whole succeeded")
    case (.failure(let error), .success):
        if error.text != "no header" { fatalError("read whole failed (\(error)) where read in blocks succeeded") }
    default:
        break
    }
    return 0
}
