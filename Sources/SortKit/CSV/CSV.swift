import Foundation

/// RFC 4180 CSV: records of fields separated by a delimiter, fields quoted with `"` when they
/// contain the delimiter, quotes (doubled) or line breaks.
///
///     let rows = try CSV.parse(Array("name,note\nAda,\"says \"\"hi\"\", twice\"\n".utf8))
///     // [["name", "note"], ["Ada", "says \"hi\", twice"]]
///     CSV.format(rows)
///     // "name,note\nAda,\"says \"\"hi\"\", twice\"\n"
///
/// Reading accepts UTF-8 with or without a byte-order mark, LF, CRLF or CR line ends, and a
/// last line with or without a line end. Every record must have as many fields as the first.
/// A blank line is a record with one empty field (RFC 4180's grammar, and how csvkit and
/// Python's `csv` read it): a row whose cell is blank in a one-column file, and an error naming
/// the line in a wider one — never a row dropped silently.
///
///     try CSV.parse(Array("name\nAda\n\nBob\n".utf8))   // [["name"], ["Ada"], [""], ["Bob"]]
///     try CSV.parse(Array("a,b\n1,2\n\n".utf8))
///     // CSVError: line 3: blank line; expected 2 fields (as in the first line) — …
///
/// Writing quotes only the fields that need it and ends lines with LF.
public enum CSV {
    /// Whether `delimiter` can separate fields: an ASCII byte other than a quote or a line end.
    /// The scanner relies on it: a field boundary then never splits a UTF-8 character, so a
    /// record's fields are valid UTF-8 when the record is.
    package static func isValidDelimiter(_ delimiter: UInt8) -> Bool {
        delimiter < 0x80 && delimiter != 0x22 && delimiter != 0x0A && delimiter != 0x0D
    }

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
        precondition(
            isValidDelimiter(delimiter),
            "CSV delimiter must be an ASCII character other than a quote or a line break")
        var scanner = _CSVRecordScanner(delimiter: delimiter, wanted: nil)
        var records: [[String]] = []
        try bytes.withUnsafeBufferPointer { buffer in
            var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            while let record = try scanner.next(buffer, at: &index, final: true) { records.append(record.fields) }
        }
        return records
    }

    /// Formats records as CSV text, quoting fields where needed (and a record of one empty
    /// field, so that no reader takes it for a blank line to skip).
    ///
    /// - Parameters:
    ///   - rows: The records.
    ///   - delimiter: The field separator.
    public static func format(_ rows: [[String]], delimiter: Character = ",") -> String {
        var text = ""
        for row in rows {
            // A record of one empty field is written `""`: as a blank line it would read back the
            // same here, but readers that skip blank lines (pandas, spreadsheets) would drop it.
            if row == [""] {
                text += "\"\"\n"
                continue
            }
            // Fields appended in place (no array of quoted fields per record: downloads write
            // millions of records).
            for (index, field) in row.enumerated() {
                if index > 0 { text.append(delimiter) }
                text += quoted(field, delimiter: delimiter)
            }
            text += "\n"
        }
        return text
    }

    /// One field as it appears in CSV: quoted, with quotes doubled, if it contains the
    /// delimiter, a quote or a line break; as is otherwise.
    ///
    ///     CSV.quoted("a,b")   // "\"a,b\""
    ///
    /// Decided on Unicode scalars, as readers split bytes: a `,` or `"` followed by a
    /// combining mark is one `Character` but still a delimiter or a quote to a CSV reader.
    public static func quoted(_ field: String, delimiter: Character = ",") -> String {
        // Most fields are printable ASCII without the delimiter or a quote: no scalar walk.
        if let byte = delimiter.asciiValue,
            field.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != byte && $0 != UInt8(ascii: "\"") })
        {
            return field
        }
        let delimiters = delimiter.unicodeScalars
        func isSpecial(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\"" || delimiters.contains(scalar) || _newlines.contains(scalar.value)
        }
        guard field.unicodeScalars.contains(where: isSpecial) else { return field }
        var result = "\""
        for scalar in field.unicodeScalars {
            if scalar == "\"" { result.unicodeScalars.append("\"") }
            result.unicodeScalars.append(scalar)
        }
        return result + "\""
    }

    /// ``quoted(_:delimiter:)`` on UTF-8 bytes, appended to `output`: the same decision, made
    /// on bytes. Each scalar that forces quotes is ASCII but NEL (C2 85), LS and PS
    /// (E2 80 A8/A9), and no other scalar's UTF-8 holds an ASCII byte, so no scalar walk is
    /// needed. A CSV download writes every cell through it.
    ///
    ///     var output: [UInt8] = []
    ///     Array("a,b".utf8).withUnsafeBufferPointer { CSV.appendQuoted($0, delimiter: UInt8(ascii: ","), to: &output) }
    ///     // output == Array("\"a,b\"".utf8)
    public static func appendQuoted(_ field: UnsafeBufferPointer<UInt8>, delimiter: UInt8, to output: inout [UInt8]) {
        precondition(delimiter < 0x80, "CSV delimiter must be an ASCII character")
        let count = field.count
        var needsQuotes = false
        var index = 0
        while index < count {
            let byte = field[index]
            if byte == 0x22 || byte == delimiter || (0x0A...0x0D).contains(byte)
                || (byte == 0xC2 && index + 1 < count && field[index + 1] == 0x85)
                || (byte == 0xE2 && index + 2 < count && field[index + 1] == 0x80 && (field[index + 2] == 0xA8 || field[index + 2] == 0xA9))
            {
                needsQuotes = true
                break
            }
            index += 1
        }
        guard needsQuotes else {
            output.append(contentsOf: field)
            return
        }
        output.append(0x22)
        var run = 0
        for (index, byte) in field.enumerated() where byte == 0x22 {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: field[run...index]))
            output.append(0x22)
            run = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: field[run..<count]))
        output.append(0x22)
    }

    /// The scalars `Character.isNewline` names: LF, VT, FF, CR, NEL, LS, PS.
    private static let _newlines: Set<UInt32> = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]
}
