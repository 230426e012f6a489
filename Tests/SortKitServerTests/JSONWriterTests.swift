import Foundation
import SortKitShared
import Testing

@testable import SortKitServer

/// The JSON writer that every JSON response and JSON log line goes through: written as bytes,
/// checked against a scalar-by-scalar writer (the oracle) and against Foundation's parser.
@Suite("JSON writer")
struct JSONWriterTests {
    /// The oracle: the writer as it was, one Unicode scalar at a time.
    static func oracle(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}", "\u{0}"..."\u{1F}": output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// Pieces the random strings are built of: escapes, combining marks after `<`, U+2028/9
    /// and their near misses (E2 80 A7, E2 80 AA), 2-, 3- and 4-byte scalars, control bytes.
    static let pieces: [String] = [
        "a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "<", ">", "&", "<\u{301}", "e\u{301}",
        "\u{2028}", "\u{2029}", "\u{2027}", "\u{202A}", "é", "ß", "日本", "𝄞", "🇸🇪", "\u{FEFF}", "/", "'", "Å", "ﬃ",
    ]

    @Test("Random strings write as the scalar writer does and parse back to themselves; nothing that closes a <script> is left raw")
    func randomStrings() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<5_000 {
            let length = Int(random.next() % 40)
            let text = (0..<length).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            var bytes: [UInt8] = []
            JSON.writeString(text, to: &bytes)
            let written = String(decoding: bytes, as: UTF8.self)
            try #require(written == Self.oracle(text), "seed \(seed) (SORTKIT_SEED=\(seed) repeats it), round \(round): \(text.debugDescription)")
            // Foundation's parser (swift-corelibs) drops a U+FEFF that follows another inside a
            // string, so the parse-back leaves U+FEFF out on both sides; the oracle above
            // covers it.
            func withoutBOM(_ text: String?) -> String? { text.map { String(String.UnicodeScalarView($0.unicodeScalars.filter { $0 != "\u{FEFF}" })) } }
            let parsed = withoutBOM(try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String)
            try #require(parsed == withoutBOM(text), "seed \(seed), round \(round): \(text.debugDescription) parsed as \(parsed.debugDescription)")
            #expect(!bytes.contains(UInt8(ascii: "<")) && !bytes.contains(UInt8(ascii: ">")) && !bytes.contains(UInt8(ascii: "&")))
            #expect(!written.unicodeScalars.contains("\u{2028}") && !written.unicodeScalars.contains("\u{2029}"))
        }
    }

    @Test("A megabyte string, an empty one, U+2028 last, and â (U+00E2: the value of U+2028's lead byte)")
    func oddStrings() throws {
        let big = String(repeating: "ab<c\u{2028}é", count: 200_000)
        for text in [big, "", "\u{E2}", "x\u{2028}", "\u{2029}", "<\u{301}script>"] {
            var bytes: [UInt8] = []
            JSON.writeString(text, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == Self.oracle(text))
        }
    }

    @Test("Values: nested objects keep key order; integers, non-finite numbers, booleans and null")
    func values() {
        let value = JSON.object([
            ("b", .integer(-9_223_372_036_854_775_808)), ("a", .array([.number(1.5), .number(.infinity), .bool(true), .null])),
            ("é<", .string("x")),
        ])
        #expect(value.text == #"{"b":-9223372036854775808,"a":[1.5,null,true,null],"é\u003c":"x"}"#)
    }
}
