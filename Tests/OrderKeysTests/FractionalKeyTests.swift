import Foundation
import Testing

@testable import OrderKeys

struct Vectors: Decodable {
    struct Between: Decodable { var a: String?; var b: String?; var key: String?; var error: String? }
    struct NBetween: Decodable { var a: String?; var b: String?; var n: Int; var keys: [String] }
    var reference: String
    var between: [Between]
    var nBetween: [NBetween]

    static let shared: Vectors = {
        let url = Bundle.module.url(forResource: "fractional-indexing", withExtension: "json", subdirectory: "Vectors")!
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()
}

@Suite("Fractional keys (rocicorp format)")
struct FractionalKeyTests {
    @Test("Every reference vector: the same key, or an error where the reference has one")
    func referenceVectors() throws {
        let vectors = Vectors.shared
        #expect(vectors.between.count > 1_000)
        for vector in vectors.between {
            let result = Result { try FractionalKey.between(vector.a, vector.b) }
            switch (result, vector.key) {
            case (.success(let key), let expected?):
                #expect(key == expected, "between(\(vector.a ?? "nil"), \(vector.b ?? "nil"))")
            case (.failure(let error), nil):
                #expect("\(error)" == vector.error, "between(\(vector.a ?? "nil"), \(vector.b ?? "nil"))")
            case (.success(let key), nil):
                Issue.record("between(\(vector.a ?? "nil"), \(vector.b ?? "nil")) gave \(key); the reference says \(vector.error ?? "")")
            case (.failure(let error), let expected?):
                Issue.record("between(\(vector.a ?? "nil"), \(vector.b ?? "nil")) threw \(error); the reference gives \(expected)")
            }
        }
        for vector in vectors.nBetween {
            #expect(try FractionalKey.keys(vector.n, between: vector.a, and: vector.b) == vector.keys)
        }
    }

    @Test("Keys sort as bytes between their bounds on random walks")
    func randomWalk() throws {
        var random = TestRandom(default: 0x5EED_0101)
        var keys = [try FractionalKey.between(nil, nil)]
        for _ in 0..<3_000 {
            let i = Int.random(in: -1..<keys.count, using: &random)
            let a = i >= 0 ? keys[i] : nil
            let b = i + 1 < keys.count ? keys[i + 1] : nil
            let key = try FractionalKey.between(a, b)
            if let a { #expect(Array(a.utf8).lexicographicallyPrecedes(Array(key.utf8)), "\(random.replay)") }
            if let b { #expect(Array(key.utf8).lexicographicallyPrecedes(Array(b.utf8)), "\(random.replay)") }
            keys.insert(key, at: i + 1)
        }
    }

    @Test("keys(_:between:and:) checks its bounds even for zero keys (found by fuzz-fractional)")
    func keysCheckBounds() throws {
        #expect(throws: FractionalKeyError.self) { try FractionalKey.keys(0, between: "a1", and: "a0") }
        #expect(throws: FractionalKeyError.self) { try FractionalKey.keys(0, between: "\n", and: nil) }
        #expect(try FractionalKey.keys(0, between: "a0", and: "a1") == [])
    }

    @Test("A 20,000-character key does not overflow the stack")
    func longKeys() throws {
        let long = "a0" + String(repeating: "V", count: 20_000) + "1"
        let after = try FractionalKey.between(long, "a1")
        let before = try FractionalKey.between("a0", long)
        #expect(before < long && long < after)
        let inner = try FractionalKey.between(long, long + "1")
        #expect(long < inner && inner < long + "1")
    }

    @Test("A length cap rebalances a small window, and the order holds")
    func localRebalance() throws {
        var random = TestRandom(default: 0x5EED_0102)
        var keys = try FractionalKey.keys(20, between: nil, and: nil)
        var rewritten = 0
        for _ in 0..<2_000 {
            // Mostly right after the first key: the pattern that grows keys fastest.
            let index = Bool.random(using: &random) ? 1 : Int.random(in: 0...keys.count, using: &random)
            let (key, rewrites) = try FractionalKey.insert(at: index, in: keys, lengthCap: 6)
            for rewrite in rewrites { keys[rewrite.index] = rewrite.key }
            keys.insert(key, at: index)
            rewritten += rewrites.count
            #expect(keys.allSatisfy { $0.count <= 6 }, "\(random.replay)")
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(rewritten < 2_000 * 20, "a rebalance rewrites a window, not the list: \(rewritten) rewrites")
    }

    @Test("A length cap signals a rebalance, and re-spaced keys are short")
    func lengthCap() throws {
        var key = try FractionalKey.between(nil, nil)
        let upper = try FractionalKey.between(key, nil)
        var capped = false
        for _ in 0..<200 {
            do {
                key = try FractionalKey.between(key, upper, lengthCap: 12)
            } catch let error as FractionalKeyError where error.isOverCap {
                capped = true
                break
            }
        }
        #expect(capped)
        let respaced = try FractionalKey.keys(50, between: "a0", and: upper)
        #expect(respaced.allSatisfy { $0.count <= 4 } && respaced == respaced.sorted())
    }
}
