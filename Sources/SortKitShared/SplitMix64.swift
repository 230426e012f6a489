/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast, seedable random number generator
/// whose sequence is the same on every platform and run. The one implementation every module
/// uses: OrderKeys' public `SplitMix64` (labels, benchmark data, tests) wraps it, and top-k
/// draws its sample positions from it.
///
///     var random = SplitMix64(seed: 42)
///     random.next()   // the same 64 bits every run
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator starting from `seed`.
    package init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
