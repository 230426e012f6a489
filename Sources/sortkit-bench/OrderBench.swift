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

    @Option(help: "Patterns to run, as letters (for example 'c,e'); all by default.")
    var patterns: String = "a,b,c,d,e,f,g,h"

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
            let letters = Set(patterns.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
            for pattern in Pattern.allCases where letters.contains(String(pattern.rawValue.dropFirst().prefix(1))) {
                let result = try measure(pattern, count)
                let fractional = result.fractionalMaxLength.map(String.init) ?? "—"
                let line =
                    "\(pattern.rawValue) | \(count) | \(String(format: "%.2f", result.mean)) | \(result.p99) | 8 | \(String(format: "%.0f", result.renumberMean)) | \(fractional)"
                print(line)
                rows.append("| " + line + " |")
            }
        }
        print(
            "\n| pattern | operations | labels: mean rows | p99 | max label bytes | renumber: mean rows | fractional: max key chars |\n|---|---|---|---|---|---|---|"
        )
        print(rows.joined(separator: "\n"))
    }

    /// Runs a pattern, checking after every operation that the written labels sit strictly
    /// between their neighbours, and all labels every 1,000 operations and at the end. The
    /// fractional baseline gives each inserted or moved item a key between its neighbours' keys;
    /// their whole order is checked at the end.
    func measure(_ pattern: Pattern, _ count: Int) throws -> Result {
        var list = OrderedList<Int>(seed: 0x0DE5)
        var random = SplitMix64(seed: 0x0DE5_0001)
        var result = Result()
        var keys: [Int: String] = [:]
        var maxKey = 0
        var next = 0
        func place(_ id: Int) throws {
            let (before, after) = list.neighbours(of: id)!
            let key = try FractionalKey.between(before.map { keys[$0]! }, after.map { keys[$0]! })
            keys[id] = key
            maxKey = max(maxKey, key.utf8.count)
        }
        func add(after predecessor: Int?) throws -> [LabelWrite<Int>] {
            let id = next
            next += 1
            let writes = try list.insert(id, after: predecessor)
            try place(id)
            return writes
        }
        let base = [Pattern.randomMoves, .lastToSecond, .afterMiddle].contains(pattern) ? 1_000 : 0
        for _ in 0..<base { _ = try add(after: list.count == 0 ? nil : list[list.count - 1]) }
        let middle = base / 2
        var newest: (Int, Int)? = nil

        for step in 0..<count {
            var writes: [LabelWrite<Int>]
            switch pattern {
            case .front:
                writes = try add(after: nil)
                result.renumberWrites.append(list.count)
            case .append:
                writes = try add(after: list.count == 0 ? nil : list[list.count - 1])
                result.renumberWrites.append(1)
            case .afterFirst:
                if list.count == 0 { _ = try add(after: nil) }
                writes = try add(after: list[0])
                result.renumberWrites.append(list.count - 1)
            case .zigzag:
                if newest == nil {
                    let a = next
                    _ = try add(after: nil)
                    _ = try add(after: a)
                    newest = (a, a + 1)
                }
                // Between the two newest items, which are always adjacent.
                let (older, newer) = newest!
                let low = list.label(of: older)! < list.label(of: newer)! ? older : newer
                let id = next
                writes = try add(after: low)
                newest = (newer, id)
                result.renumberWrites.append(list.count / 2)
            case .random:
                let offset = list.count == 0 ? -1 : Int.random(in: 0..<list.count, using: &random)
                writes = try add(after: offset < 0 ? nil : list[offset])
                result.renumberWrites.append(list.count - offset - 1)
            case .randomMoves:
                let from = Int.random(in: 0..<list.count, using: &random)
                let to = Int.random(in: 0...list.count, using: &random)
                let id = list[from]
                writes = try list.move(fromOffsets: [from], toOffset: to)
                if !writes.isEmpty { try place(id) }
                result.renumberWrites.append(abs(to - from) + 1)
            case .lastToSecond:
                let id = list[list.count - 1]
                writes = try list.move(fromOffsets: [list.count - 1], toOffset: 1)
                try place(id)
                result.renumberWrites.append(list.count - 1)
            case .afterMiddle:
                writes = try add(after: middle)
                result.renumberWrites.append(list.count / 2)
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
            if step == count - 1 {
                let ordered = list.ids.map { keys[$0]! }
                guard zip(ordered, ordered.dropFirst()).allSatisfy({ Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) else {
                    throw ValidationError("\(pattern.rawValue): fractional keys out of order at step \(step)")
                }
            }
        }
        result.fractionalMaxLength = maxKey
        return result
    }
}
