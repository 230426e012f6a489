import OrderKeys
import Testing

@testable import DataTableKit

/// The one HTML escaper (#34): it works on UTF-8 bytes, so a `<` or `"` that a mark has joined
/// into a grapheme cluster is escaped like any other.
@Suite("HTML escaping on scalars")
struct HTMLEscapingTests {
    /// The hostile texts of the hardening review: a prepended concatenation mark (U+0600)
    /// before `<`, combining marks and ZWJ after `<` and `"`, a BOM, bidi controls,
    /// noncharacters.
    static let hostile = [
        "\u{600}<img src=x onerror=alert(document.domain) \u{600}>",
        "\u{600}<meta http-equiv=refresh content=0;url=https:evil.example \u{600}>",
        "x\"\u{301} onmouseover=alert(1) \"\u{301}",
        "'\u{200D}><script>alert(1)</script>",
        "\u{FEFF}<\u{301}b>&\u{20DD}amp;",
        "\u{202E}<svg onload=alert(1)>\u{202C}",
        // Noncharacters (U+FDD0, U+FFFE, U+10FFFF), which a literal can't spell.
        String(String.UnicodeScalarView([0xFDD0, 0xFFFE, 0x3C, 0x61, 0x3E, 0x10FFFF, 0x27].map { Unicode.Scalar($0)! })),
        "🏳️‍🌈<x>",
    ]

    @Test("Joined marks don't hide a special character", arguments: hostile)
    func hostileText(_ text: String) {
        let escaped = HTMLEscaping.escape(text)
        #expect(Self.rawSpecials(escaped) == 0, "\(escaped.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(Self.unescape(escaped) == Array(text.utf8), "the escape loses nothing")
        // The renderers and fragments use it too.
        #expect(HTMLTableRenderer.escape(text) == escaped)
        #expect(HTMLFragment.text(text).html == escaped)
    }

    @Test("Each of & < > \" ' becomes its entity; other text is unchanged")
    func entities() {
        #expect(HTMLEscaping.escape("<script>\"x\" & 'y'") == "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;")
        #expect(HTMLEscaping.escape("") == "")
        #expect(HTMLEscaping.escape("plain café, 日本") == "plain café, 日本")
        let megabyte = String(repeating: "a<", count: 500_000)
        #expect(HTMLEscaping.escape(megabyte).utf8.count == 500_000 * 5)
    }

    @Test("Random scalars with specials among marks: the escape equals a byte-by-byte oracle (seeded)")
    func randomAgainstOracle() {
        let seed: UInt64 = 3_404
        var random = SplitMix64(seed: seed)
        let pool: [Unicode.Scalar] = [
            "<", ">", "&", "\"", "'", "a", " ", "\u{600}", "\u{301}", "\u{200D}", "\u{FEFF}", "\u{202E}",
            Unicode.Scalar(0xFDD0)!, "é", "日", "\u{1F3F3}", "\u{FE0F}", "\u{20DD}", "\u{0}", "\u{7F}",
        ]
        for round in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(random.next() % 24) { scalars.append(pool[Int(random.next() % UInt64(pool.count))]) }
            let text = String(scalars)
            let oracle = text.utf8.flatMap { byte -> [UInt8] in
                switch byte {
                case UInt8(ascii: "&"): Array("&amp;".utf8)
                case UInt8(ascii: "<"): Array("&lt;".utf8)
                case UInt8(ascii: ">"): Array("&gt;".utf8)
                case UInt8(ascii: "\""): Array("&quot;".utf8)
                case UInt8(ascii: "'"): Array("&#39;".utf8)
                default: [byte]
                }
            }
            let escaped = HTMLEscaping.escape(text)
            #expect(Array(escaped.utf8) == oracle, "seed \(seed), round \(round): \(text.unicodeScalars.map { $0.value })")
            if Array(escaped.utf8) != oracle { return }
        }
    }

    @Test("A link's scheme is read on scalars: a mark after ':' doesn't make javascript: relative")
    func linkScheme() {
        for href in ["javascript:\u{301}alert(1)", "javascript\u{200D}:alert(1)", "JavaScript:\u{20DD}x", "data:\u{301}text/html,x"] {
            let fragment = HTMLFragment.element(.a, [.href: href], .text("x"))
            #expect(!fragment.html.contains("href"), "\(href.unicodeScalars.map { $0.value }): \(fragment.html)")
        }
        #expect(HTMLFragment.element(.a, [.href: "https://example.org/a:b"], .text("x")).html.contains("href"))
        #expect(HTMLFragment.element(.a, [.href: "/tables/x:y"], .text("x")).html.contains("href"))
    }

    /// The number of `<`, `>`, `"`, `'` bytes, and `&` bytes that don't start an entity.
    static func rawSpecials(_ html: String) -> Int {
        let bytes = Array(html.utf8)
        var count = 0
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): count += 1
            case UInt8(ascii: "&"):
                let rest = bytes[index...]
                if !["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains(where: { rest.starts(with: $0.utf8) }) { count += 1 }
            default: break
            }
        }
        return count
    }

    /// The five entities back to their bytes (on bytes: a mark after `;` mustn't hide one).
    static func unescape(_ html: String) -> [UInt8] {
        let bytes = Array(html.utf8)
        let entities: [([UInt8], UInt8)] = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")]
            .map { (Array($0.0.utf8), UInt8(ascii: $0.1)) }
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if let (entity, raw) = entities.first(where: { bytes[index...].starts(with: $0.0) }) {
                output.append(raw)
                index += entity.count
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
