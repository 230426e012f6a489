/// How column widths (in terminal cells) are computed from the data — the strategies of
/// SwiftDataTables, measured on display text.
public enum ColumnWidthStrategy: Sendable, Hashable {
    /// The mean width over every row (rounded up): cheap, narrow for long-tailed text.
    case estimatedAverage
    /// The larger of the mean over every row and the widest of `sampleSize` evenly spaced rows.
    case hybrid(sampleSize: Int)
    /// The widest of `sampleSize` evenly spaced rows.
    case sampledMax(sampleSize: Int)
    /// The widest row: exact, reads every row.
    case maxMeasured
    /// The `p`-th percentile (0–100) of `sampleSize` evenly spaced rows.
    case percentile(Double, sampleSize: Int)
    /// The same width for every column.
    case fixed(Int)

    /// Parses the CLI's spelling: `average`, `hybrid[:N]`, `sampled[:N]`, `max`,
    /// `percentile:P[:N]`, `fixed:W`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":").map(String.init)
        let number = { (index: Int, fallback: Int) -> Int? in parts.count > index ? Int(parts[index]) : fallback }
        switch parts.first {
        case "average": self = .estimatedAverage
        case "hybrid": guard let n = number(1, 100) else { return nil }; self = .hybrid(sampleSize: n)
        case "sampled": guard let n = number(1, 100) else { return nil }; self = .sampledMax(sampleSize: n)
        case "max": self = .maxMeasured
        case "percentile":
            guard parts.count > 1, let p = Double(parts[1]), (0...100).contains(p), let n = number(2, 1_000) else { return nil }
            self = .percentile(p, sampleSize: n)
        case "fixed": guard parts.count > 1, let w = Int(parts[1]), w > 0 else { return nil }; self = .fixed(w)
        default: return nil
        }
    }
}

/// Column widths for a table: a strategy, per-column overrides, and clamps. The header — with
/// room for its sort indicator — always fits, even over the maximum.
public struct ColumnWidthOptions: Sendable, Hashable {
    /// The strategy for columns without an override.
    public var strategy: ColumnWidthStrategy
    /// The narrowest a column gets.
    public var minimum: Int
    /// The widest a column's data makes it (the header can exceed it).
    public var maximum: Int

    /// Options; by default the widest of 100 sampled rows, between 3 and 40 cells.
    public init(strategy: ColumnWidthStrategy = .sampledMax(sampleSize: 100), minimum: Int = 3, maximum: Int = 40) {
        self.strategy = strategy
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }
}

extension ColumnWidthStrategy {
    /// A column's data width from what was measured of its shown rows (``_WidthStats``).
    func measure(_ stats: _WidthStats) -> Int {
        let mean = stats.count == 0 ? 0 : Int((Double(stats.sum) / Double(stats.count)).rounded(.up))
        switch self {
        case .estimatedAverage: return mean
        case .hybrid: return max(mean, stats.sample.max() ?? 0)
        case .sampledMax: return stats.sample.max() ?? 0
        case .maxMeasured: return stats.max
        case .percentile(let p, _):
            let widths = stats.sample.sorted()
            guard !widths.isEmpty else { return 0 }
            return widths[min(widths.count - 1, Int((p / 100 * Double(widths.count - 1)).rounded(.up)))]
        case .fixed(let cells): return cells
        }
    }

    /// How many evenly spaced rows the strategy samples (0: none).
    var sampleSize: Int {
        switch self {
        case .hybrid(let size), .sampledMax(let size), .percentile(_, let size): max(0, size)
        case .estimatedAverage, .maxMeasured, .fixed: 0
        }
    }

    /// Whether the strategy reads every row (a mean or a maximum).
    var readsEveryRow: Bool {
        switch self {
        case .estimatedAverage, .hybrid, .maxMeasured: true
        case .sampledMax, .percentile, .fixed: false
        }
    }

    /// Which of `count` shown rows, numbered in data order, a sample of `size` reads: all of
    /// them when there are no more than `size`, else `size` evenly spaced.
    static func samplePlaces(count: Int, size: Int) -> [Int] {
        guard count > size, size > 0 else { return Array(0..<count) }
        return (0..<size).map { $0 * count / size }
    }
}

/// What a width strategy reads of a column's shown rows: their count, the sum and the largest
/// of their widths, and the widths of the sampled rows. Samples are taken in data order, not
/// display order, so columns keep their widths when the sort changes.
struct _WidthStats {
    var count = 0
    var sum = 0
    var max = 0
    var sample: [Int] = []
}

extension DataTable {
    /// Each column's width in terminal cells for the displayed rows.
    ///
    /// Sampling strategies read rows evenly spaced in data order among the shown ones, so a
    /// new sort doesn't change the widths (a new search may).
    public func columnWidths(_ options: ColumnWidthOptions = ColumnWidthOptions()) -> [Int] {
        let strategy = options.strategy
        let widths = cellWidths, stride = columns.count
        let shown = displayedPositions
        // The sampled rows: evenly spaced among the shown rows in data order.
        var sampled: [Int] = []
        let size = strategy.sampleSize
        if size > 0 {
            if shown.count <= size {
                sampled = shown
            } else if shown.count == rows.count {
                sampled = ColumnWidthStrategy.samplePlaces(count: rows.count, size: size)
            } else {
                var isShown = [Bool](repeating: false, count: rows.count)
                for position in shown { isShown[position] = true }
                let places = ColumnWidthStrategy.samplePlaces(count: shown.count, size: size)
                var next = 0, seen = 0
                for position in isShown.indices where isShown[position] {
                    while next < places.count, places[next] == seen {
                        sampled.append(position)
                        next += 1
                    }
                    seen += 1
                }
            }
        }
        return columns.indices.map { column in
            let header = TerminalWidth.of(columns[column].header) + (sortIndicator(for: column) == .hidden ? 0 : 2)
            if let fixed = columns[column].width { return max(fixed, header) }
            var stats = _WidthStats(count: shown.count)
            stats.sample = sampled.map { Int(widths[$0 * stride + column]) }
            if strategy.readsEveryRow {
                for position in shown {
                    let width = Int(widths[position * stride + column])
                    stats.sum += width
                    stats.max = Swift.max(stats.max, width)
                }
            }
            return options.clamped(strategy.measure(stats), header: header)
        }
    }
}

extension ColumnWidthOptions {
    /// A data width between the minimum and the maximum, widened to fit the header.
    func clamped(_ data: Int, header: Int) -> Int {
        max(min(max(data, minimum), maximum), header)
    }
}
