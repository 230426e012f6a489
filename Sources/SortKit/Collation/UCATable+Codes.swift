import Foundation

// A table's codes: the dense codes its weights are written in, and the compact codes of a
// file sort's primaries-only keys.

extension _UCATable {
    /// The compact codes of primaries `1...count`: those in `single` (the table's ASCII
    /// letters, digits and space: most of a title's letters) take one byte, the others two —
    /// a lead byte of their own, then 254 values — with every byte above the bytes of the
    /// codes below: the order of keys and their equality are the standard bytes' (two bytes a
    /// primary, ``primaryBytes(_:)``), in half the bytes for Latin text. Leads that a trail
    /// follows (`leads`, and each element's before a trail in `pool`) are marked, since the
    /// trail's three bytes stay as they are. Empty if the bytes don't fit in 2...255, if such a
    /// lead is ever without its trail, or if a trail follows a trail (a number's digits under
    /// `numeric`, whose keys are never compact).
    static func compactCodes(count: Int, single: Set<UInt32>, pool: [Element], leads: [UInt32]) -> [UInt32] {
        guard count > 0, count < 1 << 16 else { return [] }
        var codes = [UInt32](repeating: 0, count: count + 1)
        var next: UInt32 = 2, code = 1
        for stop in single.filter({ $0 <= count }).sorted().map(Int.init) + [count + 1] {
            while code < stop {
                // A lead byte for up to 254 codes below the next single one.
                let lead = next
                next += 1
                for trail in 0..<UInt32(254) where code < stop {
                    codes[code] = 2 << 16 | lead << 8 | (trail + 2)
                    code += 1
                }
            }
            guard next <= 256 else { return [] }
            if stop <= count {
                codes[stop] = 1 << 16 | next << 8
                next += 1
                code = stop + 1
            }
        }
        guard next <= 256 else { return [] }
        // The primaries of the pool in order (elements without one weigh nothing at this level):
        // a lead is the primary before a trail, and a lead must always have one trail next.
        let primaries = pool.map { UInt32($0 >> 32) }.filter { $0 != 0 }
        func isTrail(_ p: UInt32) -> Bool { p & trailFlag != 0 }
        for lead in leads where lead <= count { codes[Int(lead)] |= followedByTrail }
        for index in primaries.indices where isTrail(primaries[index]) {
            guard index > 0, !isTrail(primaries[index - 1]), primaries[index - 1] <= count else { return [] }
            codes[Int(primaries[index - 1])] |= followedByTrail
        }
        for index in primaries.indices where !isTrail(primaries[index]) && primaries[index] <= count {
            guard codes[Int(primaries[index])] & followedByTrail != 0 else { continue }
            if index + 1 == primaries.count || !isTrail(primaries[index + 1]) { return [] }
        }
        return codes
    }

    /// The bytes of a compact code (``compactCodes``): one or two.
    @inline(__always)
    static func compactBytes(_ code: UInt32) -> (bytes: (UInt8, UInt8), count: Int) {
        let lead = UInt8(truncatingIfNeeded: code >> 8)
        return code >> 16 & 3 == 2 ? ((lead, UInt8(truncatingIfNeeded: code)), 2) : ((lead, 0), 1)
    }
}

/// A table's weights renumbered as dense codes: each level's weights in order, so that a key
/// spends 2 bytes on a primary (3 on an implicit trail) and 1 on a secondary or tertiary where
/// a table has at most 253 of them — a third of the bytes of the spaced weights. A weight's
/// code is 1 + how many of the table's weights are below it, counted in bitmaps (no sets to
/// sort: making a table's codes took 7.5 ms with them).
struct _UCACodes: Sendable {
    /// The pool's elements as codes.
    let pool: [_UCATable.Element]
    let numberPrimary: UInt32
    let implicitLeads: [UInt32]
    let implicitLevels: (UInt16, UInt16)
    let wideSecondaries: Bool
    let wideTertiaries: Bool
    /// The code of the last variable primary (spaces and punctuation), 0 if none is.
    let lastVariable: UInt32
    /// How many primary codes there are (they are `1...primaryCount`).
    let primaryCount: Int

    /// `spaced`: the pool's elements as spaced weights; `zero`: the digit zero's first element.
    init(pool spaced: [_UCATable.Element], zero: _UCATable.Element, data: _UCATable.Decoded, reorder: [UInt32]?, caseFirstUpper: Bool) {
        let trailFlag = _UCATable.trailFlag
        let numberPrimary = (UInt32(zero >> 32) >> 8) << 8 | 1
        let leads = (0..<256).map { k -> UInt32 in
            let rank = UInt32(data.fbRank + k)
            return (reorder.map { $0[Int(rank)] } ?? rank) << 8 | 128
        }
        let commonSecondary = UInt16(0x20 * 128 + 64)
        let commonTertiary = UInt16(0x02 * 128 + 64) + (caseFirstUpper ? _UCATable.caseLowerOffset : 0)
        // Primaries are below the trail flag (2^23); secondaries and tertiaries are 16 bits.
        var primaries = _WeightBitmap(bits: Int(trailFlag)), secondaries = _WeightBitmap(bits: 1 << 16)
        var tertiaries = _WeightBitmap(bits: 1 << 16)
        for lead in leads { primaries.insert(Int(lead)) }
        primaries.insert(Int(numberPrimary))
        secondaries.insert(Int(commonSecondary))
        tertiaries.insert(Int(commonTertiary))
        for element in spaced {
            let p = UInt32(element >> 32), s = UInt16(truncatingIfNeeded: element >> 16), t = UInt16(truncatingIfNeeded: element)
            if p != 0 && p & trailFlag == 0 { primaries.insert(Int(p)) }
            if s != 0 { secondaries.insert(Int(s)) }
            if t != 0 { tertiaries.insert(Int(t)) }
        }
        primaries.count()
        secondaries.count()
        tertiaries.count()
        precondition(primaries.total < 64_516, "more primaries than two key bytes hold")
        lastVariable = UInt32(primaries.below(min(Int(trailFlag), data.lastVariable + 1)))
        pool = spaced.map { element in
            let p = UInt32(element >> 32), s = UInt16(truncatingIfNeeded: element >> 16), t = UInt16(truncatingIfNeeded: element)
            let codedP = p == 0 || p & trailFlag != 0 ? p : primaries.code(Int(p))
            return UInt64(codedP) << 32 | UInt64(s == 0 ? 0 : secondaries.code(Int(s))) << 16 | UInt64(t == 0 ? 0 : tertiaries.code(Int(t)))
        }
        self.numberPrimary = primaries.code(Int(numberPrimary))
        implicitLeads = leads.map { primaries.code(Int($0)) }
        implicitLevels = (UInt16(secondaries.code(Int(commonSecondary))), UInt16(tertiaries.code(Int(commonTertiary))))
        wideSecondaries = secondaries.total > 253
        primaryCount = primaries.total
        wideTertiaries = tertiaries.total > 253
    }
}

/// A set of weights below `bits` as a bitmap, with each word's count of the weights before it
/// (after ``count()``): a weight's rank is a load and a population count.
private struct _WeightBitmap {
    private var words: [UInt64]
    private var before: [UInt32] = []
    /// How many weights the set holds (after ``count()``).
    private(set) var total = 0

    init(bits: Int) { words = [UInt64](repeating: 0, count: (bits + 63) / 64) }

    mutating func insert(_ weight: Int) { words[weight >> 6] |= 1 << UInt64(weight & 63) }

    /// Counts the weights before each word.
    mutating func count() {
        before = [UInt32](repeating: 0, count: words.count)
        var sum = 0
        for (index, word) in words.enumerated() {
            before[index] = UInt32(sum)
            sum += word.nonzeroBitCount
        }
        total = sum
    }

    /// How many of the weights are below `weight`.
    func below(_ weight: Int) -> Int {
        guard weight < words.count * 64 else { return total }
        return Int(before[weight >> 6]) + (words[weight >> 6] & ((1 << UInt64(weight & 63)) - 1)).nonzeroBitCount
    }

    /// The code of `weight`, a member: 1 + how many weights are below it.
    func code(_ weight: Int) -> UInt32 { UInt32(below(weight) + 1) }
}
