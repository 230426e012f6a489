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

extension DataTable {
    /// Each column's width in terminal cells for the displayed rows.
    public func columnWidths(_ options: ColumnWidthOptions = ColumnWidthOptions()) -> [Int] {
        columns.indices.map { column in
            let header = TerminalWidth.of(columns[column].header) + (sortIndicator(for: column) == .hidden ? 0 : 2)
            if let fixed = columns[column].width { return max(fixed, header) }
            let data = measure(column, options.strategy)
            return max(min(max(data, options.minimum), options.maximum), header)
        }
    }

    private func measure(_ column: Int, _ strategy: ColumnWidthStrategy) -> Int {
        let positions = displayedPositions
        let widths = cellWidths, stride = columns.count
        func width(_ position: Int) -> Int { Int(widths[position * stride + column]) }
        func sample(_ size: Int) -> [Int] {
            guard positions.count > size, size > 0 else { return positions.map(width) }
            return (0..<size).map { width(positions[$0 * positions.count / size]) }
        }
        func mean() -> Int {
            positions.isEmpty ? 0 : Int((Double(positions.reduce(0) { $0 + width($1) }) / Double(positions.count)).rounded(.up))
        }
        switch strategy {
        case .estimatedAverage: return mean()
        case .hybrid(let size): return max(mean(), sample(size).max() ?? 0)
        case .sampledMax(let size): return sample(size).max() ?? 0
        case .maxMeasured: return positions.map(width).max() ?? 0
        case .percentile(let p, let size):
            let widths = sample(size).sorted()
            guard !widths.isEmpty else { return 0 }
            return widths[min(widths.count - 1, Int((p / 100 * Double(widths.count - 1)).rounded(.up)))]
        case .fixed(let cells): return cells
        }
    }
}
