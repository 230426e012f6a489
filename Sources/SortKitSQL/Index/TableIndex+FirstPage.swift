import Foundation
import SortKit

/// A first page by an order the table hasn't ranked yet: the engine's top-k over the cells,
/// narrowed first for a locale key (#36).
extension _TableIndex {
    /// The first `need` matching rows in `spec`'s order by the engine's top-k over the cells
    /// (SortKit's own semantics, enum ranks included), without rankings.
    func selected(_ spec: SortSpec, matches: _Matches, need: Int) throws -> [Int] {
        let lead = spec.keys.first, alone = spec.keys.count == 1
        func narrowed<Slots: RandomAccessCollection<Int> & Sendable>(_ slots: Slots) throws -> [Int]? where Slots.Index == Int {
            guard let lead else { return nil }
            return try leadingPrimaryCandidates(lead, slots: slots, need: need) ?? leadingNumberCandidates(lead, slots: slots, need: need, alone: alone)
        }
        let slots: [Int]
        if let every = matches.everySlot(live: live) {
            // Every row: read as the range it is; an array of a million slots, made and
            // faulted in, was 4–8 ms of a first page's 20–45.
            slots = try narrowed(every) ?? Array(every)
        } else {
            let kept = matches.slots(live: live)
            slots = try narrowed(kept) ?? kept
        }
        var keys: [SortKey<Int>] = []
        for key in spec.keys {
            let variant = try Self.variant(key, schema: schema)
            let type = schema.columns[variant.column].type
            let cells = cells
            if key.enumOrder == nil {
                // Read through the cells, which take `len` and `random=` from their bytes; the
                // value has its transform applied. A repeating column's values are read once
                // per distinct cell when many rows are left: numbering a column's cells is a
                // pass over all of them on one core, more than a few rows' values cost.
                keys += key._sortKeys(cells.reader(variant.column, key, type: type, distinct: slots.count >= 65_536), enumText: nil)
                continue
            }
            // The key reads the text itself, so its transform applies once.
            keys += key.sortKeys(readingText: { slot in cells.text(slot, variant.column) }, columnType: type)
        }
        // The selection in slices on every core (`min(count:sortedBy:)` of Sendable rows).
        return slots.min(count: need, sortedBy: keys)
    }

    /// For a first key that is text under a locale collation: the rows of `slots` that can be
    /// among the first `need`, a superset, in slot order; `nil` when it doesn't narrow.
    ///
    /// A locale key is costly to read (normalizing, contractions) but its first bytes are the
    /// text's first primary weight, which a letter that weighs alone gives at once. Every row
    /// whose first primary is larger (smaller, descending) than the `need`-th smallest sorts
    /// after `need` rows that have one, so it is left out; rows without a known first primary
    /// (blank: null; a first letter that needs the full key) stay in. The rows that start like
    /// the page's (a few percent; on English titles a twentieth: every row whose first word is
    /// the page's) are then bounded again by their full keys, built from cached words
    /// (``_SortKeyPieces``): a row whose key is past the `need`-th smallest also sorts after
    /// `need` rows, and rows whose keys tie stay for the later keys to order. The first pass
    /// runs on every core.
    func leadingPrimaryCandidates<Slots: RandomAccessCollection<Int> & Sendable>(_ key: SortSpec.Key, slots: Slots, need: Int) throws -> [Int]?
    where Slots.Index == Int {
        precondition(slots.startIndex == 0, "slots are read by position")
        let column = try Self.variant(key, schema: schema).column
        let type = schema.columns[column].type
        guard case .locale(let locale) = key.collation, key.transform == nil, key.enumOrder == nil,
            key.interpretation == .text || (key.interpretation == .inferred && type == .string),
            need > 0, slots.count > 8 * need, column < cells.base.count
        else { return nil }
        let cells = cells
        // Per row its first primary, flipped for a descending key so that the rows a page
        // takes have the smallest values either way; 0 for unknown (a primary is below 2^24,
        // so neither it nor its complement is 0).
        let descending = key.direction == .descending
        func first(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
            guard !_isBlank(bytes), let p = locale.leadingPrimary(ofUTF8: bytes) else { return 0 }
            return descending ? ~p : p
        }
        var firsts = [UInt32](repeating: 0, count: slots.count)
        let parts = max(1, min(_scanCores, slots.count / 65_536))
        cells.withCellReader(column) { cell in
            firsts.withUnsafeMutableBufferPointer { firsts in
                nonisolated(unsafe) let firsts = firsts
                // Each part writes its own range; the cells are only read.
                _concurrentPerform(
                    iterations: parts,
                    _UncheckedBox { part in
                        for index in (slots.count * part / parts)..<(slots.count * (part + 1) / parts) {
                            firsts[index] = cell(slots[index], first)
                        }
                    })
            }
        }
        guard let candidates = Self.bounded(slots, firsts: firsts, need: need) else { return nil }
        return narrowedByKeys(candidates, key, column: column, need: need)
    }

    /// The slots whose value in `firsts` (0: unknown) is at most the `need`-th smallest known
    /// one, or unknown: a superset of the first `need` rows when a row's value never exceeds
    /// that of a row placed before it. `nil` when fewer than `need` values are known.
    ///
    /// Where the caller knows more, fewer rows stay:
    /// - `unknown`: what a 0 is. ``UnknownRows/nullsLast`` (nulls that sort after every known
    ///   value) leaves them all out once `need` values are known; ``UnknownRows/nullsFirst``
    ///   keeps only them when there are `need` of them.
    /// - `tiesBySlot`: equal values are equal keys and nothing else orders them but the slot
    ///   (one key, exact values). Of the rows equal to the bound only the first ones in slot
    ///   order that the page needs stay: a key of few values (`status:len`) otherwise left
    ///   every row of its first value to the comparison.
    ///
    ///     _TableIndex.bounded([0, 1, 2, 3], firsts: [5, 0, 5, 4] as [UInt64], need: 2)                     // [0, 1, 2, 3]
    ///     _TableIndex.bounded([0, 1, 2, 3], firsts: [5, 0, 5, 4] as [UInt64], need: 2, unknown: .nullsLast, tiesBySlot: true)  // [0, 3]
    static func bounded<Slots: Sequence<Int>, Value: FixedWidthInteger & UnsignedInteger>(
        _ slots: Slots, firsts: [Value], need: Int, unknown: UnknownRows = .kept, tiesBySlot: Bool = false
    ) -> [Int]? {
        if unknown == .nullsFirst {
            // Nulls come first: with `need` of them, they are the page (their ties stay for
            // the later keys, or by slot the first `need`).
            let nulls = zip(slots, firsts).lazy.filter { $0.1 == 0 }.map(\.0)
            if tiesBySlot, need > 0 {
                let page = Array(nulls.prefix(need))
                if page.count == need { return page }
            } else {
                let all = Array(nulls)
                if all.count >= need { return all }
            }
        }
        // The `need` smallest known values, as a max-heap: its top is the bound.
        var heap: [Value] = []
        heap.reserveCapacity(need)
        // Most rows are past the bound: tested here, before a call.
        for value in firsts where value != 0 && (heap.count < need || value < heap[0]) {
            _MaxHeap.keep(value, in: &heap, limit: need, by: <)
        }
        guard heap.count == need, let bound = heap.first else { return nil }
        let keepUnknown = unknown != .nullsLast
        guard tiesBySlot else {
            return zip(slots, firsts).compactMap { slot, first in (first == 0 && keepUnknown) || (first != 0 && first <= bound) ? slot : nil }
        }
        // Rows below the bound all stay; of those equal to it, as many as fill the page.
        var equal = need - firsts.lazy.filter { $0 != 0 && $0 < bound }.count
        var kept: [Int] = []
        kept.reserveCapacity(need)
        for (slot, first) in zip(slots, firsts) {
            if first == 0 {
                if keepUnknown { kept.append(slot) }
            } else if first < bound {
                kept.append(slot)
            } else if first == bound, equal > 0 {
                kept.append(slot)
                equal -= 1
            }
        }
        return kept
    }

    /// What a 0 in ``bounded(_:firsts:need:unknown:tiesBySlot:)``'s values stands for.
    enum UnknownRows: Sendable {
        /// A row whose place the value doesn't tell: it stays.
        case kept
        /// A null that sorts after every value.
        case nullsLast
        /// A null that sorts before every value.
        case nullsFirst
    }

    /// For a first key whose values are numbers — `len`, `random=`, a number column, with or
    /// without `abs` —: the rows of `slots` that can be among the first `need`, a superset, in
    /// slot order; `nil` when it doesn't apply (a value that isn't a number) or doesn't narrow.
    ///
    /// Each row's value is read once, on every core, as a 64-bit prefix that never decreases
    /// as the value grows: the number as a `Double` (an integer past 2^53 rounds, to an equal
    /// or the next prefix), its bits ordered, complemented for a descending key. Rows past the
    /// `need`-th smallest prefix sort after `need` rows; rows that tie with it stay for the
    /// later keys, as do nulls and NaN (0: placed by their own rules). A first page by a new
    /// key kind then compares a page's worth of rows, not every row through the general
    /// comparison (1M rows, multilingual titles: `title:len` 55–80 ms before, `-price:abs`
    /// 45–65 ms). `len` and `random=` come from the cells' bytes; a typed number cell written
    /// as plain decimal digits from its bytes too (``_plainDecimal(_:fraction:)``), others
    /// through the cells' reader.
    ///
    /// With `alone` (the order's only key) rows that tie on an exact value are ordered by slot,
    /// and nulls by their placement: see ``bounded(_:firsts:need:unknown:tiesBySlot:)``.
    func leadingNumberCandidates<Slots: RandomAccessCollection<Int> & Sendable>(
        _ key: SortSpec.Key, slots: Slots, need: Int, alone: Bool = false
    ) throws -> [Int]? where Slots.Index == Int {
        precondition(slots.startIndex == 0, "slots are read by position")
        let variant = try Self.variant(key, schema: schema)
        let type = schema.columns[variant.column].type
        let typedNumbers = key.interpretation == .inferred && (type == .integer || type == .float)
        switch key.transform {
        case .length?, .random?: break
        case .absolute?, nil: guard typedNumbers || key.interpretation == .number else { return nil }
        }
        guard key.enumOrder == nil, need > 0, slots.count > 8 * need, variant.column < cells.base.count else { return nil }
        // Plain digits (with a fraction in a float column) are read from the bytes.
        let decimal: Bool? = typedNumbers && (key.transform == nil || key.transform == .absolute) ? type == .float : nil
        let absolute = key.transform == .absolute, descending = key.direction == .descending
        let parts = max(1, min(_scanCores, slots.count / 65_536))
        // Per part: a value that isn't a number; NaN seen (a 0 that isn't a null); a value
        // whose prefix rounds (an integer past 2^53, a hash), so equal prefixes may differ.
        let failed = _ResultSlots<Bool>(count: parts), nan = _ResultSlots<Bool>(count: parts), inexact = _ResultSlots<Bool>(count: parts)
        let integer = _BytesInteger(key, type: type), reader = cells.reader(variant.column, key, type: type, distinct: decimal == nil)
        let baseCount = cells.baseCount, unwritten = cells.written.isEmpty, numbering = cells.base[variant.column].numbering
        let firsts = cells.withCellReader(variant.column) { cell in
            [UInt64](unsafeUninitializedCapacity: slots.count) { firsts, initialized in
                do {
                    nonisolated(unsafe) let firsts = firsts
                    // Each part writes its own range; the cells are only read. What a row reads
                    // is bound once, outside the loop: read per row, the written rows and a
                    // closure's context were retained and released, on both cores at once.
                    _concurrentPerform(
                        iterations: parts,
                        _UncheckedBox { part in
                            var ok = true, sawNaN = false, rounded = false
                            let base = cell.base
                            // The prefix of a slot's value; 0 for null and NaN (placed by their
                            // own rules), `nil` for a value that isn't a number.
                            func prefix(_ slot: Int, isBase: Bool) -> UInt64? {
                                // A base cell's bytes; a written row's value is read as text.
                                var number: Double
                                if let integer, isBase {
                                    guard let value = integer(base[slot]) else { return 0 }
                                    if value.magnitude > 1 << 53 { rounded = true }
                                    number = Double(value)
                                } else if let decimal, isBase, let value = _plainDecimal(base[slot], fraction: decimal) {
                                    number = absolute ? abs(value) : value
                                } else {
                                    switch reader(slot) {
                                    case .null: return 0
                                    case .integer(let value):
                                        if value.magnitude > 1 << 53 { rounded = true }
                                        number = Double(value)
                                    case .largeInteger(let value):
                                        rounded = true
                                        number = Double(value)
                                    case .double(let value) where !value.isNaN: number = value
                                    case .double:
                                        sawNaN = true
                                        return 0
                                    default: return nil
                                    }
                                }
                                return ordered(number)
                            }
                            // A number's prefix: its bits ordered, complemented descending.
                            func ordered(_ number: Double) -> UInt64 {
                                let bits = number == 0 ? 0 : number.bitPattern // -0 ties 0
                                let ordered = number < 0 ? ~bits : bits | 1 << 63
                                return descending ? ~ordered : ordered
                            }
                            // A numbered column's cells repeat: each distinct cell is read once.
                            var memo: [UInt64] = [], known: [Bool] = []
                            let rows = (slots.count * (part + 1) / parts) - (slots.count * part / parts)
                            if let distinct = numbering?.firsts.count, distinct <= rows {
                                memo = [UInt64](repeating: 0, count: distinct)
                                known = [Bool](repeating: false, count: distinct)
                            }
                            var start = slots.count * part / parts
                            let end = slots.count * (part + 1) / parts
                            if case .random(let seed)? = integer, unwritten, known.isEmpty {
                                // Base cells' hashes four at a time (``_seededHash4``); a hash
                                // is 63 bits, so equal prefixes may differ.
                                rounded = true
                                while start + 4 <= end, slots[start] < baseCount, slots[start + 1] < baseCount, slots[start + 2] < baseCount,
                                    slots[start + 3] < baseCount
                                {
                                    let a = base[slots[start]], b = base[slots[start + 1]], c = base[slots[start + 2]], d = base[slots[start + 3]]
                                    let hashes = _seededHash4(prefix: 0x30, a, b, c, d, seed: seed)
                                    // Blank text is null (0), as ``_randomNumberOfNFCText`` has it.
                                    firsts[start] = _isBlank(a) ? 0 : ordered(Double(hashes.0))
                                    firsts[start + 1] = _isBlank(b) ? 0 : ordered(Double(hashes.1))
                                    firsts[start + 2] = _isBlank(c) ? 0 : ordered(Double(hashes.2))
                                    firsts[start + 3] = _isBlank(d) ? 0 : ordered(Double(hashes.3))
                                    start += 4
                                }
                            }
                            for index in start..<end {
                                firsts[index] = 0
                                guard ok else { continue }
                                let slot = slots[index]
                                let isBase = slot < baseCount && (unwritten || cell.cells.written[slot] == nil)
                                if isBase, let ids = base.ids, !known.isEmpty {
                                    let id = Int(ids[slot])
                                    if !known[id] {
                                        guard let value = prefix(slot, isBase: true) else {
                                            ok = false
                                            continue
                                        }
                                        memo[id] = value
                                        known[id] = true
                                    }
                                    firsts[index] = memo[id]
                                } else {
                                    guard let value = prefix(slot, isBase: isBase) else {
                                        ok = false
                                        continue
                                    }
                                    firsts[index] = value
                                }
                            }
                            failed.set(part, !ok)
                            nan.set(part, sawNaN)
                            inexact.set(part, rounded)
                        })
                }
                initialized = slots.count
            }
        }
        guard !failed.values.contains(true) else { return nil }
        // Without NaN a 0 is a null, placed before or after every value.
        let unknown: UnknownRows =
            nan.values.contains(true) ? .kept : key.nulls.nullsFirst(key.direction) ? .nullsFirst : .nullsLast
        return Self.bounded(slots, firsts: firsts, need: need, unknown: unknown, tiesBySlot: alone && !inexact.values.contains(true))
    }

    /// The rows of `candidates` (in slot order) that can be among the first `need` by `key`,
    /// by their full keys (words cached, ``_SortKeyPieces``; built on every core): the
    /// `need`-th smallest key (largest, descending) bounds them, and rows whose keys tie with
    /// it stay for the later keys to order, as do blank cells (null, placed by the null rule).
    private func narrowedByKeys(_ candidates: [Int], _ key: SortSpec.Key, column: Int, need: Int) -> [Int] {
        let parts = max(1, min(_scanCores, candidates.count / 16_384))
        let slots = _ResultSlots<(keys: _ByteArena, blank: [Bool])>(count: parts)
        let cells = cells
        cells.withCellReader(column) { cell in
            // Each part reads its own candidates' cells.
            _concurrentPerform(
                iterations: parts,
                _UncheckedBox { part in
                    let range = (candidates.count * part / parts)..<(candidates.count * (part + 1) / parts)
                    var builder = _SortKeyPieces(key.collation)
                    var keys = _ByteArena()
                    keys.bytes.reserveCapacity(range.count * 128)
                    keys.ends.reserveCapacity(range.count)
                    var blank = [Bool](repeating: false, count: range.count)
                    func add(_ bytes: UnsafeBufferPointer<UInt8>) {
                        if _isBlank(bytes) {
                            // No key: the row stays.
                            blank[keys.count] = true
                        } else if _isValidUTF8(bytes) {
                            builder.appendSortKey(forValidUTF8: bytes, to: &keys.bytes)
                        } else {
                            builder.appendSortKey(for: String(decoding: bytes, as: UTF8.self), to: &keys.bytes)
                        }
                        keys.close()
                    }
                    for slot in candidates[range] { cell(slot, add) }
                    slots.set(part, (keys, blank))
                })
        }
        let built = slots.values
        let keys = _ByteArena.joined(built.map(\.keys)), blank = Array(built.map(\.blank).joined())
        let descending = key.direction == .descending
        return keys.bytes.withUnsafeBufferPointer { bytes in
            func keyOf(_ position: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[keys.range(position)]) }
            // `a` is placed before `b` by the key alone.
            func before(_ a: Int, _ b: Int) -> Bool { _compareBytes(keyOf(a), keyOf(b)) == (descending ? .orderedDescending : .orderedAscending) }
            var heap: [Int] = []
            heap.reserveCapacity(need)
            for position in candidates.indices where !blank[position] {
                _MaxHeap.keep(position, in: &heap, limit: need, by: before)
            }
            guard heap.count == need, let bound = heap.first else { return candidates }
            return candidates.indices.compactMap { position in blank[position] || !before(bound, position) ? candidates[position] : nil }
        }
    }
}

/// The value of a typed number cell written as plain decimal digits — `-`, 1 to 15 digits,
/// and with `fraction` a `.` and more digits —, as the nearest `Double`; `nil` for anything
/// else (signs, spaces, exponents, long numbers), which the cell's reader parses. Digits
/// below 2^53 divided by an exact power of ten round once, so this is the `Double` nearest the
/// text's value, as parsing it gives (Clinger's fast path).
func _plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>, fraction: Bool) -> Double? {
    var i = 0, negative = false
    if bytes.first == UInt8(ascii: "-") {
        negative = true
        i = 1
    }
    var mantissa: UInt64 = 0, digits = 0, decimals = -1
    while i < bytes.count {
        let byte = bytes[i]
        if byte &- 0x30 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30)
            digits += 1
            if decimals >= 0 { decimals += 1 }
        } else if byte == UInt8(ascii: "."), fraction, decimals < 0, digits > 0 {
            decimals = 0
        } else {
            return nil
        }
        i += 1
    }
    guard digits > 0, digits <= 15, decimals != 0 else { return nil }
    // 10^k up to 10^15 is exact, as is each product on the way.
    var power = 1.0
    for _ in 0..<max(0, decimals) { power *= 10 }
    let value = Double(mantissa) / power
    return negative ? -value : value
}
