import Foundation
import Testing

@testable import SortKit

@Suite("Lenient numbers")
struct LenientNumberTests {
    @Test(
        "Numbers as people write them",
        arguments: [
            ("$1,234.56", SortValue.double(1234.56)), ("75%", .integer(75)), ("(12)", .integer(-12)),
            ("−3.5 €", .double(-3.5)), ("-$5", .integer(-5)), ("$-5", .integer(-5)), ("1_000", .integer(1000)), ("1e3", .double(1000)),
            ("  42 ", .integer(42)), ("€ 1.234", .double(1.234)), ("9007199254740993", .integer(9_007_199_254_740_993)),
            ("1 234 567", .integer(1_234_567)), ("12\u{202F}345", .integer(12_345)), ("1'000'000", .integer(1_000_000)),
            ("($1,200.50)", .double(-1200.5)), ("+7", .integer(7)), ("- 5", .integer(-5)), (".5", .double(0.5)), ("5 %", .integer(5)),
            ("-9223372036854775808", .integer(.min)), ("9223372036854775807", .integer(.max)),
            // Beyond 64 bits, integers stay exact (#35); beyond 128 bits they read as doubles.
            ("-9223372036854775809", .largeInteger(-9_223_372_036_854_775_809)), ("123,456,789,012,345,678,901", .largeInteger(123_456_789_012_345_678_901)),
            ("1" + String(repeating: "0", count: 40), .double(1e40)),
        ])
    func numbers(text: String, expected: SortValue) {
        #expect(LenientNumber.parse(text) == expected, "\(text)")
    }

    @Test(
        "Not numbers: text stays text",
        arguments: [
            "n/a", "", " ", "1,,2", ",5", "1.2.3", "inf", "nan", "0x1p3", "12abc", "$", "--5", "+-5", "(-5)", "(+5)", "1,5", "12 345,67",
            "1,2345", "12,34,567", "1,234 567", "1,", "$--9223372036854775808", "$$5", "5$$", "$5€", "5-", "1e", "e5", "1e999999",
            "((5))", "(5", "%", "5%%", "1_00", "1,000.000.5",
        ])
    func notNumbers(text: String) {
        #expect(LenientNumber.parse(text) == nil, "\(text.debugDescription)")
    }

    /// Formats `value` the way some table might: grouping, currency, sign style, spaces.
    static func written(_ value: Int64, using random: inout SeededRandom) -> String {
        let negative = value < 0
        let digits = String(value.magnitude)
        var body = digits
        if Bool.random(using: &random) {
            let separator = [",", "_", "'", " ", "\u{00A0}", "\u{2009}", "\u{202F}"].randomElement(using: &random)!
            var groups: [Substring] = []
            var end = digits.endIndex
            while end > digits.startIndex {
                let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
                groups.insert(digits[start..<end], at: 0)
                end = start
            }
            body = groups.joined(separator: separator)
        }
        let currency = ["", "$", "€", "£", "¥", "₹"].randomElement(using: &random)!
        let space = Bool.random(using: &random) ? " " : ""
        let before = Bool.random(using: &random)
        let withCurrency = currency.isEmpty ? body : before ? currency + space + body : body + space + currency
        guard negative else { return Bool.random(using: &random) && !before ? "+" + withCurrency : withCurrency }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return "(" + withCurrency + ")"
        case 1: return "\u{2212}" + withCurrency
        default: return "-" + withCurrency
        }
    }

    @Test("Written in any accepted style, a number parses back to itself (seeded)")
    func roundTrip() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0060)
        let edges: [Int64] = [0, 1, -1, 999, 1_000, -1_000, .max, .min, .min + 1, 9_007_199_254_740_993]
        for round in 0..<5_000 {
            let value =
                round < edges.count
                ? edges[round]
                : Int64.random(in: -(1 << Int64.random(in: 1...62, using: &random))...(1 << Int64.random(in: 1...62, using: &random)), using: &random)
            let text = Self.written(value, using: &random)
            #expect(LenientNumber.parse(text) == .integer(value), "\(text.debugDescription), \(random.replay)")
        }
        for _ in 0..<2_000 {
            let value = Double.random(in: -1e9...1e9, using: &random)
            let text = String(value)
            #expect(LenientNumber.parse(text) == .double(value), "\(text), \(random.replay)")
        }
    }

    @Test("Random strings of signs, currencies, digits and separators never trap (seeded fuzz)")
    func fuzz() {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0061)
        let pieces = [
            "-", "+", "\u{2212}", "(", ")", "$", "€", "%", ",", ".", "_", "'", " ", "\u{00A0}", "e", "E",
            "0", "1", "9", "123", "9223372036854775808", "999999999999999999999", "x", "é", "\u{301}",
        ]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            // Whatever it returns, it returns; an answer must also be a value the grammar allows.
            if let value = LenientNumber.parse(text) {
                switch value {
                case .integer, .largeInteger, .double(_): break
                default: Issue.record("\(text.debugDescription) parsed as \(value), \(random.replay)")
                }
                if case .double(let double) = value { #expect(double.isFinite, "\(text.debugDescription)") }
            }
        }
        // Megabyte inputs: digits, separators.
        #expect(LenientNumber.parse(String(repeating: "9", count: 1 << 20)) == nil, "a number beyond Double's range stays text")
        #expect(LenientNumber.parse(String(repeating: "1,000", count: 200_000)) == nil)
        #expect(LenientNumber.parse("1" + String(repeating: ",000", count: 100)) == .double(1e300))
    }
}
