import Foundation
import GRDB
import OrderKeys
import SortKit
import SortKitTestSupport
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

@Suite("Table stores (SQLite and PostgreSQL)")
struct TableStoreTests {
    func store(_ backend: Backend, presets: [String: SortSpec] = [:]) async throws -> any TableStore {
        let store = try await backend.makeStore()
        try await store.importCSV(Array(booksCSV.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: presets)
        return store
    }

    func ids(_ store: any TableStore, _ spec: String, search: String = "") async throws -> [Int64] {
        try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: spec)), search: search, limit: 100)).rows.map(\.id)
    }

    @Test("A delimiter that could split a character or a record is refused by name; nothing is created", arguments: Backend.available)
    func badDelimiters(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        for delimiter: UInt8 in [0xA9, 0xC3, 0x80, 0xFF, 0x22, 0x0A, 0x0D] {
            await #expect(throws: TableStoreError.self, "delimiter \(delimiter)") {
                try await store.importCSV(Array("café,x\nthé,y\n".utf8), as: "d\(delimiter)", delimiter: delimiter, presets: [:])
            }
        }
        #expect(try await store.tables().isEmpty)
        // Tab and semicolon are fine.
        try await store.importCSV(Array("a;b\n1;2\n".utf8), as: "semi", delimiter: UInt8(ascii: ";"), presets: [:])
        #expect(try await store.schema(of: "semi").columns.map(\.name) == ["a", "b"])
    }

    @Test("Import infers types, keeps file order as ids, and sorts as memory does", arguments: Backend.available)
    func importAndSort(_ backend: Backend) async throws {
        let store = try await store(backend)
        let schema = try await store.schema(of: "books")
        #expect(schema.columns.map(\.type) == [.string, .string, .string, .float, .date])
        #expect(try await ids(store, "") == [1, 2, 3, 4, 5])
        #expect(try await ids(store, "title") == [5, 2, 4, 3, 1]) // natural: emile < Émile (tie-break) < file2 < file10
        #expect(try await ids(store, "-price") == [1, 5, 3, 4, 2]) // blank last both ways
        #expect(try await ids(store, "status:enum=todo|reading|done,-price") == [5, 2, 3, 1, 4])
        #expect(try await ids(store, "published:nulls-first") == [3, 5, 2, 1, 4])
        #expect(try await ids(store, "author:binary") == [2, 1, 5, 3, 4])
        let page = try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), search: "EMILE", limit: 1))
        #expect(page.rows.map(\.id) == [5] && page.total == 5 && page.filtered == 2 && page.next != nil)
        #expect(page.rows[0].cells == ["emile", "Voltaire", "todo", "7.25", "1759-01-15"])
    }

    @Test("Keyset cursors page through every row once, and reject tampering and other orders", arguments: Backend.available)
    func cursors(_ backend: Backend) async throws {
        let store = try await store(backend)
        var request = try PageRequest(order: .spec(SortSpec(parsing: "-price,title")), limit: 2)
        var seen: [Int64] = []
        while true {
            let page = try await store.page(of: "books", request)
            seen += page.rows.map(\.id)
            guard let next = page.next else { break }
            request.after = next
        }
        #expect(seen == [1, 5, 4, 3, 2])
        let first = try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), limit: 1))
        let cursor = try #require(first.next)
        var tampered = Array(cursor)
        tampered[3] = tampered[3] == "A" ? "B" : "A"
        await #expect(throws: TableStoreError.self) {
            try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title")), limit: 1, after: String(tampered)))
        }
        await #expect(throws: TableStoreError.invalid("the cursor belongs to another sort or search; start from the first page")) {
            try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "-title")), limit: 1, after: cursor))
        }
    }

    @Test(
        "Odd CSV through an import: a BOM, megabyte cells across the scan's slices, non-normalized text, huge numbers, a blank last field at end of file",
        arguments: Backend.available)
    func oddImport(_ backend: Backend) async throws {
        let location = try backend.newLocation()
        let store = try await backend.open(location)
        let megabyte = String(repeating: "ü", count: 600_000)
        var csv = "\u{FEFF}name,n,note\n"
        for index in 0..<4 { csv += "\"\(megabyte)\(index)\",\(index),\"a \"\"q\"\", b\"\n" }
        csv += "Cafe\u{301},99999999999999999999,\n" // a number too big for Int64: the column is text
        // What COPY's text format escapes: a tab, line ends, backslashes, a literal \N.
        csv += "\"tab\there\",8,\"line\nbreak \\N back\\slash\r\"\n"
        csv += "\" \u{301}\",6,mark\n" // a space a combining mark joins: not blank (scalars, not Characters)
        csv += "  ,7,last" // a blank name; no line end at end of file
        let schema = try await store.importCSV(Array(csv.utf8), as: "odd", delimiter: UInt8(ascii: ","), presets: ["ByNote": try SortSpec(parsing: "note,-n")])
        #expect(schema.columns.map(\.name) == ["name", "n", "note"] && schema.columns[1].type != .integer)
        let page = try await store.page(of: "odd", PageRequest(limit: 10))
        #expect(page.total == 8 && page.rows.map(\.id) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(page.rows[3].cells == [megabyte + "3", "3", "a \"q\", b"])
        #expect(page.rows[4].cells == ["Caf\u{E9}", "99999999999999999999", ""]) // NFC; blank is empty
        #expect(page.rows[5].cells == ["tab\there", "8", "line\nbreak \\N back\\slash\r"])
        #expect(page.rows[6].cells == [" \u{301}", "6", "mark"])
        #expect(page.rows[7].cells == ["", "7", "last"])
        let found = try await store.page(of: "odd", PageRequest(order: .spec(SortSpec(parsing: "-name")), search: "UUU 2", limit: 10))
        #expect(found.rows.map(\.id) == [3], "\(backend)")
        let cafe = try await store.page(of: "odd", PageRequest(search: "cafe", limit: 10))
        #expect(cafe.rows.map(\.id) == [5])
        // What the import stored, read back by SQL (no in-memory index): the same rows, the
        // same searches and the preset's stored key column in the same order.
        let stored: any TableStore =
            switch backend {
            case .sqlite, .sqliteSQL: try SQLiteTableStore(path: location, inMemoryIndex: false, queryBudget: testQueryBudget)
            case .postgres, .postgresICU: try await PostgresTableStore(url: backend.url!, schema: location, inMemoryIndex: false, queryBudget: testQueryBudget)
            }
        let requests = [
            PageRequest(limit: 10), PageRequest(search: "cafe"), PageRequest(search: "back\\slash"), PageRequest(search: "tab\the"),
            PageRequest(order: .spec(try SortSpec(parsing: "note,-n"))), PageRequest(order: .spec(try SortSpec(parsing: "n:num,name"))),
            PageRequest(order: .spec(try SortSpec(parsing: "name,n"))), PageRequest(order: .spec(try SortSpec(parsing: "-name,n"))),
        ]
        for request in requests {
            let memory = try await store.page(of: "odd", request), sql = try await stored.page(of: "odd", request)
            #expect(memory.rows == sql.rows && memory.filtered == sql.filtered, "\(backend): \(request.order) '\(request.search)'")
        }
    }

    @Test("A new SQLite database has 16 KB pages; one made with 4 KB pages keeps them and still serves its tables")
    func pageSize() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        #expect(try await store.database.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 16_384)
        // A database that another tool made (4 KB pages, WAL) is opened as it is.
        let older = try temporaryDatabase()
        let queue = try DatabaseQueue(path: older)
        try await queue.write { try $0.execute(sql: "PRAGMA page_size = 4096; CREATE TABLE other (x); PRAGMA journal_mode = WAL") }
        try queue.close()
        let reopened = try SQLiteTableStore(path: older, queryBudget: testQueryBudget)
        #expect(try await reopened.database.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == 4_096)
        try await reopened.importCSV(Array("a\n2\n1\n".utf8), as: "t")
        #expect(try await reopened.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "a")))).rows.map(\.id) == [2, 1])
    }

    @Test("SQLite's memory statistics turned off for the process (a global mutex per allocation) count nothing; a store alone leaves them")
    func memoryStatistics() async throws {
        let off = SQLiteTableStore.turnOffMemoryStatistics()
        #expect(off == SQLiteTableStore.turnOffMemoryStatistics())
        let store = try SQLiteTableStore(path: try temporaryDatabase(), queryBudget: testQueryBudget)
        try await store.importCSV(Array("title\nIsla\nisland\nÉmile\n".utf8), as: "t")
        #expect(try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "title")), search: "isla")).rows.count == 2)
        if off {
            // Nothing is counted: every allocation went without the statistics' mutex.
            #expect(SQLiteTableStore.sqliteMemoryUsed == 0)
        } else {
            // Only where SQLite was in use before the first store: it counted, and says so.
            print("memoryStatistics: SQLite was in use in this process before the call; its statistics stay on")
            #expect(SQLiteTableStore.sqliteMemoryUsed > 0)
        }
    }

    @Test("Database errors classify as what a client can act on: busy or full is unavailable, a bug is internal")
    func classifying() {
        #expect(TableStoreError.classifying(DatabaseError(resultCode: .SQLITE_BUSY))?.kind == .unavailable)
        #expect(TableStoreError.classifying(DatabaseError(resultCode: .SQLITE_FULL))?.kind == .unavailable)
        #expect(TableStoreError.classifying(DatabaseError(resultCode: .SQLITE_INTERRUPT))?.kind == .timedOut)
        #expect(TableStoreError.classifying(DatabaseError(resultCode: .SQLITE_ERROR, message: "no such column"))?.kind == .internal)
        #expect(TableStoreError.classifying(CancellationError())?.kind == .unavailable)
        #expect(TableStoreError.classifying(CocoaError(.fileNoSuchFile)) == nil)
    }

    @Test("A cursor whose value starts with a combining mark pages on (found by fuzz-cursor)", arguments: Backend.available)
    func cursorCombiningMark(_ backend: Backend) async throws {
        let store = try await store(backend)
        for title in ["\u{301}a", "\u{301}b", "\u{487}\u{301}c"] { _ = try await store.insert(["title": title], into: "books") }
        for spec in ["title", "title:binary", "-title:nocase"] {
            var request = try PageRequest(order: .spec(SortSpec(parsing: spec)), limit: 1)
            var seen: [Int64] = []
            while true {
                let page = try await store.page(of: "books", request)
                seen += page.rows.map(\.id)
                guard let next = page.next, seen.count < 20 else { break }
                request.after = next
            }
            #expect(seen.sorted() == [1, 2, 3, 4, 5, 6, 7, 8], "\(spec): \(seen)")
        }
        let cursor = KeysetCursor(order: "title", search: "", values: [.text("\u{301}x"), .integer(7)])
        #expect(try KeysetCursor.decode(cursor.encoded(secret: Data("k".utf8)), secret: Data("k".utf8), order: "title", search: "") == cursor)
    }

    @Test("Rows are added, edited and deleted with validation by column type", arguments: Backend.available)
    func writes(_ backend: Backend) async throws {
        let store = try await store(backend)
        let id = try await store.insert(["title": "Aardvark", "price": "1"], into: "books")
        #expect(id == 6)
        #expect(try await ids(store, "title").first == 6)
        try await store.update(6, in: "books", set: ["title": "zzz"])
        #expect(try await ids(store, "title").last == 6)
        #expect(try await store.row(6, in: "books").cells == ["zzz", "", "", "1", ""])
        await #expect(throws: TableStoreError.invalidValue("cheap", column: "price", type: .float)) {
            try await store.update(6, in: "books", set: ["price": "cheap"])
        }
        await #expect(throws: TableStoreError.unknownColumn("colour", table: "books", known: ["title", "author", "status", "price", "published"])) {
            try await store.insert(["colour": "red"], into: "books")
        }
        try await store.delete(6, from: "books")
        await #expect(throws: TableStoreError.unknownRow(6, table: "books")) { try await store.delete(6, from: "books") }
        await #expect(throws: TableStoreError.unknownTable("films")) { try await store.row(1, in: "films") }
        #expect(try await ids(store, "", search: "zzz").isEmpty)
    }

    @Test("A bad CSV names its line and imports nothing", arguments: Backend.available)
    func badImport(_ backend: Backend) async throws {
        let store = try await backend.makeStore()
        let error = await #expect(throws: CSVError.self) { try await store.importCSV(Array("a,b\n1,2\n3,4,5\n".utf8), as: "t", delimiter: 44, presets: [:]) }
        #expect(error?.description == "line 3: expected 2 fields (as in the first line), found 3")
        #expect(try await store.tables().isEmpty)
        await #expect(throws: TableStoreError.invalid("line 1: table 't' names column 'a' twice")) {
            try await store.importCSV(Array("a,a\n1,2\n".utf8), as: "t", delimiter: 44, presets: [:])
        }
        try await store.importCSV(Array("a\n1\n".utf8), as: "t", delimiter: 44, presets: [:])
        await #expect(throws: TableStoreError.tableExists("t")) { try await store.importCSV(Array("a\n1\n".utf8), as: "t", delimiter: 44, presets: [:]) }
    }

    @Test("The manual order: moves by id and by index, new rows at the end, survives reopening", arguments: Backend.available)
    func manualOrder(_ backend: Backend) async throws {
        let path = try backend.newLocation()
        do {
            let store = try await backend.open(path)
            try await store.importCSV(Array(booksCSV.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: [:])
            try await store.move(5, in: "books", to: .before(1))
            try await store.move(1, in: "books", to: .after(3))
            try await store.move(2, in: "books", to: .toIndex(0))
            try await store.insert(["title": "new"], into: "books")
            try await store.move(4, in: "books", to: .toIndex(99))
            await #expect(throws: TableStoreError.self) { try await store.move(42, in: "books", to: .toIndex(0)) }
        }
        let store = try await backend.open(path)
        let manual = try await store.page(of: "books", PageRequest(order: .manual, limit: 100)).rows.map(\.id)
        #expect(manual == [2, 5, 3, 1, 6, 4])
        var request = PageRequest(order: .manual, limit: 4)
        let first = try await store.page(of: "books", request)
        request.after = first.next
        #expect(try await first.rows.map(\.id) + store.page(of: "books", request).rows.map(\.id) == manual)
    }

    /// An imported table's manual order is id order, each row's label computed from its id.
    @Test("An imported table's first moves keep id order across deleted ids; blocks then move in one gap", arguments: Backend.available)
    func manualOrderAfterDeletes(_ backend: Backend) async throws {
        let store = try await backend.open(try backend.newLocation())
        let csv = "title\n" + (1...40).map { "t\($0)" }.joined(separator: "\n") + "\n"
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        let gone: Set<Int64> = [1, 3, 4, 17, 40]
        try await store.delete(Array(gone), from: "t")
        try await store.move([10, 11, 12], in: "t", to: .after(2))
        try await store.move([39, 38], in: "t", to: .before(2))
        var expected = (1...40).map(Int64.init).filter { !gone.contains($0) && ![10, 11, 12, 38, 39].contains($0) }
        expected.insert(contentsOf: [39, 38, 2, 10, 11, 12], at: 0)
        expected.remove(at: 6) // 2, placed above with the block
        #expect(try await store.page(of: "t", PageRequest(order: .manual, limit: 100)).rows.map(\.id) == expected)
    }

    @Test("The manual order's first labels come from ids unless they spread wider than numbering would")
    func manualLabelSteps() {
        let step = OrderLabels.step
        #expect(SQLiteTableStore.manualLabelSteps(count: 1_000_000, ids: 1...1_000_000) == .fromIDs(step: step, lowest: 1))
        #expect(SQLiteTableStore.manualLabelSteps(count: 3, ids: -7...(1 << 28)) == .fromIDs(step: step, lowest: -7))
        // Wider than 2^29 ids: a smaller step than numbering 3 rows gives.
        #expect(SQLiteTableStore.manualLabelSteps(count: 3, ids: 1...(1 << 40)) == .numbered(step: step))
        #expect(SQLiteTableStore.manualLabelSteps(count: 2, ids: Int64.min...Int64.max) == .numbered(step: step))
        #expect(SQLiteTableStore.manualLabelSteps(count: 2, ids: -1...Int64.max) == .numbered(step: step))
        #expect(SQLiteTableStore.manualLabelSteps(count: 0, ids: nil) == .numbered(step: step))
        // So many rows that numbering spaces them closer than 2^32: ids as dense do as well.
        let many = Int64(1) << 30
        let room = OrderLabels.limit - OrderLabels.first
        #expect(room / UInt64(many + 1) < step)
        #expect(SQLiteTableStore.manualLabelSteps(count: many, ids: 1...many) == .fromIDs(step: room / UInt64(many), lowest: 1))
    }

    @Test("SQLite: a preset's index serves its order and its cursor seek, with no sort step")
    func presetIndex() async throws {
        let store = try #require(try await store(.sqlite, presets: ["cheapest": SortSpec(parsing: "price,title")]) as? SQLiteTableStore)
        let request = try PageRequest(order: .spec(SortSpec(parsing: "price,title")), limit: 10)
        let plan = try await store.queryPlan(of: "books", request)
        #expect(plan.contains { $0.contains("USING INDEX st_1_preset0") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        let seek = try await store.queryPlan(of: "books", request, cursorValues: [.double(3), .blob([0x30]), .integer(1)])
        #expect(seek.contains { $0.contains("SEARCH t USING INDEX st_1_preset0") }, "\(seek)")
        #expect(try await ids(store, "price,title") == [4, 3, 5, 1, 2])
        // An order whose key isn't stored is planned as its page runs it: computed in the query.
        let computed = try await store.queryPlan(of: "books", PageRequest(order: .spec(SortSpec(parsing: "title:nocase")), limit: 10))
        #expect(computed.contains { $0.contains("TEMP B-TREE") }, "\(computed)")
    }

    @Test("A write that can't start (another process holds the lock) leaves the writing connection's commit mode as it was")
    func beginFails() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path, busyTimeout: 0.05)
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: holding)
        try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        // 100,000 rows: an import large enough to commit without waiting for the disk.
        let csv = "n\n" + (0..<100_000).map { "\($0)\n" }.joined()
        await #expect(throws: (any Error).self) { try await store.importCSV(Array(csv.utf8), as: "big", delimiter: 44, presets: [:]) }
        try await other.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        let mode = try await store.database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(mode == 1, "NORMAL (1), not OFF (0)")
        try await store.importCSV(Array("n\n1\n".utf8), as: "small", delimiter: 44, presets: [:])
    }

    @Test("A backup is a consistent copy that serves the same pages, taken while another connection writes; it never overwrites a file")
    func backup() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        try await store.importCSV(Array(booksCSV.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: ["cheapest": try SortSpec(parsing: "price,title")])
        // A writer in another connection while the backup runs: the copy holds a snapshot.
        let writer = Task {
            for index in 0..<20 { _ = try await store.insert(["title": "Added \(index)"], into: "books") }
        }
        let copy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("copy.sqlite").path
        try SQLiteTableStore.backup(path, to: copy)
        try await writer.value
        let restored = try SQLiteTableStore(path: copy, queryBudget: testQueryBudget)
        let page = try await restored.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price,title")), limit: 100))
        #expect(page.total >= 5 && page.total <= 25)
        let original = try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "price,title")), limit: 100))
        let kept = Set(page.rows.map(\.id))
        #expect(original.rows.filter { kept.contains($0.id) }.map(\.cells) == page.rows.map(\.cells), "the copy's rows are the original's, in the same order")
        #expect(try await restored.schema(of: "books").presets.keys.sorted() == ["cheapest"])
        // An odd file name: a quote, a space, non-ASCII and a combining mark (the path is a bound parameter).
        let odd = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("l'e\u{301}té copy.sqlite").path
        try SQLiteTableStore.backup(path, to: odd)
        #expect(try await SQLiteTableStore(path: odd, queryBudget: testQueryBudget).page(of: "books", PageRequest(limit: 0)).total >= 5)
        #expect(throws: TableStoreError.invalid("'\(copy)' exists; a backup never overwrites a file")) { try SQLiteTableStore.backup(path, to: copy) }
        #expect(throws: TableStoreError.invalid("the folder '/nonexistent-folder' for the backup doesn't exist")) {
            try SQLiteTableStore.backup(path, to: "/nonexistent-folder/x.sqlite")
        }
        // Not a SortKit database: refused, and nothing is added to it.
        let other = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("other.sqlite").path
        _ = FileManager.default.createFile(atPath: other, contents: nil)
        let otherCopy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("other-copy.sqlite").path
        #expect(throws: TableStoreError.self) { try SQLiteTableStore.backup(other, to: otherCopy) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)).isEmpty && !FileManager.default.fileExists(atPath: otherCopy))
    }
}
