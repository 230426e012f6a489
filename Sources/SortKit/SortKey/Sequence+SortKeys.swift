import Foundation

extension Sequence {
    /// Returns the elements sorted by a list of keys. Stable: elements that tie on every key
    /// keep their order, in both directions.
    ///
    ///     let books = [Book("Dune", price: 9), Book("Emma", price: nil), Book("Ulysses", price: 9)]
    ///     books.sorted(by: [SortKey(\.price, .descending)]).map(\.title)
    ///     // ["Dune", "Ulysses", "Emma"]: ties in input order, nulls last
    ///
    /// - Parameter keys: The keys, most significant first. No keys keeps the input order.
    /// - Returns: The sorted elements.
    /// - Complexity: O(*n* log *n*) comparisons. Value keys are evaluated once per element,
    ///   strings turned into collation keys once; comparator keys are called per comparison.
    public func sorted(by keys: [SortKey<Element>]) -> [Element] {
        let rows = Array(self)
        return rows.sortedIndices(by: keys).map { rows[$0] }
    }
}

extension RandomAccessCollection where Index == Int {
    /// Returns the positions of the elements in sorted order, without moving them. Stable.
    ///
    ///     ["b", "a", "B"].sortedIndices(by: [SortKey(\.self, collation: .caseInsensitive)])
    ///     // [1, 2, 0]: "a", then "B" before "b" by the binary tie-break
    ///
    /// - Complexity: O(*n* log *n*) comparisons.
    public func sortedIndices(by keys: [SortKey<Element>]) -> [Int] {
        var order = Array(indices)
        guard !keys.isEmpty, count > 1 else { return order }
        let plan = _DecoratedSort(rows: self, keys: keys)
        order.sort { plan.compare($0, $1) == .orderedAscending }
        return order
    }
}

extension MutableCollection where Self: RandomAccessCollection, Index == Int {
    /// Sorts the collection in place by a list of keys. Stable.
    ///
    ///     var names = ["file10", "file2", "File1"]
    ///     names.sort(by: [SortKey(\.self)])   // ["File1", "file2", "file10"]
    public mutating func sort(by keys: [SortKey<Element>]) {
        let sorted = sortedIndices(by: keys).map { self[$0] }
        for (index, element) in zip(indices, sorted) { self[index] = element }
    }
}

/// The reference sort path: every value key evaluated once per row and every string turned
/// into its collation key once, then positions sorted with the position as the last
/// tie-breaker, which makes any sort algorithm stable.
internal struct _DecoratedSort<Rows: RandomAccessCollection> where Rows.Index == Int {
    private enum Column {
        case values([SortValue], stringKeys: [[UInt8]])
        case comparator
    }

    private let rows: Rows
    private let keys: [SortKey<Rows.Element>]
    private let columns: [Column]

    init(rows: Rows, keys: [SortKey<Rows.Element>]) {
        self.rows = rows
        self.keys = keys
        self.columns = keys.map { key in
            guard case .value(let extract) = key._source else { return .comparator }
            let values = rows.map(extract)
            let stringKeys = values.map { value -> [UInt8] in
                if case .string(let string) = value { return key.collation.sortKey(for: string) }
                return []
            }
            return .values(values, stringKeys: stringKeys)
        }
    }

    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        for (key, column) in zip(keys, columns) {
            let result: ComparisonResult
            switch column {
            case .comparator:
                result = key.compare(rows[i], rows[j])
            case .values(let values, let stringKeys):
                let (a, b) = (values[i], values[j])
                if a.isNull || b.isNull {
                    result = key._compareNulls(a.isNull, b.isNull)
                } else {
                    let raw: ComparisonResult
                    if case .string = a, case .string = b {
                        raw = _lexicographicCompare(stringKeys[i], stringKeys[j])
                    } else {
                        raw = SortValue.compare(a, b)
                    }
                    result = key.direction == .ascending ? raw : raw.reversed
                }
            }
            if result != .orderedSame { return result }
        }
        return _compare(i, j)
    }
}
