import Foundation
import OrderKeys

/// A repeatable generator (SplitMix64). Every randomized test takes its seed from
/// `SORTKIT_SEED` if set, else a fixed default, and prints it in every failure so a failing
/// case can be replayed with `SORTKIT_SEED=<seed> swift test --filter <test>`.
struct SeededRandom: RandomNumberGenerator {
    private var generator: SplitMix64
    var seed: UInt64 { generator.seed }

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    /// The seed from `SORTKIT_SEED`, or `defaultSeed`.
    static func fromEnvironment(default defaultSeed: UInt64) -> SeededRandom {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? defaultSeed
        return SeededRandom(seed: seed)
    }

    mutating func next() -> UInt64 { generator.next() }

    /// "seed N" for failure messages.
    var replay: String { "seed \(seed) (replay with SORTKIT_SEED=\(seed))" }

    /// A random string mixing ASCII letters in both cases, digits (some with leading zeros or
    /// long runs), spaces and punctuation, accented letters precomposed and decomposed, ß,
    /// Greek and Cyrillic in both cases, Arabic-Indic digits, emoji, and sometimes empty.
    mutating func unicodeString(maxLength: Int = 8) -> String {
        let pieces: [String] = [
            "a", "b", "A", "B", "z", "Z", "e", "E", "é", "e\u{301}", "É", "E\u{301}", "ß", "SS", "ss",
            "ς", "σ", "Σ", "ж", "Ж", "0", "1", "2", "9", "10", "007", "00", "123456789012345678901234567890",
            " ", "-", "_", ".", ":", "/", "\u{663}", "😀", "ﬁ", "İ", "ı", "\u{0}", "~", "Å", "A\u{30A}",
        ]
        let length = Int.random(in: 0...maxLength, using: &self)
        return (0..<length).map { _ in pieces.randomElement(using: &self)! }.joined()
    }

    /// A random sort value of any type, nulls included.
    mutating func sortValue() -> SortValueSample {
        switch Int.random(in: 0..<10, using: &self) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &self))
        case 2, 3: return .integer(Int64.random(in: -20...20, using: &self))
        case 4: return .integer([Int64.min, Int64.max, 9_007_199_254_740_993, -9_007_199_254_740_993].randomElement(using: &self)!)
        case 5:
            return .double(
                [Double.nan, -0.0, 0.0, 9.5, -1.25, 1e300, -.infinity, .infinity, 9_007_199_254_740_992, 9.223372036854776e18].randomElement(using: &self)!)
        case 6: return .double(Double(Int.random(in: -40...40, using: &self)) / 2)
        case 7: return .date(Date(timeIntervalSince1970: Double(Int.random(in: -5...5, using: &self)) * 86_400))
        default: return .string(unicodeString(maxLength: 4))
        }
    }
}

/// Builds sort values in tests without importing SortKit into the generator file.
enum SortValueSample {
    case null, bool(Bool), integer(Int64), double(Double), date(Date), string(String)
}
