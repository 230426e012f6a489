import Foundation

/// Finds CSV records in a byte buffer without building strings for fields nobody reads: each
/// record's byte range (written back unchanged by a file sort) and the decoded text of the
/// wanted columns only, or of every column. This is SortKit's one CSV grammar (RFC 4180, CRLF,
/// LF or CR, blank lines skipped): ``CSV/parse(_:delimiter:)`` reads through it too, so a file
/// sort and an in-memory sort read a file alike, with the same errors.
/// Written here because the CSV packages available (SwiftCSV, CSV.swift) build a `String` for
/// every field, which is most of the cost of sorting a file by one or two of its columns.
struct _CSVRecordScanner {
    /// One record: where its bytes are, the text of the wanted columns (in `wanted` order)
    /// and the physical line it starts on.
    struct Record {
        var bytes: Range<Int>
        var fields: [String]
        var line: Int
    }

    let delimiter: UInt8
    /// The columns to decode, in the order `Record.fields` holds them; `nil` decodes every
    /// column.
    var wanted: [Int]?
    /// Fields in a record, from the first record.
    var fieldCount: Int?
    /// The physical line of the next byte.
    var line = 1
    /// The line terminator of the first record, to write records with.
    var terminator: [UInt8]?

    init(delimiter: UInt8, wanted: [Int]?) {
        self.delimiter = delimiter
        self.wanted = wanted
    }

    /// The record starting at `index` (after blank lines), advancing `index` past it; `nil`
    /// at the end of the buffer, or when the buffer ends inside a record and more bytes may
    /// follow (`final == false`) — `index` and the line count then stay where they were.
    ///
    /// - Throws: ``CSVError`` naming the line of malformed CSV.
    mutating func next(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, final: Bool) throws -> Record? {
        var position = index
        var line = self.line
        while position < bytes.count, bytes[position] == 0x0A || bytes[position] == 0x0D {
            if bytes[position] == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
            position += 1
            line += 1
        }
        guard position < bytes.count else {
            if final {
                index = position
                self.line = line
            }
            return nil
        }
        let start = position
        let recordLine = line
        var fields = wanted.map { Array(repeating: "", count: $0.count) } ?? []
        var column = 0
        var end = position
        fieldLoop: while true {
            // Where this field's text goes: its wanted slot, or appended when decoding all.
            let slot = wanted == nil ? fields.count : wanted?.firstIndex(of: column)
            if position < bytes.count, bytes[position] == 0x22 {
                let openingLine = line
                position += 1
                var text: [UInt8] = []
                var segment = position
                while true {
                    guard position < bytes.count else {
                        if !final { return nil }
                        throw CSVError(line: openingLine, "quoted field never closed (it opens on line \(openingLine))")
                    }
                    let byte = bytes[position]
                    if byte == 0x22 {
                        if position + 1 >= bytes.count && !final { return nil }
                        if position + 1 < bytes.count, bytes[position + 1] == 0x22 {
                            if slot != nil { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment...position])) }
                            position += 2
                            segment = position
                            continue
                        }
                        if slot != nil { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment..<position])) }
                        position += 1
                        break
                    }
                    if byte == 0x0A { line += 1 }
                    position += 1
                }
                if position < bytes.count, bytes[position] != delimiter, bytes[position] != 0x0A, bytes[position] != 0x0D {
                    throw CSVError(line: line, "unexpected text after a closing quote")
                }
                if let slot { store(String(decoding: text, as: UTF8.self), at: slot, in: &fields) }
            } else {
                let fieldStart = position
                while position < bytes.count {
                    let byte = bytes[position]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    if byte == 0x22 {
                        throw CSVError(line: line, "a quote inside an unquoted field (quote the whole field and double the quote)")
                    }
                    position += 1
                }
                if let slot {
                    store(String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<position]), as: UTF8.self), at: slot, in: &fields)
                }
            }
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
                    if wanted == nil { fields.append("") }
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
            throw CSVError(line: recordLine, "expected \(fieldCount) fields (as in the first line), found \(column)")
        }
        fieldCount = column
        index = position
        self.line = line
        guard String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) != nil else {
            throw CSVError(line: recordLine, "invalid UTF-8 text")
        }
        return Record(bytes: start..<end, fields: fields, line: recordLine)
    }

    private func store(_ text: String, at slot: Int, in fields: inout [String]) {
        if slot == fields.count { fields.append(text) } else { fields[slot] = text }
    }
}
