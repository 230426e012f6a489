import Foundation
import GRDB
import OrderKeys
import SortKit
import SortKitTestSupport
import Synchronization
import Testing

@testable import SortKitSQL

@Suite("Cursors after their row changed")
struct CursorAfterChangeTests {
    @Test("A cursor whose row was edited or deleted still pages on from where it was, for one key and several", arguments: Backend.available)
    func editedCursorRow(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        var csv = "name,group\n"
        for index in 0..<40 { csv += "n\(String(format: "%02d", index)),g\(index % 3)\n" }
        try await store.importCSV(Array(csv.utf8), as: "c", delimiter: UInt8(ascii: ","), presets: [:])
        for (text, change) in [("name", "delete"), ("group,name", "delete"), ("name", "edit"), ("group,name", "edit")] {
            let spec = try SortSpec(parsing: text)
            let first = try await store.page(of: "c", PageRequest(order: .spec(spec), limit: 5))
            let last = first.rows.last!
            // Expected: the rows after the cursor's place in the order as it was, as they are now.
            let all = try await store.page(of: "c", PageRequest(order: .spec(spec), limit: 100)).rows
            let place = all.firstIndex { $0.id == last.id }!
            if change == "delete" {
                try await store.delete(last.id, from: "c")
            } else {
                try await store.update(last.id, in: "c", set: ["name": "zz\(last.id)", "group": "g9"])
            }
            let expected = all[(place + 1)...].prefix(5).map(\.id)
            let next = try await store.page(of: "c", PageRequest(order: .spec(spec), limit: 5, after: first.next))
            #expect(next.rows.map(\.id) == expected, "\(backend): \(text) after a \(change) of the cursor's row")
        }
    }
}

@Suite("random= orders and the index's memory")
struct RandomRankingTests {
    @Test("Requests naming many seeds leave at most two random= rankings kept; every page is still right")
    func boundedSeeds() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabase(), queryBudget: testQueryBudget)
        var csv = "name\n"
        for index in 0..<300 { csv += "n\(index % 97)\n" }
        try await store.importCSV(Array(csv.utf8), as: "r", delimiter: UInt8(ascii: ","), presets: [:])
        let memory = try TextTable(csv: Array(csv.utf8))
        for seed in 0..<12 {
            let spec = try SortSpec(parsing: "name:random=\(seed)")
            let expected = try memory.sortedRowIndices(by: spec).map { Int64($0 + 1) }
            // A deep page and cursor pages build the ranking for the request.
            let deep = try await store.page(of: "r", PageRequest(order: .spec(spec), offset: 250, limit: 50))
            #expect(deep.rows.map(\.id) == Array(expected[250...]), "seed \(seed)")
            let paged = try await DifferentialTests.keysetPages(store, "r", PageRequest(order: .spec(spec), limit: 40), most: 300)
            #expect(paged == expected, "seed \(seed)")
        }
        try await Task.sleep(for: .milliseconds(300)) // background builds
        let randoms = store.indexes.keptVariants.filter(\.isRandom)
        #expect(randoms.count >= 1 && randoms.count <= 2, "\(randoms.map(\.columnName))")
    }
}
