import SortKitShared

/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea and Flood 2014):
/// the same seed gives the same sequence on every platform, so an ``OrderedList``'s labels, a
/// benchmark's data set and a randomized test can be replayed.
///
///     var random = SplitMix64(seed: 42)
///     Int.random(in: 1...6, using: &random)   // the same die roll every run
public struct SplitMix64: RandomNumberGenerator, Sendable {
    // The algorithm lives once, in SortKitShared, for the modules that can't depend on this one.
    private var generator: SortKitShared.SplitMix64
    /// The seed this generator started from.
    public let seed: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.generator = SortKitShared.SplitMix64(seed: seed)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        generator.next()
    }
}
