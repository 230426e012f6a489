/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea and Flood 2014):
/// the same seed gives the same sequence on every platform, so an ``OrderedList``'s labels, a
/// benchmark's data set and a randomized test can be replayed.
///
///     var random = SplitMix64(seed: 42)
///     Int.random(in: 1...6, using: &random)   // the same die roll every run
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// The seed this generator started from.
    public let seed: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
