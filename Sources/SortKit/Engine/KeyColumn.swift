import Foundation

/// One key's input to the engine, taken from the rows in the caller's specialized code: every
/// row's sort value, or a comparison of two row positions for a comparator key.
@usableFromInline
internal struct _KeyInput {
    @usableFromInline
    enum Source {
        case values([SortValue])
        case comparator((Int, Int) -> ComparisonResult)
    }

    @usableFromInline let source: Source
    @usableFromInline let direction: SortDirection
    @usableFromInline let collation: Collation
    @usableFromInline let nulls: NullPlacement

    @inlinable
    init(source: Source, direction: SortDirection, collation: Collation, nulls: NullPlacement) {
        self.source = source
        self.direction = direction
        self.collation = collation
        self.nulls = nulls
    }

}

/// One sort key evaluated for every row: a normalized 64-bit word per row whose unsigned order
/// is consistent with the key's order (direction and null placement applied), plus what it
/// takes to break ties the word can't (``tie``).
///
/// Words are rebased to the column's range, so a key with four distinct values needs three bits
/// (two for the values, one more for a null slot) and packs tightly with the keys after it.
///
/// The column's data lives in buffers owned by an ``_Allocations`` object, so the column itself
/// is trivially copyable: comparing ties in a hot loop costs no reference counting.
internal struct _KeyColumn {
    /// How two rows whose words are equal compare.
    enum Tie {
        /// Equal words mean equal keys.
        case exact
        /// Compare the rows' full collation keys in ``arena``, reversed for descending.
        case bytes
        /// Compare the rows' sort values with the key.
        case values
        /// Call the key's comparator on the rows' positions.
        case comparator
    }

    /// Per row, the normalized word; every word is below `1 << bits` (or any word if bits is 64).
    var words: UnsafeMutableBufferPointer<UInt64>
    /// How many low bits of the words are significant.
    var bits: Int
    /// For string prefixes: the key's next 8 bytes, direction applied, so a string key can fill
    /// a whole 128-bit composite. Empty otherwise.
    var nextWords = UnsafeMutableBufferPointer<UInt64>(start: nil, count: 0)
    var tie: Tie
    let direction: SortDirection
    let collation: Collation
    let nulls: NullPlacement
    var arena = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    var starts = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    var values = UnsafeMutableBufferPointer<SortValue>(start: nil, count: 0)
    var comparator: ((Int, Int) -> ComparisonResult)? = nil
    /// Whether equal words mean equal raw words (false only when a full 64-bit range plus a
    /// null slot had to drop a bit): for string prefixes, equal words then mean equal first
    /// 8 bytes.
    var wordsAreExact = true

    /// Full comparison of rows `i` and `j` by this key.
    @inline(__always)
    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        let (a, b) = (words[i], words[j])
        if a != b { return a < b ? .orderedAscending : .orderedDescending }
        switch tie {
        case .exact:
            return .orderedSame
        case .bytes:
            let bytes = UnsafeBufferPointer(arena)
            return direction._apply(
                _compareBytes(
                    UnsafeBufferPointer(rebasing: bytes[starts[i]..<starts[i + 1]]), UnsafeBufferPointer(rebasing: bytes[starts[j]..<starts[j + 1]])))
        case .values:
            let (x, y) = (values[i], values[j])
            if x.isNull || y.isNull { return nulls._compareNulls(x.isNull, y.isNull, direction) }
            return direction._apply(SortValue.compare(x, y, collation: collation))
        case .comparator:
            return comparator!(i, j)
        }
    }
}

/// Owns the engine's buffers and frees them when the engine is done.
internal final class _Allocations: @unchecked Sendable {
    private var frees: [() -> Void] = []
    private let lock = NSLock()

    /// A buffer holding `array`'s elements, freed with this object.
    func buffer<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: array.count)
        _ = buffer.initialize(from: array)
        lock.withLock {
            frees.append {
                buffer.deinitialize()
                buffer.deallocate()
            }
        }
        return buffer
    }

    deinit {
        for free in frees { free() }
    }
}

extension _KeyColumn {
    /// Encodes one key's input for `count` rows into buffers owned by `allocations`.
    init(_ key: _KeyInput, count: Int, allocations: _Allocations) {
        self.direction = key.direction
        self.collation = key.collation
        self.nulls = key.nulls
        let values: [SortValue]
        switch key.source {
        case .comparator(let compare):
            // A comparator key: every row ties on the word, the comparator decides.
            self.words = allocations.buffer(Array(repeating: 0, count: count))
            self.bits = 0
            self.tie = .comparator
            self.comparator = compare
            return
        case .values(let extracted):
            values = extracted
        }
        var raw = [UInt64](repeating: 0, count: values.count)
        var isNull = [Bool](repeating: false, count: values.count)
        let encoding = _RawEncoding.choose(for: values, collation: key.collation)
        var tie: Tie
        switch encoding {
        case .integers:
            for (i, value) in values.enumerated() {
                if case .integer(let v) = value { raw[i] = UInt64(bitPattern: v) ^ (1 << 63) } else { isNull[i] = true }
            }
            tie = .exact
        case .numbers(let exact):
            for (i, value) in values.enumerated() {
                switch value {
                case .integer(let v): raw[i] = _orderedBits(Double(v))
                case .largeInteger(let v): raw[i] = _orderedBits(Double(v))
                case .double(let v): raw[i] = _orderedBits(v)
                default: isNull[i] = true
                }
            }
            tie = exact ? .exact : .values
        case .dates:
            for (i, value) in values.enumerated() {
                if case .date(let v) = value { raw[i] = _orderedBits(v.timeIntervalSinceReferenceDate) } else { isNull[i] = true }
            }
            tie = .exact
        case .bools:
            for (i, value) in values.enumerated() {
                if case .bool(let v) = value { raw[i] = v ? 1 : 0 } else { isNull[i] = true }
            }
            tie = .exact
        case .dictionaryStrings:
            tie = .exact
            _encodeStringsByDictionary(values, collation: key.collation, raw: &raw, isNull: &isNull)
        case .prefixedStrings:
            let (bytes, offsets) = _encodeStringsByPrefix(values, collation: key.collation, raw: &raw, isNull: &isNull)
            arena = allocations.buffer(bytes)
            starts = allocations.buffer(offsets)
            tie = .bytes
        case .mixed:
            for (i, value) in values.enumerated() {
                if value.isNull { isNull[i] = true; continue }
                raw[i] = UInt64(value._typeRank) << 61 | _mixedPayload(value, collation: key.collation) >> 3
            }
            tie = .values
        }
        if case .exact = tie { _rankIfRepetitive(&raw, isNull: isNull) }
        let (normalized, bits, exact) = _normalize(raw, isNull: isNull, direction: key.direction, nullsFirst: key.nulls.nullsFirst(key.direction))
        self.words = allocations.buffer(normalized)
        self.bits = bits
        self.wordsAreExact = exact
        if !exact, case .exact = tie { tie = .values }
        if case .values = tie { self.values = allocations.buffer(values) }
        if case .bytes = tie {
            var next = [UInt64](repeating: 0, count: count)
            for i in 0..<count where !isNull[i] {
                let start = Swift.min(starts[i] + 8, starts[i + 1])
                let word = _prefixWord(UnsafeBufferPointer(rebasing: arena[start..<starts[i + 1]]))
                next[i] = key.direction == .descending ? ~word : word
            }
            nextWords = allocations.buffer(next)
        }
        self.tie = tie
    }
}

/// How a column's values become raw ascending words.
private enum _RawEncoding {
    case integers
    /// Doubles, or integers and doubles; `exact` when there are no integers.
    case numbers(exact: Bool)
    case dates
    case bools
    /// Strings, few distinct: each distinct string's rank among the distinct keys.
    case dictionaryStrings
    /// Strings, many distinct: the first 8 bytes of the collation key, the rest kept for ties.
    case prefixedStrings
    /// Several types: the type rank and a prefix of the value.
    case mixed

    static func choose(for values: [SortValue], collation: Collation) -> _RawEncoding {
        var (ints, doubles, dates, bools, strings) = (false, false, false, false, false)
        var large = false
        for value in values {
            if case .largeInteger = value { large = true }
            switch value {
            // A large integer is ranked by its nearest double, which isn't exact: ties are
            // compared by value, as with integers among doubles.
            case .integer, .largeInteger: ints = true
            case .double: doubles = true
            case .date: dates = true
            case .bool: bools = true
            case .string: strings = true
            case .null: continue
            }
        }
        switch (ints || doubles, dates, bools, strings) {
        case (false, false, false, false): return .bools // all null
        case (true, false, false, false): return doubles || large ? .numbers(exact: !ints) : .integers
        case (false, true, false, false): return .dates
        case (false, false, true, false): return .bools
        case (false, false, false, true): return _fewDistinct(values) ? .dictionaryStrings : .prefixedStrings
        default: return .mixed
        }
    }

    /// Whether a sample of the column repeats enough that hashing every row and keying only the
    /// distinct strings beats keying every row.
    private static func _fewDistinct(_ values: [SortValue]) -> Bool {
        let sampleSize = min(values.count, 16_384)
        guard sampleSize >= 64 else { return false }
        let step = values.count / sampleSize
        var distinct = Set<String>()
        var strings = 0
        for i in stride(from: 0, to: step * sampleSize, by: step) {
            if case .string(let s) = values[i] { distinct.insert(s); strings += 1 }
        }
        // At least one repeat in ten samples: about 5 × sampleSize distinct values or fewer.
        return strings > 0 && distinct.count * 10 <= strings * 9
    }
}

/// Replaces exact words by their rank among the distinct words when a sample shows the column
/// repeats (prices, years, small counts): ranks need far fewer bits than IEEE 754 patterns, so
/// more keys fit in one composite and the radix sort makes fewer passes.
private func _rankIfRepetitive(_ raw: inout [UInt64], isNull: [Bool]) {
    let count = raw.count
    let sampleSize = min(count, 16_384)
    guard sampleSize >= 64 else { return }
    let step = count / sampleSize
    var sample = Set<UInt64>()
    var seen = 0
    for i in stride(from: 0, to: step * sampleSize, by: step) where !isNull[i] {
        sample.insert(raw[i])
        seen += 1
    }
    // At least one repeat in ten samples, and the spread wider than the distinct values need.
    guard seen > 0, sample.count * 10 <= seen * 9 else { return }
    // Each word becomes its id in place; the ids become ranks, or the words again when ranking
    // saves no bits.
    var table = _DistinctWords(expectedCount: sample.count * 4)
    for i in 0..<count where !isNull[i] { raw[i] = UInt64(table.id(of: raw[i])) }
    let words = table.words
    let order = words.indices.sorted { words[$0] < words[$1] }
    let (first, last) = (words[order[0]], words[order[order.count - 1]])
    let saves = UInt64.bitWidth - UInt64(order.count).leadingZeroBitCount < UInt64.bitWidth - (last - first).leadingZeroBitCount
    var replacement = words
    if saves {
        for (rank, id) in order.enumerated() { replacement[id] = UInt64(rank) }
    }
    for i in 0..<count where !isNull[i] { raw[i] = replacement[Int(raw[i])] }
}

/// IEEE 754 bits made order-preserving as unsigned integers; -0 is 0 and every NaN the largest.
@inline(__always)
internal func _orderedBits(_ value: Double) -> UInt64 {
    if value.isNaN { return UInt64.max }
    let bits = (value == 0 ? 0.0 : value).bitPattern
    return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
}

private func _mixedPayload(_ value: SortValue, collation: Collation) -> UInt64 {
    switch value {
    case .integer(let v): _orderedBits(Double(v))
    case .largeInteger(let v): _orderedBits(Double(v))
    case .double(let v): _orderedBits(v)
    case .date(let v): _orderedBits(v.timeIntervalSinceReferenceDate)
    case .bool(let v): v ? UInt64.max : 0
    case .string(let s): _prefixWord(collation.sortKey(for: s)[...])
    case .null: 0
    }
}

/// The first 8 bytes of a key, big-endian, zero-padded: consistent with the key's byte order.
@inline(__always)
internal func _prefixWord<Bytes: Collection<UInt8>>(_ key: Bytes) -> UInt64 {
    var word: UInt64 = 0
    var shift = 56
    for byte in key.prefix(8) {
        word |= UInt64(byte) << UInt64(shift)
        shift -= 8
    }
    return word
}

private func _encodeStringsByDictionary(
    _ values: [SortValue], collation: Collation, raw: inout [UInt64], isNull: inout [Bool]
) {
    var table = _DistinctStrings(expectedCount: 1024)
    for (i, value) in values.enumerated() {
        guard case .string(let s) = value else { isNull[i] = true; continue }
        raw[i] = UInt64(table.id(of: s))
    }
    let keys = table.strings.map { collation.sortKey(for: $0) }
    // Equal keys (canonically equivalent strings) share a rank, so the word stays exact.
    let order = keys.indices.sorted { _compareBytes(keys[$0], keys[$1]) == .orderedAscending }
    var rank = [UInt64](repeating: 0, count: keys.count)
    var current: UInt64 = 0
    for (position, id) in order.enumerated() {
        if position > 0, keys[order[position - 1]] != keys[id] { current += 1 }
        rank[id] = current
    }
    for i in raw.indices where !isNull[i] { raw[i] = rank[Int(raw[i])] }
}

/// Collation keys of every string, concatenated into one arena, and each key's first 8 bytes as
/// its raw word. Building the keys (normalization, folding, digit runs) is the costly part of a
/// string sort, so large columns are split into one slice per core, each building its own arena
/// (a locale collation's keys from cached words, ``_SortKeyPieces``); the arenas are then
/// joined in order.
private func _encodeStringsByPrefix(
    _ values: [SortValue], collation: Collation, raw: inout [UInt64], isNull: inout [Bool]
) -> (arena: [UInt8], starts: [Int]) {
    let parts = values.count >= _parallelThreshold ? Swift.min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
    typealias Slice = (arena: [UInt8], starts: [Int], raw: [UInt64], nulls: [Int])
    func encode(_ range: Range<Int>) -> Slice {
        var slice: Slice = ([], [], [UInt64](repeating: 0, count: range.count), [])
        slice.arena.reserveCapacity(range.count * 24)
        slice.starts.reserveCapacity(range.count)
        var keys = _SortKeyPieces(collation)
        for i in range {
            slice.starts.append(slice.arena.count)
            guard case .string(let s) = values[i] else { slice.nulls.append(i); continue }
            let start = slice.arena.count
            keys.appendSortKey(for: s, to: &slice.arena)
            slice.raw[i - range.lowerBound] = _prefixWord(slice.arena[start...])
        }
        return slice
    }
    let ranges = (0..<parts).map { values.count * $0 / parts..<values.count * ($0 + 1) / parts }
    let slices: [Slice]
    if parts > 1 {
        let slots = _ResultSlots<Slice>(count: parts)
        // The values are only read; collation keys are pure functions of the text.
        _concurrentPerform(iterations: parts, _UncheckedBox { slots.set($0, encode(ranges[$0])) })
        slices = slots.values
    } else {
        slices = [encode(0..<values.count)]
    }
    var arena: [UInt8] = []
    arena.reserveCapacity(slices.reduce(0) { $0 + $1.arena.count })
    var starts: [Int] = []
    starts.reserveCapacity(values.count + 1)
    for (range, slice) in zip(ranges, slices) {
        let base = arena.count
        starts.append(contentsOf: slice.starts.lazy.map { $0 + base })
        arena.append(contentsOf: slice.arena)
        raw.replaceSubrange(range, with: slice.raw)
        for i in slice.nulls { isNull[i] = true }
    }
    starts.append(arena.count)
    return (arena, starts)
}

/// Rebases raw ascending words to the column's range, applies the direction, and gives nulls a
/// slot of their own before or after the values. Returns the words, their significant bits, and
/// whether equal words still mean equal raw words (false only when a full 64-bit range plus a
/// null slot had to drop a bit).
private func _normalize(
    _ raw: [UInt64], isNull: [Bool], direction: SortDirection, nullsFirst: Bool
) -> (words: [UInt64], bits: Int, exact: Bool) {
    var low = UInt64.max
    var high = UInt64.min
    var hasNull = false
    for (i, word) in raw.enumerated() {
        if isNull[i] { hasNull = true; continue }
        low = min(low, word)
        high = max(high, word)
    }
    guard low <= high else { return (Array(repeating: 0, count: raw.count), 0, true) }
    var span = high - low
    var shift: UInt64 = 0
    if hasNull && span == UInt64.max {
        shift = 1
        span >>= 1
    }
    let valueOffset: UInt64 = hasNull && nullsFirst ? 1 : 0
    let nullWord: UInt64 = nullsFirst ? 0 : span &+ 1
    var words = [UInt64](repeating: 0, count: raw.count)
    for i in raw.indices {
        if isNull[i] { words[i] = nullWord; continue }
        var v = (raw[i] - low) >> shift
        if direction == .descending { v = span - v }
        words[i] = v + valueOffset
    }
    let maximum = hasNull ? span + 1 : span
    let bits = maximum == 0 ? 0 : UInt64.bitWidth - maximum.leadingZeroBitCount
    return (words, bits, shift == 0)
}
