import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitFiles

@Suite("A file sort's keys built from a field's bytes")
struct CSVSortKeyTests {
    /// Fields the bytes path must encode exactly as the `String` path: blank and
    /// whitespace-only (Unicode spaces too), NUL bytes, malformed UTF-8, non-NFC text,
    /// combining marks that join a `<`, Hangul, CJK, digits, a megabyte field.
    static let oddFields: [[UInt8]] = [
        [], Array(" ".utf8), Array("\t \u{3000}\u{A0}".utf8), Array("a\0b".utf8), [0], [0xFF, 0x41], [0xC3], [0x41, 0xE2, 0x82],
        Array("Cafe\u{301}".utf8), Array("Café".utf8), Array("<\u{301}script>".utf8), Array("한국어".utf8), Array("漢字 かな".utf8),
        Array("Ålborg".utf8), Array("aa å Aa".utf8), Array("file10 file2".utf8), Array("Ωμέγα".utf8), Array("ґанок".utf8),
        Array("\u{1F600} emoji".utf8), Array("x\u{16D68}".utf8), Array(String(repeating: "ä", count: 1 << 19).utf8),
        // Malformed sequences whose bits, read without checking, spell a space (U+00A0, U+3000).
        [0xC2, 0x20], [0xE3, 0x00, 0x00], [0xE3, 0x80, 0x20],
    ]

    static let specs = [
        "s", "-s", "s:nocase", "s:fold", "s:natural", "s:binary", "s:locale=sv", "-s:locale=da", "s:locale=cs:nocase", "s:locale=und:natural",
        "s:locale=de-u-co-phonebk:fold", "s:text", "s:nulls-first", "-s:nulls-last", "s:empty=null", "s:auto:fold",
    ]

    @Test("The bytes path writes the String path's key for every collation, direction and odd field (seeded)")
    func bytesPathMatchesStringPath() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x5EED_00F1
        var random = SplitMix64(seed: seed)
        let alphabet = Array("aAåÄöz Zß0129 ,.-\u{301}\u{308}ĳŉǅ한ㄱ漢Ωяґ\t\0".unicodeScalars)
        var fields = Self.oddFields
        for _ in 0..<300 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &random) { text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)]) }
            var bytes = Array(String(text).utf8)
            // Now and then a malformed byte somewhere.
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes.insert(0x80 | UInt8.random(in: 0...0x7F, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            }
            fields.append(bytes)
        }
        for text in Self.specs {
            let spec = try SortSpec(parsing: text)
            let key = try _CSVSortKey(spec, header: ["s"])
            let component = key.components[0]
            let plain = try #require(component.plainText(grouping: false), "spec \(text)")
            var pieces = component.plainKeys(grouping: false, textBytes: 1 << 20)
            for field in fields {
                var fromBytes: [UInt8] = []
                field.withUnsafeBufferPointer { key.encode(component, utf8: $0, plain: plain, pieces: &pieces, to: &fromBytes) }
                var fromString: [UInt8] = []
                key.encode(component, String(decoding: field, as: UTF8.self), to: &fromString)
                #expect(fromBytes == fromString, "spec \(text), field \(field.prefix(40)) (replay with SORTKIT_SEED=\(seed))")
            }
        }
    }

    @Test("Values that aren't plain text (ranks, transforms, numbers, grouping) keep the String path")
    func otherValuesKeepTheStringPath() throws {
        for text in ["s:enum=a|b", "s:len", "s:num", "s:date", "s:abs", "s:random=7"] {
            let key = try _CSVSortKey(SortSpec(parsing: text), header: ["s"])
            #expect(!key.components.contains { $0.plainText(grouping: false) != nil }, "spec \(text)")
        }
        let key = try _CSVSortKey(SortSpec(parsing: "s"), header: ["s"])
        #expect(key.components[0].plainText(grouping: true) == nil)
        // An inferred column that holds numbers or dates is read by its type.
        for type in [ColumnType.integer, .float, .date] {
            #expect(key.withTypes([0: type]).components[0].plainText(grouping: false) == nil, "\(type)")
        }
        #expect(key.withTypes([0: .string]).components[0].plainText(grouping: false) != nil)
    }

    @Test("Escaping a key's zero bytes: 00 becomes 00 FF, from the given start, in place")
    func escapeZeros() {
        var bytes: [UInt8] = [0, 7, 0, 1, 0, 0, 2]
        _CSVSortKey.escapeZeros(&bytes, from: 1)
        #expect(bytes == [0, 7, 0, 0xFF, 1, 0, 0xFF, 0, 0xFF, 2])
        var none: [UInt8] = [3, 4]
        _CSVSortKey.escapeZeros(&none, from: 0)
        #expect(none == [3, 4])
    }
}
