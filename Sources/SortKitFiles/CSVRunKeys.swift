import Foundation
import SortKit

/// The sort keys of one run of CSV records, built when the run is sorted from its key
/// columns' values (``_Run``).
///
/// A column with few distinct values (its first values repeat, ``_valuesRepeat(_:)``, and at
/// most half the records are distinct: statuses, authors, prices) is
/// numbered through a hash table of its values, each distinct value encoded once
/// (``_CSVSortKey`` — collation, nulls, direction) and ranked among the others, so a record's
/// key holds the value's 1–4-byte rank instead of its collation key. Other columns are encoded
/// per record, in one slice per core. Column types still to be inferred are inferred from the
/// run's values (all its distinct values) first. The records are then ordered by
/// ``_sortByteKeys(_:)``. Spilled runs store each record's full key (``fullKey(_:)``), since
/// ranks only compare within a run.
///
/// A run sorted by one text column under a locale collation, and then only written
/// (`primariesFirst`), is keyed by the primary level alone (``_SortKeyPieces/primariesOnly``: the
/// secondaries, tertiaries and NFC left out, the primaries in compact codes; a fifth of the
/// bytes for Latin text), and the records whose primaries tie are ordered where the sort meets
/// them: equal texts are ties, other texts by their whole keys. `sortkit sort --by
/// title:locale=sv` built its keys a third faster.
struct _RunKeys: Sendable {
    /// One spec component's codes for every record.
    private enum Codes: Sendable {
        /// Per record, its value's number; per number, the encoded value and its rank.
        case dictionary(ids: [UInt32], encodings: _ByteArena, ranks: [UInt32], width: Int)
        /// Per record, its encoded value (in the parts the cores encoded).
        case direct(_ArenaParts)
    }

    /// The key the run was sorted with (column types filled in).
    let key: _CSVSortKey
    private let codes: [Codes]
    /// Per record, the bytes it sorts by: ranks and encoded values, memcmp-ordered.
    let sortKeys: _ArenaParts
    /// Orders records whose `sortKeys` are equal when those are primaries alone.
    private let ties: _KeyTieBreak?

    /// Builds the keys of the run whose key columns hold `values` (one arena per scanned field).
    init(key: _CSVSortKey, values: [_ByteArena], primariesFirst: Bool = false) {
        let count = values.first?.count ?? 0
        // Number each field's distinct values, fields side by side on the cores.
        var numbered = [(ids: [UInt32], firsts: [Int])?](repeating: nil, count: values.count)
        numbered.withUnsafeMutableBufferPointer { results in
            nonisolated(unsafe) let results = results
            _concurrentPerform(
                iterations: values.count,
                _UncheckedBox { field in
                    results[field] = _valuesRepeat(values[field]) ? _numberDistinct(values[field], limit: max(16, count / 2)) : nil
                })
        }
        var key = key
        if !key.typesResolved {
            var types: [Int: ColumnType] = [:]
            for field in Set(key.inferredFields) {
                types[field] = _inferType(values[field], only: numbered[field]?.firsts)
            }
            key = key.withTypes(types)
        }
        self.key = key
        var ties: _KeyTieBreak? = nil
        if primariesFirst, key.components.count == 1, let component = key.components.first, numbered[component.field] == nil,
            component.plainText(grouping: key.grouping) != nil, _SortKeyPieces.writesPrimariesOnly(component.key.collation)
        {
            ties = _RunKeys.wholeKeyOrder(of: values[component.field], component)
        }
        self.ties = ties
        codes = key.components.map { component in
            if let (ids, firsts) = numbered[component.field] {
                var encodings = _ByteArena()
                let plain = component.plainText(grouping: key.grouping)
                var pieces = component.plainKeys(grouping: key.grouping, textBytes: values[component.field].bytes.count * firsts.count / max(1, count))
                values[component.field].bytes.withUnsafeBufferPointer { bytes in
                    for first in firsts {
                        let field = UnsafeBufferPointer(rebasing: bytes[values[component.field].range(first)])
                        key.encode(component, utf8: field, validUTF8: true, plain: plain, pieces: &pieces, to: &encodings.bytes)
                        encodings.close()
                    }
                }
                let (ranks, top) = _denseRanks(encodings)
                let width = top < 1 << 8 ? 1 : top < 1 << 16 ? 2 : top < 1 << 24 ? 3 : 4
                return .dictionary(ids: ids, encodings: encodings, ranks: ranks, width: width)
            }
            return .direct(_encodeEach(values[component.field], component, key, primariesOnly: ties != nil))
        }
        self.sortKeys = _RunKeys.concatenated(codes, count: count)
    }

    /// Per record, its components' ranks (big-endian, fixed width) and encodings one after
    /// another; built component by component.
    private static func concatenated(_ codes: [Codes], count: Int) -> _ArenaParts {
        // One component encoded per record (a sort by one text column): its encodings are the keys.
        if codes.count == 1, case .direct(let encoded) = codes[0] { return encoded }
        var keys = _ByteArena()
        keys.ends = [Int](repeating: 0, count: count)
        for code in codes {
            switch code {
            case let .dictionary(_, _, _, width): for record in 0..<count { keys.ends[record] += width }
            case let .direct(encoded): encoded.forEachString { record, bytes in keys.ends[record] += bytes.count }
            }
        }
        var cursors = [Int](repeating: 0, count: count)
        var total = 0
        for record in 0..<count {
            cursors[record] = total
            total += keys.ends[record]
            keys.ends[record] = total
        }
        keys.bytes = [UInt8](repeating: 0, count: total)
        keys.bytes.withUnsafeMutableBufferPointer { bytes in
            for code in codes {
                switch code {
                case let .dictionary(ids, _, ranks, width):
                    for record in 0..<count {
                        var rank = ranks[Int(ids[record])]
                        for byte in stride(from: cursors[record] + width - 1, through: cursors[record], by: -1) {
                            bytes[byte] = UInt8(truncatingIfNeeded: rank)
                            rank >>= 8
                        }
                        cursors[record] += width
                    }
                case let .direct(encoded):
                    encoded.forEachString { record, source in
                        guard let start = source.baseAddress, !source.isEmpty else { return }
                        UnsafeMutableRawPointer(bytes.baseAddress! + cursors[record]).copyMemory(from: start, byteCount: source.count)
                        cursors[record] += source.count
                    }
                }
            }
        }
        return _ArenaParts([keys])
    }

    /// The records in key order, ties in record order.
    func order() -> [Int] { _sortByteKeys(sortKeys, ties: ties) }

    /// How records whose primaries tie are ordered: by their whole keys, which for texts whose
    /// primaries tie are their collation keys (a blank field is null, and ties only with blanks),
    /// reversed for a descending key. Equal texts tie without a key (most such records: a
    /// title that repeats); a group of tied records builds one key per distinct text.
    private static func wholeKeyOrder(of values: _ByteArena, _ component: _CSVSortKey.Component) -> _KeyTieBreak {
        let collation = component.key.collation, descending = component.key.direction == .descending
        @Sendable func wholeKey(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            var key: [UInt8] = []
            if !_isBlank(text) { collation._appendSortKey(forValidUTF8: text, to: &key) }
            return key
        }
        @Sendable func order(_ x: [UInt8], _ y: [UInt8]) -> ComparisonResult {
            let order = x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { _compareBytes(x, $0) } }
            return descending ? order.reversed : order
        }
        return _KeyTieBreak(
            compare: { a, b in
                values.bytes.withUnsafeBufferPointer { bytes in
                    let x = UnsafeBufferPointer(rebasing: bytes[values.range(a)]), y = UnsafeBufferPointer(rebasing: bytes[values.range(b)])
                    return _equalBytes(x, y) ? .orderedSame : order(wholeKey(x), wholeKey(y))
                }
            },
            order: { records in
                values.bytes.withUnsafeBufferPointer { bytes in
                    func text(_ record: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[values.range(record)]) }
                    // Per record, the number of its text among the group's distinct texts: found
                    // by comparing with each while there are few (no copy, no hash), then by a table.
                    var distinct: [Int] = []
                    var table: [[UInt8]: Int]? = nil
                    var textNumbers: [Int] = []
                    textNumbers.reserveCapacity(records.count)
                    for record in records {
                        let bytes = text(record)
                        var number = table.map { $0[Array(bytes)] ?? -1 } ?? (distinct.firstIndex { _equalBytes(text($0), bytes) } ?? -1)
                        if number < 0 {
                            number = distinct.count
                            distinct.append(record)
                            if table != nil {
                                table![Array(bytes)] = number
                            } else if distinct.count > 8 {
                                table = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { (Array(text($0.element)), $0.offset) })
                            }
                        }
                        textNumbers.append(number)
                    }
                    // One text (a title that repeats): position order already.
                    guard distinct.count > 1 else { return }
                    // Each distinct text's rank by its key (equal keys, equal ranks), then the
                    // records by rank, each rank's in position order.
                    let keys = distinct.map { wholeKey(text($0)) }
                    var ranks = [Int](repeating: 0, count: keys.count)
                    let byKey = keys.indices.sorted { order(keys[$0], keys[$1]) == .orderedAscending }
                    for (place, number) in byKey.enumerated().dropFirst() {
                        ranks[number] = ranks[byKey[place - 1]] + (order(keys[byKey[place - 1]], keys[number]) == .orderedSame ? 0 : 1)
                    }
                    var byRank = [[Int]](repeating: [], count: (ranks.max() ?? 0) + 1)
                    for (offset, record) in records.enumerated() { byRank[ranks[textNumbers[offset]]].append(record) }
                    // (Each rank's records came in position order.)
                    records = byRank.flatMap { $0 }
                }
            })
    }

    /// A record's key as the encodings of its values (comparable across runs).
    func fullKey(_ record: Int, to bytes: inout [UInt8]) {
        for code in codes {
            switch code {
            case let .dictionary(ids, encodings, _, _): bytes.append(contentsOf: encodings.bytes[encodings.range(Int(ids[record]))])
            case let .direct(encoded): bytes.append(contentsOf: encoded[record])
            }
        }
    }
}

/// Per string, its rank among the distinct strings of `keys` in memcmp order (equal strings,
/// equal ranks), and the highest rank.
private func _denseRanks(_ keys: _ByteArena) -> (ranks: [UInt32], top: UInt32) {
    var ranks = [UInt32](repeating: 0, count: keys.count)
    var rank: UInt32 = 0
    var previous: Range<Int>? = nil
    for index in _sortByteKeys(keys) {
        let range = keys.range(index)
        if let previous, !keys.bytes[previous].elementsEqual(keys.bytes[range]) { rank += 1 }
        ranks[index] = rank
        previous = range
    }
    return (ranks, rank)
}

/// The column type of a field's values (only the records `only` names, if given), read in
/// one slice per core.
private func _inferType(_ values: _ByteArena, only: [Int]?) -> ColumnType {
    let records = only ?? Array(0..<values.count)
    let inferences = _ByteArena.inSlices([values], count: records.count, parts: _slices(records.count)) { views, range in
        var inference = _TypeInference()
        // From the bytes, and only until a value settles it as text (titles: the first one).
        for index in records[range] where !inference.isSettled { inference.add(utf8: views[0][index]) }
        return inference
    }
    return inferences.dropFirst().reduce(into: inferences[0]) { $0.merge($1) }.type
}

/// Every value of a field encoded by `component`, in four slices per core (slices of
/// multilingual text take unequal times; a core that finishes early takes the next).
private func _encodeEach(_ values: _ByteArena, _ component: _CSVSortKey.Component, _ key: _CSVSortKey, primariesOnly: Bool) -> _ArenaParts {
    let plain = component.plainText(grouping: key.grouping)
    let parts = _ByteArena.inSlices([values], count: values.count, parts: _slices(values.count, perCore: 4)) { views, range in
        var part = _ByteArena()
        // Room for keys about five times the text (a locale key of Latin text; untouched
        // pages cost address space only): growing by doubling copied and faulted the arena.
        let text = range.isEmpty ? 0 : views[0].ends[range.upperBound - 1] - (range.lowerBound == 0 ? 0 : views[0].ends[range.lowerBound - 1])
        part.bytes.reserveCapacity(5 * text + 8 * range.count)
        part.ends.reserveCapacity(range.count)
        var pieces = component.plainKeys(grouping: key.grouping, textBytes: text, primariesOnly: primariesOnly)
        for index in range {
            key.encode(component, utf8: views[0][index], validUTF8: true, plain: plain, pieces: &pieces, to: &part.bytes)
            part.close()
        }
        return part
    }
    return _ArenaParts(parts)
}

/// Slices for `count` values: `perCore` per core, at least 4,096 values each.
private func _slices(_ count: Int, perCore: Int = 1) -> Int {
    max(1, min(perCore * ProcessInfo.processInfo.activeProcessorCount, count / 4096))
}
