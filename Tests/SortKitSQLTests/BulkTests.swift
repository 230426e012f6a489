import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

@Suite("Bulk deletes and block moves: one transaction each")
struct BulkTests {
    /// A store with a table `t` of `count` rows (ids 1…count).
    static func populated(_ backend: Backend, count: Int) async throws -> any TableStore {
        let store = try await backend.makeStore()
        let csv = "name,n\n" + (1...count).map { "row \($0),\($0)\n" }.joined()
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        return store
    }

    static func manual(_ store: any TableStore) async throws -> [Int64] {
        try await store.page(of: "t", PageRequest(order: .manual, limit: 10_000)).rows.map(\.id)
    }

    @Test("Seeded random block moves: every row once, the block contiguous and in the order listed", arguments: Backend.available)
    func randomBlocks(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 40)
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xB10C)
        let replay = "seed \(random.seed) (replay with SORTKIT_SEED=\(random.seed))"
        var model = Array(Int64(1)...40)
        for round in 0..<30 {
            let block = Array(model.shuffled(using: &random).prefix(Int.random(in: 1...8, using: &random)))
            let anchor = model.filter { !block.contains($0) }.randomElement(using: &random)!
            let after = Bool.random(using: &random)
            try await store.move(block, in: "t", to: after ? .after(anchor) : .before(anchor))
            model.removeAll { block.contains($0) }
            let at = model.firstIndex(of: anchor)! + (after ? 1 : 0)
            model.insert(contentsOf: block, at: at)
            let order = try await Self.manual(store)
            #expect(order == model, "\(backend) round \(round): block \(block) \(after ? "after" : "before") \(anchor), \(replay)")
            #expect(Set(order).count == 40)
            if order != model { return }
        }
    }

    @Test(
        "Blocks moved into one gap again and again (evenly spaced, then row by row with relabels) and to both ends agree with a model",
        arguments: Backend.available)
    func denseGap(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 60)
        var model = Array(Int64(1)...60)
        func move(_ block: [Int64], _ destination: MoveDestination) async throws {
            try await store.move(block, in: "t", to: destination)
            model.removeAll { block.contains($0) }
            switch destination {
            case .after(let anchor): model.insert(contentsOf: block, at: model.firstIndex(of: anchor)! + 1)
            case .before(let anchor): model.insert(contentsOf: block, at: model.firstIndex(of: anchor)!)
            case .toIndex: Issue.record("not a block destination")
            }
            #expect(try await Self.manual(store) == model, "\(backend): block \(block) to \(destination)")
        }
        // Each block halves and more the gap after row 1: past 2^20 apart, rows go one by one.
        for round in 0..<12 {
            let block = model.filter { $0 != 1 && $0 != 2 }.suffix(5 + round % 3)
            try await move(Array(block), .after(1))
        }
        try await move([30, 31, 32], .before(model.first { !(30...32).contains($0) }!))
        try await move([1, 2], .after(model.last { $0 > 2 }!))
        try await move(Array(model.suffix(20)), .before(model[0]))
        #expect(Set(model).count == 60)
    }

    @Test("keepingOrder moves a block as its rows stand in the manual order, whatever order they are listed in", arguments: Backend.available)
    func keepingOrder(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 12)
        try await store.move([12], in: "t", to: .before(1)) // 12, 1, 2, …, 11
        try await store.move([9, 3, 12], in: "t", to: .after(6), keepingOrder: true)
        #expect(try await Self.manual(store) == [1, 2, 4, 5, 6, 12, 3, 9, 7, 8, 10, 11])
        try await store.move([9, 3, 12], in: "t", to: .before(1), keepingOrder: false)
        #expect(try await Self.manual(store) == [9, 3, 12, 1, 2, 4, 5, 6, 7, 8, 10, 11])
    }

    @Test("A bad block changes nothing and names the problem", arguments: Backend.available)
    func badBlocks(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 10)
        try await store.move([3, 1], in: "t", to: .before(2))
        let before = try await Self.manual(store)
        #expect(before == [3, 1, 2, 4, 5, 6, 7, 8, 9, 10])
        let cases: [([Int64], MoveDestination, String)] = [
            ([5, 99, 6], .after(1), "table 't' has no row 99"),
            ([5, 6], .after(1234), "table 't' has no row 1234"),
            ([], .after(1), "ids is empty: name at least one row"),
            ([5, 6, 5], .after(1), "ids names row 5 twice"),
            ([5, 6], .after(6), "row 6 is in the block; it can't be its anchor"),
            ([5, 6], .toIndex(0), "a block moves after or before a row, not to an index"),
            ([5, -1], .after(1), "table 't' has no row -1"),
        ]
        for (ids, destination, message) in cases {
            do {
                try await store.move(ids, in: "t", to: destination)
                Issue.record("\(backend): \(ids) \(destination) should have failed")
            } catch let error as TableStoreError {
                #expect(error.description == message, "\(backend)")
            }
            #expect(try await Self.manual(store) == before, "\(backend): \(ids) changed the order")
        }
        await #expect(throws: TableStoreError.self) {
            try await store.move(Array(Int64(1)...Int64(_BlockMove.maxIDs + 1)), in: "t", to: .after(1))
        }
    }

    @Test("A bulk delete across the statement chunks (300, 500) and the change log's 4,096-version boundary keeps pages exact", arguments: Backend.available)
    func bigDelete(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 5_000)
        // Pages read through the in-memory index before and after, so the change log is read.
        _ = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "-n")), limit: 10))
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0xDE1E7E)
        let doomed = Array((Int64(1)...5_000).shuffled(using: &random).prefix(4_321))
        try await store.delete(doomed, from: "t")
        let left = (Int64(1)...5_000).filter { !Set(doomed).contains($0) }
        let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "-n")), limit: 10_000))
        #expect(page.total == 679 && page.rows.map(\.id) == left.reversed(), "\(backend), seed \(random.seed)")
        let searched = try await store.page(of: "t", PageRequest(search: "row", limit: 10_000))
        #expect(searched.filtered == 679)
        // Writes after it are seen too.
        try await store.delete(Array(left.prefix(9)), from: "t")
        #expect(try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "n")), limit: 5)).rows.map(\.id) == Array(left[9..<14]))
    }

    @Test("Bulk delete: all named rows go, or none; counts, order and pages follow", arguments: Backend.available)
    func bulkDelete(_ backend: Backend) async throws {
        let store = try await Self.populated(backend, count: 30)
        try await store.move([30], in: "t", to: .before(1)) // the manual order exists
        do {
            try await store.delete([4, 5, 31], from: "t")
            Issue.record("\(backend): an unknown id should fail the delete")
        } catch let error as TableStoreError {
            #expect(error.description == "table 't' has no row 31")
        }
        await #expect(throws: TableStoreError.self) { try await store.delete([4, 4], from: "t") }
        await #expect(throws: TableStoreError.self) { try await store.delete([], from: "t") }
        #expect(try await store.page(of: "t", PageRequest(limit: 1)).total == 30)

        let doomed: [Int64] = [30, 2, 17, 9, 10]
        try await store.delete(doomed, from: "t")
        let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "-n")), limit: 100))
        #expect(page.total == 25 && page.filtered == 25)
        #expect(page.rows.map(\.id) == (1...30).reversed().map(Int64.init).filter { !doomed.contains($0) })
        #expect(try await Self.manual(store) == (1...30).map(Int64.init).filter { !doomed.contains($0) })
        let searched = try await store.page(of: "t", PageRequest(search: "row 1", limit: 100))
        #expect(!searched.rows.contains { doomed.contains($0.id) })
        await #expect(throws: TableStoreError.self) { try await store.row(17, in: "t") }
    }
}
