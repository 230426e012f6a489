/// HTML escaping on UTF-8 bytes: the one escaper every renderer, page template and the
/// DataTables endpoint use.
///
/// It works on bytes, never on `Character`s. A grapheme cluster can join a `<` or `"` to the
/// marks around it — a prepended concatenation mark (U+0600) before it, a combining mark or a
/// zero-width joiner after it — and such a cluster is not equal to `"<"`, so an escaper that
/// compares `Character`s lets the markup through. In UTF-8 the bytes of `&<>"'` never occur
/// inside another scalar's encoding, so replacing those bytes escapes every occurrence,
/// whatever surrounds it.
///
///     HTMLEscaping.escape("\u{600}<img src=x onerror=alert(1)>")
///     // "\u{600}&lt;img src=x onerror=alert(1)&gt;"
///     HTMLEscaping.escape("\"\u{301} & 'y'")   // "&quot;\u{301} &amp; &#39;y&#39;"
///
/// The result is safe in element content and in quoted attribute values (single or double
/// quotes). Text without any of the five bytes is returned as it is, without a copy.
///
/// - Complexity: O(*n*) in the text's UTF-8 length.
public enum HTMLEscaping {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by `&amp;`, `&lt;`, `&gt;`, `&quot;`
    /// and `&#39;`.
    public static func escape(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: { Self.needsEscape[Int($0)] }) else { return nil }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 16)
            output.append(contentsOf: bytes[..<first])
            append(UnsafeBufferPointer(rebasing: bytes[first...]), to: &output)
            return String(decoding: output, as: UTF8.self)
        } ?? text
    }

    /// Appends the escaped form of UTF-8 `bytes` to `output`.
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var start = 0
        for index in bytes.indices where needsEscape[Int(bytes[index])] {
            output.append(contentsOf: bytes[start..<index])
            output.append(contentsOf: entity(bytes[index]))
            start = index + 1
        }
        output.append(contentsOf: bytes[start...])
    }

    /// Whether a byte is one of `&<>"'`.
    private static let needsEscape: [Bool] = (0..<256).map { byte in
        byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27
    }

    private static let entities: [UInt8: [UInt8]] = [
        0x26: Array("&amp;".utf8), 0x3C: Array("&lt;".utf8), 0x3E: Array("&gt;".utf8),
        0x22: Array("&quot;".utf8), 0x27: Array("&#39;".utf8),
    ]

    private static func entity(_ byte: UInt8) -> [UInt8] { entities[byte]! }
}
