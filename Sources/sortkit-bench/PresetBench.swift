import ArgumentParser
import Foundation
import OrderKeys
import SortBy
import SortKit

/// `sortkit-bench presets`: a 1M-row SortByIndex with 4 presets.
struct PresetBench: ParsableCommand, BookBench {
    static let defaults = BenchDefaults(rows: 1_000_000)
    static let configuration = defaults.command("presets", "Switch presets and pages on an index with replicas; update rows; report memory per preset")

    @OptionGroup var data: DataSetOptions

    func run() throws {
        let books = self.books
        let presets: [String: [SortKey<BenchBook>]] = [
            "title": [SortKey(\.title)],
            "author": [SortKey(\.author), SortKey(\.title)],
            "price-desc": [SortKey(\.price, .descending)],
            "published-desc": [SortKey(\.published, .descending)],
        ]
        var start = DispatchTime.now().uptimeNanoseconds
        var index = SortByIndex(presets: presets, rows: books, searchable: { [$0.title, $0.author] })
        print(String(format: "build: %d rows, 4 presets, search text: %.0f ms", rows, ms(since: start)))

        for query in ["", "garden", "zoë ocean"] {
            let parsed = SearchQuery(query)
            var times: [Double] = []
            for round in 0..<40 {
                let preset = index.presetNames[round % 4]
                start = DispatchTime.now().uptimeNanoseconds
                let page = index.ids(preset: preset, matching: parsed, offset: 0, limit: 50)
                times.append(ms(since: start))
                try check(index, preset, presets[preset]!, page, parsed)
            }
            times.sort()
            print(
                String(
                    format: "switch preset → first page of 50, query %@: median %.3f ms, max %.3f ms",
                    "\"\(query)\"", times[times.count / 2], times.last!))
        }
        let deep = DispatchTime.now().uptimeNanoseconds
        _ = index.ids(preset: "title", offset: rows / 2, limit: 50)
        print(String(format: "page at offset %d: %.3f ms", rows / 2, ms(since: deep)))

        var random = SplitMix64(seed: 0x9E7)
        var updates: [Double] = []
        for _ in 0..<2_000 {
            let id = Int.random(in: 0..<rows, using: &random)
            let old = index[id]!
            let new = BenchBook(
                id: old.id, title: old.title, author: old.author, status: old.status, statusRank: old.statusRank,
                price: Double(Int.random(in: 100...9_999, using: &random)) / 100, published: old.published, pages: old.pages)
            start = DispatchTime.now().uptimeNanoseconds
            index.update(id, to: new)
            updates.append(ms(since: start) * 1000)
        }
        updates.sort()
        print(
            String(
                format: "update one row's price (4 presets, 1 affected): median %.1f µs, p99 %.1f µs", updates[updates.count / 2],
                updates[updates.count * 99 / 100]))
        try threePresetUpdates(books)
        for preset in index.presetNames {
            print(String(format: "memory, preset %@: %.2f bytes per row", preset, Double(index._replicaBytes(preset: preset)) / Double(rows)))
        }
    }

    /// #20's case: three presets, an update changing price and title, so the row moves in all
    /// three; each update checked against the neighbours it lands between.
    func threePresetUpdates(_ books: [BenchBook]) throws {
        let presets: [String: [SortKey<BenchBook>]] = [
            "title": [SortKey(\.title)],
            "price-desc": [SortKey(\.price, .descending)],
            "author": [SortKey(\.author), SortKey(\.title)],
        ]
        var index = SortByIndex(presets: presets, rows: books, searchable: { [$0.title, $0.author] })
        var random = SplitMix64(seed: 0x3E7)
        var updates: [Double] = []
        let titles = books.prefix(10_000).map(\.title)
        for _ in 0..<2_000 {
            let id = Int.random(in: 0..<rows, using: &random)
            let old = index[id]!
            let new = BenchBook(
                id: old.id, title: titles.randomElement(using: &random)! + " II", author: old.author, status: old.status,
                statusRank: old.statusRank, price: Double(Int.random(in: 100...9_999, using: &random)) / 100,
                published: old.published, pages: old.pages)
            let start = DispatchTime.now().uptimeNanoseconds
            index.update(id, to: new)
            updates.append(ms(since: start) * 1000)
        }
        for (name, keys) in presets {
            let page = index.ids(preset: name, offset: 0, limit: rows)
            for (a, b) in zip(page, page.dropFirst()) where keys.compare(index[a]!, index[b]!) == .orderedDescending {
                throw ValidationError("preset \(name): out of order after updates")
            }
        }
        updates.sort()
        print(
            String(
                format: "update price and title (3 presets, all 3 affected): median %.1f µs, p99 %.1f µs",
                updates[updates.count / 2], updates[updates.count * 99 / 100]))
    }

    func ms(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

    /// The page must be the first 50 matching rows in the preset's order.
    func check(_ index: SortByIndex<BenchBook>, _ preset: String, _ keys: [SortKey<BenchBook>], _ page: [Int], _ query: SearchQuery) throws {
        let rows = page.map { index[$0]! }
        for (a, b) in zip(rows, rows.dropFirst()) where keys.compare(a, b) == .orderedDescending {
            throw ValidationError("preset \(preset): page out of order")
        }
        guard rows.allSatisfy({ query.matches([$0.title, $0.author]) }) else { throw ValidationError("preset \(preset): a row doesn't match") }
    }
}
