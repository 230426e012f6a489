import Foundation
import OrderKeys
import Testing

@testable import SortKitSQL

/// An index's slot ids (``_RowIDs``): a run of ids kept as two numbers, an array once a gap
/// appears; both must read, append and look up as the plain array does.
@Suite("Row ids of an index")
struct RowIDsTests {
    @Test("Runs and lists read, append and find slots as an array does, at the edges of Int64 too (seeded)")
    func againstArray() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let starts: [Int64] = [1, 0, -5, Int64.min, Int64.max - 40, 1 << 40]
        for round in 0..<300 {
            let first = starts.randomElement(using: &random)!
            // An ascending start: a run, or with a gap somewhere.
            var oracle: [Int64] = []
            var next = first
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                oracle.append(next)
                let step = Int64(Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 2...5, using: &random) : 1)
                let (sum, overflow) = next.addingReportingOverflow(step)
                if overflow { break }
                next = sum
            }
            var ids = _RowIDs(oracle)
            let context = "round \(round), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
            #expect(ids.isRun == zip(oracle, oracle.dropFirst()).allSatisfy { $0 + 1 == $1 }, "\(oracle), \(context)")
            for _ in 0..<Int.random(in: 0...10, using: &random) {
                let last = oracle.last ?? Int64.random(in: -9...9, using: &random)
                let step = Int64(oracle.isEmpty ? 0 : Int.random(in: 1...3, using: &random))
                let (id, overflow) = last.addingReportingOverflow(step)
                if overflow { break }
                oracle.append(id)
                ids.append(id)
            }
            #expect(Array(ids) == oracle, "\(context)")
            #expect(ids.count == oracle.count && ids.last == oracle.last, "\(context)")
            #expect(ids.isRun ? ids.byteCount == 0 : ids.byteCount >= 8 * oracle.count, "\(ids.byteCount) bytes, \(context)")
            let probes = oracle + [Int64.min, Int64.max, -1, 0] + oracle.map { $0 &+ 1 } + oracle.map { $0 &- 1 }
            for id in probes {
                #expect(ids.slot(of: id) == oracle.firstIndex(of: id), "slot of \(id) in \(oracle), \(context)")
            }
        }
    }

    @Test("An import's ids take no bytes; a gap makes them a list, and appending to it doesn't copy it each time")
    func runThenList() {
        var ids = _RowIDs(first: 1, count: 1_000_000)
        #expect(ids.isRun && ids.byteCount == 0 && ids[999_999] == 1_000_000 && ids.slot(of: 1_000_000) == 999_999)
        ids.append(1_000_001)
        #expect(ids.isRun && ids.count == 1_000_001)
        ids.append(2_000_000)
        #expect(!ids.isRun && ids[1_000_001] == 2_000_000 && ids.slot(of: 1_500_000) == nil && ids.slot(of: 2_000_000) == 1_000_001)
        // Appending to a list reuses its storage: it moves only when it grows (a copy per
        // append would move it every time), including while another value shares it.
        var moves = 0
        var address = ids.storageAddress
        let shared = ids
        for k in 1...1_000 {
            ids.append(2_000_000 + Int64(k))
            if ids.storageAddress != address { moves += 1 }
            address = ids.storageAddress
        }
        #expect(ids.count == 1_001_002 && moves <= 3, "\(moves) moves in 1,000 appends")
        #expect(shared.count == 1_000_002 && shared.last == 2_000_000)
        #expect(_RowIDs([]).isRun && _RowIDs([]).isEmpty && _RowIDs([7]).isRun && !_RowIDs([1, 3]).isRun)
    }
}
