import SortKit

/// The CSV a download writes: RFC 4180 rows (``CSV/format(_:delimiter:)``) whose text cells
/// can't run as spreadsheet formulas.
///
/// A spreadsheet that opens a CSV file runs a cell that starts with `=`, `+`, `-` or `@` as a
/// formula (`=HYPERLINK(…)`, `=cmd|' /C calc'!A0`), and some also read a leading tab or
/// carriage return as the start of one. Such a text cell gets a leading `'`, which the
/// spreadsheet shows as text. Numbers keep their sign: a cell of a number column that reads
/// as a number of it (`-$1,234.50` in a float column), and in any column a decimal number and
/// nothing else (`-5`, `+1.5e3`). `formulas=keep` downloads cells exactly as stored.
///
///     CSVDownload.format([["=1+2", "-5", "@SUM(A1)"]], types: [.string, .string, .string])
///     // "'=1+2,-5,'@SUM(A1)\r\n"
enum CSVDownload {
    /// `rows` as CSV, each cell defused by its column's type in `types` (`nil`: none is).
    static func format(_ rows: [[String]], types: [ColumnType]?) -> String {
        // Most cells start with a letter or digit: a row is copied only when a cell may need a `'`.
        guard let types, rows.contains(where: { $0.contains(where: mayDefuse) }) else { return CSV.format(rows) }
        return CSV.format(
            rows.map { cells in
                guard cells.contains(where: mayDefuse) else { return cells }
                return cells.indices.map { index in defused(cells[index], type: index < types.count ? types[index] : .string) }
            })
    }

    /// Whether `cell` starts with a byte that may make it a formula.
    private static func mayDefuse(_ cell: String) -> Bool {
        guard let first = cell.utf8.first else { return false }
        return first == 0x3D || first == 0x2B || first == 0x2D || first == 0x40 || first == 0x09 || first == 0x0D
    }

    /// `cell`, with a leading `'` when a spreadsheet would run it as a formula.
    static func defused(_ cell: String, type: ColumnType = .string) -> String {
        guard let first = cell.utf8.first, formulaStarts.contains(first), !isPlainNumber(cell) else { return cell }
        if type == .integer || type == .float {
            switch type.sortValue(cell) {
            case .integer, .double: return cell
            default: break
            }
        }
        return "'" + cell
    }

    /// `=`, `+`, `-`, `@`, tab and carriage return.
    private static let formulaStarts: Set<UInt8> = [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D]

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
