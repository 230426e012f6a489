// libFuzzer target: the HTML escaper every page, renderer and the DataTables endpoint use.
// Run by Fuzz/run.sh.
import DataTableKit

/// Any bytes as text (invalid UTF-8 becomes U+FFFD, as a decoded request does): the escaped
/// form has no `<`, `>`, `"` or `'` byte and no `&` that doesn't start one of the five
/// entities, and unescaping it gives the text back. The fragments and the table renderer
/// escape alike.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEscape(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let escaped = HTMLEscaping.escape(text)
    let bytes = Array(escaped.utf8)
    let entities: [([UInt8], UInt8)] = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'")]
        .map { (Array($0.0.utf8), UInt8(ascii: $0.1)) }
    var restored: [UInt8] = []
    var index = 0
    while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"):
            fatalError("a raw \(Unicode.Scalar(bytes[index])) at byte \(index) of the escaped text")
        case UInt8(ascii: "&"):
            guard let (entity, raw) = entities.first(where: { bytes[index...].starts(with: $0.0) }) else {
                fatalError("an '&' that starts no entity at byte \(index)")
            }
            restored.append(raw)
            index += entity.count
        default:
            restored.append(bytes[index])
            index += 1
        }
    }
    if restored != Array(text.utf8) { fatalError("unescaping doesn't give the text back") }
    if HTMLFragment.text(text).html != escaped || HTMLTableRenderer.escape(text) != escaped {
        fatalError("a renderer escapes differently")
    }
    return 0
}
