// libFuzzer target: keyset cursor decoding. Run by Fuzz/run.sh.
import Foundation
import SortKitSQL

let secret = Data("fuzzing secret, fixed so the corpus's cursors stay valid".utf8)

/// Any text as a cursor: decoding returns a cursor or throws, never traps; a cursor that
/// decodes encodes back to text that decodes to the same cursor. The input also builds a
/// cursor (order, search and values from its bytes) that must survive the round trip.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCursor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    if let cursor = try? KeysetCursor.decode(text, secret: secret, order: "title", search: "") {
        guard let again = try? KeysetCursor.decode(cursor.encoded(secret: secret), secret: secret, order: "title", search: ""),
            again == cursor
        else { fatalError("a decoded cursor doesn't survive encoding") }
    }
    let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
    var values: [SQLValue] = []
    for part in parts.dropFirst(2) {
        if let integer = Int64(part) {
            values.append(.integer(integer))
        } else if let real = Double(part), real.isFinite {
            values.append(.double(real))
        } else if part.isEmpty {
            values.append(.null)
        } else {
            values.append(.text(part))
        }
    }
    let made = KeysetCursor(order: parts.first ?? "", search: parts.count > 1 ? parts[1] : "", values: values)
    guard let encoded = try? made.encoded(secret: secret),
        let decoded = try? KeysetCursor.decode(encoded, secret: secret, order: made.order, search: made.search),
        decoded == made
    else { fatalError("cursor \(made) doesn't survive encoding and decoding") }
    return 0
}
