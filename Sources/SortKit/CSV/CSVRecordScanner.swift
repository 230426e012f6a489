import Foundation

/// Finds CSV records in a byte buffer without building strings for fields nobody reads: each
/// record's byte range (written back unchanged by a file sort) and where the wanted columns'
/// values are (``spans``), or their decoded text (``next(_:at:final:)``). This is SortKit's one
/// CSV grammar (RFC 4180; CRLF, LF or CR; a blank line is a record with one empty field, as RFC
/// 4180 and csvkit read it — in a file of several columns, an error naming the line, never a
/// record dropped silently): ``CSV/parse(_:delimiter:)``
/// reads through it too, so a file sort and an in-memory sort read a file alike, with the same
/// errors.
/// Written here because the CSV packages available (SwiftCSV, CSV.swift) build a `String` for
/// every field, which is most of the cost of sorting a file by a few of its columns: a file
/// sort reads the spans and copies the key columns' bytes only. Measured with
/// `Benchmarks/csv-sort.sh` on the 1M-row benchmark file (68 MB, 3 key columns, 2 cores): when
/// this scanner still built a `String` per key field (and a key per record from them), the sort
/// took 4.9 s; reading spans, it takes about 0.6 s end to end.
/// Public only so that its `@inlinable` members inline in SortKit's other modules (Swift
/// 6.3 ignores `@inlinable` on a `package` type's members); not API: `_` names stay internal.
public struct _CSVRecordScanner: Sendable {
    /// One record: where its bytes are, the text of the wanted columns (in `wanted` order)
    /// and the physical line it starts on.
    package struct Record {
        package var bytes: Range<Int>
        package var fields: [String]
        package var line: Int
    }

    /// Where one field's value is: the bytes between the quotes of a quoted field; `escaped`
    /// when they hold doubled quotes, which stand for one.
    @frozen
    public struct Span: Sendable {
        @usableFromInline package var range: Range<Int>
        @usableFromInline package var escaped: Bool

        @inlinable
        package init(range: Range<Int>, escaped: Bool) {
            self.range = range
            self.escaped = escaped
        }
    }

    package let delimiter: UInt8
    /// The delimiter or the quote, whichever is higher (line ends are lower).
    private let highestSpecial: UInt8
    /// The delimiter in every byte.
    private let delimiterWord: UInt64
    /// The columns to decode, in the order `Record.fields` and ``spans`` hold them; `nil`
    /// decodes every column.
    package var wanted: [Int]? {
        didSet { slots = Self.slots(wanted) }
    }
    /// Column number → its place in ``spans`` (-1: not wanted), for `wanted` columns.
    private var slots: [Int]
    /// Fields in a record, from the first record.
    package var fieldCount: Int?
    /// The physical line of the next byte.
    package var line = 1
    /// The line terminator of the first record, to write records with.
    package var terminator: [UInt8]?
    /// Whether a record is checked to be well-formed UTF-8 (an error names its line): off for
    /// a second pass over records a first pass checked, where the check was a fifth of the
    /// time on multilingual text.
    package var validatesUTF8 = true
    /// The wanted fields of the last record ``scan(_:at:final:)`` found.
    package private(set) var spans: [Span] = []

    package init(delimiter: UInt8, wanted: [Int]?) {
        self.delimiter = delimiter
        highestSpecial = max(delimiter, 0x22, 0x0D)
        delimiterWord = UInt64(delimiter) &* 0x0101_0101_0101_0101
        self.wanted = wanted
        slots = Self.slots(wanted)
    }

    private static func slots(_ wanted: [Int]?) -> [Int] {
        guard let wanted, let last = wanted.max() else { return [] }
        var slots = Array(repeating: -1, count: last + 1)
        for (slot, column) in wanted.enumerated() { slots[column] = slot }
        return slots
    }

    /// The record starting at `index` with its wanted fields' text,
    /// advancing `index` past it; `nil` as ``scan(_:at:final:)`` returns `nil`.
    ///
    /// - Throws: ``CSVError`` naming the line of malformed CSV.
    package mutating func next(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, final: Bool) throws -> Record? {
        guard let (range, line) = try scan(bytes, at: &index, final: final) else { return nil }
        return Record(bytes: range, fields: spans.map { Self.text($0, in: bytes) }, line: line)
    }

    /// A field's value as text.
    ///
    /// - Precondition: `span` is a field of a record ``scan(_:at:final:)`` returned from
    ///   `bytes`: the record's UTF-8 was validated whole, and a field boundary (an ASCII
    ///   delimiter, quote or line end) never splits a character, so the text isn't validated
    ///   again.
    package static func text(_ span: Span, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard span.escaped else { return _stringOfValidUTF8(UnsafeBufferPointer(rebasing: bytes[span.range])) }
        var value: [UInt8] = []
        appendValue(span, in: bytes, to: &value)
        return value.withUnsafeBufferPointer { _stringOfValidUTF8($0) }
    }

    /// Calls `body` with a field's value: its bytes in place, or, for a field with doubled
    /// quotes, the value with them undone in `scratch` (reused from field to field).
    @inlinable @inline(__always)
    package static func withValue<Result>(
        _ span: Span, in bytes: UnsafeBufferPointer<UInt8>, scratch: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        guard span.escaped else { return try body(UnsafeBufferPointer(rebasing: bytes[span.range])) }
        scratch.removeAll(keepingCapacity: true)
        appendValue(span, in: bytes, to: &scratch)
        return try scratch.withUnsafeBufferPointer(body)
    }

    /// Appends a field's value (doubled quotes undone) to `value`.
    @inlinable
    package static func appendValue(_ span: Span, in bytes: UnsafeBufferPointer<UInt8>, to value: inout [UInt8]) {
        guard span.escaped else {
            value.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[span.range]))
            return
        }
        var position = span.range.lowerBound
        while position < span.range.upperBound {
            value.append(bytes[position])
            position += bytes[position] == 0x22 ? 2 : 1
        }
    }

    /// Finds the record starting at `index`, sets ``spans`` to its wanted
    /// fields and advances `index` past it; returns the record's bytes (without the line end)
    /// and the line it starts on. `nil` at the end of the buffer, or when the buffer ends inside
    /// a record and more bytes may follow (`final == false`) — `index` and the line count then
    /// stay where they were.
    ///
    /// - Throws: ``CSVError`` naming the line of malformed CSV.
    package mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, final: Bool) throws -> (Range<Int>, Int)? {
        var position = index
        var line = self.line
        guard position < bytes.count else {
            if final {
                index = position
                self.line = line
            }
            return nil
        }
        let start = position
        let recordLine = line
        let all = wanted == nil
        if all {
            spans.removeAll(keepingCapacity: true)
        } else if spans.count != wanted!.count {
            spans = Array(repeating: Span(range: 0..<0, escaped: false), count: wanted!.count)
        }
        var column = 0
        var end = position
        fieldLoop: while true {
            let slot = all ? spans.count : column < slots.count ? slots[column] : -1
            var span: Span
            if position < bytes.count, bytes[position] == 0x22 {
                let openingLine = line
                position += 1
                span = Span(range: position..<position, escaped: false)
                while true {
                    guard position < bytes.count else {
                        if !final { return nil }
                        throw CSVError(line: openingLine, "quoted field never closed (it opens on line \(openingLine))")
                    }
                    let byte = bytes[position]
                    if byte == 0x22 {
                        if position + 1 >= bytes.count && !final { return nil }
                        if position + 1 < bytes.count, bytes[position + 1] == 0x22 {
                            span.escaped = true
                            position += 2
                            continue
                        }
                        span.range = span.range.lowerBound..<position
                        position += 1
                        break
                    }
                    if byte == 0x0A { line += 1 }
                    position += 1
                }
                if position < bytes.count, bytes[position] != delimiter, bytes[position] != 0x0A, bytes[position] != 0x0D {
                    throw CSVError(line: line, "unexpected text after a closing quote")
                }
            } else {
                let fieldStart = position
                // Eight bytes at a time up to the first special byte, then byte by byte.
                while position + 8 <= bytes.count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                    let specials = Self.specialBytes(word, delimiter: delimiterWord)
                    if specials != 0 {
                        position += specials.trailingZeroBitCount / 8
                        break
                    }
                    position += 8
                }
                while position < bytes.count {
                    let byte = bytes[position]
                    // Most bytes are above every special one: one comparison for them.
                    if byte > highestSpecial {
                        position += 1
                        continue
                    }
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    if byte == 0x22 {
                        throw CSVError(line: line, "a quote inside an unquoted field (quote the whole field and double the quote)")
                    }
                    position += 1
                }
                span = Span(range: fieldStart..<position, escaped: false)
            }
            if slot == spans.count && all { spans.append(span) } else if slot >= 0 { spans[slot] = span }
            column += 1
            guard position < bytes.count else {
                if !final { return nil }
                end = position
                break fieldLoop
            }
            if bytes[position] == delimiter {
                position += 1
                if position >= bytes.count {
                    if !final { return nil }
                    // A delimiter at the very end: one more, empty field.
                    let empty = Span(range: position..<position, escaped: false)
                    if all {
                        spans.append(empty)
                    } else if column < slots.count, slots[column] >= 0 {
                        spans[slots[column]] = empty
                    }
                    column += 1
                    end = position
                    break fieldLoop
                }
                continue
            }
            // A line end: LF, CR LF, or a lone CR.
            end = position
            if bytes[position] == 0x0D {
                if position + 1 >= bytes.count && !final { return nil }
                if position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
            }
            position += 1
            line += 1
            break fieldLoop
        }
        if terminator == nil {
            terminator = end < bytes.count ? Array(UnsafeBufferPointer(rebasing: bytes[end..<position])) : [0x0A]
        }
        if let fieldCount, column != fieldCount {
            if start == end {
                throw CSVError(
                    line: recordLine, "blank line; expected \(fieldCount) fields (as in the first line) — a blank line is a record with one empty field")
            }
            throw CSVError(line: recordLine, "expected \(fieldCount) fields (as in the first line), found \(column)")
        }
        fieldCount = column
        index = position
        self.line = line
        let record = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard !validatesUTF8 || _isValidUTF8(record) else {
            throw CSVError(line: recordLine, "invalid UTF-8 text")
        }
        return (start..<end, recordLine)
    }

    /// The first byte after the first line end outside quotes at or after `target`, for
    /// scanning a buffer in slices (one per core): a byte is outside a quoted field when an
    /// even number of quotes precede it since `first`, a record start.
    package static func recordStart(near target: Int, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var quoted = false
        for byte in bytes[first..<target] where byte == 0x22 { quoted.toggle() }
        var position = target
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == 0x22 {
                quoted.toggle()
            } else if !quoted, byte == 0x0A || byte == 0x0D {
                if byte == 0x0D, position < bytes.count, bytes[position] == 0x0A { position += 1 }
                return position
            }
        }
        return position
    }

    /// The high bit of each byte of `word` that is the delimiter, a line end or a quote (the
    /// lowest one exact; bytes above it may be flagged falsely).
    @inline(__always)
    private static func specialBytes(_ word: UInt64, delimiter: UInt64) -> UInt64 {
        func zeros(_ value: UInt64) -> UInt64 { (value &- 0x0101_0101_0101_0101) & ~value & 0x8080_8080_8080_8080 }
        return zeros(word ^ delimiter) | zeros(word ^ 0x0A0A_0A0A_0A0A_0A0A) | zeros(word ^ 0x0D0D_0D0D_0D0D_0D0D) | zeros(word ^ 0x2222_2222_2222_2222)
    }
}
