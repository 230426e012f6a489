import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// An imported cell (well-formed UTF-8: the scanner rejects other records, as
/// `CSVEdgeTests` check) is stored as its NFC text, nothing for blank text: read from its bytes
/// when every scalar is its own NFC, with accents typed apart composed pair by pair, through a
/// `String` otherwise. Every way must store the same bytes.
@Suite("Imported cells as stored")
struct CSVColumnsTests {
    @Test("A cell's stored bytes equal its String's NFC, blank cells and Greek singletons included (seeded)")
    func storedCells() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xCE11
        var random = SplitMix64(seed: seed)
        let pieces: [[UInt8]] = [
            "a", " ", "\t", "é", "e\u{301}", "\u{301}", "Å", "A\u{30A}", "ж", "й", "и\u{306}", "Ω", "\u{387}", "\u{37E}", "\u{374}", "中", "한",
            "\u{1100}\u{1161}", "か\u{3099}", "が", "\u{3000}", "\u{A0}", "ǅ", "Ṩ", "😀", "1", "ß", "\u{2028}", "ﬁ", "\u{212B}",
        ].map { Array($0.utf8) }
        // One composer for every cell, as a slice of an import has: pairs it met are kept.
        var composer = _MarkComposer()
        for round in 0..<5_000 {
            let cell = (0..<Int.random(in: 0...6, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
            let text = String(decoding: cell, as: UTF8.self)
            let expected = _isBlank(text) ? [] : Array(Collation.normalized(text).utf8)
            var stored: [UInt8] = []
            cell.withUnsafeBufferPointer { _CSVColumns.appendCell($0, to: &stored, composer: &composer) }
            #expect(stored == expected, "round \(round): \(cell) (seed \(seed))")
        }
    }

    @Test("A CSV with malformed UTF-8 in a cell, even at the end of the file, is refused with its line, and no table is left")
    func malformedUTF8() async throws {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xE6, 0x97]] {
            let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
            for atEnd in [false, true] {
                var csv = Array("t,n\nok,1\n".utf8) + [0x61] + bad + Array(",2".utf8)
                if !atEnd { csv += Array("\nlast,3\n".utf8) }
                await #expect {
                    _ = try await store.importCSV(csv, as: "t", delimiter: UInt8(ascii: ","), presets: [:])
                } throws: { error in
                    "\(error)".contains("line 3") && "\(error)".contains("UTF-8")
                }
                #expect(try await store.tables().isEmpty, "\(bad), at the end: \(atEnd)")
            }
        }
    }
}
