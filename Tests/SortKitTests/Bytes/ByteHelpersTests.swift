import Foundation
import Testing

@testable import SortKit

/// The byte helpers every part of SortKit shares, each against a plain oracle.
@Suite("Byte helpers")
struct ByteHelpersTests {
    static func bytes(_ random: inout SeededRandom, maxLength: Int = 12) -> [UInt8] {
        // Few distinct bytes, so equal strings, prefixes and shared stems are common.
        (0..<Int.random(in: 0...maxLength, using: &random)).map { _ in [0, 1, 0x41, 0x7F, 0x80, 0xFF].randomElement(using: &random)! }
    }

    static func arena(_ strings: [[UInt8]]) -> _ByteArena {
        var arena = _ByteArena()
        for string in strings {
            arena.bytes.append(contentsOf: string)
            arena.close()
        }
        return arena
    }

    @Test("memcmp order is lexicographic with a proper prefix first; equality agrees")
    func compareBytes() {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0001)
        for _ in 0..<5_000 {
            let a = Self.bytes(&random), b = Bool.random(using: &random) ? Self.bytes(&random) : Array(a.prefix(Int.random(in: 0...a.count, using: &random)))
            let expected: ComparisonResult = a == b ? .orderedSame : a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
            #expect(_compareBytes(a, b) == expected, "\(a) vs \(b), \(random.replay)")
            #expect(_compareBytes(a[...], b[...]) == expected, "\(random.replay)")
            #expect(a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in _equalBytes(a, b) } } == (a == b), "\(random.replay)")
        }
    }

    @Test("ASCII checks at every length and position of a high byte; big-endian words zero-padded")
    func asciiAndWords() {
        for length in 0...40 {
            let ascii = [UInt8](repeating: 0x7F, count: length)
            #expect(ascii.withUnsafeBufferPointer(_isASCII), "\(length)")
            for position in 0..<length {
                var high = ascii
                high[position] = 0x80
                #expect(!high.withUnsafeBufferPointer(_isASCII), "length \(length), high byte at \(position)")
            }
        }
        #expect(_isASCII("plain") && !_isASCII("é"))
        let bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        bytes.withUnsafeBufferPointer { buffer in
            #expect(_bigEndianWord(buffer, from: 0, end: 10) == 0x0102_0304_0506_0708)
            #expect(_bigEndianWord(buffer, from: 7, end: 10) == 0x0809_0A00_0000_0000)
            #expect(_bigEndianWord(buffer, from: 10, end: 10) == 0)
        }
        #expect(_isDigit(UInt8(ascii: "0")) && _isDigit(UInt8(ascii: "9")) && !_isDigit(UInt8(ascii: "/")) && !_isDigit(UInt8(ascii: ":")))
        #expect(_isDigit(Unicode.Scalar("7")) && !_isDigit(Unicode.Scalar(0x663)!), "Arabic-Indic digits are not ASCII digits")
    }

    @Test("Radix sorts equal a stable comparison sort, from any first byte; the 2^32 fallback agrees")
    func radixSorts() {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0002)
        for count in [0, 1, 2, 17, 1_000, 20_000] {
            // Words with few distinct high bytes and positions packed low, as the engine packs them.
            let words = (0..<count).map { UInt64.random(in: 0...3, using: &random) << 40 | UInt64.random(in: 0...0xFF, using: &random) << 32 | UInt64($0) }
            var sorted = words
            _radixSort(&sorted, fromByte: 4)
            #expect(sorted == words.sorted { ($0 >> 32, $0 & 0xFFFF_FFFF) < ($1 >> 32, $1 & 0xFFFF_FFFF) }, "\(count) words, \(random.replay)")
            let composites = (0..<count).map { _ in UInt64.random(in: 0...5, using: &random) << UInt64.random(in: 0...60, using: &random) }
            let expected = composites.indices.sorted { (composites[$0], $0) < (composites[$1], $1) }
            #expect(_stableOrder(byComposite: composites) == expected, "\(count) composites, \(random.replay)")
            #expect(_stableOrder(byComposite: composites, limit: 0) == expected, "the comparison fallback, \(random.replay)")
            let strings = (0..<count).map { _ in Self.bytes(&random, maxLength: 30) }
            let byBytes = strings.indices.sorted { strings[$0] == strings[$1] ? $0 < $1 : strings[$0].lexicographicallyPrecedes(strings[$1]) }
            #expect(_sortByteKeys(Self.arena(strings)) == byBytes, "\(count) byte keys, \(random.replay)")
            #expect(_sortByteKeys(Self.arena(strings), limit: 0) == byBytes, "the comparison fallback, \(random.replay)")
        }
    }

    @Test("Distinct numbering: equal bytes get one id, in order of first appearance, across table growth; nil past the limit")
    func distinct() throws {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0003)
        let values = (0..<30_000).map { _ in Self.bytes(&random, maxLength: 4) }
        let (ids, firsts) = try #require(_numberDistinct(Self.arena(values), limit: .max))
        var oracle: [[UInt8]: Int] = [:], order: [Int] = []
        for (index, value) in values.enumerated() where oracle[value] == nil {
            oracle[value] = order.count
            order.append(index)
        }
        #expect(firsts == order, "\(random.replay)")
        #expect(ids.map(Int.init) == values.map { oracle[$0]! }, "\(random.replay)")
        #expect(_numberDistinct(Self.arena(values), limit: order.count - 1) == nil)
        #expect(_numberDistinct(Self.arena(values), limit: order.count) != nil)
        #expect(_numberDistinct(_ByteArena(), limit: 0).map { $0.ids.isEmpty && $0.firsts.isEmpty } == true)

        var strings = _DistinctStrings(), words = _DistinctWords()
        let texts = (0..<5_000).map { _ in random.unicodeString(maxLength: 3) }
        var stringOracle: [[UInt8]: Int] = [:], wordOracle: [UInt64: Int] = [:]
        for text in texts {
            let expected = stringOracle[Array(text.utf8)] ?? stringOracle.count
            stringOracle[Array(text.utf8)] = expected
            #expect(strings.id(of: text) == expected, "\(text.debugDescription), \(random.replay)")
            let word = UInt64(text.utf8.count) << 56 | UInt64(text.unicodeScalars.first?.value ?? 0)
            let expectedWord = wordOracle[word] ?? wordOracle.count
            wordOracle[word] = expectedWord
            #expect(words.id(of: word) == expectedWord, "\(random.replay)")
        }
        #expect(strings.count == stringOracle.count && words.count == wordOracle.count)
    }

    @Test("Arenas join in order with their ends rebased; arrays concatenate with offsets; views read the same bytes")
    func arenas() {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0004)
        let parts = (0..<5).map { part in (0..<(part == 2 ? 0 : Int.random(in: 1...50, using: &random))).map { _ in Self.bytes(&random) } }
        let joined = _ByteArena.joined(parts.map(Self.arena))
        let all = parts.flatMap { $0 }
        #expect(joined.count == all.count)
        #expect((0..<joined.count).map { index in joined.withBytes(index) { Array($0) } } == all, "\(random.replay)")
        _ByteArena.withViews(parts.map(Self.arena)) { views in
            for (part, view) in zip(parts, views) {
                #expect(part.indices.map { Array(view[$0]) } == part)
            }
        }
        let arrays: [[Int32]] = [[1, 2], [], [3], [4, 5, 6]]
        #expect(_concatenated(arrays) == [1, 2, 3, 4, 5, 6])
        #expect(_concatenated(arrays, adding: [0, 10, 100, 1_000]) == [1, 2, 103, 1_004, 1_005, 1_006])
        #expect(_concatenated([[Int32]]()) == [])
    }

    @Test(
        "UTF-8 validation agrees with the standard library's on every byte sequence: boundaries of each lead byte, truncations, surrogates, overlongs, ASCII runs around them (seeded)"
    )
    func validUTF8() {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0008)
        // Bytes around every boundary of table 3-7, and whole valid sequences to mix in.
        let edges: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        // Runs of two- and three-byte letters, which are checked a word at a time.
        let sequences: [[UInt8]] = ["é", "ж", "中", "😀", "\u{10FFFF}", "\u{D7FF}", "\u{E000}", "abcdefgh", "жжжж", "中中", "\u{800}\u{FFFF}"]
            .map { Array($0.utf8) }
        for _ in 0..<100_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                if Bool.random(using: &random) { bytes.append(edges.randomElement(using: &random)!) } else { bytes += sequences.randomElement(using: &random)! }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            if bytes.withUnsafeBufferPointer(_isValidUTF8) != expected {
                Issue.record("\(bytes.map { String($0, radix: 16) }): expected \(expected), \(random.replay)")
                return
            }
        }
        // Every two- and three-byte sequence from a lead byte, exhaustively.
        for lead in 0xC0...0xFF as ClosedRange<Int> {
            for second in 0...0xFF {
                for third in [0x00, 0x80, 0xBF, 0xC0] {
                    let bytes = [UInt8(lead), UInt8(second), UInt8(third), 0x80]
                    for length in 2...4 {
                        // Alone (in the zero-padded last word), twice with ASCII after it, and
                        // after 5–7 ASCII bytes, so that its lead is a word's last bytes and
                        // its continuations are in the next word.
                        let prefix = Array(bytes.prefix(length))
                        let ascii = Array("abcdefgh".utf8)
                        let shifted = (5...7).map { Array(ascii.prefix($0)) + prefix + ascii }
                        for candidate in [prefix, prefix + prefix + ascii] + shifted
                        where candidate.withUnsafeBufferPointer(_isValidUTF8) != (String(validating: candidate, as: UTF8.self) != nil) {
                            Issue.record("\(candidate.map { String($0, radix: 16) })")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test("A String of validated UTF-8 made without validating again equals String(decoding:) (seeded)")
    func stringOfValidUTF8() {
        var random = SeededRandom.fromEnvironment(default: 0xB17E_0036)
        let pieces = ["", "a", "é", "e\u{301}", "ж", "中", "😀", "\u{10FFFF}", "\u{FEFF}", "\0", "\r\n", "<", "\u{2028}"]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let bytes = Array(text.utf8)
            let made = bytes.withUnsafeBufferPointer(_stringOfValidUTF8)
            #expect(made == text && made.utf8.elementsEqual(bytes) && made.count == text.count, "\(text.debugDescription), \(random.replay)")
        }
        let megabyte = String(repeating: "ж中e\u{301}", count: 100_000)
        #expect(Array(megabyte.utf8).withUnsafeBufferPointer(_stringOfValidUTF8) == megabyte)
    }

    @Test("The White_Space shortcut agrees with the property for every scalar")
    func whitespace() {
        let disagreeing = (0...0x10FFFF as ClosedRange<UInt32>).compactMap(Unicode.Scalar.init).filter { _isWhitespace($0) != $0.properties.isWhitespace }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(10).map { "U+" + String($0.value, radix: 16) })")
        #expect(_isWhitespace("\u{3000}") && _isWhitespace("\u{85}") && !_isWhitespace("\u{200B}") && !_isWhitespace("a"))
    }
}
