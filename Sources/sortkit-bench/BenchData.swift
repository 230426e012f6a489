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
    let title: String
    let author: String
    let status: Status
    let statusRank: Int
    let price: Double
    let published: Date?
    let pages: Int
}

enum BenchData {
    static let firstNames = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken",
                             "Dennis", "Radia", "Leslie", "Tony", "Niklaus", "Shafi", "Silvio", "Judea", "Yann", "Fei-Fei"]
    static let nonASCIIFirst = ["José", "Zoë", "Søren", "Łukasz", "Ðорис", "Ἀλέξανδρος", "Émilie", "Jürgen"]
    static let words = ["Garden", "River", "Night", "Winter", "Glass", "Iron", "Silent", "Golden", "Empire", "Ocean",
                        "Shadow", "Storm", "Library", "Machine", "Island", "Letters", "Journey", "Kingdom", "Mirror", "Engine"]

    /// `count` books, deterministic for a given count.
    static func books(count: Int) -> [BenchBook] {
        var random = SplitMix64(seed: 0x50_12_7C_17)  // the same data set on every run
        let authors: [String] = (0..<5_000).map { n in
            let nonASCII = n % 20 == 7
            let first = nonASCII ? nonASCIIFirst[n % nonASCIIFirst.count] : firstNames[n % firstNames.count]
            return "\(first) \(words[(n / 20) % words.count])son \(n / 400)"
        }
        let statuses = BenchBook.Status.allCases
        let epoch = Date(timeIntervalSince1970: 0)
        return (0..<count).map { id in
            let title = "\(words.randomElement(using: &random)!) \(words.randomElement(using: &random)!) \(Int.random(in: 1...2_000, using: &random))"
            let status = statuses.randomElement(using: &random)!
            return BenchBook(
                id: id, title: title, author: authors.randomElement(using: &random)!, status: status, statusRank: status.rank,
                price: Double(Int.random(in: 100...9_999, using: &random)) / 100,
                published: Int.random(in: 0..<10, using: &random) == 0 ? nil
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
        var text = "id,title,author,status,price,published,pages\n"
        text.reserveCapacity(books.count * 80)
        for book in books {
            let published = book.published.map(isoDay) ?? ""
            text += "\(book.id),\(CSV.quoted(book.title)),\(CSV.quoted(book.author)),\(book.status),\(book.price),\(published),\(book.pages)\n"
        }
        try Data(text.utf8).write(to: url)
    }
}
