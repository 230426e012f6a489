// libFuzzer target: FractionalKey's parsing of stored keys. Run by Fuzz/run.sh.
import OrderKeys

/// The input is two keys separated by a NUL byte. `between` accepts them or throws
/// `FractionalKeyError`, never traps; a key it returns sorts strictly between them, and so do
/// the keys of `keys(_:between:and:)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFractionalKey(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let a = parts.first.map { String(decoding: $0, as: UTF8.self) }.flatMap { $0.isEmpty ? nil : $0 }
    let b = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : nil
    let upper = b.flatMap { $0.isEmpty ? nil : $0 }
    if let key = try? FractionalKey.between(a, upper) {
        if let a, !(a < key) { fatalError("between(\(a), \(upper ?? "nil")) = \(key) is not after \(a)") }
        if let upper, !(key < upper) { fatalError("between(\(a ?? "nil"), \(upper)) = \(key) is not before \(upper)") }
    }
    if let keys = try? FractionalKey.keys(Int(size % 7), between: a, and: upper) {
        let bounded = (a.map { [$0] } ?? []) + keys + (upper.map { [$0] } ?? [])
        for index in bounded.indices.dropFirst() where !(bounded[index - 1] < bounded[index]) {
            fatalError("keys(\(size % 7), between: \(a ?? "nil"), and: \(upper ?? "nil")) = \(keys) is not strictly increasing")
        }
    }
    return 0
}
