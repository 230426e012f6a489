import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitSQL

@Suite("Schema changes keep every row")
struct MigrationTests {
    /// A populated version-1 table: the books plus 300 seeded random rows, with a preset.
    static func populated(_ backend: Backend) async throws -> (store: any TableStore, memory: TextTable) {
        let store = try await backend.makeStore()
        var random = SplitMix64(seed: 7)
        var records = try CSV.parse(Array(booksCSV.utf8))
        for index in 0..<300 {
            records.append([
                "Book \(Int.random(in: 0...999, using: &random))", ["Zola", "zola", "Ölund", "Abe"].randomElement(using: &random)!,
                ["todo", "done", "reading"].randomElement(using: &random)!,
                index % 7 == 0 ? "" : String(Double(Int.random(in: 100...9_999, using: &random)) / 100),
                "19\(Int.random(in: 10...99, using: &random))-0\(Int.random(in: 1...9, using: &random))-1\(index % 10)",
            ])
        }
        let csv = Array(CSV.format(records).utf8)
        try await store.importCSV(csv, as: "books", delimiter: UInt8(ascii: ","), presets: ["Cheapest": SortSpec(parsing: "price,title")])
        return (store, try TextTable(csv: csv))
    }

    static func allRows(_ store: any TableStore, order: TableOrder = .spec(SortSpec())) async throws -> [TableRow] {
        try await store.page(of: "books", PageRequest(order: order, limit: 10_000)).rows
    }

    @Test("Add, rename, retype and add a preset: every row survives and sorts as memory does", arguments: Backend.available)
    func migrate(_ backend: Backend) async throws {
        let (store, memory) = try await Self.populated(backend)
        let before = try await Self.allRows(store)
        #expect(before.count == 305)
        let schema = try await store.alter(
            "books",
            [
                .addColumn("isbn", .string),
                .renameColumn("price", to: "cost"),
                .changeType("published", to: .string),
                .addPreset("Newest", SortSpec(parsing: "-published")),
            ])
        #expect(schema.columns.map(\.name) == ["title", "author", "status", "cost", "published", "isbn"])
        #expect(schema.columns.map(\.type) == [.string, .string, .string, .float, .string, .string])
        #expect(schema.presets["Cheapest"] == (try SortSpec(parsing: "cost,title")))
        #expect(try await store.schema(of: "books") == schema)
        let after = try await Self.allRows(store)
        #expect(after == before.map { TableRow(id: $0.id, cells: $0.cells + [""]) })
        // Orders read the renamed and retyped columns as memory reads the same cells.
        var renamed = memory
        renamed.columns[3] = "cost"
        for spec in ["cost,title", "-published", "published:num"] {
            let expected = try renamed.sortedRowIndices(by: SortSpec(parsing: spec)).map { Int64($0 + 1) }
            #expect(try await Self.allRows(store, order: .spec(SortSpec(parsing: spec))).map(\.id) == expected, "\(backend) \(spec)")
        }
        // Writes use the new schema; the change back to a date is lossless.
        try await store.update(2, in: "books", set: ["isbn": "978-0", "cost": "1.5"])
        #expect(try await store.row(2, in: "books").cells == ["Émile", "Rousseau", "todo", "1.5", "1762-05-01", "978-0"])
        try await store.alter("books", [.changeType("published", to: .date)])
        #expect(try await Self.allRows(store).map(\.cells.count) == Array(repeating: 6, count: 305))
    }

    @Test("A change that can't convert names the rows and changes nothing", arguments: Backend.available)
    func failedChange(_ backend: Backend) async throws {
        let (store, _) = try await Self.populated(backend)
        let before = try await Self.allRows(store)
        let schema = try await store.schema(of: "books")
        let error = await #expect(throws: TableStoreError.self) {
            try await store.alter("books", [.addColumn("isbn", .string), .changeType("author", to: .integer)])
        }
        #expect(error?.description.hasPrefix("column 'author' can't become integer: row 1 ('Tolkien'), row 2 ('Rousseau')") == true)
        #expect(error?.description.hasSuffix("don't parse as integer; nothing was changed") == true)
        #expect(try await store.schema(of: "books") == schema)
        #expect(try await Self.allRows(store) == before)
        await #expect(throws: TableStoreError.unknownColumn("colour", table: "books", known: schema.columns.map(\.name))) {
            try await store.alter("books", [.renameColumn("colour", to: "color")])
        }
        await #expect(throws: TableStoreError.self) { try await store.alter("books", [.addColumn("title", .string)]) }
        await #expect(throws: TableStoreError.self) { try await store.alter("books", [.removePreset("Nope")]) }
        // Removing the preset drops its index; rows stay.
        try await store.alter("books", [.removePreset("Cheapest")])
        #expect(try await Self.allRows(store) == before)
    }
}
