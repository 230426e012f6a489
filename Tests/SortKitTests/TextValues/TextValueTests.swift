import Foundation
import Testing

@testable import SortKit

@Suite("Type inference and text parsing")
struct TextTests {
    @Test(
        "Column types",
        arguments: [
            (["10", "2", "", "9"], ColumnType.integer),
            (["1.5", "2", " "], .float),
            (["2024-01-02", "2023-12-31T10:00:00Z"], .date),
            (["true", "FALSE"], .bool),
            (["10", "n/a"], .string),
            (["", " "], .string),
            (["0x10"], .string),
            (["nan", "1"], .string),
            (["-3", "+4"], .integer),
        ])
    func inference(values: [String], expected: ColumnType) {
        #expect(ColumnType.infer(values) == expected)
    }

    @Test("ISO 8601 dates and date-times")
    func dates() {
        #expect(ISODate.parse("1970-01-02") == Date(timeIntervalSince1970: 86_400))
        #expect(ISODate.parse("2024-03-05T10:20:30.5+02:00") == ISODate.parse("2024-03-05T08:20:30.5Z"))
        #expect(ISODate.parse("2024-03-05 08:20") == ISODate.parse("2024-03-05T08:20:00Z"))
        #expect(ISODate.parse("2024-02-29") != nil)
        #expect(ISODate.parse("1900-01-01")! < ISODate.parse("1970-01-01")!)
        for bad in ["2023-02-29", "2024-13-01", "2024-1-1", "2024-01-01T25:00", "2024-01-01X", "yesterday", "2024-01-01T10:00+2"] {
            #expect(ISODate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("ISO 8601 formatting matches Foundation's style on random instants (seeded)")
    func formatting() {
        var random = SeededRandom.fromEnvironment(default: 1_970)
        let style = Date.ISO8601FormatStyle()
        // 1583 on: before it Foundation uses the Julian calendar (and so does `format`).
        let fixed: [Double] = [0, -1, -0.5, 86_400.75, 951_782_400, 4_107_542_399, -12_212_553_600, 253_402_300_799]
        let instants = fixed + (0..<2_000).map { _ in Double.random(in: -12_212_553_600...253_402_300_799, using: &random) }
        for time in instants {
            let date = Date(timeIntervalSince1970: time)
            #expect(ISODate.format(date) == style.format(date), "\(time), \(random.replay)")
            #expect(ISODate.parse(ISODate.format(date)) == Date(timeIntervalSince1970: time.rounded(.down)), "\(time)")
        }
        // Before 1583 the text is the proleptic Gregorian date that `parse` reads (Foundation's
        // Julian text would read back as another day): year 1 and year 0 round-trip.
        #expect(ISODate.format(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        for text in ["0000-01-01", "0000-02-29", "1000-03-01", "1582-10-04", "1582-10-15"] {
            #expect(ISODate.format(ISODate.parse(text)!) == text + "T00:00:00Z", "\(text)")
        }
        #expect(SortValue.date(ISODate.parse("0000-01-01")!).description == "0000-01-01T00:00:00Z")
    }
}
