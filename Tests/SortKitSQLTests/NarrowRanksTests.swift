import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

/// A ranking's per-slot groups in the narrowest width (``_NarrowRanks``): against a `[UInt32]`
/// oracle under seeded reads, writes, widenings, renumberings and resizes, and rankings of
/// few, many and very many groups taking one, two and four bytes a slot (#38).
@Suite("Ranks in the narrowest width")
struct NarrowRanksTests {
    @Test("Widths by group count, null at every width, widening on a write past the width")
    func widths() {
        #expect(_NarrowRanks.width(groups: 0) == 1 && _NarrowRanks.width(groups: 254) == 1 && _NarrowRanks.width(groups: 255) == 2)
        #expect(_NarrowRanks.width(groups: 65_534) == 2 && _NarrowRanks.width(groups: 65_535) == 4)
        var ranks = _NarrowRanks(count: 4, groups: 3)
        #expect(ranks.width == 1 && ranks.byteCount == 4 && Array(ranks) == Array(repeating: _Ranking.null, count: 4))
        ranks[0] = 253
        ranks[1] = 2
        #expect(ranks.width == 1 && Array(ranks) == [253, 2, _Ranking.null, _Ranking.null])
        // 254 and 255 would be the null mark's neighbours at one byte: two bytes.
        ranks[2] = 254
        #expect(ranks.width == 2 && Array(ranks) == [253, 2, 254, _Ranking.null])
        ranks[3] = 70_000
        #expect(ranks.width == 4 && ranks.byteCount == 16 && Array(ranks) == [253, 2, 254, 70_000])
        ranks[1] = _Ranking.null
        #expect(ranks[1] == _Ranking.null && ranks == _NarrowRanks([253, _Ranking.null, 254, 70_000]))
        // Equal by values, whatever the widths.
        #expect(_NarrowRanks([1, _Ranking.null]) == _NarrowRanks(count: 2, groups: 100_000) { $0 == 0 ? 1 : _Ranking.null })
        #expect(_NarrowRanks(count: 0, groups: 0).isEmpty)
        // A group that goes (renumbered to null, as a delete empties it) doesn't widen.
        var shrinking = _NarrowRanks([0, 1, 2])
        shrinking.renumber(groups: 2) { $0 == 1 ? _Ranking.null : $0 > 1 ? $0 - 1 : $0 }
        #expect(shrinking.width == 1 && Array(shrinking) == [0, _Ranking.null, 1])
        // Two bytes hold groups up to 65,533 (65,535 is null's): 65,534 takes four.
        var wide = _NarrowRanks(count: 2, groups: 300)
        wide[0] = 65_533
        #expect(wide.width == 2 && wide[0] == 65_533)
        wide[1] = 65_534
        #expect(wide.width == 4 && Array(wide) == [65_533, 65_534])
    }

    @Test("Seeded writes, renumberings and resizes agree with a [UInt32] oracle", arguments: [1, 2, 3, 4])
    func againstOracle(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let count = Int.random(in: 1...3_000, using: &random)
        var oracle = [UInt32](repeating: _Ranking.null, count: count)
        var ranks = _NarrowRanks(count: count, groups: 1)
        for step in 0..<2_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                // A renumbering that moves groups up (a new group joined below them), or one
                // that empties a group and moves those above it down (a delete).
                let first = UInt32.random(in: 0...300, using: &random)
                let up = Bool.random(using: &random)
                let renumbered: (UInt32) -> UInt32 = { up ? ($0 >= first ? $0 + 1 : $0) : ($0 == first ? _Ranking.null : $0 > first ? $0 - 1 : $0) }
                let before = ranks.width
                oracle = oracle.map { $0 == _Ranking.null ? $0 : renumbered($0) }
                let top = oracle.filter { $0 != _Ranking.null }.max().map { Int($0) + 1 } ?? 0
                ranks.renumber(groups: top, renumbered)
                #expect(ranks.width == max(before, _NarrowRanks.width(groups: top)), "seed \(seed), step \(step): width \(ranks.width)")
            case 1:
                let size = Int.random(in: 0...(oracle.count + 50), using: &random)
                oracle = Array(oracle.prefix(size)) + Array(repeating: _Ranking.null, count: max(0, size - oracle.count))
                ranks = ranks.resized(to: size)
            default:
                guard !oracle.isEmpty else { continue }
                let slot = Int.random(in: 0..<oracle.count, using: &random)
                // Mostly groups around the one-byte limit, now and then a null or one past two bytes.
                let kind = Int.random(in: 0..<40, using: &random)
                let value = kind == 0 ? _Ranking.null : kind == 1 ? UInt32.random(in: 0...70_000, using: &random) : UInt32.random(in: 0...260, using: &random)
                oracle[slot] = value
                ranks[slot] = value
            }
            guard Array(ranks) == oracle else {
                Issue.record("seed \(seed), step \(step): ranks differ from the oracle")
                return
            }
            let top = oracle.filter { $0 != _Ranking.null }.max().map { Int($0) + 1 } ?? 0
            #expect(ranks.width >= _NarrowRanks.width(groups: top), "seed \(seed), step \(step)")
        }
        ranks.withReader { reader in #expect((0..<oracle.count).allSatisfy { reader[$0] == oracle[$0] }, "seed \(seed)") }
    }

    @Test("A ranking's ranks take one, two or four bytes a slot by its groups", arguments: [(3, 1), (1_000, 2), (100_000, 4)])
    func rankingBytes(groups: Int, width: Int) {
        let rows = 200_000
        let values = (0..<rows).map { SortValue.integer(Int64(($0 * 7_919) % groups)) }
        let ranking = _Ranking(values: values, collation: .natural)
        #expect(ranking.distinct == groups && ranking.ranks.width == width)
        #expect(ranking.byteCount == 4 * rows + width * rows + 4 * (groups + 1), "\(ranking.byteCount) bytes for \(groups) groups")
        // Each slot's rank is its value's place among the distinct values.
        #expect((0..<rows).allSatisfy { ranking.ranks[$0] == UInt32(($0 * 7_919) % groups) })
    }
}
