import Foundation

/// Why one row comes before another under a sort spec — the answer to "why is Émile before
/// Emma?": for each key up to the one that decides, both rows' values, their sort keys (the
/// collation's bytes) and how they compare; or that every key ties and input order decides.
/// What `sortkit sort --debug` prints and the rows API's `explain=1` returns.
///
///     let spec = try SortSpec(parsing: "name:fold")
///     let why = spec.explain(["Émile"], ["Emma"], columnTypes: [.string])
///     why.decidingKey            // 0
///     why.description            // "key 1 'name:fold': "Émile" before "Emma" (sort keys 30656d… < 30656d…) decides"
public struct SortExplanation: Sendable, Hashable, CustomStringConvertible {
    /// One key's comparison.
    public struct Step: Sendable, Hashable, CustomStringConvertible {
        /// The spec key.
        public var key: SortSpec.Key
        /// The first row's value (transform applied).
        public var first: SortValue
        /// The second row's value.
        public var second: SortValue
        /// For an `enum=` key, each value's place in the list (the list's length for others).
        public var ranks: Places?
        /// The values' sort keys in hex (``SortValue/sortKey(collation:)``), `nil` for null.
        public var firstKey: String?
        /// The second value's sort key in hex.
        public var secondKey: String?
        /// How the first row compares to the second in the output order: direction and null
        /// placement applied, so `.orderedAscending` means the first comes first.
        public var order: ComparisonResult

        /// Two rows' places in an `enum=` list.
        public struct Places: Sendable, Hashable {
            /// The first row's place.
            public var first: Int
            /// The second row's place.
            public var second: Int
        }

        /// The comparison in words, in output order: `"Émile" before "Emma" (sort keys
        /// 65… < 65…)`; the sort keys' byte order (`<`, `=`, `>`) is shown for text.
        public var description: String {
            let relation = order == .orderedAscending ? "before" : order == .orderedDescending ? "after" : "ties with"
            var text = "\(first) \(relation) \(second)"
            if let ranks { text += " (enum places \(ranks.first), \(ranks.second))" }
            if first.isString || second.isString {
                let bytes = firstKey == secondKey ? "=" : (firstKey ?? "") < (secondKey ?? "") ? "<" : ">"
                text += " (sort keys \(Self.short(firstKey)) \(bytes) \(Self.short(secondKey)))"
            }
            return text
        }

        private static func short(_ hex: String?) -> String {
            guard let hex else { return "null" }
            return hex.count > 24 ? hex.prefix(24) + "…" : hex
        }
    }

    /// The keys compared, in spec order, up to and including the deciding one.
    public var steps: [Step]
    /// The index of the key whose comparison decides, or `nil` when every key ties (then the
    /// input order, or the row id in a store, decides: sorts are stable).
    public var decidingKey: Int?

    /// Every step in words, the deciding one marked.
    public var description: String {
        var parts = steps.enumerated().map { index, step in
            "key \(index + 1) '\(step.key)': \(step)" + (index == decidingKey ? " decides" : "")
        }
        if decidingKey == nil { parts.append("every key ties: input order decides") }
        return parts.joined(separator: "; ")
    }
}

extension SortValue {
    /// Whether the value is a string.
    package var isString: Bool {
        if case .string = self { return true }
        return false
    }
}

extension SortSpec {
    /// Explains how two rows compare under this spec. `first` and `second` hold each key's
    /// cell text, in key order; `columnTypes` each key column's type (for keys that read by
    /// type).
    ///
    ///     let spec = try SortSpec(parsing: "status:enum=todo|done,-price")
    ///     spec.explain(["todo", "9.5"], ["todo", "12"], columnTypes: [.string, .float]).decidingKey   // 1
    public func explain(_ first: [String], _ second: [String], columnTypes: [ColumnType]) -> SortExplanation {
        SortExplainer(self, columnTypes: columnTypes).explain(first, second)
    }
}

/// ``SortSpec/explain(_:_:columnTypes:)`` for many pairs under one spec: the keys'
/// comparators are made once (`sortkit sort --debug` explains every adjacent pair of a file).
///
///     let explainer = SortExplainer(try SortSpec(parsing: "-price"), columnTypes: [.float])
///     explainer.explain(["12"], ["9.5"]).decidingKey   // 0
public struct SortExplainer: Sendable {
    let spec: SortSpec
    let columnTypes: [ColumnType]
    /// Per key, its comparators over cell text.
    let comparators: [[SortKey<String>]]

    /// An explainer for `spec` over key columns of `columnTypes` (one per key).
    public init(_ spec: SortSpec, columnTypes: [ColumnType]) {
        precondition(columnTypes.count == spec.keys.count, "one type per key")
        self.spec = spec
        self.columnTypes = columnTypes
        comparators = zip(spec.keys, columnTypes).map { key, type in key.sortKeys(readingText: { $0 }, columnType: type) }
    }

    /// How two rows compare: `first` and `second` hold each key's cell text, in key order.
    public func explain(_ first: [String], _ second: [String]) -> SortExplanation {
        let keys = spec.keys
        precondition(first.count == keys.count && second.count == keys.count, "one text per key")
        var steps: [SortExplanation.Step] = []
        for (index, key) in keys.enumerated() {
            let type = columnTypes[index]
            let values = (key.sortValue(of: first[index], columnType: type), key.sortValue(of: second[index], columnType: type))
            let order = comparators[index].lazy.map { $0.compare(first[index], second[index]) }.first { $0 != .orderedSame } ?? .orderedSame
            var ranks: SortExplanation.Step.Places?
            if case .integer(let a)? = key.enumRank(of: values.0), case .integer(let b)? = key.enumRank(of: values.1) {
                ranks = .init(first: Int(a), second: Int(b))
            }
            let hex = { (value: SortValue) in value.sortKey(collation: key.collation).map(_hex) }
            steps.append(
                SortExplanation.Step(
                    key: key, first: values.0, second: values.1, ranks: ranks, firstKey: hex(values.0), secondKey: hex(values.1), order: order))
            if order != .orderedSame { return SortExplanation(steps: steps, decidingKey: index) }
        }
        return SortExplanation(steps: steps, decidingKey: nil)
    }
}

/// Bytes as lowercase hex, two digits each.
private func _hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}
