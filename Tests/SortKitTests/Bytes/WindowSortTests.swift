import Foundation
import OrderKeys
import Testing

@testable import SortKit

@Suite("Window sort of byte keys")
struct WindowSortTests {
    /// Random keys with long shared prefixes, zero bytes, keys that are prefixes of others and
    /// many duplicates, so every path runs: one window, deeper windows, small and large groups.
    static func keys(count: Int, using random: inout SplitMix64) -> [[UInt8]] {
        let stems: [[UInt8]] = (0..<6).map { stem in
            (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8(stem % 3 == 0 ? 0 : Int.random(in: 0...2, using: &random)) }
        }
        return (0..<count).map { _ in
            var key = stems.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 0...3, using: &random) { key.append(UInt8.random(in: 0...3, using: &random)) }
            if Int.random(in: 0..<4, using: &random) == 0 { key.removeLast(min(key.count, Int.random(in: 0...20, using: &random))) }
            return key
        }
    }

    /// The keys in an arena, and their positions in the order of a stable comparison sort by
    /// `memcmp` (element by element, 1 MB keys took minutes in a debug build).
    static func arenaAndOracle(_ keys: [[UInt8]]) -> (_ByteArena, [Int]) {
        var arena = _ByteArena()
        for key in keys {
            arena.bytes.append(contentsOf: key)
            arena.close()
        }
        let expected = keys.indices.sorted { a, b in
            let order = _compareBytes(keys[a], keys[b])
            return order == .orderedSame ? a < b : order == .orderedAscending
        }
        return (arena, expected)
    }

    @Test("Equals a stable comparison sort (memcmp, a prefix first, ties by position)", arguments: [0, 1, 15, 17, 300, 5_000])
    func matchesOracle(count: Int) {
        let seed = UInt64(count) &* 0x9E37_79B9 &+ 5
        var random = SplitMix64(seed: seed)
        for _ in 0..<5 {
            let keys = Self.keys(count: count, using: &random)
            var arena = _ByteArena()
            for key in keys {
                arena.bytes.append(contentsOf: key)
                arena.close()
            }
            let expected = keys.indices.sorted { a, b in
                keys[a] == keys[b] ? a < b : keys[a].lexicographicallyPrecedes(keys[b])
            }
            // The same keys in parts (as the cores encode them), some of them empty.
            var parts: [_ByteArena] = []
            var start = 0
            while start < keys.count || parts.isEmpty {
                let end = min(keys.count, start + Int.random(in: 0...max(1, count / 3), using: &random))
                parts.append(_ByteArena(bytes: Array(keys[start..<end].joined()), ends: []))
                var total = 0
                for key in keys[start..<end] {
                    total += key.count
                    parts[parts.count - 1].ends.append(total)
                }
                start = end
            }
            let inParts = _ArenaParts(parts)
            #expect(inParts.count == keys.count && keys.indices.allSatisfy { Array(inParts[$0]) == keys[$0] }, "seed \(seed)")
            // One core's sort, and shares sorted on every core and merged (from two keys on),
            // from one arena and from parts.
            // Exactly two parts (two cores' keys: no span per key), either of them maybe empty.
            let split = Int.random(in: 0...keys.count, using: &random)
            let halves = [keys[..<split], keys[split...]].map { half in
                _ByteArena(bytes: Array(half.joined()), ends: half.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1.count) })
            }
            for (parallelFrom, path) in [(Int.max, "one share"), (2, "merged shares")] {
                let parted = _sortByteKeys(inParts, parallelFrom: parallelFrom)
                #expect(parted == expected, "\(path), \(count) keys in \(parts.count) parts, seed \(seed)")
                #expect(_sortByteKeys(_ArenaParts(halves), parallelFrom: parallelFrom) == expected, "\(path), two parts split at \(split), seed \(seed)")
                let actual = _sortByteKeys(arena, parallelFrom: parallelFrom)
                let first = actual.indices.first { $0 < expected.count && actual[$0] != expected[$0] }
                #expect(
                    actual.count == expected.count && first == nil,
                    "\(path), \(count) keys, seed \(seed): first difference at \(first ?? -1): \(first.map { "\(keys[actual[$0]]) (\(actual[$0])) where \(keys[expected[$0]]) (\(expected[$0])) belongs" } ?? "")"
                )
            }
        }
    }

    /// Keys whose first bytes spread (sorted in buckets on every core), keys most of which
    /// share their first 20 bytes (one bucket would hold most: halves sorted and merged), and
    /// keys whose first windows are all equal, each with duplicates and proper prefixes; and
    /// spread keys enough for the buckets' counting pass to run in shares on every core.
    @Test(
        "Sorted in buckets on every core, or in halves merged, as the comparison sort does",
        arguments: ["spread", "mostly shared", "one window", "spread, 140,000 keys"])
    func parallelPaths(shape: String) {
        var random = SplitMix64(seed: 0x5EED_0081)
        let shared = (0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }
        let keys: [[UInt8]] = (0..<(shape.hasSuffix("keys") ? 140_000 : 3_000)).map { n in
            let tail = (0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...2, using: &random) }
            switch shape {
            case "spread", "spread, 140,000 keys":
                return (0..<Int.random(in: 0...18, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } + tail
            case "mostly shared": return n % 5 == 0 ? [UInt8.random(in: 0...255, using: &random)] + tail : shared + tail
            default: return shared + (n % 7 == 0 ? [] : tail)
            }
        }
        let (arena, expected) = Self.arenaAndOracle(keys)
        #expect(_sortByteKeys(arena, parallelFrom: 2) == expected, "\(shape), seed 0x5EED_0081 (fixed)")
    }

    @Test("Keys sharing a 1 MB prefix sort without deep recursion, and equal the comparison sort")
    func longSharedPrefixes() {
        var random = SplitMix64(seed: 0x5EED_0080)
        let prefix = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        // 300 keys: the prefix, then a short random tail (some empty, some equal), and a few
        // keys that stop inside the prefix.
        var keys: [[UInt8]] = (0..<300).map { _ in prefix + (0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...2, using: &random) } }
        keys += [Array(prefix.prefix(300_000)), Array(prefix.prefix(17)), [], prefix]
        keys.shuffle(using: &random)
        let (arena, expected) = Self.arenaAndOracle(keys)
        #expect(_sortByteKeys(arena) == expected, "seed 0x5EED_0080 (fixed)")
    }
}
