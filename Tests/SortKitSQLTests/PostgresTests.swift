import Foundation
import OrderKeys
import PostgresNIO
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

@Suite("PostgreSQL store")
struct PostgresTests {
    @Test("Two connections doing 10,000 moves into the same gap: unique positions, no lost move", .needs(.postgres, for: "concurrent moves on PostgreSQL"))
    func concurrentMoves() async throws {
        let location = try Backend.postgres.newLocation()
        let first = try #require(try await Backend.postgres.open(location) as? PostgresTableStore)
        let second = try #require(try await Backend.postgres.open(location) as? PostgresTableStore)
        let count = 40
        let csv = "n\n" + (1...count).map { "\($0)\n" }.joined()
        try await first.importCSV(Array(csv.utf8), as: "items", delimiter: UInt8(ascii: ","), presets: [:])
        let anchor: Int64 = 1
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 99
        // Each connection moves random rows right after the same anchor, 5,000 times, and
        // records the move's place in the list's serial order.
        let moves = try await withThrowingTaskGroup(of: [(sequence: Int64, id: Int64)].self) { group in
            for (worker, store) in [first, second].enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: seed &+ UInt64(worker))
                    var done: [(sequence: Int64, id: Int64)] = []
                    for _ in 0..<5_000 {
                        let id = Int64.random(in: 2...Int64(count), using: &random)
                        done.append((try await store._move(id, in: "items", to: .after(anchor)), id))
                    }
                    return done
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted { $0.sequence < $1.sequence }
        }
        #expect(moves.count == 10_000)
        #expect(Set(moves.map(\.sequence)).count == 10_000, "every move took effect once (seed \(seed))")
        // Replaying the moves in the order they took effect gives the stored order.
        var model = Array(Int64(1)...Int64(count))
        for move in moves {
            model.removeAll { $0 == move.id }
            model.insert(move.id, at: model.firstIndex(of: anchor)! + 1)
        }
        let stored = try await first.page(of: "items", PageRequest(order: .manual, limit: 1_000)).rows.map(\.id)
        #expect(stored == model, "seed \(seed)")
        let distinct = try await first.read { session in
            // Each row's label: its entry's, or (never moved) the one computed from its id.
            try await session.integer(
                """
                SELECT count(DISTINCT coalesce(o.pos, \(_ImplicitLabels.sql))) FROM st_1 AS t
                LEFT JOIN ordered_item AS o ON o.list = 'sortkit:st_1' AND o.id = t.id
                """)
        }
        #expect(distinct == Int64(count))
        await first.close()
        await second.close()
    }

    @Test("A preset's index serves its first page and its cursor seek", .needs(.postgres, for: "PostgreSQL preset indexes"))
    func presetIndex() async throws {
        let location = try Backend.postgres.newLocation()
        _ = try await Backend.postgres.open(location)
        let url = try Service.postgres.value()
        // The SQL path (the in-memory index answers pages by default).
        let store = try await PostgresTableStore(url: url, schema: location, inMemoryIndex: false, queryBudget: testQueryBudget)
        var random = SplitMix64(seed: 3)
        let rows = (0..<20_000).map { _ in "t\(Int.random(in: 0...99_999, using: &random)),\(Int.random(in: 0...500, using: &random))" }
        let csv = "title,price\n" + rows.joined(separator: "\n") + "\n"
        try await store.importCSV(Array(csv.utf8), as: "books", delimiter: UInt8(ascii: ","), presets: ["cheapest": SortSpec(parsing: "price,title")])
        let request = try PageRequest(order: .spec(SortSpec(parsing: "price,title")), limit: 50)
        let plan = try await store.queryPlan(of: "books", request)
        #expect(plan.contains { $0.contains("Index Scan using st_1_preset0") }, "\(plan)")
        #expect(!plan.contains { $0.contains("Sort") }, "\(plan)")
        let page = try await store.page(of: "books", request)
        let cursor = try KeysetCursor.decode(
            try #require(page.next), secret: store.secret, order: request.order.description, search: "")
        let seek = try await store.queryPlan(of: "books", request, cursorValues: cursor.values)
        #expect(seek.contains { $0.contains("Index Cond") }, "\(seek)")
        #expect(!seek.contains { $0.contains("Sort") }, "\(seek)")
        await store.close()
    }

    @Test("URLs: user, password, port, database, sslmode and unix sockets; bad ones name the problem")
    func urls() throws {
        let tcp = try PostgresClient.Configuration(url: "postgres://us%40er:p%3Ass@db.example:6543/app?sslmode=disable")
        #expect(tcp.host == "db.example" && tcp.port == 6543 && tcp.username == "us@er" && tcp.password == "p:ss" && tcp.database == "app")
        let socket = try PostgresClient.Configuration(url: "postgresql://ci@localhost/ci?host=/tmp/pg")
        #expect(socket.unixSocketPath == "/tmp/pg/.s.PGSQL.5432")
        #expect(throws: TableStoreError.self) { try PostgresClient.Configuration(url: "mysql://a@b/c") }
        #expect(throws: TableStoreError.self) { try PostgresClient.Configuration(url: "postgres://db/app") }
        #expect(throws: TableStoreError.invalid("sslmode must be disable, prefer or require, got 'maybe'")) {
            try PostgresClient.Configuration(url: "postgres://a@b/c?sslmode=maybe")
        }
    }
}

@Suite("COPY of an import")
struct CopyFormatTests {
    @Test(
        "COPY binary made from an import's columns decodes to its rows' values one by one: chunk and group edges, typed values, key columns (seeded)"
    )
    func chunksEqualRowValues() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let text = ["", " ", "a\tb", "x\\y", "line\nbreak\r", "\\N", "É", "e\u{301}", "$1,234", "zz", "Straße", "12"]
        for round in 0..<40 {
            // A text column, an integer column (or text, when a word slips in), a date column, a
            // number column (integers and fractions: float8 fields) and a bool column.
            let rows = (0..<Int.random(in: 0...70, using: &random)).map { _ in
                [
                    text.randomElement(using: &random)!,
                    Int.random(in: 0..<12, using: &random) == 0 ? "" : String(Int64.random(in: -99_999...99_999, using: &random)),
                    Bool.random(using: &random) ? "2024-02-\(Int.random(in: 10...29, using: &random))" : "",
                    Bool.random(using: &random)
                        ? String(Int.random(in: -9...9_007_199_254_740_993, using: &random)) : "\(Double.random(in: -1e6...1e6, using: &random))",
                    ["true", "FALSE", ""].randomElement(using: &random)!,
                ]
            }
            let quoted = { (cell: String) in "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            let csv = "a,n,d,x,b\n" + rows.map { $0.map(quoted).joined(separator: ",") + "\n" }.joined()
            let columns = try _CSVColumns.read(Array(csv.utf8), delimiter: UInt8(ascii: ","))
            let schema = TableSchema(
                name: "t", columns: zip(columns.header, columns.inferredTypes()).map { TableSchema.Column($0, $1) },
                presets: ["P": try SortSpec(parsing: "a:nocase,-n"), "Q": try SortSpec(parsing: "x")])
            let variants = try Set(schema.presets.values.flatMap(\.keys).map { try _TableIndex.variant($0, schema: schema) })
            let info = _TableInfo(id: 1, schema: schema, variants: variants)
            let (cells, folded, typed) = columns.derived(schema)
            let rowsPerChunk = Int.random(in: 1...7, using: &random)
            let (groups, group) = _CopyBinary.chunks(cells, folded: folded, typed: typed, info: info, rowsPerChunk: rowsPerChunk)
            let chunked = try (0..<groups).flatMap(group).reduce(into: _CopyBinary.header) { $0 += Array($1.readableBytesView) } + _CopyBinary.trailer
            let fields = _CopyBinary.fields(info)
            // The fields' types are the physical columns' PostgreSQL types, as the store makes them.
            let dialect = SQLDialect.postgresql
            let text = "text" // `dialect.textColumn` adds its collation
            let madeTypes =
                ["bigint"] + schema.columns.flatMap { $0.type == .string ? [text] : [text, dialect.typedColumn($0.type)] }
                + Array(repeating: dialect.blobColumn, count: variants.count) + [text]
            let wireTypes: [_CopyBinary.Field: String] = [.text: text, .bigint: "bigint", .double: "double precision", .bytea: dialect.blobColumn]
            #expect(fields.map { wireTypes[$0]! } == madeTypes, "round \(round), \(schema.columns.map(\.type)), seed \(seed)")
            let decoded = try #require(Self.decode(chunked, fields), "round \(round), seed \(seed)")
            #expect(decoded.count == columns.count)
            // A schema change's rewrite encodes the same rows, given as values, to the same stream.
            let values = (0..<columns.count).map { record in
                [.integer(Int64(record + 1))] + info.rowValues(schema.columns.indices.map { columns.text(record, $0) })
            }
            let rewritten =
                try _CopyBinary.buffers(values, info: info).reduce(into: _CopyBinary.header) { $0 += Array($1.readableBytesView) }
                + _CopyBinary.trailer
            #expect(rewritten == chunked, "round \(round), seed \(seed)")
            for (record, row) in decoded.enumerated() {
                let expected = values[record]
                // A `double precision` column holds an integer as its `Double`, as PostgreSQL's
                // parse of the text format did.
                let stored = zip(expected, fields).map { value, field -> SQLValue in
                    if case .integer(let integer) = value, field == .double { return .double(Double(integer)) }
                    return value
                }
                #expect(row == stored, "round \(round), row \(record + 1), \(rowsPerChunk) rows a chunk, seed \(seed)")
            }
        }
    }

    /// The rows of a `PGCOPY` stream as values of `fields`' types; `nil` for a malformed stream.
    static func decode(_ bytes: [UInt8], _ fields: [_CopyBinary.Field]) -> [[SQLValue]]? {
        var at = 0
        func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            guard at + MemoryLayout<Integer>.size <= bytes.count else { return nil }
            defer { at += MemoryLayout<Integer>.size }
            return bytes[at..<at + MemoryLayout<Integer>.size].reduce(Integer.zero) { $0 << 8 | Integer($1) }
        }
        guard bytes.starts(with: _CopyBinary.header) else { return nil }
        at = _CopyBinary.header.count
        var rows: [[SQLValue]] = []
        while let count = integer(Int16.self), count != -1 {
            guard Int(count) == fields.count else { return nil }
            var row: [SQLValue] = []
            for field in fields {
                guard let length = integer(Int32.self) else { return nil }
                if length == -1 {
                    row.append(.null)
                    continue
                }
                guard length >= 0, at + Int(length) <= bytes.count else { return nil }
                let value = Array(bytes[at..<at + Int(length)])
                switch field {
                case .text: row.append(.text(String(decoding: value, as: UTF8.self)))
                case .bytea: row.append(.blob(value))
                case .bigint, .double:
                    guard length == 8, let bits = integer(UInt64.self) else { return nil }
                    row.append(field == .bigint ? .integer(Int64(bitPattern: bits)) : .double(Double(bitPattern: bits)))
                    continue
                }
                at += Int(length)
            }
            rows.append(row)
        }
        return at == bytes.count ? rows : nil
    }

    @Test("A value its column's type can't hold fails the COPY's group with the row and column, not a wrong number")
    func refusedValue() throws {
        let columns = try _CSVColumns.read(Array("n\n1\n2\n".utf8), delimiter: UInt8(ascii: ","))
        let info = _TableInfo(id: 1, schema: TableSchema(name: "t", columns: [.init("n", .integer)]), variants: [])
        let (cells, folded, _) = columns.derived(info.schema)
        let (groups, group) = _CopyBinary.chunks(cells, folded: folded, typed: [0: [.integer(1), .double(2.5)]], info: info)
        #expect(groups == 1)
        #expect(throws: TableStoreError.invalid("row 2: column n0 can't hold double(2.5) as bigint")) { try group(0) }
        let whole = _CopyBinary.chunks(cells, folded: folded, typed: [0: [.integer(1), .double(2)]], info: info)
        let stream = _CopyBinary.header + Array(try whole.group(0)[0].readableBytesView) + _CopyBinary.trailer
        #expect(Self.decode(stream, _CopyBinary.fields(info))?.map { $0[2] } == [.integer(1), .integer(2)])
    }
}
