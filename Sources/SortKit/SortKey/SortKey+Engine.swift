import Foundation

// How a sort key hands rows to the engine: the engine (Engine/) knows values, collations and
// byte keys, not `SortKey`; the keys adapt themselves to it here.

extension SortKey {
    /// This key's input for `rows`; inlinable so the extraction loop is specialized for the
    /// caller's row type.
    @inlinable
    func _input<Rows: RandomAccessCollection>(for rows: Rows) -> _KeyInput where Rows.Element == Row, Rows.Index == Int {
        switch _source {
        case .value(let extract):
            let values =
                _load.flatMap { load in
                    rows.withContiguousStorageIfAvailable { buffer -> [SortValue] in
                        guard let base = buffer.baseAddress else { return [] }
                        let raw = UnsafeRawPointer(base)
                        let stride = MemoryLayout<Row>.stride
                        return (0..<buffer.count).map { load(raw + $0 * stride) }
                    }
                } ?? rows.map(extract)
            return _KeyInput(source: .values(values), direction: direction, collation: collation, nulls: nulls)
        case .comparator:
            let start = rows.startIndex
            return _KeyInput(
                source: .comparator { self.compare(rows[start + $0], rows[start + $1]) },
                direction: direction, collation: collation, nulls: nulls)
        }
    }
}

extension SortKey {
    /// This key's reader for streaming selection over `rows`.
    @inlinable
    func _topKKey<Rows: RandomAccessCollection>(for rows: Rows) -> _TopK.Key where Rows.Element == Row, Rows.Index == Int {
        let start = rows.startIndex
        switch _source {
        case .value(let extract):
            // `rows` is an unsafe buffer while the selection runs (see `indices(ofMin:sortedBy:)`),
            // so its base address stays valid for the reader's lifetime.
            if let load = _load, let base = rows.withContiguousStorageIfAvailable({ $0.baseAddress }) ?? nil {
                let raw = UnsafeRawPointer(base)
                let stride = MemoryLayout<Row>.stride
                return _TopK.Key(
                    direction: direction, collation: collation, nulls: nulls,
                    value: { load(raw + $0 * stride) }, comparator: nil,
                    strings: _stringOffset.map { (raw + $0, stride) })
            }
            return _TopK.Key(
                direction: direction, collation: collation, nulls: nulls,
                value: { extract(rows[start + $0]) }, comparator: nil,
                utf8: _utf8.map { utf8 in { utf8(rows[start + $0]) } })
        case .comparator(let isNull, let compare):
            // The null test and the comparison, direction not applied: `_TopK` applies it.
            let nulls = self.nulls
            let direction = self.direction
            return _TopK.Key(direction: .ascending, collation: collation, nulls: nulls, value: nil) { i, j in
                let (a, b) = (rows[start + i], rows[start + j])
                if let isNull {
                    let (x, y) = (isNull(a), isNull(b))
                    if x || y { return nulls._compareNulls(x, y, direction) }
                }
                return direction._apply(compare(a, b))
            }
        }
    }
}

extension RandomAccessCollection where Index == Int {
    /// Bytes the fast path holds for keys and positions when sorting these rows by `keys`
    /// (normalized words, composites, string arenas), for the benchmark's memory report.
    package func _sortEngineFootprint(by keys: [SortKey<Element>]) -> Int {
        _SortEngine(keys.map { $0._input(for: self) }, count: count).memoryFootprint
    }
}
