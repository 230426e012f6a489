import Foundation
import GRDB
import SortKit
import Testing
@testable import SortKitSQL

let booksCSV = """
    title,author,status,price,published
    The Hobbit,Tolkien,done,12.50,1937-09-21
    Émile,Rousseau,todo,,1762-05-01
    file10,Zed,reading,3,
    file2,zed,abandoned,3,2001-01-01
    emile,Voltaire,todo,7.25,1759-01-15

    """

@Suite("SQLite table store")
struct SQLiteTableStoreTests {
    func store(presets: [String: SortSpec] = [:]) throws -> SQLiteTableStore {
        let store = try SQLiteTableStore(path: temporaryDatabase())
        try store.importCSV(Array(booksCSV.utf8), as: "books", presets: presets)
        return store
    }

    func ids(_ store: SQLiteTableStore, _ spec: String, search: String = "") throws -> [Int64] {
        try store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: spec)), search: search, limit: 100)).rows.map(\.id)
    }

    @Test("Import infers types, keeps file order as ids, and sorts as memory does")
    func importAndSort() throws {
        let store = try store()
        let schema = try store.schema(of: "books")
        #expect(schema.columns.map(\.type) == [.string, .string, .string, .float, .date])
        #expect(try ids(store, "") == [1, 2, 3, 4, 5])
        #expect(try ids(store, "title") == [5, 2, 4, 3, 1])   // natural: emile < Émile (tie-break) < file2 < file10
        #expect(try ids(store, "-price") == [1, 5, 3, 4, 2])  // blank last both ways
        #expect(try ids(store, "status:enum=todo|reading|done,-price") == [5, 2, 3, 1, 4])
        #expect(try ids(store, "published:nulls-first") == [3, 5, 2, 1, 4])
        #expect(try ids(store, "author:binary") == [2, 1, 5, 3, 4])
        let page = try store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), search: "EMILE", limit: 1))
        #expect(page.rows.map(\.id) == [5] && page.total == 5 && page.filtered == 2 && page.next != nil)
        #expect(page.rows[0].cells == ["emile", "Voltaire", "todo", "7.25", "1759-01-15"])
    }

    @Test("Keyset cursors page through every row once, and reject tampering and other orders")
    func cursors() throws {
        let store = try store()
        var request = try PageRequest(order: .spec(SortSpec(parsing: "-price,title")), limit: 2)
        var seen: [Int64] = []
        while true {
            let page = try store.page(of: "books", request)
            seen += page.rows.map(\.id)
            guard let next = page.next else { break }
            request.after = next
        }
        #expect(seen == [1, 5, 4, 3, 2])
        let first = try store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), limit: 1))
        let cursor = try #require(first.next)
        var tampered = Array(cursor)
        tampered[3] = tampered[3] == "A" ? "B" : "A"
        #expect(throws: TableStoreError.self) {
            try store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), limit: 1, after: String(tampered)))
        }
        #expect(throws: TableStoreError.invalid("the cursor belongs to another sort or search; start from the first page")) {
            try store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "-title")), limit: 1, after: cursor))
        }
    }

    @Test("Rows are added, edited and deleted with validation by column type")
    func writes() throws {
        let store = try store()
        let id = try store.insert(["title": "Aardvark", "price": "1"], into: "books")
        #expect(id == 6)
        #expect(try ids(store, "title").first == 6)
        try store.update(6, in: "books", set: ["title": "zzz"])
        #expect(try ids(store, "title").last == 6)
        #expect(try store.row(6, in: "books").cells == ["zzz", "", "", "1", ""])
        #expect(throws: TableStoreError.invalidValue("cheap", column: "price", type: .float)) {
            try store.update(6, in: "books", set: ["price": "cheap"])
        }
        #expect(throws: TableStoreError.unknownColumn("colour", table: "books", known: ["title", "author", "status", "price", "published"])) {
            try store.insert(["colour": "red"], into: "books")
        }
        try store.delete(6, from: "books")
        #expect(throws: TableStoreError.unknownRow(6, table: "books")) { try store.delete(6, from: "books") }
        #expect(throws: TableStoreError.unknownTable("films")) { try store.row(1, in: "films") }
        #expect(try ids(store, "", search: "zzz").isEmpty)
    }

    @Test("A bad CSV names its line and imports nothing")
    func badImport() throws {
        let store = try SQLiteTableStore(path: temporaryDatabase())
        let error = #expect(throws: CSVError.self) { try store.importCSV(Array("a,b\n1,2\n3,4,5\n".utf8), as: "t") }
        #expect(error?.description == "line 3: expected 2 fields (as in the first line), found 3")
        #expect(try store.tables().isEmpty)
        #expect(throws: TableStoreError.invalid("line 1: table 't' names column 'a' twice")) {
            try store.importCSV(Array("a,a\n1,2\n".utf8), as: "t")
        }
        try store.importCSV(Array("a\n1\n".utf8), as: "t")
        #expect(throws: TableStoreError.tableExists("t")) { try store.importCSV(Array("a\n1\n".utf8), as: "t") }
    }

    @Test("The manual order: moves by id and by index, new rows at the end, survives reopening")
    func manualOrder() throws {
        let path = try temporaryDatabase()
        do {
            let store = try SQLiteTableStore(path: path)
            try store.importCSV(Array(booksCSV.utf8), as: "books")
            try store.move(5, in: "books", to: .before(1))
            try store.move(1, in: "books", to: .after(3))
            try store.move(2, in: "books", to: .toIndex(0))
            try store.insert(["title": "new"], into: "books")
            try store.move(4, in: "books", to: .toIndex(99))
            #expect(throws: TableStoreError.self) { try store.move(42, in: "books", to: .toIndex(0)) }
        }
        let store = try SQLiteTableStore(path: path)
        let manual = try store.page(of: "books", PageRequest(order: .manual, limit: 100)).rows.map(\.id)
        #expect(manual == [2, 5, 3, 1, 6, 4])
        var request = PageRequest(order: .manual, limit: 4)
        let first = try store.page(of: "books", request)
        request.after = first.next
        #expect(try first.rows.map(\.id) + store.page(of: "books", request).rows.map(\.id) == manual)
    }

    @Test("A preset's index serves its order and its cursor seek, with no sort step")
    func presetIndex() throws {
        let store = try store(presets: ["cheapest": SortSpec(parsing: "price,title")])
        let request = try PageRequest(order: .spec(SortSpec(parsing: "price,title")), limit: 10)
        let plan = try store.queryPlan(of: "books", request)
        #expect(plan.contains { $0.contains("USING INDEX st_1_preset0") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        let seek = try store.queryPlan(of: "books", request, cursorValues: [.double(3), .blob([0x30]), .integer(1)])
        #expect(seek.contains { $0.contains("SEARCH t USING INDEX st_1_preset0") }, "\(seek)")
        #expect(try ids(store, "price,title") == [4, 3, 5, 1, 2])
    }
}
