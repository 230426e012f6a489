import Foundation
import SortKit
import SortKitSQL
import SortKitShared

/// The built-in demo data set: a library of books, generated deterministically.
public enum DemoLibrary {
    /// The table's name.
    public static let tableName = "books"

    /// The statuses in their declared order.
    public static let statuses = ["todo", "reading", "done", "abandoned"]

    /// The demo's presets ("Sort by"), each served by an index.
    public static let presets: [String: SortSpec] = [
        "Title": try! SortSpec(parsing: "title"),
        "Author": try! SortSpec(parsing: "author,title"),
        "Cheapest": try! SortSpec(parsing: "price,title"),
        "Newest": try! SortSpec(parsing: "-published,title"),
        "Status": try! SortSpec(parsing: "status:enum=todo|reading|done|abandoned,title"),
    ]

    /// `count` books as CSV (title, author, status, price, published), the same for the same
    /// seed: natural-order titles ("Volume 2" before "Volume 10"), accented authors, blank
    /// prices and dates here and there.
    public static func csv(count: Int = 3_000, seed: UInt64 = 1) -> String {
        var random = SplitMix64(seed: seed)
        let adjectives = [
            "Silent", "Hidden", "Last", "Golden", "Broken", "Endless", "Quiet", "Lost", "Northern", "Bright",
            "Éternel", "Dark", "Little", "Distant", "Wild",
        ]
        let nouns = [
            "Garden", "River", "Library", "City", "Winter", "Letters", "House", "Sea", "Mountain", "Orchard",
            "Archive", "Island", "Clockmaker", "Harbour", "Forest",
        ]
        let authors = [
            "Émile Zola", "Gabriel García Márquez", "Ursula K. Le Guin", "Chinua Achebe", "Haruki Murakami",
            "Jorge Luis Borges", "Wisława Szymborska", "Selma Lagerlöf", "Halldór Laxness", "Toni Morrison",
            "Italo Calvino", "Octavia E. Butler", "Naguib Mahfouz", "Virginia Woolf", "Stanisław Lem",
            "Clarice Lispector", "Kazuo Ishiguro", "Jean-Jacques Rousseau", "Zadie Smith", "Olga Tokarczuk",
        ]
        var rows = [["title", "author", "status", "price", "published"]]
        for _ in 0..<count {
            var title = "The \(adjectives.randomElement(using: &random)!) \(nouns.randomElement(using: &random)!)"
            if Int.random(in: 0..<3, using: &random) == 0 { title += ", Volume \(Int.random(in: 1...12, using: &random))" }
            let price =
                Int.random(in: 0..<12, using: &random) == 0
                ? ""
                : String(format: "%.2f", Double(Int.random(in: 199...4_999, using: &random)) / 100)
            let published =
                Int.random(in: 0..<15, using: &random) == 0
                ? ""
                : String(
                    format: "%04d-%02d-%02d", Int.random(in: 1850...2025, using: &random),
                    Int.random(in: 1...12, using: &random), Int.random(in: 1...28, using: &random))
            rows.append([title, authors.randomElement(using: &random)!, statuses.randomElement(using: &random)!, price, published])
        }
        return CSV.format(rows)
    }

    /// Adds the demo table to `store` unless it is there already.
    public static func install(in store: any TableStore, count: Int = 3_000) async throws {
        guard !(try await store.tables().contains { $0.name == tableName }) else { return }
        do {
            try await store.importCSV(Array(csv(count: count).utf8), as: tableName, delimiter: UInt8(ascii: ","), presets: presets)
        } catch let error as TableStoreError where error == .tableExists(tableName) {
            // Another server on the same database installed it since the check (several servers
            // starting at once, or a read replica that hadn't replayed it yet).
        }
    }
}
