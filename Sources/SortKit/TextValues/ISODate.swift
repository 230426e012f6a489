import Foundation

/// ISO 8601 dates and date-times, parsed by hand: `DateFormatter` is slow and locale-dependent,
/// and `ISO8601DateFormatter` takes one fixed format where tables mix several.
///
///     ISODate.parse("2024-03-05")                  // 2024-03-05 00:00:00 UTC
///     ISODate.parse("2024-03-05T10:20:30.5+02:00") // 2024-03-05 08:20:30.5 UTC
///     ISODate.parse("2024-02-30")                  // nil: no such day
///
/// Accepted: `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM`, `HH:MM:SS` or
/// `HH:MM:SS.fff…`, optionally followed by `Z` or an offset `±HH:MM`, `±HHMM` or `±HH`.
/// Date-times without an offset are read as UTC, so the same text gives the same order on
/// every machine.
public enum ISODate {
    /// The date in `text`, or `nil` if it isn't an ISO 8601 date or date-time.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 10, b[4] == 0x2D, b[7] == 0x2D,
            let year = number(b, 0, 4), let month = number(b, 5, 2), let day = number(b, 8, 2),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        var index = 10
        if index < b.count {
            guard b[index] == UInt8(ascii: "T") || b[index] == UInt8(ascii: " "), index + 6 <= b.count,
                let hour = number(b, index + 1, 2), b[index + 3] == 0x3A, let minute = number(b, index + 4, 2),
                hour < 24, minute < 60
            else { return nil }
            seconds += Double(hour * 3600 + minute * 60)
            index += 6
            if index < b.count, b[index] == 0x3A {
                guard let second = number(b, index + 1, 2), second < 61 else { return nil }
                seconds += Double(second)
                index += 3
                if index < b.count, b[index] == UInt8(ascii: ".") || b[index] == UInt8(ascii: ",") {
                    var scale = 0.1
                    index += 1
                    let start = index
                    while index < b.count, _isDigit(b[index]) {
                        seconds += Double(b[index] - 0x30) * scale
                        scale /= 10
                        index += 1
                    }
                    guard index > start else { return nil }
                }
            }
            if index < b.count {
                if b[index] == UInt8(ascii: "Z") {
                    index += 1
                } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
                    let sign = b[index] == UInt8(ascii: "+") ? 1.0 : -1.0
                    guard let hours = number(b, index + 1, 2), hours < 24 else { return nil }
                    index += 3
                    var minutes = 0
                    if index < b.count {
                        if b[index] == 0x3A { index += 1 }
                        guard let value = number(b, index, 2), value < 60 else { return nil }
                        minutes = value
                        index += 2
                    }
                    seconds -= sign * Double(hours * 3600 + minutes * 60)
                } else {
                    return nil
                }
            }
            guard index == b.count else { return nil }
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whether `cell` is exactly a valid `YYYY-MM-DD` date, from its bytes (what ``parse(_:)``
    /// accepts for that shape, without a `String`).
    package static func _isPlainDate(_ cell: UnsafeBufferPointer<UInt8>) -> Bool {
        guard cell.count == 10, cell[4] == 0x2D, cell[7] == 0x2D else { return false }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in cell[start..<start + count] {
                guard _isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), (1...12).contains(month) else { return false }
        return day >= 1 && day <= daysInMonth(year, month)
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<start + count] {
            guard _isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTC, whole seconds, in the proleptic Gregorian
    /// calendar that ``parse(_:)`` reads (so the years 0000–9999 round-trip; ISO 8601 says so
    /// too), by arithmetic: a formatter's calendar work costs more than a table's whole row.
    /// From 1583 on this is the text `Date.ISO8601FormatStyle()` gives; before the 1582 reform
    /// Foundation switches to the Julian calendar, and "0000-01-01" would print as
    /// "0000-01-03". Outside 0000–9999 it falls back to Foundation's text.
    ///
    ///     ISODate.format(Date(timeIntervalSince1970: 86_400.75))   // "1970-01-02T00:00:00Z"
    ///     ISODate.format(ISODate.parse("0000-01-01")!)            // "0000-01-01T00:00:00Z"
    public static func format(_ date: Date) -> String {
        let time = date.timeIntervalSince1970.rounded(.down)
        guard time.isFinite, abs(time) < 2.5e11 else { return date.formatted(.iso8601) }
        let seconds = Int(time)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else { return date.formatted(.iso8601) }
        let second = seconds - days * 86_400
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int, _ at: Int, _ width: Int) {
            var value = value
            for i in (at..<at + width).reversed() {
                bytes[i] = UInt8(0x30 + value % 10)
                value /= 10
            }
        }
        put(year, 0, 4); put(month, 5, 2); put(day, 8, 2)
        put(second / 3600, 11, 2); put(second / 60 % 60, 14, 2); put(second % 60, 17, 2)
        for (i, byte) in [(4, 0x2D), (7, 0x2D), (10, 0x54), (13, 0x3A), (16, 0x3A), (19, 0x5A)] { bytes[i] = UInt8(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The civil date of a day count since 1970-01-01 (the inverse of `daysFromCivil`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
