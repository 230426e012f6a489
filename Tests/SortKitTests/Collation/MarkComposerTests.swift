import Foundation
import Testing

@testable import SortKit

/// `_MarkComposer` composes accents typed apart from their letters pair by pair; everything
/// it takes must come out as the standard library's NFC of the whole text, and what it
/// leaves must leave the output untouched.
@Suite("Accents typed apart, composed pair by pair")
struct MarkComposerTests {
    @Test("Its NFC is the standard library's; text it leaves appends nothing; single marks take the fast way (seeded)")
    func matchesStandardLibrary() {
        var random = SeededRandom.fromEnvironment(default: 0xC0_4405E)
        // Starters of many scripts, marks that compose and marks that don't (overlays, the horn,
        // ypogegrammeni, U+0340/U+0341 which NFC replaces), scalars that aren't NFC alone.
        let pieces = [
            "a", "E", "o", "u", "n", "m", "1", " ", ",", "ø", "ß", "ж", "и", "Ω", "α", "中", "한", "か", "Ṩ", "ǅ", "\u{301}", "\u{300}", "\u{308}",
            "\u{30A}", "\u{327}", "\u{31B}", "\u{334}", "\u{338}", "\u{345}", "\u{340}", "\u{341}", "\u{36F}", "\u{1100}", "\u{1161}", "\u{3099}",
            "\u{387}", "\u{212B}", "😀",
        ]
        var taken = 0
        var composer = _MarkComposer()
        for round in 0..<20_000 {
            let text = (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let bytes = Array(text.utf8)
            var output: [UInt8] = [0x7A]
            let took = bytes.withUnsafeBufferPointer { composer.appendNFC($0, to: &output) }
            if took {
                taken += 1
                #expect(Array(output.dropFirst()) == Array(_normalizedNFC(text).utf8), "round \(round): \(bytes) (\(random.replay))")
            } else {
                #expect(output == [0x7A], "round \(round): \(bytes) left, yet wrote (\(random.replay))")
            }
        }
        #expect(taken > 5_000, "the composer took only \(taken) of 20,000 texts (\(random.replay))")
        for (typed, composed) in [
            ("Cafe\u{301}", "Café"), ("Les Mise\u{301}rables", "Les Misérables"), ("12345678\u{301}x", "12345678\u{301}x"), ("Ṩ\u{327}", "Ş\u{323}\u{307}"),
            ("Sm\u{30A}land", "Sm\u{30A}land"), ("n\u{303}o", "ño"), ("и\u{306}", "й"), ("Å", "Å"),
        ] {
            var output: [UInt8] = []
            #expect(Array(typed.utf8).withUnsafeBufferPointer { composer.appendNFC($0, to: &output) })
            #expect(output == Array(composed.utf8), "\(typed)")
        }
        for left in ["a\u{301}\u{302}", "\u{301}a", "a\u{301}\u{1161}", "\u{387}"] {
            var output: [UInt8] = []
            #expect(!Array(left.utf8).withUnsafeBufferPointer { composer.appendNFC($0, to: &output) } && output.isEmpty, "\(left)")
        }
    }
}
