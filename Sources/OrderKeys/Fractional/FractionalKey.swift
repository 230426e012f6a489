/// Base-62 fractional string keys in the format of rocicorp's fractional-indexing — the same key
/// for the same neighbours — for offline-first clients that cannot ask an authority for a label.
///
///     let a = try FractionalKey.between(nil, nil)   // "a0"
///     let b = try FractionalKey.between(a, nil)     // "a1"
///     try FractionalKey.between(a, b)               // "a0V"
///     try FractionalKey.keys(3, between: a, and: b) // ["a0G", "a0V", "a0l"]
///
/// A key is an integer part — a head letter giving its length (`a`–`z`: 2–27 characters, `A`–`Z`:
/// 27–2, smaller) and base-62 digits — and a fractional part with no trailing `0`. Keys compare
/// as bytes (`<` on `String` is the same order for these ASCII keys); store them with binary /
/// "C" collation, never a locale collation, which would reorder `a` and `B`.
///
/// Keys grow by about one character per five or six inserts into the same gap. With a length
/// cap, ``insert(at:in:lengthCap:)`` re-spaces the smallest window of neighbours that makes
/// room (a local rebalance); ``between(_:_:lengthCap:)`` only reports that a key would pass the
/// cap. Everything here is iterative: the reference's recursive midpoint overflows the stack on
/// very long keys; here a 20,000-character key is fine.
public enum FractionalKey {
    static let digits: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    static let zero = "a0"
    static let smallestInteger = "A" + String(repeating: "0", count: 26)

    /// A key that sorts strictly between `a` and `b` (`nil`: no bound).
    ///
    /// - Throws: ``FractionalKeyError`` for an invalid key, `a >= b`, or keys at the end of the
    ///   key space.
    public static func between(_ a: String?, _ b: String?) throws -> String {
        if let a { try validate(a) }
        if let b { try validate(b) }
        if let a, let b, !(a < b) { throw FractionalKeyError("\(a) >= \(b)") }
        switch (a, b) {
        case (nil, nil):
            return zero
        case (nil, let b?):
            let integer = try integerPart(b)
            let fraction = Array(b.utf8.dropFirst(integer.utf8.count))
            if integer == smallestInteger { return integer + (try midpoint([], fraction)) }
            if integer < b { return integer }
            guard let decremented = decrement(integer) else { throw FractionalKeyError("cannot decrement any more") }
            return decremented
        case (let a?, nil):
            let integer = try integerPart(a)
            let fraction = Array(a.utf8.dropFirst(integer.utf8.count))
            if let incremented = increment(integer) { return incremented }
            return integer + (try midpoint(fraction, nil))
        case (let a?, let b?):
            let integerA = try integerPart(a)
            let fractionA = Array(a.utf8.dropFirst(integerA.count))
            let integerB = try integerPart(b)
            let fractionB = Array(b.utf8.dropFirst(integerB.count))
            if integerA == integerB { return integerA + (try midpoint(fractionA, fractionB)) }
            guard let incremented = increment(integerA) else { throw FractionalKeyError("cannot increment any more") }
            if incremented < b { return incremented }
            return integerA + (try midpoint(fractionA, nil))
        }
    }

    /// A key between `a` and `b`, or an error if it would be longer than `lengthCap` — the
    /// signal to re-space the neighbourhood with ``keys(_:between:and:)``.
    ///
    /// - Throws: ``FractionalKeyError/isOverCap`` when the key would exceed the cap.
    public static func between(_ a: String?, _ b: String?, lengthCap: Int) throws -> String {
        let key = try between(a, b)
        guard key.utf8.count <= lengthCap else { throw FractionalKeyError.overCap(lengthCap) }
        return key
    }

    /// `count` keys in order, strictly between `a` and `b`, as short as the gap allows: the same
    /// keys the reference's `generateNKeysBetween` gives (midpoint first, then each half),
    /// computed with an explicit work list instead of recursion.
    ///
    /// - Throws: ``FractionalKeyError`` for an invalid key or `a >= b`, whatever `count` is
    ///   (zero keys included: bounds out of order are a bug to report, not an empty gap).
    public static func keys(_ count: Int, between a: String?, and b: String?) throws -> [String] {
        precondition(count >= 0, "count must not be negative")
        if let a { try validate(a) }
        if let b { try validate(b) }
        if let a, let b, !(a < b) { throw FractionalKeyError("\(a) >= \(b)") }
        var result = [String](repeating: "", count: count)
        var work: [(low: String?, high: String?, start: Int, count: Int)] = [(a, b, 0, count)]
        while let (low, high, start, n) = work.popLast() {
            switch n {
            case 0:
                continue
            case 1:
                result[start] = try between(low, high)
            case _ where high == nil:
                var key = try between(low, nil)
                result[start] = key
                for i in 1..<n {
                    key = try between(key, nil)
                    result[start + i] = key
                }
            case _ where low == nil:
                var key = try between(nil, high)
                result[start + n - 1] = key
                for i in 1..<n {
                    key = try between(nil, key)
                    result[start + n - 1 - i] = key
                }
            default:
                let middle = n / 2
                let key = try between(low, high)
                result[start + middle] = key
                work.append((low, key, start, middle))
                work.append((key, high, start + middle + 1, n - middle - 1))
            }
        }
        return result
    }

    /// A key for a new item at `index` in `keys` (sorted), no longer than `lengthCap`: between
    /// its neighbours if that key fits, otherwise found by re-spacing the smallest window of
    /// neighbours (1, 2, 4, … on each side) whose fresh, evenly spread keys all fit — a local
    /// rebalance that rewrites only that window.
    ///
    ///     let result = try FractionalKey.insert(at: 1, in: keys, lengthCap: 10)
    ///     // result.key for the new item; result.rewrites: [(index in keys, new key)]
    ///
    /// - Throws: ``FractionalKeyError`` if even the whole list re-spaced can't fit the cap.
    public static func insert(at index: Int, in keys: [String], lengthCap: Int) throws
        -> (key: String, rewrites: [(index: Int, key: String)])
    {
        precondition(index >= 0 && index <= keys.count, "index out of range")
        let key = try between(index > 0 ? keys[index - 1] : nil, index < keys.count ? keys[index] : nil)
        if key.utf8.count <= lengthCap { return (key, []) }
        var radius = 1
        while true {
            let low = Swift.max(0, index - radius)
            let high = Swift.min(keys.count, index + radius)
            let fresh = try Self.keys(high - low + 1, between: low > 0 ? keys[low - 1] : nil, and: high < keys.count ? keys[high] : nil)
            if fresh.allSatisfy({ $0.utf8.count <= lengthCap }) {
                let position = index - low
                var rewrites: [(index: Int, key: String)] = []
                for (offset, i) in (low..<high).enumerated() {
                    let replacement = fresh[offset < position ? offset : offset + 1]
                    if replacement != keys[i] { rewrites.append((i, replacement)) }
                }
                return (fresh[position], rewrites)
            }
            if low == 0 && high == keys.count { throw FractionalKeyError.overCap(lengthCap) }
            radius *= 2
        }
    }

    // MARK: The reference's algorithm, iteratively

    /// A fractional part strictly between `a` and `b` (`nil`: no upper bound).
    static func midpoint(_ a: [UInt8], _ b: [UInt8]?) throws -> String {
        if let b, !a.lexicographicallyPrecedes(b) { throw FractionalKeyError("\(String(decoding: a, as: UTF8.self)) >= \(String(decoding: b, as: UTF8.self))") }
        if a.last == UInt8(ascii: "0") || b?.last == UInt8(ascii: "0") { throw FractionalKeyError("trailing zero") }
        var result: [UInt8] = []
        var a = a[...]
        var b = b?[...]
        while true {
            if let upper = b {
                // The common prefix, reading a missing digit of `a` as "0".
                var n = 0
                while n < upper.count, (n < a.count ? a[a.startIndex + n] : UInt8(ascii: "0")) == upper[upper.startIndex + n] { n += 1 }
                if n > 0 {
                    result += upper.prefix(n)
                    a = a.dropFirst(n)
                    b = upper.dropFirst(n)
                }
            }
            let digitA = a.first.map(index(of:)) ?? 0
            let digitB = b.flatMap { $0.first }.map(index(of:)) ?? digits.count
            if digitB - digitA > 1 {
                result.append(digits[(digitA + digitB + 1) / 2])
                return String(decoding: result, as: UTF8.self)
            }
            if let upper = b, upper.count > 1 {
                result.append(upper.first!)
                return String(decoding: result, as: UTF8.self)
            }
            result.append(digits[digitA])
            a = a.dropFirst()
            b = nil
        }
    }

    static func index(of digit: UInt8) -> Int {
        digits.firstIndex(of: digit)!
    }

    static func integerLength(_ head: UInt8) throws -> Int {
        switch head {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(head - UInt8(ascii: "a")) + 2
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(UInt8(ascii: "Z") - head) + 2
        default: throw FractionalKeyError("invalid order key head: \(Character(Unicode.Scalar(head)))")
        }
    }

    static func integerPart(_ key: String) throws -> String {
        let length = try integerLength(key.utf8.first ?? 0)
        guard length <= key.utf8.count else { throw FractionalKeyError("invalid order key: \(key)") }
        return String(key.utf8.prefix(length))!
    }

    static func validate(_ key: String) throws {
        guard key != smallestInteger else { throw FractionalKeyError("invalid order key: \(key)") }
        guard key.utf8.allSatisfy({ digits.contains($0) }) else { throw FractionalKeyError("invalid order key: \(key)") }
        let integer = try integerPart(key)
        if key.utf8.count > integer.utf8.count, key.utf8.last == UInt8(ascii: "0") {
            throw FractionalKeyError("invalid order key: \(key)")
        }
    }

    static func increment(_ integer: String) -> String? {
        var bytes = Array(integer.utf8)
        let head = bytes.removeFirst()
        for i in bytes.indices.reversed() {
            let digit = index(of: bytes[i]) + 1
            if digit == digits.count {
                bytes[i] = UInt8(ascii: "0")
                continue
            }
            bytes[i] = digits[digit]
            return String(decoding: [head] + bytes, as: UTF8.self)
        }
        if head == UInt8(ascii: "Z") { return zero }
        if head == UInt8(ascii: "z") { return nil }
        let next = head + 1
        if next > UInt8(ascii: "a") { bytes.append(UInt8(ascii: "0")) } else { bytes.removeLast() }
        return String(decoding: [next] + bytes, as: UTF8.self)
    }

    static func decrement(_ integer: String) -> String? {
        var bytes = Array(integer.utf8)
        let head = bytes.removeFirst()
        for i in bytes.indices.reversed() {
            let digit = index(of: bytes[i]) - 1
            if digit == -1 {
                bytes[i] = digits.last!
                continue
            }
            bytes[i] = digits[digit]
            return String(decoding: [head] + bytes, as: UTF8.self)
        }
        if head == UInt8(ascii: "a") { return "Z" + String(decoding: [digits.last!], as: UTF8.self) }
        if head == UInt8(ascii: "A") { return nil }
        let previous = head - 1
        if previous < UInt8(ascii: "Z") { bytes.append(digits.last!) } else { bytes.removeLast() }
        return String(decoding: [previous] + bytes, as: UTF8.self)
    }
}

/// A fractional key that can't be made: an invalid key, bounds out of order, the end of the key
/// space, or a key over its length cap.
public struct FractionalKeyError: Error, Hashable, CustomStringConvertible {
    /// The reference's message for the same failure, or the cap that was passed.
    public let description: String
    /// Whether the key would have passed its length cap (re-space the neighbours).
    public let isOverCap: Bool

    init(_ description: String, isOverCap: Bool = false) {
        self.description = description
        self.isOverCap = isOverCap
    }

    static func overCap(_ cap: Int) -> FractionalKeyError {
        FractionalKeyError("the key would be longer than \(cap) characters: re-space its neighbours", isOverCap: true)
    }
}
