import Foundation
import Testing

@testable import SortKit

/// `abs`, `len`, `empty=null` and `random=SEED` against oracles written from their definitions.
@Suite("Key kinds: abs, len, empty=null, random=SEED")
struct KeyKindsTests {
    /// Stable sort of row positions by an oracle's value, nulls (`nil`) last.
    static func oracleOrder<Value>(_ values: [Value?], descending: Bool = false, by less: (Value, Value) -> Bool) -> [Int] {
        // Insertion sort: obviously stable, obviously right.
        var order: [Int] = []
        for index in values.indices {
            var place = order.count
            while place > 0 {
                let previous = values[order[place - 1]]
                let before: Bool
                switch (values[index], previous) {
                case (nil, _): before = false
                case (.some, nil): before = true
                case (.some(let value), .some(let other)): before = descending ? less(other, value) : less(value, other)
                }
                if !before { break }
                place -= 1
            }
            order.insert(index, at: place)
        }
        return order
    }

    @Test("abs orders integers and floats by magnitude, Int64.min included; -3 and 3 tie in input order (seeded)")
    func absolute() throws {
        var random = SeededRandom.fromEnvironment(default: 0xAB5)
        for round in 0..<200 {
            let integers: [Int64?] = (0..<Int(random.next() % 40)).map { _ in
                switch random.next() % 8 {
                case 0: nil
                case 1: .min
                case 2: .max
                default: Int64(random.next() % 11) - 5
                }
            }
            let descending = random.next() % 2 == 0
            let table = TextTable(columns: ["x"], rows: integers.map { [$0.map(String.init) ?? ""] })
            let order = try table.sortedRowIndices(by: SortSpec(parsing: (descending ? "-" : "") + "x:abs"))
            let expected = Self.oracleOrder(integers.map { $0?.magnitude }, descending: descending, by: <)
            #expect(order == expected, "round \(round), \(random.replay)")
        }
        let floats = ["-0.5", "0.25", "-0", "0", "", "-2.5", "2.5", "1e300", "-1e300"]
        let table = TextTable(columns: ["x"], rows: floats.map { [$0] })
        #expect(table.columnTypes() == [.float])
        let order = try table.sortedRowIndices(by: SortSpec(parsing: "x:abs"))
        // -0 and 0 tie, as do -2.5 and 2.5 (input order kept); blanks last.
        #expect(order.map { floats[$0] } == ["-0", "0", "0.25", "-0.5", "-2.5", "2.5", "1e300", "-1e300", ""])
        // NaN stays NaN (after every number); text and dates are unchanged.
        let key = try SortSpec(parsing: "x:abs").keys[0]
        if case .double(let nan) = key.transformed(.double(-.nan)) { #expect(nan.isNaN) } else { Issue.record("NaN lost") }
        #expect(key.transformed(.string("-3")) == .string("-3"))
        #expect(key.transformed(.integer(.min)) == .double(9_223_372_036_854_775_808))
        // `num:abs` on text reads lenient numbers first; text that isn't a number stays text.
        let prices = TextTable(columns: ["p"], rows: [["($12)"], ["$5"], ["-7%"], ["n/a"], [""]])
        #expect(try prices.sortedRowIndices(by: SortSpec(parsing: "p:num:abs")) == [1, 2, 0, 3, 4])
    }

    @Test("len counts characters as written: combining marks, emoji and CJK are one each; blank is null")
    func length() throws {
        let texts = ["e\u{301}cole", "école", "🇫🇷", "ab", "日本語", "  x ", "", "Straße", "👩‍👩‍👧"]
        let table = TextTable(columns: ["t"], rows: texts.map { [$0] })
        let order = try table.sortedRowIndices(by: SortSpec(parsing: "t:len"))
        let expected = Self.oracleOrder(texts.map { $0.allSatisfy(\.isWhitespace) ? nil : Array($0).count }, by: <)
        #expect(order == expected)
        #expect(order.map { texts[$0] } == ["🇫🇷", "👩‍👩‍👧", "ab", "日本語", "  x ", "e\u{301}cole", "école", "Straße", ""])
        // An integer column counts its text as written, leading zeros included.
        let numbers = TextTable(columns: ["n"], rows: [["007"], ["10"], ["5"]])
        #expect(try numbers.sortedRowIndices(by: SortSpec(parsing: "-n:len")) == [0, 1, 2])
    }

    @Test("len's count on UTF-8 equals String.count: marks at the start, after controls and CR LF, Hangul and jamo (seeded)")
    func lengthAgainstStringCount() {
        let pieces = [
            "a", "Z", " ", "abcdefgh", "~~~~~~~~", "\t", "\r", "\n", "\r\n", "\u{7F}", "\u{1F}", "\u{85}", "\u{AD}", "\u{A0}", "\u{3000}", "\u{2028}", "é",
            "e\u{301}", "\u{301}",
            "\u{308}\u{345}",
            "ж\u{483}", "ж\u{489}", "\u{302E}", "\u{3030}", "Ω", "Ἀ", "ᾳ", "ỹ", "か\u{3099}", "\u{3099}", "。", "中", "한", "\u{1100}\u{1161}", "한\u{11A8}",
            "\u{1161}",
            "😀", "🇫🇷", "\u{200D}", "ب", "\u{0}", "ß", "Ab1 ?", "x\u{7F}y", "  ",
            // Plain leads, which count without a walk, and what joins them.
            "字", "나", "나\u{11A8}", "ӂ", "ǅ", "ɐ", "Ͼ", "字\u{3099}", "ӂ\u{301}", "\u{4DC0}", "\u{D7A4}",
            // A lead of each range that isn't plain, alone: marks U+0340–U+036F (CD), Yi (EA).
            "a\u{345}", "\u{35C}", "\u{A000}", "Ѐ\u{483}",
            // Marks U+0300–U+033F (CC), counted on the word path: after letters, CJK, Hangul, a
            // space and each other; at the start, and after a control, they stand alone.
            "q\u{303}", "字\u{300}", "한\u{301}\u{302}", " \u{33F}", "\u{300}", "\t\u{301}", "ɐ\u{327}",
        ]
        var random = SeededRandom.fromEnvironment(default: 0x1E_4C0)
        for round in 0..<5_000 {
            // Up to 16 pieces: words of eight bytes mixing printable ASCII runs with controls,
            // DEL and multi-byte letters, which the count reads a word at a time.
            let text = (0..<Int.random(in: 0...16, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(_characterCount(text) == Int64(text.count), "round \(round): \(text.debugDescription), \(random.replay)")
            // The bytes' blank test, which `len` and `random=` read cells with, agrees too.
            #expect(Array(text.utf8).withUnsafeBufferPointer(_isBlank) == _isBlank(text), "round \(round): \(text.debugDescription), \(random.replay)")
        }
        // Texts of plain pieces only, which the word path counts (checked: it answers), at every
        // length and so every ending within a word.
        let plain = [
            "a", "Z", " ", "abcdefgh", "~~~~~~~~", "Ab1 ?", "é", "ß", "Ω", "ж", "ӂ", "ǅ", "ɐ", "Ͼ", "字", "나", "q\u{303}", "字\u{300}", "ɐ\u{327}\u{300}",
        ]
        for round in 0..<5_000 {
            let text = (0..<Int.random(in: 0...24, using: &random)).map { _ in plain.randomElement(using: &random)! }.joined()
            let count = Array(text.utf8).withUnsafeBufferPointer(_plainCharacterCount)
            #expect(count == Int64(text.count), "round \(round): \(text.debugDescription), \(random.replay)")
        }
        // Megabyte texts: plain letters throughout, and with a mark joining the last letter.
        for tail in ["", "e\u{301}", "\u{301}", "\r\n"] {
            let text = String(repeating: "Жé字나 a", count: 120_000) + tail
            #expect(_characterCount(text) == Int64(text.count), "a megabyte text ending \(tail.debugDescription)")
        }
    }

    @Test("empty=null: blank and whitespace-only typed text is null, placed by the null policy")
    func emptyIsNull() throws {
        let values: [String] = ["b", "", "a", " \u{3000}\t", "c"]
        let key = try SortSpec(parsing: "v:empty=null").keys[0]
        let keys: [SortKey<Int>] = key.sortKeys { .string(values[$0]) }
        #expect(values.indices.sortedIndices(by: keys) == [2, 0, 4, 1, 3])
        let first: [SortKey<Int>] = try SortSpec(parsing: "-v:empty=null:nulls-first").keys[0].sortKeys { .string(values[$0]) }
        #expect(values.indices.sortedIndices(by: first) == [1, 3, 4, 0, 2])
        // Without it, blank text is text: it sorts first ascending.
        let plain: [SortKey<Int>] = try SortSpec(parsing: "v").keys[0].sortKeys { .string(values[$0]) }
        #expect(values.indices.sortedIndices(by: plain).first == 1)
        // CSV text is read this way already, so the modifier changes nothing there.
        let table = TextTable(columns: ["v"], rows: values.map { [$0] })
        #expect(try table.sortedRowIndices(by: SortSpec(parsing: "v:empty=null")) == table.sortedRowIndices(by: SortSpec(parsing: "v")))
    }

    @Test("random=SEED: a function of value and seed — the same order from any input order, other seeds differ, equal values tie (seeded)")
    func randomOrder() throws {
        var random = SeededRandom.fromEnvironment(default: 0x5A4D)
        let values = (0..<300).map { "v\($0 % 250)" }
        let table = TextTable(columns: ["v"], rows: values.map { [$0] })
        let spec = try SortSpec(parsing: "v:random=42")
        let sorted = try table.sortedRowIndices(by: spec).map { values[$0] }
        for _ in 0..<5 {
            let shuffled = values.shuffled(using: &random)
            let again = try TextTable(columns: ["v"], rows: shuffled.map { [$0] }).sortedRowIndices(by: spec).map { shuffled[$0] }
            #expect(again == sorted, "\(random.replay)")
        }
        // Equal values are adjacent (they tie), and the order is not the input's or its reverse.
        for index in sorted.indices.dropFirst() where sorted[index] != sorted[index - 1] {
            #expect(!sorted[(index + 1)...].contains(sorted[index - 1]))
        }
        #expect(sorted != values.sorted() && sorted != values)
        let other = try table.sortedRowIndices(by: SortSpec(parsing: "v:random=43")).map { values[$0] }
        #expect(other != sorted)
        // Roughly uniform: each of 4 quarters of the values lands about a quarter in the first half.
        let firstHalf = Set(sorted.prefix(150))
        for quarter in 0..<4 {
            let count = (quarter * 62..<(quarter + 1) * 62).filter { firstHalf.contains("v\($0)") }.count
            #expect(count > 15 && count < 47, "quarter \(quarter): \(count) of 62 in the first half")
        }
        // Canonically equivalent text ties; integer 2 and float 2.0 tie; null stays null.
        let key = spec.keys[0]
        #expect(key.transformed(.string("e\u{301}")) == key.transformed(.string("é")))
        #expect(key.transformed(.integer(2)) == key.transformed(.double(2)))
        #expect(key.transformed(.null) == .null)
    }

    @Test("A megabyte of seed digits, or of enum values beside a transform, is a short error")
    func hugeInput() throws {
        let digits = String(repeating: "7", count: 1 << 20)
        #expect {
            try SortSpec(parsing: "a:random=" + digits)
        } throws: { error in
            let text = "\(error)"
            return text.contains("not '" + String(repeating: "7", count: 40) + "'") && text.count < 2_000_000
        }
        #expect(throws: SortSpecError.self) { try SortSpec(parsing: "a:abs:enum=" + String(repeating: "x", count: 1 << 20)) }
        // Blank and whitespace-only specs are still the empty spec; a lone modifier word is a column.
        #expect(try SortSpec(parsing: "   ").isEmpty)
        #expect(try SortSpec(parsing: "abs").keys == [SortSpec.Key("abs")])
    }

    @Test("random=SEED's hash is pinned: stored key columns and saved shuffles must not move between versions")
    func randomVectors() {
        let vectors: [(SortValue, UInt64)] = [(.integer(1), 42), (.string("Émile"), 7), (.string(""), 0), (.double(-2.5), .max)]
        let hashes = vectors.map { SortSpec.Key("x", .ascending, [.transform(.random(seed: $0.1))]).transformed($0.0) }
        #expect(hashes.map(\.description) == Self.pinned, "\(hashes)")
        for case .integer(let hash) in hashes { #expect(hash >= 0) }
    }

    @Test("random=SEED's hash of four texts at once is each text's own hash: empty, unequal lengths, non-ASCII, a megabyte (seeded)")
    func fourHashesAtOnce() {
        let pieces = ["", "a", "Émile", "字", "e\u{301}", "\u{0}", "Жé字나 ", String(repeating: "x", count: 300)]
        var random = SeededRandom.fromEnvironment(default: 0x4A54)
        for round in 0..<2_000 {
            var texts = (0..<4).map { _ in Array((0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined().utf8) }
            if round == 0 { texts[2] = Array(String(repeating: "Жé字나 a", count: 100_000).utf8) }
            let seed = UInt64.random(in: 0...UInt64.max, using: &random)
            let one = texts.map { text in text.withUnsafeBufferPointer { _seededHash(prefix: 0x30, $0, seed: seed) } }
            // The four texts side by side in one buffer, as a table's cells are.
            let ends = texts.map(\.count).reduce(into: [0]) { $0.append($0.last! + $1) }
            let four = Array(texts.joined()).withUnsafeBufferPointer { all in
                let cell = { (i: Int) in UnsafeBufferPointer(rebasing: all[ends[i]..<ends[i + 1]]) }
                return _seededHash4(prefix: 0x30, cell(0), cell(1), cell(2), cell(3), seed: seed)
            }
            #expect([four.0, four.1, four.2, four.3] == one, "round \(round): \(random.replay)")
        }
    }

    static let pinned = ["4980849829320407026", "7833302389570736468", "5038175142632333513", "1922475215652176786"]
}
