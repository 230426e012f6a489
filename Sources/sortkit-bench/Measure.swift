import Foundation

/// Times a closure: wall-clock and process CPU time per run; reports min and median.
struct Measurement {
    var wall: [Double] = []
    var cpu: [Double] = []
    var minimum: Double { wall.min() ?? .nan }
    var median: Double {
        let sorted = wall.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
    var medianCPU: Double {
        let sorted = cpu.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Runs `body` `runs` times; `verify` checks the last result before any number is printed.
func measure<T>(runs: Int, _ body: () -> T, verify: (T) -> String?) -> (Measurement, String?) {
    var measurement = Measurement()
    var last: T? = nil
    for _ in 0..<runs {
        let cpuStart = cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let result = body()
        measurement.wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        measurement.cpu.append((cpuSeconds() - cpuStart) * 1000)
        last = result
    }
    return (measurement, last.flatMap(verify))
}

/// Prints a table row: case, method, min and median ms, CPU ms, and ratios to the anchors.
struct Report {
    var rows: [[String]] = [["case", "rows", "method", "min ms", "median ms", "cpu ms", "vs closure", "vs Foundation"]]

    mutating func add(_ caseName: String, _ count: Int, _ method: String, _ m: Measurement, closure: Measurement?, foundation: Measurement?) {
        func ratio(_ anchor: Measurement?) -> String {
            guard let anchor, anchor.median.isFinite else { return "" }
            return String(format: "%.1f×", anchor.median / m.median)
        }
        rows.append([
            caseName, String(count), method, String(format: "%.1f", m.minimum), String(format: "%.1f", m.median),
            String(format: "%.0f", m.medianCPU), ratio(closure), ratio(foundation),
        ])
        print(rows.last!.joined(separator: " | "))
    }

    func markdown() -> String {
        var lines = ["| " + rows[0].joined(separator: " | ") + " |", "|" + String(repeating: "---|", count: rows[0].count)]
        lines += rows.dropFirst().map { "| " + $0.joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }
}
