import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

@Suite("Pinned rows and sort rules over the stores")
struct PinnedRowsTests {
    @Test(
        "Pinned rows come first under every order and matching search; offset and cursor pages agree with memory (seeded)",
        arguments: Backend.available)
    func pinned(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x919
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        let terms = ["", "a", "é", "2", "do", "zz", "ss"]
        for tableNumber in 0..<4 {
            let rowCount = Int.random(in: 0...50, using: &random)
            let csv = DifferentialTests.randomCSV(rows: rowCount, using: &random)
            let memory = try TextTable(csv: Array(csv.utf8))
            let name = "p\(tableNumber)"
            try await store.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
            for round in 0..<12 {
                // Some ids the table doesn't have, and a repeat.
                let ids = (0..<Int.random(in: 0...5, using: &random)).map { _ in Int64.random(in: 1...Int64(rowCount + 3), using: &random) }
                let pins = PinnedRows(ids)
                let spec = DifferentialTests.randomSpec(columns: memory.columns, using: &random)
                let search = terms.randomElement(using: &random)!
                let query = SearchQuery(search)
                let sorted = try memory.sortedRowIndices(by: spec).map { Int64($0 + 1) }.filter { query.matches(memory.rows[Int($0) - 1]) }
                let top = pins.ids.filter { sorted.contains($0) }
                let expected = top + sorted.filter { !top.contains($0) }
                let context = "\(backend), table \(tableNumber), round \(round), pins \(pins.ids), spec \(spec), search \(search), seed \(seed)"
                let offset = Int.random(in: 0...expected.count, using: &random)
                let limit = Int.random(in: 1...8, using: &random)
                let page = try await pins.page(of: name, PageRequest(order: .spec(spec), search: search, offset: offset, limit: limit), in: store)
                #expect(page.rows.map(\.id) == Array(expected.dropFirst(offset).prefix(limit)), "\(context), offset \(offset)")
                #expect(page.filtered == expected.count && page.total == rowCount, "\(context)")
                var request = PageRequest(order: .spec(spec), search: search, limit: limit)
                var paged: [Int64] = []
                while true {
                    let page = try await pins.page(of: name, request, in: store)
                    paged += page.rows.map(\.id)
                    guard let next = page.next, paged.count <= expected.count else { break }
                    request.after = next
                }
                #expect(paged == expected, "\(context): cursor pages")
            }
        }
    }

    @Test("A pin: cursor that isn't an offset is refused; no pins is the store's page")
    func badCursor() async throws {
        let store = try await Backend.sqlite.makeStore()
        try await store.importCSV(Array("a\n1\n2\n".utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        for cursor in ["pin:x", "pin:", "pin:-1", "pin:99999999999999999999", "pin:" + String(repeating: "9", count: 1 << 20), "pin:1 "] {
            await #expect(throws: TableStoreError.self, "\(cursor.prefix(30))") {
                try await PinnedRows([2]).page(of: "t", PageRequest(after: cursor), in: store)
            }
        }
        // A cursor past the pinned rows pages on by offset; a forged regular cursor is refused by the store.
        let past = try await PinnedRows([2]).page(of: "t", PageRequest(limit: 5, after: "pin:1"), in: store)
        #expect(past.rows.map(\.id) == [1])
        await #expect(throws: TableStoreError.self) {
            try await PinnedRows([2]).page(of: "t", PageRequest(after: "forged"), in: store)
        }
        let plain = try await PinnedRows([]).page(of: "t", PageRequest(), in: store)
        #expect(plain.rows.map(\.id) == [1, 2])
        #expect(PinnedRows(Array(1...500)).ids.count == PinnedRows.maximum)
    }
}
