import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

/// The ranking of a text column from its cells' keys (``_Ranking/byTextKeys(_:cells:live:type:)``)
/// against the engine's sort of the cells' values, the oracle: the same order, groups and
/// ranks under every kind of collation, with blank, repeated, non-normalized and ill-formed
/// cells, dead slots and rows written since the base.
@Suite("Rankings from text keys")
struct TextKeyRankingTests {
    static let pool = [
        "Åsa", "ögon", "Zebra", "zebra", "apa", "Äpple", "Ørn", "éclair", "e\u{301}clair", "Straße", "STRASSE", "Ґанок", "яблуко",
        "Ελένη", "東京", "한국", "file 10", "file 9", "x\u{300}<b>", "  padded ", "ǅemal", "ﬁsh", "🇸🇪 flag", "Ĳssel", "tab\there",
    ]
    static let blanks = ["", " ", "\u{3000}", " \u{A0}", "\t"]
    static let specs = [
        "v", "-v", "v:nocase", "v:fold", "v:binary", "v:natural", "v:text", "v:locale=sv", "v:locale=de:nocase", "v:locale=und:fold",
        "v:locale=sv:natural",
    ]

    /// A random cell: a pool word with a number (mostly distinct), a repeat, a blank, a
    /// long text, or bytes that aren't UTF-8.
    static func cell(_ random: inout SplitMix64) -> [UInt8] {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return Array(blanks.randomElement(using: &random)!.utf8)
        case 1: return Array(pool.randomElement(using: &random)!.utf8)
        // Ill-formed, read as with U+FFFD: not blank, though the bytes decoded unchecked
        // would be whitespace (C2 20 as U+00A0, the overlong E0 80 A0 as U+0020).
        case 2: return [[0x41, 0xFF, 0xC3], [0xC2, 0x20], [0xE0, 0x80, 0xA0]].randomElement(using: &random)!
        case 3: return Array(String(repeating: "ä", count: Int.random(in: 100...400, using: &random)).utf8)
        default:
            let word = pool.randomElement(using: &random)!, other = pool.randomElement(using: &random)!
            return Array("\(word) \(Int.random(in: 0..<100_000, using: &random)) \(other)".utf8)
        }
    }

    @Test("The same ranking as the engine's sort of the values (seeded)", arguments: [(7, 2_000), (11, 170_000)])
    func sameAsEngine(round: Int, count: Int) throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed &+ UInt64(round))
        var arena = _ByteArena()
        for _ in 0..<count {
            arena.bytes.append(contentsOf: Self.cell(&random))
            arena.close()
        }
        var cells = _Cells(base: [arena], baseCount: count)
        // Rows written since the base (one past it), and dead slots.
        for _ in 0..<count / 50 { cells.written[Int.random(in: 0...count, using: &random)] = [String(decoding: Self.cell(&random), as: UTF8.self)] }
        cells.written[count] = cells.written[count] ?? ["Åsa 1"]
        let live = (0...count).map { _ in Int.random(in: 0..<10, using: &random) != 0 }
        let schema = TableSchema(name: "t", columns: [.init("v", .string)])
        // Two cores' parts from 131,072 rows: there, fewer collations (the oracle is slow).
        for spec in count > 100_000 ? ["v", "v:fold", "v:locale=sv"] : Self.specs {
            let variant = try _TableIndex.variant(try SortSpec(parsing: spec).keys[0], schema: schema)
            let ranking = try #require(_Ranking.byTextKeys(variant, cells: cells, live: live, type: .string), "\(spec)")
            let slots = live.indices.filter { live[$0] }
            let oracle = _Ranking(
                values: slots.map { variant.value(of: cells.text($0, 0), type: .string) }, slots: slots, slotCount: live.count,
                collation: variant.collation)
            #expect(ranking.order == oracle.order, "\(spec), \(count) rows, seed \(seed)")
            #expect(ranking.groupStarts == oracle.groupStarts, "\(spec), \(count) rows, seed \(seed)")
            #expect(ranking.ranks == oracle.ranks, "\(spec), \(count) rows, seed \(seed)")
        }
    }

    @Test("Equal keys are one group across the cores' slices of the sorted keys: three values over 200,000 rows")
    func groupsAcrossSlices() throws {
        // Every sorted position ties with the one before but two, wherever the slices meet.
        let values = ["b", "a", "c"], count = 200_000
        var arena = _ByteArena()
        for row in 0..<count {
            arena.bytes.append(contentsOf: values[row % 3].utf8)
            arena.close()
        }
        let schema = TableSchema(name: "t", columns: [.init("v", .string)])
        let variant = try _TableIndex.variant(try SortSpec(parsing: "v").keys[0], schema: schema)
        let ranking = try #require(
            _Ranking.byTextKeys(variant, cells: _Cells(base: [arena], baseCount: count), live: Array(repeating: true, count: count), type: .string))
        let sizes = (0..<3).map { value in (0..<count).filter { $0 % 3 == [1, 0, 2][value] }.count }
        #expect(ranking.groupStarts.map(Int.init) == [0, sizes[0], sizes[0] + sizes[1], count])
        #expect(ranking.order.prefix(3) == [1, 4, 7])
    }

    @Test("Keys other than text as text go to the engine; an empty table and one of blanks rank")
    func otherKeysAndEdges() throws {
        let schema = TableSchema(name: "t", columns: [.init("v", .string)])
        let cells = _Cells(base: [_ByteArena()], baseCount: 0)
        for spec in ["v:len", "v:num", "v:date", "v:random=3"] {
            let variant = try _TableIndex.variant(try SortSpec(parsing: spec).keys[0], schema: schema)
            #expect(_Ranking.byTextKeys(variant, cells: cells, live: [], type: .string) == nil, "\(spec)")
        }
        let number = try _TableIndex.variant(try SortSpec(parsing: "v").keys[0], schema: TableSchema(name: "t", columns: [.init("v", .integer)]))
        #expect(_Ranking.byTextKeys(number, cells: cells, live: [], type: .integer) == nil)
        let text = try _TableIndex.variant(try SortSpec(parsing: "v").keys[0], schema: schema)
        let empty = try #require(_Ranking.byTextKeys(text, cells: cells, live: [], type: .string))
        #expect(empty.order.isEmpty && empty.groupStarts == [0] && empty.ranks.isEmpty)
        var arena = _ByteArena()
        for blank in Self.blanks {
            arena.bytes.append(contentsOf: blank.utf8)
            arena.close()
        }
        let blanks = try #require(
            _Ranking.byTextKeys(text, cells: _Cells(base: [arena], baseCount: Self.blanks.count), live: [true, true, false, true, true], type: .string))
        #expect(blanks.order == [0, 1, 3, 4] && blanks.groupStarts == [0] && blanks.ranks.allSatisfy { $0 == _Ranking.null })
    }
}
