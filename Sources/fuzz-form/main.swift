// libFuzzer target: form and DataTables parameter parsing. Run by Fuzz/run.sh.
import SortKitServer

/// Any bytes as a query string or form body: parsing never traps, every key reads its first
/// value (checked against a linear scan), and a JSON body flattens or throws.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let form = FormParameters(String(decoding: bytes, as: UTF8.self), limit: 64)
    for (key, _) in form.pairs where form[key] != form.pairs.first(where: { $0.key == key })?.value {
        fatalError("form[\(key)] is not its first value")
    }
    if form.pairs.count > 64 { fatalError("the limit of 64 parameters was not kept") }
    if let flattened = try? DataTablesRequest.flatten(json: bytes, limit: 64), flattened.pairs.count > 64 {
        fatalError("the JSON body was flattened past the limit")
    }
    return 0
}
