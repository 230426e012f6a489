import ArgumentParser
import Foundation
import OrderKeys
import SortKit

/// The benchmark's book, as in issue #3: id, title, author (5,000 distinct, ~5% non-ASCII),
/// status (a 4-case enum sorted in declared order), price, an optional publication date, and
/// a page count for the single-integer case.
struct BenchBook: Sendable, Equatable {
    enum Status: CaseIterable, Sendable {
        case todo, reading, done, abandoned
        var rank: Int {
            switch self {
            case .todo: 0
            case .reading: 1
            case .done: 2
            case .abandoned: 3
            }
        }
    }

    let id: Int
    let title, author: String
    let status: Status
    /// The status's place in the declared order, for closures that sort by it.
    let statusRank: Int
    let price: Double
    let published: Date?
    let pages: Int
}

enum BenchData {
    static let firstNames = [
        "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken",
        "Dennis", "Radia", "Leslie", "Tony", "Niklaus", "Shafi", "Silvio", "Judea", "Yann", "Fei-Fei",
    ]
    static let nonASCIIFirst = ["José", "Zoë", "Søren", "Łukasz", "Ðорис", "Ἀλέξανδρος", "Émilie", "Jürgen"]
    static let words = [
        "Garden", "River", "Night", "Winter", "Glass", "Iron", "Silent", "Golden", "Empire", "Ocean",
        "Shadow", "Storm", "Library", "Machine", "Island", "Letters", "Journey", "Kingdom", "Mirror", "Engine",
    ]

    /// The titles' and authors' text: English, or multilingual (issue #36: an ASCII-only data
    /// set hid a 4–5× gap on text with accents and other scripts).
    enum TextKind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case ascii, multilingual
    }

    /// Words of the multilingual data set, by script; the last group is decomposed (NFD) text,
    /// letters followed by combining marks, as macOS file names and some exports hold it.
    static let multilingualWords: [[String]] = [
        [
            "Jardín", "Rivière", "Nächte", "Hiver", "Szkło", "Żelazo", "Cichy", "Złoty", "Imperio", "Océan", "Sjö", "Ærø",
            "Çiçek", "Ağaç", "Šťastný", "Dvořák", "Ångström", "Ñandú", "Œuvre", "Straße",
        ],
        ["Сад", "Река", "Ночь", "Зима", "Стекло", "Железо", "Тихий", "Золотой", "Империя", "Ґанок", "Їжак", "Єнот"],
        ["Κήπος", "Ποταμός", "Νύχτα", "Χειμώνας", "Γυαλί", "Σίδερο", "Ωκεανός", "Αυτοκρατορία"],
        ["花园", "河流", "夜晚", "冬天", "玻璃", "钢铁", "寂静", "黄金", "帝国", "海洋", "影子", "風の谷", "東京", "서울"],
        ["Cafe\u{301}", "Nin\u{303}o", "Ko\u{308}ln", "Sm\u{30A}land", "Pra\u{30C}ha", "I\u{307}stanbul"],
    ]
    static let multilingualFirst = [
        "José", "Zoë", "Søren", "Łukasz", "Борис", "Ἀλέξανδρος", "Émilie", "Jürgen",
        "Ольга", "Αθηνά", "王", "李", "Ана", "Ìyá", "Nguyễn", "Đặng", "Ngo\u{323}c",
    ]

    /// `count` books, deterministic for a given count and text kind.
    static func books(count: Int, text: TextKind = .ascii) -> [BenchBook] {
        var random = SplitMix64(seed: 0x50_12_7C_17) // the same data set on every run
        let multilingual = text == .multilingual
        let allWords = multilingualWords.flatMap { $0 }
        let authors: [String] = (0..<5_000).map { n in
            if multilingual && n % 20 < 13 { // 65%
                let first = multilingualFirst[n % multilingualFirst.count]
                return "\(first) \(allWords[(n / 20) % allWords.count]) \(n / 400)"
            }
            let nonASCII = n % 20 == 7
            let first = nonASCII ? nonASCIIFirst[n % nonASCIIFirst.count] : firstNames[n % firstNames.count]
            return "\(first) \(words[(n / 20) % words.count])son \(n / 400)"
        }
        /// A title: two words of one script (65% of titles when multilingual) or English.
        func title() -> String {
            if multilingual && Int.random(in: 0..<100, using: &random) < 65 {
                let script = multilingualWords.randomElement(using: &random)!
                return "\(script.randomElement(using: &random)!) \(script.randomElement(using: &random)!) \(Int.random(in: 1...2_000, using: &random))"
            }
            return "\(words.randomElement(using: &random)!) \(words.randomElement(using: &random)!) \(Int.random(in: 1...2_000, using: &random))"
        }
        let statuses = BenchBook.Status.allCases
        let epoch = Date(timeIntervalSince1970: 0)
        return (0..<count).map { id in
            let title = title()
            let status = statuses.randomElement(using: &random)!
            return BenchBook(
                id: id, title: title, author: authors.randomElement(using: &random)!, status: status, statusRank: status.rank,
                price: Double(Int.random(in: 100...9_999, using: &random)) / 100,
                published: Int.random(in: 0..<10, using: &random) == 0
                    ? nil
                    : epoch.addingTimeInterval(Double(Int.random(in: 0...20_000, using: &random)) * 86_400),
                pages: Int.random(in: 1...2_000, using: &random))
        }
    }

    /// `date` as `YYYY-MM-DD` (UTC): the date part of SortKit's arithmetic ISO 8601 text (a
    /// formatter per row made writing a million rows take a minute).
    static func isoDay(_ date: Date) -> String {
        String(ISODate.format(date).prefix(10))
    }

    /// Writes the data set as CSV, for comparing with external tools.
    static func writeCSV(_ books: [BenchBook], to url: URL) throws {
        // Written 8 MB at a time: `Data.write(to:)` of one 2.3 GB buffer (30M rows) wrote the
        // file wrong on Linux, the header again in the middle of row 27,870,025, 2 GB in.
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw ValidationError("cannot create '\(url.path)'")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var text = "id,title,author,status,price,published,pages\n"
        text.reserveCapacity(9 << 20)
        for book in books {
            let published = book.published.map(isoDay) ?? ""
            text += "\(book.id),\(CSV.quoted(book.title)),\(CSV.quoted(book.author)),\(book.status),\(book.price),\(published),\(book.pages)\n"
            if text.utf8.count >= 8 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
