import Foundation
import SortKit

/// Which rows a request keeps: per slot, whether it matches the search, and how many do.
struct _Matches: Sendable {
    /// Per slot; `nil` when every live row matches (no search).
    var matches: [Bool]?
    var count: Int

    @inline(__always)
    func contains(_ slot: Int, live: [Bool]) -> Bool { matches?[slot] ?? live[slot] }

    /// `0..<live.count` when every slot is kept (``slots(live:)`` without an array), else `nil`.
    func everySlot(live: [Bool]) -> Range<Int>? {
        count < live.count ? nil : 0..<live.count
    }

    /// The slots kept, ascending, of `live.count` slots: `0..<count` when every slot is kept,
    /// else the kept flags read through a pointer into an array reserved at its size.
    func slots(live: [Bool]) -> [Int] {
        if let every = everySlot(live: live) { return Array(every) }
        var slots: [Int] = []
        slots.reserveCapacity(count)
        (matches ?? live).withUnsafeBufferPointer { kept in
            for slot in kept.indices where kept[slot] { slots.append(slot) }
        }
        return slots
    }
}

extension _TableIndex {
    /// The slots of rows that match `search` and `columnSearch` (folded substring terms), on
    /// every core; past `deadline`, the scan stops and throws `timedOut`. The clock is read
    /// after every 256 KB of text a core has scanned (and between rows), so a scan of long
    /// cells stops as promptly as one of short ones.
    func matches(_ search: SearchQuery, columnSearch: [Int: SearchQuery], deadline: _Deadline = _Deadline(.seconds(3_600))) throws -> _Matches {
        let columnSearch = columnSearch.filter { !$0.value.isBlank }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        guard !search.isBlank || !columnSearch.isEmpty else { return _Matches(matches: nil, count: liveCount) }
        // Every matching row holds each term somewhere in its folded text (a column's term in
        // that column's field): the scan looks for the longest, whichever query it is from.
        let terms = search.terms + columnSearch.flatMap(\.1.terms)
        if let filter = terms.max(by: { $0.utf8.count < $1.utf8.count }), !filter.isEmpty {
            return try scanMatches(search, columnSearch: columnSearch, filter: filter, deadline: deadline)
        }
        let count = slotCount
        var result = [Bool](repeating: false, count: count)
        let slices = max(1, min(_scanCores, count / 16_384))
        let counts = _ResultSlots<Int?>(count: slices)
        // Bytes a core scans between two reads of the clock.
        let checkEvery = 256 << 10
        result.withUnsafeMutableBufferPointer { buffer in
            // Each slice writes its own range.
            let output = _UncheckedBox(buffer)
            _ScanThreads.perform(iterations: slices) { slice in
                var found = 0
                var scannedSinceCheck = checkEvery
                for slot in (count * slice / slices)..<(count * (slice + 1) / slices) where live[slot] {
                    if scannedSinceCheck >= checkEvery || slot & 4_095 == 0 {
                        scannedSinceCheck = 0
                        if deadline.hasPassed {
                            counts.set(slice, nil)
                            return
                        }
                    }
                    let match = folded.withBytes(slot) { text in
                        scannedSinceCheck += text.count
                        return Self.rowMatches(text, search, columnSearch)
                    }
                    if match {
                        output.value[slot] = true
                        found += 1
                    }
                }
                counts.set(slice, found)
            }
        }
        return _Matches(matches: result, count: try Self.total(counts, budget: deadline.budget))
    }

    /// The slices' match counts added up; a slice that stopped at the deadline (`nil`) makes
    /// the search `timedOut`.
    private static func total(_ counts: _ResultSlots<Int?>, budget: Duration) throws -> Int {
        var total = 0
        for count in counts.values {
            guard let count else { throw TableStoreError.timedOut(budget) }
            total += count
        }
        return total
    }

    /// Whether a row's folded text matches the search and each column's query in its field.
    @inline(__always)
    static func rowMatches(_ text: UnsafeBufferPointer<UInt8>, _ search: SearchQuery, _ columnSearch: [(Int, SearchQuery)]) -> Bool {
        search.matches(foldedBytes: text) && columnSearch.allSatisfy { column, query in query.matches(foldedBytes: field(column, of: text)) }
    }

    /// ``matches(_:columnSearch:budget:)`` by a scan for one of the terms (`filter`, of the
    /// search or of a column's query): instead of testing row by row, each core looks through
    /// its part of the folded text for the term's two rarest bytes (SIMD, gigabytes a second),
    /// checks the term around each hit and maps it to its row, then tests the whole row
    /// (``rowMatches(_:_:_:)``); the rest of the row is skipped. Rows rewritten since the
    /// index was built (kept apart) are tested one by one.
    private func scanMatches(_ search: SearchQuery, columnSearch: [(Int, SearchQuery)], filter: String, deadline: _Deadline) throws -> _Matches {
        let count = slotCount
        let term = Array(filter.utf8)
        // The term's two rarest bytes (by a fixed rank of byte frequency in folded text) at
        // different offsets; a one-byte term tests its byte twice.
        let byRarity = term.indices.sorted { (_byteRank[Int(term[$0])], $0) < (_byteRank[Int(term[$1])], $1) }
        let first = byRarity.first ?? 0
        let second = byRarity.dropFirst().first { term[$0] != term[first] } ?? byRarity.dropFirst().first ?? first
        let base = folded.base, written = folded.written, folded = folded
        let scanned = min(count, base.count)
        let numbered = _NumberedMatches(folded.distinct, search, columnSearch)
        // Per numbered column (by its place in `folded.distinct`), which distinct cells' folded
        // text holds the term: a handful of cells, not a field per row.
        let numberedHits = numbered.hits(of: term, folded.distinct)
        var result = [Bool](repeating: false, count: count)
        let slices = max(1, min(_scanCores, scanned / 16_384))
        let counts = _ResultSlots<Int?>(count: slices)
        result.withUnsafeMutableBufferPointer { buffer in
            base.bytes.withUnsafeBufferPointer { bytes in
                base.ends.withUnsafeBufferPointer { ends in
                    term.withUnsafeBufferPointer { term in
                        // Each slice reads its rows' bytes and writes its own range of rows.
                        let shared = _UncheckedBox((buffer, bytes, ends, term))
                        _ScanThreads.perform(iterations: slices) { slice in
                            let (output, bytes, ends, term) = shared.value
                            let firstRow = scanned * slice / slices, endRow = scanned * (slice + 1) / slices
                            guard !deadline.hasPassed else { return counts.set(slice, nil) }
                            guard firstRow < endRow else { return counts.set(slice, 0) }
                            // Base text can be empty (every column numbered): nothing to scan,
                            // but the numbered pass below still runs.
                            let start = bytes.baseAddress ?? UnsafePointer(_noBytes)
                            var row = firstRow
                            let limit = ends[endRow - 1]
                            var found = 0
                            // Candidates: the positions whose bytes at the term's two rarest
                            // offsets are the term's, 16 at a time (a load and two compares
                            // per 16 bytes, which `memchr` for one byte can't beat once that
                            // byte is common, as digits are), each checked whole.
                            func matches(_ row: Int, _ stored: UnsafeBufferPointer<UInt8>) -> Bool {
                                numbered.matches(row, stored, search, columnSearch)
                            }
                            let finder = _CandidateFinder(
                                bytes: UnsafeBufferPointer(start: start, count: bytes.count), term: term, first: first, second: second)
                            var begin = firstRow == 0 ? 0 : ends[firstRow - 1]
                            let lastBegin = limit - term.count
                            var hits = 0
                            var checked = begin
                            while let candidate = finder.next(from: begin, through: lastBegin) {
                                hits += 1
                                // The clock every 1,024 candidates or 256 KB scanned.
                                if hits & 1_023 == 0 || candidate - checked >= 256 << 10 {
                                    checked = candidate
                                    if deadline.hasPassed { return counts.set(slice, nil) }
                                }
                                while ends[row] <= candidate { row += 1 }
                                let rowStart = row == 0 ? 0 : ends[row - 1]
                                guard candidate + term.count <= ends[row],
                                    memcmp(start + candidate, term.baseAddress!, term.count) == 0
                                else {
                                    begin = candidate + 1
                                    continue
                                }
                                if live[row], written.isEmpty || written[row] == nil,
                                    matches(row, UnsafeBufferPointer(start: start + rowStart, count: ends[row] - rowStart))
                                {
                                    output[row] = true
                                    found += 1
                                }
                                // The row is decided: on to the next one.
                                begin = ends[row]
                                row += 1
                                if row == endRow { break }
                            }
                            // Rows whose numbered fields hold the term (not in the base text):
                            // found by their cells' numbers.
                            for (column, has) in numberedHits {
                                let ids = folded.distinct[column].ids
                                for row in firstRow..<endRow where has[Int(ids[row])] && !output[row] {
                                    if row & 4_095 == 0, deadline.hasPassed { return counts.set(slice, nil) }
                                    let rowStart = row == 0 ? 0 : ends[row - 1]
                                    if live[row], written.isEmpty || written[row] == nil,
                                        matches(row, UnsafeBufferPointer(start: start + rowStart, count: ends[row] - rowStart))
                                    {
                                        output[row] = true
                                        found += 1
                                    }
                                }
                            }
                            counts.set(slice, found)
                        }
                    }
                }
            }
        }
        var total = try Self.total(counts, budget: deadline.budget)
        // Rows rewritten since the build, and rows added after it, one by one.
        for slot in Set(written.keys).union(scanned..<count) where slot < count && live[slot] {
            if folded.withBytes(slot, { Self.rowMatches($0, search, columnSearch) }) {
                if !result[slot] { total += 1 }
                result[slot] = true
            }
        }
        return _Matches(matches: result, count: total)
    }

    /// Field `column` of a row's folded text (fields are joined by U+001F, which no folded
    /// field contains).
    static func field(_ column: Int, of text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, field = 0
        for index in text.indices where text[index] == 0x1F {
            if field == column { return UnsafeBufferPointer(rebasing: text[start..<index]) }
            field += 1
            start = index + 1
        }
        return field == column ? UnsafeBufferPointer(rebasing: text[start...]) : UnsafeBufferPointer(start: nil, count: 0)
    }
}

/// Finds where a term may start in a byte buffer: the positions whose bytes at two of the
/// term's offsets (its rarest) equal the term's there. Written by hand because neither `memchr`
/// (one byte: a call per hit, slow when the byte is common) nor `memmem` (no vector code for
/// short needles in glibc) scans 70 MB of folded text for a term like `6001` in a few
/// milliseconds; this is the two-byte filter of SIMD substring search, with Swift's portable
/// `SIMD16`, so it runs on x86 and ARM alike.
struct _CandidateFinder {
    let bytes: UnsafeBufferPointer<UInt8>
    let first: Int, second: Int
    let firstByte: UInt8, secondByte: UInt8

    init(bytes: UnsafeBufferPointer<UInt8>, term: UnsafeBufferPointer<UInt8>, first: Int, second: Int) {
        self.bytes = bytes
        self.first = first
        self.second = second
        firstByte = term[first]
        secondByte = term[second]
    }

    /// The first candidate position from `begin` through `last`, if any.
    @inline(__always)
    func next(from begin: Int, through last: Int) -> Int? {
        guard begin <= last, let base = bytes.baseAddress else { return nil }
        var position = begin
        let raw = UnsafeRawPointer(base)
        let firstVector = SIMD16<UInt8>(repeating: firstByte), secondVector = SIMD16<UInt8>(repeating: secondByte)
        // Whole vectors while both loads stay inside the buffer.
        let vectorEnd = min(last + 1, bytes.count - 16 - max(first, second) + 1)
        while position < vectorEnd {
            let mask =
                (raw.loadUnaligned(fromByteOffset: position + first, as: SIMD16<UInt8>.self) .== firstVector)
                .& (raw.loadUnaligned(fromByteOffset: position + second, as: SIMD16<UInt8>.self) .== secondVector)
            if any(mask) {
                for lane in 0..<16 where mask[lane] {
                    return position + lane <= last ? position + lane : nil
                }
            }
            position += 16
        }
        while position <= last {
            if base[position + first] == firstByte, base[position + second] == secondByte { return position }
            position += 1
        }
        return nil
    }
}

/// Bytes by how often they occur in folded text (higher: more often), to search for a term's
/// rarest byte: spaces and field separators, then letters by English frequency, digits and
/// punctuation; other bytes (rare ASCII, UTF-8 of other scripts) rank low.
let _byteRank: [UInt8] = {
    var rank = [UInt8](repeating: 100, count: 256)
    for byte in 0x80...0xFF { rank[byte] = 150 }
    for (index, letter) in "etaoinshrdlcumwfgypbvkjxqz".utf8.enumerated() { rank[Int(letter)] = UInt8(250 - index * 4) }
    for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { rank[Int(digit)] = 200 }
    for byte in [UInt8(ascii: " "), 0x1F] { rank[Int(byte)] = 255 }
    for byte in ",.-'/".utf8 { rank[Int(byte)] = 190 }
    return rank
}()

/// The cores a search scan runs on: all of them, at a low priority (``_ScanThreads``). Scans
/// run one at a time (``_TableIndexCache/searching(_:index:table:budget:_:)``); measured with
/// `Benchmarks/load.sh` on 2 cores and 1M rows (2026-11-26), new-term searches served 133/s
/// alone, and sorted pages kept 90% of their throughput beside a stream of them.
let _scanCores = ProcessInfo.processInfo.activeProcessorCount

/// A valid address for an empty buffer's rows (never read).
nonisolated(unsafe) private let _noBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

/// A search's test of a base row whose numbered fields (``_FoldedText``) are kept once per
/// distinct cell: each term and column query is looked up in the distinct cells once, and a row
/// matches when each term is in a numbered field's cell (by the row's number) or in its base
/// text, and each column's query in that field — what ``_TableIndex/rowMatches(_:_:_:)`` finds
/// in the whole row, without putting the row together (a term holds no U+001F, so it lies in
/// one field).
struct _NumberedMatches: Sendable {
    /// Per search term: its bytes, and per numbered column which distinct cells hold it (`nil`: none).
    let terms: [(bytes: [UInt8], hits: [[Bool]?])]
    /// Per column query: the column, and for a numbered column its place in `ids` and which
    /// distinct cells match.
    let columns: [(column: Int, query: SearchQuery, numbered: (index: Int, hits: [Bool])?)]
    /// Per numbered column, its numbers by slot.
    let ids: [[UInt32]]

    init(_ distinct: [_FoldedText.Distinct], _ search: SearchQuery, _ columnSearch: [(Int, SearchQuery)]) {
        ids = distinct.map(\.ids)
        terms = search.terms.map { term in
            let bytes = Array(term.utf8)
            return (bytes, distinct.map { Self.holding(bytes, $0.folded) })
        }
        columns = columnSearch.map { column, query in
            guard let index = distinct.firstIndex(where: { $0.column == column }) else { return (column, query, nil) }
            let folded = distinct[index].folded
            return (column, query, (index, (0..<folded.count).map { value in folded.withBytes(value) { query.matches(foldedBytes: $0) } }))
        }
    }

    /// Per numbered column that has a distinct cell holding `term`, its place and which of its
    /// distinct cells do: a search term's, looked up already, or found now (a column's term).
    func hits(of term: [UInt8], _ distinct: [_FoldedText.Distinct]) -> [(Int, [Bool])] {
        let hits = terms.first { $0.bytes == term }?.hits ?? distinct.map { Self.holding(term, $0.folded) }
        return hits.indices.compactMap { index in hits[index].map { (index, $0) } }
    }

    /// Per distinct cell of `folded`, whether it holds `term`; `nil` when none does.
    static func holding(_ term: [UInt8], _ folded: _ByteArena) -> [Bool]? {
        let hits = term.withUnsafeBufferPointer { term in (0..<folded.count).map { value in folded.withBytes(value) { _contains($0, term) } } }
        return hits.contains(true) ? hits : nil
    }

    /// Whether base row `row`, with base text `stored`, matches.
    @inline(__always)
    func matches(_ row: Int, _ stored: UnsafeBufferPointer<UInt8>, _ search: SearchQuery, _ columnSearch: [(Int, SearchQuery)]) -> Bool {
        guard !ids.isEmpty else { return _TableIndex.rowMatches(stored, search, columnSearch) }
        for term in terms {
            var found = false
            for (column, hits) in term.hits.enumerated() {
                if let hits, hits[Int(ids[column][row])] {
                    found = true
                    break
                }
            }
            if !found, !term.bytes.withUnsafeBufferPointer({ _contains(stored, $0) }) { return false }
        }
        for column in columns {
            if let numbered = column.numbered {
                guard numbered.hits[Int(ids[numbered.index][row])] else { return false }
            } else if !column.query.matches(foldedBytes: _TableIndex.field(column.column, of: stored)) {
                return false
            }
        }
        return true
    }
}
