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
