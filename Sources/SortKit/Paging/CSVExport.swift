/// How a download writes rows as CSV: RFC 4180 records (SortKit's `CSV.appendQuoted(_:delimiter:to:)`,
/// one `\n` after each) whose text cells can't run as spreadsheet formulas.
///
/// A spreadsheet that opens a CSV file runs a cell that starts with `=`, `+`, `-` or `@` as a
/// formula (`=HYPERLINK(…)`, `=cmd|' /C calc'!A0`), and some also read a leading tab or
/// carriage return as the start of one. Such a text cell gets a leading `'`, which the
/// spreadsheet shows as text. Numbers keep their sign: a cell of a number column that reads
/// as a number of it (`-$1,234.50` in a float column), and in any column a decimal number and
/// nothing else (`-5`, `+1.5e3`). With `defusing: nil` cells are written exactly as stored.
///
/// Set it as ``PageRequest/csv`` and a store that serves the page from its in-memory index
/// writes the rows straight from the index's bytes into SortKitSQL's `TablePage.csv`; otherwise the page
/// comes as rows and ``appendRecords(_:to:)`` writes them — the same bytes either way.
///
///     let export = CSVExport(defusing: [.string, .string, .string])
///     var output: [UInt8] = []
///     export.appendRecords([["=1+2", "-5", "@SUM(A1)"]], to: &output)
///     // String(decoding: output, as: UTF8.self) == "'=1+2,-5,'@SUM(A1)\n"
public struct CSVExport: Sendable, Hashable {
    /// The column types the formula check reads cells by, by column index; `nil` writes cells
    /// as stored.
    public var defusing: [ColumnType]?

    /// An export that defuses by `defusing` (`nil`: none).
    public init(defusing: [ColumnType]?) {
        self.defusing = defusing
    }

    /// Appends each of `rows` as a record.
    public func appendRecords(_ rows: [[String]], to output: inout [UInt8]) {
        for row in rows {
            for (column, cell) in row.enumerated() {
                var cell = cell
                cell.withUTF8 { bytes in appendCell(bytes, column: column, count: row.count, to: &output) }
            }
            output.append(0x0A)
        }
    }

    /// Appends cell `column` of a record of `count` cells, with the `,` before it.
    @inline(__always)
    package func appendCell(_ bytes: UnsafeBufferPointer<UInt8>, column: Int, count: Int, to output: inout [UInt8]) {
        if column > 0 { output.append(UInt8(ascii: ",")) }
        // A record of one empty field is written `""`: as a blank line, readers that skip
        // blank lines (pandas, spreadsheets) would drop it.
        if count == 1 && bytes.isEmpty {
            output.append(contentsOf: [0x22, 0x22])
            return
        }
        if let types = defusing, let first = bytes.first, Self.formulaStart(first) {
            let cell = String(decoding: bytes, as: UTF8.self)
            var shown = Self.defused(cell, type: column < types.count ? types[column] : .string)
            shown.withUTF8 { CSV.appendQuoted($0, delimiter: UInt8(ascii: ","), to: &output) }
            return
        }
        CSV.appendQuoted(bytes, delimiter: UInt8(ascii: ","), to: &output)
    }

    /// `=`, `+`, `-`, `@`, tab and carriage return.
    @inline(__always)
    static func formulaStart(_ byte: UInt8) -> Bool {
        byte == 0x3D || byte == 0x2B || byte == 0x2D || byte == 0x40 || byte == 0x09 || byte == 0x0D
    }

    /// `cell`, with a leading `'` when a spreadsheet would run it as a formula.
    ///
    ///     CSVExport.defused("=1+2")                  // "'=1+2"
    ///     CSVExport.defused("-1234.50", type: .float) // "-1234.50"
    public static func defused(_ cell: String, type: ColumnType = .string) -> String {
        guard let first = cell.utf8.first, formulaStart(first), !isPlainNumber(cell) else { return cell }
        if type == .integer || type == .float {
            switch type.sortValue(cell) {
            case .integer, .double: return cell
            default: break
            }
        }
        return "'" + cell
    }

    /// Whether `text` is a decimal number and nothing else: an optional sign, digits with at
    /// most one decimal point, and an optional exponent.
    static func isPlainNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == 0x2B || sign == 0x2D { bytes = bytes.dropFirst() }
        var digits = 0, points = 0
        while let byte = bytes.first, (0x30...0x39).contains(byte) || byte == 0x2E {
            if byte == 0x2E { points += 1 } else { digits += 1 }
            bytes = bytes.dropFirst()
        }
        guard digits > 0, points <= 1 else { return false }
        if let e = bytes.first, e == 0x65 || e == 0x45 {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == 0x2B || sign == 0x2D { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
            return true
        }
        return bytes.isEmpty
    }
}
