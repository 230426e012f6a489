import Foundation
import GRDB
import OrderKeys
import SortKit
import SortKitTestSupport
import Synchronization
import Testing

@testable import SortKitSQL

/// The in-memory index against memory: pages after writes made through another store on the
/// same database (another process), with searches, offsets and cursors; rankings updated in
/// place against rankings built again; and reads that leave the database untouched.
@Suite("Table indexes")
struct IndexTests {
    /// The page's ids as memory gives them: rows (in id order) that match `search`, sorted
    /// by `spec` reading each cell by the schema's column type, stable.
    static func expected(_ rows: [(id: Int64, cells: [String])], schema: TableSchema, spec: SortSpec, search: String) throws -> [Int64] {
        let query = SearchQuery(search)
        let kept = rows.filter { query.matches($0.cells) }
        var keys: [SortKey<[String]>] = []
        for key in spec.keys {
            let column = try schema.columnIndex(key.column)
            let type = key.interpretation == .inferred && key.enumOrder == nil ? schema.columns[column].type : .string
            keys += key.sortKeys(readingText: { cells in cells[column] }, columnType: type)
        }
        return kept.map(\.cells).sortedIndices(by: keys).map { kept[$0].id }
    }

    /// A cell a column of `type` accepts.
    static func value(for column: Int, type: ColumnType, using random: inout SplitMix64) -> String {
        for _ in 0..<50 {
            let csv = DifferentialTests.randomCSV(rows: 1, using: &random)
            let text = try! CSV.parse(Array(csv.utf8))[1][column]
            if type.accepts(text) { return text }
        }
        return ""
    }

    @Test(
        "Writes through another store are seen by the next page; search, offset and cursors agree with memory (seeded)",
        arguments: Backend.available)
    func writesFromElsewhere(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 2027
        var random = SplitMix64(seed: seed)
        let location = try backend.newLocation()
        let reader = try await backend.open(location)
        let writer = try await backend.open(location)
        let terms = ["", "a", "é", "2", "do", "ß", "ss", "a 1", "zz", "e\u{301}"]
        for table in 0..<3 {
            let csv = DifferentialTests.randomCSV(rows: Int.random(in: 0...80, using: &random), using: &random)
            let name = "w\(table)"
            let schema = try await reader.importCSV(Array(csv.utf8), as: name, delimiter: UInt8(ascii: ","), presets: [:])
            var rows = try CSV.parse(Array(csv.utf8)).dropFirst().enumerated().map { (id: Int64($0.offset + 1), cells: $0.element) }
            var nextID = Int64(rows.count + 1)
            for step in 0..<40 {
                // A write through the other store.
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let cells = schema.columns.indices.map { Self.value(for: $0, type: schema.columns[$0].type, using: &random) }
                    let id = try await writer.insert(Dictionary(uniqueKeysWithValues: zip(schema.columns.map(\.name), cells)), into: name)
                    #expect(id == nextID, "\(backend)")
                    nextID = id + 1
                    rows.append((id, cells))
                case 1 where !rows.isEmpty:
                    let index = Int.random(in: 0..<rows.count, using: &random)
                    let column = Int.random(in: 0..<schema.columns.count, using: &random)
                    let text = Self.value(for: column, type: schema.columns[column].type, using: &random)
                    try await writer.update(rows[index].id, in: name, set: [schema.columns[column].name: text])
                    rows[index].cells[column] = text
                case 2 where !rows.isEmpty:
                    let index = Int.random(in: 0..<rows.count, using: &random)
                    try await writer.delete(rows[index].id, from: name)
                    rows.remove(at: index)
                default: break
                }
                // A read through the first store.
                let spec = DifferentialTests.randomSpec(columns: schema.columns.map(\.name), using: &random)
                let search = terms.randomElement(using: &random)!
                let expected = try Self.expected(rows, schema: schema, spec: spec, search: search)
                let context = "\(backend), table \(table), step \(step), spec \(spec), search \(search.debugDescription), seed \(seed)"
                let offset = Int.random(in: 0...max(0, expected.count), using: &random)
                let page = try await reader.page(of: name, PageRequest(order: .spec(spec), search: search, offset: offset, limit: 10))
                #expect(page.rows.map(\.id) == Array(expected.dropFirst(offset).prefix(10)), "\(context), offset \(offset)")
                #expect(page.total == rows.count && page.filtered == expected.count, "\(context)")
                for row in page.rows {
                    let cells = rows.first { $0.id == row.id }!.cells.map {
                        Collation.normalized($0).allSatisfy(\.isWhitespace) ? "" : Collation.normalized($0)
                    }
                    #expect(row.cells == cells, "\(context): row \(row.id)")
                }
                let paged = try await DifferentialTests.keysetPages(
                    reader, name, PageRequest(order: .spec(spec), search: search, limit: Int.random(in: 1...9, using: &random)), most: expected.count)
                #expect(paged == expected, "\(context): keyset paging")
            }
        }
    }

    @Test(
        "Rankings are brought up to date when read: bulk deletes, edits and inserts between reads by a few orders agree with memory (seeded)",
        arguments: Backend.available)
    func deferredRankings(_ backend: Backend) async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 2038
        var random = SplitMix64(seed: seed)
        let store = try await backend.makeStore()
        // Big enough that many writes stay pending (a ranking is updated at once only when its
        // pending rows reach an eighth of the table).
        let csv = DifferentialTests.randomCSV(rows: 1_200, using: &random)
        let schema = try await store.importCSV(Array(csv.utf8), as: "d", delimiter: UInt8(ascii: ","), presets: [:])
        var rows = try CSV.parse(Array(csv.utf8)).dropFirst().enumerated().map { (id: Int64($0.offset + 1), cells: $0.element) }
        let names = schema.columns.map(\.name)
        // A few orders, so a ranking often goes unread for several writes.
        let specs = (0..<4).map { _ in DifferentialTests.randomSpec(columns: names, using: &random) }
        for step in 0..<60 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !rows.isEmpty:
                let doomed = Array(Set((0..<Int.random(in: 1...40, using: &random)).map { _ in rows.randomElement(using: &random)!.id }))
                try await store.delete(doomed, from: "d")
                rows.removeAll { doomed.contains($0.id) }
            case 1 where !rows.isEmpty:
                for _ in 0..<Int.random(in: 1...5, using: &random) {
                    let index = Int.random(in: 0..<rows.count, using: &random)
                    let column = Int.random(in: 0..<names.count, using: &random)
                    let text = Self.value(for: column, type: schema.columns[column].type, using: &random)
                    try await store.update(rows[index].id, in: "d", set: [names[column]: text])
                    rows[index].cells[column] = text
                }
            case 2:
                let cells = names.indices.map { Self.value(for: $0, type: schema.columns[$0].type, using: &random) }
                let id = try await store.insert(Dictionary(uniqueKeysWithValues: zip(names, cells)), into: "d")
                rows.append((id, cells))
            default: break
            }
            let spec = specs.randomElement(using: &random)!
            let search = ["", "a", "e\u{301}", "2"].randomElement(using: &random)!
            let expected = try Self.expected(rows, schema: schema, spec: spec, search: search)
            let context = "\(backend), step \(step), spec \(spec), search \(search.debugDescription), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
            let offset = Int.random(in: 0...max(0, expected.count), using: &random)
            let page = try await store.page(of: "d", PageRequest(order: .spec(spec), search: search, offset: offset, limit: 20))
            #expect(page.rows.map(\.id) == Array(expected.dropFirst(offset).prefix(20)), "\(context), offset \(offset)")
            #expect(page.total == rows.count && page.filtered == expected.count, "\(context)")
        }
        // Every order, read at the end, after writes it never saw one by one.
        for spec in specs {
            let expected = try Self.expected(rows, schema: schema, spec: spec, search: "")
            let paged = try await DifferentialTests.keysetPages(store, "d", PageRequest(order: .spec(spec), limit: 97), most: expected.count)
            #expect(paged == expected, "\(backend), \(spec): keyset paging at the end, seed \(seed)")
        }
    }

    @Test("A search scan on every core agrees with testing row by row: slice and row boundaries, rewritten and added rows (seeded)")
    func searchScan() async throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        // Few, overlapping words: terms hit often, across field and row boundaries too (a row
        // ending "ab" before one starting "c" must not match "abc").
        let words = ["ab", "c", "ba", "abc", "É", "e\u{301}", "x y", "cab", "", "zz", "Straße"]
        func cell() -> String { (0..<Int.random(in: 0...2, using: &random)).map { _ in words.randomElement(using: &random)! }.joined() }
        // Columns a, b, c repeat (kept numbered, their folded text once per distinct cell); d
        // is a cell per row, so a row's text comes from both.
        func cells(_ id: Int64) -> [String] { [cell(), cell(), cell(), cell() + "\(id)" + cell()] }
        var rows: [Int64: [String]] = [:]
        var csv = "a,b,c,d\n"
        for id in 1...40_000 {
            let cells = cells(Int64(id))
            rows[Int64(id)] = cells
            csv += cells.map { "\"\($0)\"" }.joined(separator: ",") + "\n"
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try SQLiteTableStore(path: folder.appendingPathComponent("db.sqlite").path, queryBudget: testQueryBudget)
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        // Rows rewritten, added and deleted after the index was built.
        for _ in 0..<200 {
            let id = Int64.random(in: 1...40_000, using: &random)
            let cells = cells(id)
            try await store.update(id, in: "t", set: ["a": cells[0], "b": cells[1], "c": cells[2], "d": cells[3]])
            rows[id] = cells.map { Collation.normalized($0) }
        }
        for _ in 0..<50 {
            let cells = cells(0)
            let id = try await store.insert(["a": cells[0], "b": cells[1], "c": cells[2], "d": cells[3]], into: "t")
            rows[id] = cells
        }
        for _ in 0..<50 {
            let id = Int64.random(in: 1...40_000, using: &random)
            if rows.removeValue(forKey: id) != nil { try await store.delete(id, from: "t") }
        }
        for query in ["abc", "c", "ab c", "e", "ba ab", "x y", "y", "zz ab", "strasse", "cabc", "ca", "ÉÉ", "bab", "q", "77", "ab 12", "zz1 c"] {
            let search = SearchQuery(query)
            let expected = rows.filter { search.matches(folded: SearchQuery.foldedFields($0.value)) }.keys.sorted()
            let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec()), search: query, limit: 100_000))
            #expect(page.filtered == expected.count && page.rows.map(\.id) == expected, "'\(query)': \(page.filtered) vs \(expected.count), seed \(seed)")
        }
        // A column's filter (alone or with a search) scans for its term too: a hit in another
        // field, or across fields, is no match.
        let columns = ["a", "b", "c", "d"]
        for (query, filters) in [
            ("", ["b": "ab"]), ("", ["c": "strasse", "a": "c"]), ("abc", ["a": "ba"]), ("c", ["b": "e ab"]), ("", ["a": "É"]), ("ab", ["d": "1"]),
            ("3", ["a": "zz"]),
        ] {
            let search = SearchQuery(query)
            let expected = rows.filter { _, cells in
                search.matches(folded: SearchQuery.foldedFields(cells))
                    && filters.allSatisfy { column, term in SearchQuery(term).matches(folded: SearchQuery.fold(cells[columns.firstIndex(of: column)!])) }
            }.keys.sorted()
            let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec()), search: query, columnSearch: filters, limit: 100_000))
            #expect(
                page.filtered == expected.count && page.rows.map(\.id) == expected, "'\(query)' \(filters): \(page.filtered) vs \(expected.count), seed \(seed)"
            )
        }
    }

    @Test("Work through _Line never overlaps, even when it suspends (index refreshes, search scans)")
    func serialWork() async throws {
        final class Overlap: @unchecked Sendable {
            private let lock = NSLock()
            private var state = (active: 0, most: 0, order: [Int]())
            func withLock<T>(_ body: (inout (active: Int, most: Int, order: [Int])) -> T) -> T { lock.withLock { body(&state) } }
        }
        let serial = _Line()
        let overlap = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<20 {
                group.addTask {
                    try await serial.run {
                        overlap.withLock {
                            $0.active += 1; $0.most = max($0.most, $0.active); $0.order.append(task)
                        }
                        try await Task.sleep(for: .milliseconds(2))
                        overlap.withLock { $0.active -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlap.withLock { $0.most } == 1)
        #expect(overlap.withLock { $0.order.count } == 20)
    }

    @Test("The scan's candidate finder returns exactly the positions a byte-by-byte test finds, near both ends too (seeded)")
    func candidateFinder() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<2_000 {
            // Few distinct bytes, so candidates are dense; buffers shorter and longer than a vector.
            let alphabet = Array("ab1é\u{1F}".utf8)
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let term = (0..<Int.random(in: 1...(Bool.random(using: &random) ? 3 : 20), using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            guard term.count <= bytes.count else { continue }
            let first = Int.random(in: 0..<term.count, using: &random), second = Int.random(in: 0..<term.count, using: &random)
            let begin = Int.random(in: 0...(bytes.count - term.count + 1), using: &random)
            let last = Int.random(in: (begin - 1)...(bytes.count - term.count), using: &random)
            let expected = begin > last ? [] : (begin...last).filter { bytes[$0 + first] == term[first] && bytes[$0 + second] == term[second] }
            let found: [Int] = bytes.withUnsafeBufferPointer { bytes in
                term.withUnsafeBufferPointer { term in
                    let finder = _CandidateFinder(bytes: bytes, term: term, first: first, second: second)
                    var found: [Int] = [], position = begin
                    while let next = finder.next(from: position, through: last) {
                        found.append(next)
                        position = next + 1
                    }
                    return found
                }
            }
            #expect(found == expected, "round \(round), seed \(seed)")
        }
    }

    @Test("Scan slices run once each on low-priority threads, the caller's priority untouched; many scans at once all finish")
    func scanThreads() async throws {
        for iterations in [0, 1, 2, 3, 17, 1_000] {
            let runs = Mutex([Int](repeating: 0, count: iterations))
            let nices = Mutex(Set<Int32>())
            _ScanThreads.perform(iterations: iterations) { iteration in
                runs.withLock { $0[iteration] += 1 }
                if let nice = _ScanThreads.currentNiceValue() { nices.withLock { _ = $0.insert(nice) } }
            }
            #expect(runs.withLock { $0.allSatisfy { $0 == 1 } }, "\(iterations) iterations")
            #if os(Linux)
                #expect(nices.withLock { $0.isSubset(of: [_ScanThreads.niceValue]) }, "\(iterations) iterations ran at nice \(nices.withLock { $0 })")
            #endif
        }
        #if os(Linux)
            #expect(_ScanThreads.currentNiceValue() == 0, "the caller's priority is untouched")
        #endif
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    let total = Atomic<Int>(0)
                    _ScanThreads.perform(iterations: 8) { total.add($0 + task, ordering: .relaxed) }
                    return total.load(ordering: .relaxed)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sums.sorted() == (0..<32).map { 28 + 8 * $0 })
        // run: the scan on a scan thread (its slices shared among them), its result or error
        // back to the awaiting task, which goes on at its own priority.
        struct Failure: Error {}
        let scanned = try await withThrowingTaskGroup(of: (Int32?, Int).self) { group in
            for task in 0..<16 {
                group.addTask {
                    try await _ScanThreads.shared.run {
                        let total = Atomic<Int>(0)
                        _ScanThreads.perform(iterations: 5) { total.add($0 + task, ordering: .relaxed) }
                        return (_ScanThreads.currentNiceValue(), total.load(ordering: .relaxed))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(scanned.map(\.1).sorted() == (0..<16).map { 10 + 5 * $0 })
        #if os(Linux)
            #expect(scanned.allSatisfy { $0.0 == _ScanThreads.niceValue })
            #expect((_ScanThreads.currentNiceValue() ?? 0) <= 0, "the awaiting task goes on at its own priority")
        #endif
        await #expect(throws: Failure.self) { try await _ScanThreads.shared.run { throw Failure() } }
    }

    @Test("Searches lower no thread's priority but the scan threads' (a thread inherits its creator's nice value)")
    func scanPriorityStaysPut() async throws {
        #if os(Linux)
            // Forty searches at once: a line long enough for all of them.
            let store = try SQLiteTableStore(
                path: temporaryDatabase(), queryBudget: testQueryBudget,
                indexLimits: IndexLimits(waitingSearchesPerTable: 64))
            let csv = "name,n\n" + (0..<2_000).map { "row \($0) of many,\($0 % 97)\n" }.joined()
            try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
            // New terms (each one scans), many at once: pages and their tasks go on around them,
            // each at its own priority after its scan.
            let nices = try await withThrowingTaskGroup(of: Int32?.self) { group in
                for term in 0..<40 {
                    group.addTask {
                        let page = try await store.page(of: "t", PageRequest(order: .spec(try SortSpec(parsing: "-n")), search: "\(term)1 of", limit: 5))
                        #expect(page.filtered > 0)
                        return _ScanThreads.currentNiceValue()
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(nices.allSatisfy { ($0 ?? 0) <= 0 }, "\(nices)")
            // Every thread of this process: /proc/self/task/TID/stat, field 19 is the nice value.
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
            var lowered: [String] = []
            for task in tasks {
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                let name = String(stat[stat.index(after: stat.firstIndex(of: "(")!)..<close])
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 16, let nice = Int(fields[16]) else { continue }
                // Dispatch sets its own workers' nice values by QoS (below 0 for user-initiated,
                // above for utility and background work, whose names the kernel cuts to their last
                // 15 bytes); default-QoS workers, which run tasks and sorted pages, must stay at 0.
                if nice > 0, name.hasSuffix("default-qos") || name.hasSuffix("initiated-qos") {
                    lowered.append("\(name) (\(task)): nice \(nice)")
                }
            }
            #expect(lowered.isEmpty, "\(lowered)")
        #else
            print("SKIPPED scan thread priority check: per-thread nice values are Linux's")
        #endif
    }

    @Test("A column's ranking from its distinct cells, or by len from its bytes, equals the full sort's, for every collation and reading (seeded)")
    func rankingByDistinctValues() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let pool = [
            "", "a", "A", "b", "é", "e\u{301}", "10", "9", "x-5", "x-10", "ß", "SS", "zz", "$1,234.5", "2024-01-02", "-3",
            // Blank (null under len) in ASCII and not; texts whose characters aren't their scalars.
            " ", "\u{3000}", " \u{A0}", "\u{A0}x", "🇫🇷", "한\u{11A8}", "\r\n",
        ]
        let specs = ["v", "v:nocase", "v:fold", "v:binary", "v:num", "v:len", "v:random=7", "v:date", "-v:nulls-first"]
        var compared = 0
        for round in 0..<16 {
            let count = Int.random(in: 1_024...3_000, using: &random)
            // Repeating cells; some rounds nearly all distinct (no shortcut: the full sort runs).
            let distinctRound = round % 8 == 7
            let cells = (0..<count).map { index in
                distinctRound
                    ? "t\(index)"
                    : Collation.normalized(
                        pool.randomElement(using: &random)! + (Bool.random(using: &random) ? "" : "\(Int.random(in: 0..<20, using: &random))"))
            }
            var arena = _ByteArena()
            for cell in cells {
                arena.bytes.append(contentsOf: cell.utf8)
                arena.close()
            }
            let schema = TableSchema(name: "t", columns: [.init("v", .string)])
            for spec in specs {
                let variant = try _TableIndex.variant(try SortSpec(parsing: spec).keys[0], schema: schema)
                let ranking = _Ranking(variant, cells: _Cells(base: [arena], baseCount: count), live: Array(repeating: true, count: count), schema: schema)
                let full = _Ranking(values: cells.map { variant.value(of: $0, type: .string) }, collation: variant.collation)
                #expect(
                    ranking.order == full.order && ranking.groupStarts == full.groupStarts && ranking.ranks == full.ranks,
                    "round \(round), \(spec), seed \(seed)")
                if !distinctRound {
                    let cells = _Cells(base: [arena], baseCount: count)
                    #expect(
                        _Ranking.byDistinctValues(0, of: cells, live: Array(repeating: true, count: count), collation: variant.collation) { _ in .null } != nil)
                }
                compared += 1
            }
        }
        #expect(compared == 16 * specs.count)
    }

    @Test("Integers ranked in one pass when already ascending, sorted otherwise: both as a sort by (value, slot) orders them (seeded)")
    func rankingOfAscendingIntegers() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<200 {
            // Strictly ascending, then (in three rounds of four) not quite.
            var next = Int64.random(in: -100...100, using: &random)
            var values = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                next += Int64.random(in: 1...5, using: &random)
                return next
            }
            switch round % 4 {
            case 1 where values.count > 1: values.swapAt(Int.random(in: 0..<values.count, using: &random), values.count - 1)
            case 2 where values.count > 1: values[values.count - 1] = values[values.count - 2] // a tie
            case 3 where !values.isEmpty: values[0] = .min
            default: break
            }
            let sortValues: [SortValue] = values.map { .integer($0) } + (round % 5 == 0 ? [.null] : [])
            let ranking = _Ranking(values: sortValues, collation: .natural)
            let expected = sortValues.indices.sorted { a, b in
                switch (sortValues[a], sortValues[b]) {
                case (.null, .null): a < b
                case (.null, _): false
                case (_, .null): true
                case (.integer(let x), .integer(let y)): (x, a) < (y, b)
                default: false
                }
            }
            #expect(ranking.order == expected.map { UInt32($0) }, "round \(round), seed \(seed)")
            let distinct = Set(values).count
            #expect(ranking.distinct == distinct, "round \(round), seed \(seed)")
        }
    }

    @Test("A ranking updated in place equals one built again (seeded)")
    func rankingUpdates() {
        var random = SplitMix64(seed: 2028)
        let schema = TableSchema(name: "t", columns: [.init("v", .string)])
        let pool = ["", "a", "A", "b", "é", "e\u{301}", "10", "9", "ß", "SS", "zz"]
        for round in 0..<200 {
            let count = Int.random(in: 0...60, using: &random)
            var cells = (0..<count).map { _ in [pool.randomElement(using: &random)!] }
            var live = (0..<count).map { _ in Int.random(in: 0..<8, using: &random) != 0 }
            let variant = KeyVariant(column: 0, interpretation: .text, collation: Collation.allCases.randomElement(using: &random)!)
            func built() -> _Ranking {
                var arena = _ByteArena()
                for row in cells {
                    arena.bytes.append(contentsOf: Collation.normalized(row[0]).utf8)
                    arena.close()
                }
                return _Ranking(variant, cells: _Cells(base: [arena], baseCount: cells.count), live: live, schema: schema)
            }
            let before = built()
            let liveBefore = live
            var touched: Set<Int> = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    cells.append([pool.randomElement(using: &random)!])
                    live.append(true)
                    touched.insert(cells.count - 1)
                case 1 where !cells.isEmpty:
                    let slot = Int.random(in: 0..<cells.count, using: &random)
                    live[slot] = false
                    touched.insert(slot)
                default:
                    guard !cells.isEmpty else { continue }
                    let slot = Int.random(in: 0..<cells.count, using: &random)
                    cells[slot] = [pool.randomElement(using: &random)!]
                    live[slot] = true
                    touched.insert(slot)
                }
            }
            let removed = Set(touched.filter { $0 < liveBefore.count && liveBefore[$0] }.map { UInt32($0) })
            let added = touched.filter { live[$0] }.sorted().map { UInt32($0) }
            let after = built()
            // Both ways: the merge (incremental up to 0 rows) and rows joining one at a time.
            for incremental in [0, 16] {
                let updated = before.updated(
                    removing: removed, adding: added, slotCount: cells.count,
                    { variant.value(of: Collation.normalized(cells[Int($0)][0]), type: .string) }, collation: variant.collation,
                    incrementalUpTo: incremental)
                #expect(updated.order == after.order && updated.groupStarts == after.groupStarts, "round \(round), \(variant), \(incremental)")
                #expect(
                    zip(updated.ranks, after.ranks).enumerated().allSatisfy { !live[$0.offset] || $0.element.0 == $0.element.1 },
                    "round \(round), \(incremental)")
                #expect(updated.ranks.count == cells.count)
            }
        }
    }

    @Test("A ranking with rows only removed (a bulk delete) equals one built again, emptied groups and nulls included (seeded)")
    func rankingRemovals() {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let schema = TableSchema(name: "t", columns: [.init("v", .string)])
        let pool = ["", "a", "A", "b", "é", "e\u{301}", "10", "9", "ß", "SS", "zz", "unique1", "unique2", "unique3"]
        for round in 0..<300 {
            let count = Int.random(in: 0...80, using: &random)
            let cells = (0..<count).map { _ in pool.randomElement(using: &random)! }
            let liveBefore = (0..<count).map { _ in Int.random(in: 0..<8, using: &random) != 0 }
            var live = liveBefore
            let variant = KeyVariant(column: 0, interpretation: .text, collation: Collation.allCases.randomElement(using: &random)!)
            func built(_ live: [Bool]) -> _Ranking {
                var arena = _ByteArena()
                for cell in cells {
                    arena.bytes.append(contentsOf: Collation.normalized(cell).utf8)
                    arena.close()
                }
                return _Ranking(variant, cells: _Cells(base: [arena], baseCount: cells.count), live: live, schema: schema)
            }
            var removed: Set<UInt32> = []
            for slot in 0..<count where liveBefore[slot] && Int.random(in: 0..<3, using: &random) == 0 {
                removed.insert(UInt32(slot))
                live[slot] = false
            }
            let updated = built(liveBefore).updated(
                removing: removed, adding: [], slotCount: count, { variant.value(of: Collation.normalized(cells[Int($0)]), type: .string) },
                collation: variant.collation)
            let after = built(live)
            #expect(
                updated.order == after.order && updated.groupStarts == after.groupStarts && updated.ranks == after.ranks,
                "seed \(seed) (SORTKIT_SEED=\(seed) repeats it), round \(round), \(variant)")
        }
    }

    @Test("Reads never change the database: every collation and reading, searches and cursors, on SQLite")
    func readsDontWrite() async throws {
        let path = try temporaryDatabase()
        let store = try SQLiteTableStore(path: path, queryBudget: testQueryBudget)
        var random = SplitMix64(seed: 2029)
        let csv = DifferentialTests.randomCSV(rows: 200, using: &random)
        try await store.importCSV(Array(csv.utf8), as: "t", delimiter: UInt8(ascii: ","), presets: [:])
        let observer = try DatabaseQueue(path: path)
        func snapshot() throws -> [String] {
            try observer.read { db in
                try String.fetchAll(db, sql: "SELECT coalesce(sql, name) FROM sqlite_master ORDER BY name")
                    + String.fetchAll(db, sql: "SELECT name || schema || variants || version || data_version || manual_ready FROM sortkit_table")
                    + Row.fetchAll(db, sql: "SELECT * FROM st_1 ORDER BY id").map(\.description)
            }
        }
        let before = try snapshot()
        for column in ["s", "i", "f", "d", "e", "m"] {
            for modifier in ["", ":nocase", ":fold", ":binary", ":natural", ":num", ":text", ":date", ":enum=todo|done"] {
                for store in [store, try SQLiteTableStore(path: path, inMemoryIndex: false, queryBudget: testQueryBudget)] {
                    let page = try await store.page(of: "t", PageRequest(order: .spec(SortSpec(parsing: "-\(column)\(modifier)")), search: "a", limit: 5))
                    if let next = page.next {
                        _ = try await store.page(
                            of: "t", PageRequest(order: .spec(SortSpec(parsing: "-\(column)\(modifier)")), search: "a", limit: 5, after: next))
                    }
                }
            }
        }
        _ = try await store.page(of: "t", PageRequest(order: .manual, limit: 5))
        #expect(try snapshot() == before)
    }
}
