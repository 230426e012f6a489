import Foundation

/// RFC 4180 CSV: records of fields separated by a delimiter, fields quoted with `"` when they
/// contain the delimiter, quotes (doubled) or line breaks.
///
///     let rows = try CSV.parse(Array("name,note\nAda,\"says \"\"hi\"\", twice\"\n".utf8))
///     // [["name", "note"], ["Ada", "says \"hi\", twice"]]
///     CSV.format(rows)
///     // "name,note\nAda,\"says \"\"hi\"\", twice\"\n"
///
/// Reading accepts UTF-8 with or without a byte-order mark, LF or CRLF line ends, a last line
/// with or without a line end, and skips empty lines. Every record must have as many fields as
/// the first. Writing quotes only the fields that need it and ends lines with LF.
public enum CSV {
    /// Parses CSV bytes into records of fields.
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 text.
    ///   - delimiter: The field separator, an ASCII byte other than `"`, CR or LF.
    /// - Throws: ``CSVError`` naming the line of invalid UTF-8, a quoted field that never
    ///   closes, a quote inside an unquoted field, text after a closing quote, or a record with
    ///   a different number of fields than the first.
    /// - Complexity: O(*n*) in the size of the input.
    public static func parse(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) throws -> [[String]] {
        precondition(delimiter < 0x80 && delimiter != 0x22 && delimiter != 0x0A && delimiter != 0x0D,
                     "CSV delimiter must be an ASCII character other than a quote or a line break")
        try _checkUTF8(bytes)
        var parser = _CSVParser(bytes: bytes, delimiter: delimiter)
        return try parser.parseAll()
    }

    /// Formats records as CSV text, quoting fields where needed.
    ///
    /// - Parameters:
    ///   - rows: The records.
    ///   - delimiter: The field separator.
    public static func format(_ rows: [[String]], delimiter: Character = ",") -> String {
        var text = ""
        for row in rows {
            text += row.map { quoted($0, delimiter: delimiter) }.joined(separator: String(delimiter))
            text += "\n"
        }
        return text
    }

    /// One field as it appears in CSV: quoted, with quotes doubled, if it contains the
    /// delimiter, a quote or a line break; as is otherwise.
    ///
    ///     CSV.quoted("a,b")   // "\"a,b\""
    public static func quoted(_ field: String, delimiter: Character = ",") -> String {
        guard field.contains(where: { $0 == delimiter || $0 == "\"" || $0.isNewline }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Finds the line of the first invalid UTF-8 sequence, if any.
private func _checkUTF8(_ bytes: [UInt8]) throws {
    if String(validating: bytes, as: UTF8.self) != nil { return }
    var lineStart = 0
    var line = 1
    for index in 0...bytes.count where index == bytes.count || bytes[index] == 0x0A {
        if String(validating: bytes[lineStart..<index], as: UTF8.self) == nil {
            throw CSVError(line: line, "invalid UTF-8 text")
        }
        line += 1
        lineStart = index + 1
    }
}

private struct _CSVParser {
    let bytes: [UInt8]
    let delimiter: UInt8
    var index = 0
    var line = 1

    init(bytes: [UInt8], delimiter: UInt8) {
        self.bytes = bytes
        self.delimiter = delimiter
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func parseAll() throws -> [[String]] {
        var records: [[String]] = []
        while index < bytes.count {
            if bytes[index] == 0x0A || bytes[index] == 0x0D {
                skipLineEnd()
                continue
            }
            let recordLine = line
            let record = try parseRecord()
            if let expected = records.first?.count, record.count != expected {
                throw CSVError(line: recordLine, "expected \(expected) fields (as in the first line), found \(record.count)")
            }
            records.append(record)
        }
        return records
    }

    mutating func skipLineEnd() {
        if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
        index += 1
        line += 1
    }

    mutating func parseRecord() throws -> [String] {
        var fields: [String] = []
        while true {
            fields.append(try parseField())
            if index >= bytes.count { return fields }
            if bytes[index] == delimiter {
                index += 1
                if index >= bytes.count { fields.append(""); return fields }
                continue
            }
            skipLineEnd()
            return fields
        }
    }

    mutating func parseField() throws -> String {
        if index < bytes.count, bytes[index] == 0x22 {
            let openingLine = line
            index += 1
            var field: [UInt8] = []
            while true {
                guard index < bytes.count else {
                    throw CSVError(line: openingLine, "quoted field never closed (it opens on line \(openingLine))")
                }
                let byte = bytes[index]
                if byte == 0x22 {
                    if index + 1 < bytes.count, bytes[index + 1] == 0x22 {
                        field.append(0x22)
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                if byte == 0x0A { line += 1 }
                field.append(byte)
                index += 1
            }
            if index < bytes.count, bytes[index] != delimiter, bytes[index] != 0x0A, bytes[index] != 0x0D {
                throw CSVError(line: line, "unexpected text after a closing quote")
            }
            return String(decoding: field, as: UTF8.self)
        }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
            if byte == 0x22 {
                throw CSVError(line: line, "a quote inside an unquoted field (quote the whole field and double the quote)")
            }
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
