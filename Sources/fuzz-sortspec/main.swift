// libFuzzer target: the sort-spec parser. Run by Fuzz/run.sh (see there); a normal build links
// it as an executable that does nothing.
import SortKit

/// Any bytes: parsing returns a spec or throws `SortSpecError`, never traps; a parsed spec's
/// text parses back to the same spec.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSortSpec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let spec = try? SortSpec(parsing: text) else { return 0 }
    guard let again = try? SortSpec(parsing: spec.description), again == spec else {
        fatalError("'\(text)' parses to '\(spec.description)', which doesn't parse back to the same spec")
    }
    return 0
}
