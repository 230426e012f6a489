import ArgumentParser
import Foundation
import OrderKeys

/// `sortkit-bench order`: rows written per operation for manual-order patterns.
struct OrderBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: "Rows written per insert or move: 64-bit labels vs full renumbering vs unbounded fractional keys.")

    @Option(help: "Operation counts, comma-separated.")
    var operations: String = "10000,100000"

    enum Pattern: String, CaseIterable {
        case front = "(a) insert at front"
        case append = "(b) append"
        case afterFirst = "(c) insert right after the first item"
        case zigzag = "(d) zig-zag between the two newest items"
        case random = "(e) random positions"
        case randomMoves = "(f) random moves on 1,000 items"
        case lastToSecond = "(g) move the last item to second place"
        case afterMiddle = "(h) insert after the original middle item"
    }

    struct Result {
        var writes: [Int] = []
        var renumberWrites: [Int] = []
        var fractionalMaxLength: Int? = nil
        var mean: Double { Double(writes.reduce(0, +)) / Double(max(writes.count, 1)) }
        var p99: Int { writes.sorted()[min(writes.count - 1, writes.count * 99 / 100)] }
        var renumberMean: Double { Double(renumberWrites.reduce(0, +)) / Double(max(renumberWrites.count, 1)) }
    }

    func run() throws {
        print("pattern | operations | labels: mean rows | p99 | max label bytes | renumber: mean rows | fractional: max key chars")
        var rows: [String] = []
        for count in operations.split(separator: ",").compactMap({ Int($0) }) {
            for pattern in Pattern.allCases {
                let result = try measure(pattern, count)
                let fractional = result.fractionalMaxLength.map(String.init) ?? "—"
                let line = "\(pattern.rawValue) | \(count) | \(String(format: "%.2f", result.mean)) | \(result.p99) | 8 | \(String(format: "%.0f", result.renumberMean)) | \(fractional)"
                print(line)
                rows.append("| " + line + " |")
            }
        }
        print("\n| pattern | operations | labels: mean rows | p99 | max label bytes | renumber: mean rows | fractional: max key chars |\n|---|---|---|---|---|---|---|")
        print(rows.joined(separator: "\n"))
    }

    /// Runs a pattern, checking after every operation that the written labels sit strictly
    /// between their neighbours, and the whole order every 1,000 operations and at the end.
    func measure(_ pattern: Pattern, _ count: Int) throws -> Result {
        var list = OrderedList<Int>(seed: 0x0DE5)
        var random = SplitMix64(seed: 0x0DE5_0001)
        var result = Result()
        var next = 0
        func newID() -> Int { defer { next += 1 }; return next }
        let base = [Pattern.randomMoves, .lastToSecond, .afterMiddle].contains(pattern) ? 1_000 : 0
        for _ in 0..<base { try list.append(newID()) }
        let middle = base / 2
        var newest: (Int, Int)? = nil
        var fractional = FractionalTracker()

        for step in 0..<count {
            let writes: [LabelWrite<Int>]
            switch pattern {
            case .front:
                let id = newID()
                writes = try list.prepend(id)
                result.renumberWrites.append(list.count)
                try fractional.insert(between: nil, and: fractional.first)
            case .append:
                writes = try list.append(newID())
                result.renumberWrites.append(1)
                try fractional.insert(between: fractional.last, and: nil)
            case .afterFirst:
                if list.count == 0 { _ = try list.append(newID()); fractional.reset(try FractionalKey.between(nil, nil)) }
                let first = list[0]
                writes = try list.insert(newID(), after: first)
                result.renumberWrites.append(list.count - 1)
                try fractional.insertAfterFirst()
            case .zigzag:
                if newest == nil {
                    let (a, b) = (newID(), newID())
                    try list.append(a); try list.append(b)
                    newest = (a, b)
                    fractional.reset(try FractionalKey.between(nil, nil))
                    fractional.zigzag = (fractional.first!, try FractionalKey.between(fractional.first, nil))
                }
                let (older, newer) = newest!
                let id = newID()
                // Insert between the two newest items, which are always adjacent.
                let (low, high) = list.label(of: older)! < list.label(of: newer)! ? (older, newer) : (newer, older)
                writes = try list.insert(id, after: low)
                _ = high
                newest = (newer, id)
                result.renumberWrites.append(list.count / 2)
                try fractional.zigzagStep()
            case .random:
                let offset = list.count == 0 ? -1 : Int.random(in: 0..<list.count, using: &random)
                let after = offset < 0 ? nil : list[offset]
                writes = try list.insert(newID(), after: after)
                result.renumberWrites.append(list.count - offset - 1)
            case .randomMoves:
                let from = Int.random(in: 0..<list.count, using: &random)
                let to = Int.random(in: 0...list.count, using: &random)
                writes = try list.move(fromOffsets: [from], toOffset: to)
                result.renumberWrites.append(abs(to - from) + 1)
            case .lastToSecond:
                writes = try list.move(fromOffsets: [list.count - 1], toOffset: 1)
                result.renumberWrites.append(list.count - 1)
            case .afterMiddle:
                writes = try list.insert(newID(), after: middle)
                result.renumberWrites.append(list.count / 2)
                if step == 0 { fractional.reset(try FractionalKey.between(nil, nil)); fractional.zigzag = (fractional.first!, try FractionalKey.between(fractional.first, nil)) }
                try fractional.insertAfterMiddle()
            }
            result.writes.append(writes.count)
            for write in writes {
                let label = write.label
                if let before = list.label(before: label), before >= label { throw ValidationError("\(pattern.rawValue): order broken at step \(step)") }
                if let after = list.label(after: label), after <= label { throw ValidationError("\(pattern.rawValue): order broken at step \(step)") }
            }
            if step % 1_000 == 999 || step == count - 1 {
                guard list.verify() else { throw ValidationError("\(pattern.rawValue): labels invalid at step \(step)") }
            }
        }
        result.fractionalMaxLength = fractional.used ? fractional.maxLength : nil
        return result
    }
}

/// Unbounded fractional keys for the patterns whose neighbours are known without an index.
struct FractionalTracker {
    var first: String? = nil
    var last: String? = nil
    var afterFirst: String? = nil
    var zigzag: (String, String)? = nil
    var maxLength = 0
    var used = false

    mutating func note(_ key: String) {
        used = true
        maxLength = max(maxLength, key.utf8.count)
    }

    mutating func reset(_ key: String) {
        first = key
        last = key
        note(key)
    }

    mutating func insert(between a: String?, and b: String?) throws {
        let key = try FractionalKey.between(a, b)
        if a == nil { first = key }
        if b == nil { last = key }
        if first == nil { first = key }
        if last == nil { last = key }
        note(key)
    }

    mutating func insertAfterFirst() throws {
        let key = try FractionalKey.between(first, afterFirst)
        afterFirst = key
        note(key)
    }

    /// Between the two newest keys, alternating which side the next one lands on.
    mutating func zigzagStep() throws {
        let (older, newer) = zigzag!
        let key = older < newer ? try FractionalKey.between(older, newer) : try FractionalKey.between(newer, older)
        zigzag = (newer, key)
        note(key)
    }

    /// Always right after the same item: the next key is between it and the previous insert.
    mutating func insertAfterMiddle() throws {
        let (anchor, bound) = zigzag!
        let key = try FractionalKey.between(anchor, bound)
        zigzag = (anchor, key)
        note(key)
    }
}
