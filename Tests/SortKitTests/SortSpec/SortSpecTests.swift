import Foundation
import Testing

@testable import SortKit

@Suite("Sort spec text form")
struct SortSpecTests {
    @Test("The sort-spec format's example (docs/SortSpecs.md)")
    func designExample() throws {
        let spec = try SortSpec(parsing: "status:enum=todo|reading|done,-price:num,title")
        #expect(spec.keys.count == 3)
        #expect(spec.keys[0].enumOrder == ["todo", "reading", "done"])
        #expect(spec.keys[1].direction == .descending)
        #expect(spec.keys[1].interpretation == .number)
        #expect(spec.keys[2].collation == .natural)
        #expect(spec.keys[2].nulls == .last)
        #expect(spec.description == "status:enum=todo|reading|done,-price:num,title")
    }

    @Test(
        "Modifiers map to their meanings",
        arguments: [
            ("a:binary", SortSpec.Key("a", .ascending, [.collation(.binary)])),
            ("a:nocase", SortSpec.Key("a", .ascending, [.collation(.caseInsensitive)])),
            ("-a:fold:nulls-first", SortSpec.Key("a", .descending, [.collation(.folded), .nulls(.first)])),
            ("+a:date:nulls-last", SortSpec.Key("a", .ascending, [.interpretation(.date), .nulls(.last)])),
            ("a:text:natural", SortSpec.Key("a", .ascending, [.interpretation(.text), .collation(.natural)])),
            ("a:nulls-natural", SortSpec.Key("a", .ascending, [.nulls(.natural)])),
            (" a ", SortSpec.Key("a")),
            ("a\\ ", SortSpec.Key("a ")),
            ("-delta:abs", SortSpec.Key("delta", .descending, [.transform(.absolute)])),
            ("price:num:abs", SortSpec.Key("price", .ascending, [.interpretation(.number), .transform(.absolute)])),
            ("name:len:nulls-first", SortSpec.Key("name", .ascending, [.transform(.length), .nulls(.first)])),
            ("note:empty=null", SortSpec.Key("note", .ascending, [.emptyIsNull])),
            ("id:random=42", SortSpec.Key("id", .ascending, [.transform(.random(seed: 42))])),
            ("id:random=18446744073709551615", SortSpec.Key("id", .ascending, [.transform(.random(seed: .max))])),
            ("id:random=007", SortSpec.Key("id", .ascending, [.transform(.random(seed: 7))])),
        ])
    func modifiers(text: String, key: SortSpec.Key) throws {
        #expect(try SortSpec(parsing: text).keys.first == key)
    }

    @Test("Escapes in column names and enum values")
    func escapes() throws {
        let spec = try SortSpec(parsing: #"-price\, net\:eur,\-x,s:enum=a\|b|c\,d"#)
        #expect(spec.keys.map(\.column) == ["price, net:eur", "-x", "s"])
        #expect(spec.keys[2].enumOrder == ["a|b", "c,d"])
        #expect(spec.description == #"-price\, net\:eur,\-x,s:enum=a\|b|c\,d"#)
        #expect(try SortSpec(parsing: "") == SortSpec())
    }

    @Test(
        "Errors name the token and its position",
        arguments: [
            ("title:upper", "unknown modifier 'upper' at position 7"),
            ("a,,b", "empty key at position 3"),
            ("-", "missing column name at position 2"),
            ("a:num:text", "modifier 'text' conflicts with 'num' at position 7"),
            ("a:nocase:fold", "modifier 'fold' conflicts with 'nocase' at position 10"),
            ("a,b,a", "column 'a' named twice at position 5"),
            ("a:enum=x||y", "empty value in 'enum=' list at position 10"),
            ("a:enum=x|x", "value 'x' listed twice in 'enum=' at position 10"),
            ("a\\", "dangling escape '\\' at position 2"),
            ("a:", "empty modifier at position 3"),
            (" a , ", "empty key at position 5"),
            ("a:num:enum=x", "'enum=' orders text values and can't follow 'num' or 'date' at position 7"),
            ("a:abs:len", "modifier 'len' conflicts with 'abs' at position 7"),
            ("a:random=1:random=2", "modifier 'random=2' conflicts with 'random=1' at position 12"),
            ("a:enum=x:abs", "'abs' conflicts with 'enum=x': an 'enum=' key orders by its list at position 10"),
            ("a:len:num", "'len' counts the text's characters and can't be used with 'num' at position 7"),
            ("a:text:abs", "'abs' orders numbers and can't be used with 'text' at position 8"),
            ("a:empty=null:empty=null", "modifier 'empty=null' conflicts with 'empty=null' at position 14"),
            ("a:random=", "'random=' needs a seed, a whole number from 0 to 18446744073709551615, not '' at position 10"),
            ("a:random=-1", "'random=' needs a seed"),
            ("a:random=18446744073709551616", "'random=' needs a seed"),
            ("a:random=１２", "'random=' needs a seed"),
            ("a:random", "unknown modifier 'random'"),
            ("a:empty=blank", "unknown modifier 'empty=blank'"),
        ])
    func errors(text: String, message: String) {
        #expect {
            try SortSpec(parsing: text)
        } throws: { error in
            (error as? SortSpecError)?.description.hasPrefix(message) == true
        }
    }

    @Test("Random specs round-trip through text exactly")
    func roundTrip() throws {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0020)
        let alphabet = Array("ab ,:|\\-+é=x1")
        func name() -> String {
            String((0..<Int.random(in: 1...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        let simple: [SortSpec.Modifier] = [
            .interpretation(.number), .interpretation(.text), .interpretation(.date), .interpretation(.inferred),
            .collation(.binary), .collation(.caseInsensitive), .collation(.folded), .collation(.natural),
            .nulls(.first), .nulls(.last), .nulls(.natural),
            .transform(.absolute), .transform(.length), .transform(.random(seed: 0)), .transform(.random(seed: .max)),
            .transform(.random(seed: 42)), .emptyIsNull,
        ]
        for _ in 0..<2_000 {
            var keys: [SortSpec.Key] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                var modifiers: [SortSpec.Modifier] = []
                for modifier in simple.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random))
                where !modifiers.contains(where: { modifier.conflict(with: $0) != nil }) {
                    modifiers.append(modifier)
                }
                if Bool.random(using: &random), !modifiers.contains(where: { SortSpec.Modifier.enumOrder(["x"]).conflict(with: $0) != nil }) {
                    // Distinct values in the order drawn (a Set's order would differ between runs).
                    var values: [String] = []
                    for _ in 0..<3 {
                        let value = name()
                        if !values.contains(value) { values.append(value) }
                    }
                    modifiers.append(.enumOrder(values))
                }
                let column = name()
                if !keys.contains(where: { $0.column == column }) {
                    keys.append(SortSpec.Key(column, SortDirection.allCases.randomElement(using: &random)!, modifiers))
                }
            }
            let spec = SortSpec(keys)
            let text = spec.description
            let parsed = try SortSpec(parsing: text)
            #expect(parsed == spec, "\(text), \(random.replay)")
            #expect(parsed.description == text, "\(random.replay)")
        }
    }

    @Test("Codable as the string")
    func codable() throws {
        let spec = try SortSpec(parsing: "-price:num,title:nocase")
        let json = try JSONEncoder().encode(["sort": spec])
        #expect(String(decoding: json, as: UTF8.self) == #"{"sort":"-price:num,title:nocase"}"#)
        #expect(try JSONDecoder().decode([String: SortSpec].self, from: json)["sort"] == spec)
        #expect(throws: SortSpecError.self) { try JSONDecoder().decode([SortSpec].self, from: Data(#"["a:bad"]"#.utf8)) }
    }
}
