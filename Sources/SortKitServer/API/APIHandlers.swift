import Foundation
import Hummingbird
import Logging
import SortKit
import SortKitSQL

/// The JSON API's logic, independent of HTTP plumbing: every method returns a ``Reply`` or
/// throws an error that ``APIError`` maps to a status.
struct APIHandlers: Sendable {
    let server: SortKitServer
    var store: any TableStore { server.store }

    /// The view the request's query names, parsed once (checked against the limits).
    func viewQuery(_ request: Request) throws -> ViewQuery {
        try ViewQuery(FormParameters(request.uri.query ?? "", limit: server.limits.maxParameters), limits: server.limits)
    }

    /// `GET /api/tables`: each table's columns, sort settings, presets, row count (from the
    /// catalog), where its pages are served from (`memory` or `database`), whether the
    /// database's indexes of it are still being made (`indexing`), and what its
    /// in-memory index holds against its budget (`null` while none is loaded).
    func tables() async throws -> Reply {
        var tables: [JSON] = []
        for entry in try await store.catalog() {
            let schema = entry.schema
            let settings = server.settings(for: schema.name)
            let usage = try await store.indexUsage(of: schema.name)
            tables.append(
                .object([
                    ("name", .string(schema.name)),
                    ("rows", .integer(Int64(entry.rowCount))),
                    ("served", .string(try await store.indexPlacement(of: schema.name).rawValue)),
                    ("indexing", .bool(try await store.indexesPending(of: schema.name))),
                    (
                        "columns",
                        .array(
                            schema.columns.map { column in
                                var fields: [(String, JSON)] = [
                                    ("name", .string(column.name)), ("type", .string(column.type.rawValue)), ("sortable", .bool(true)),
                                ]
                                if let cycle = settings.cycles[column.name] { fields.append(("cycle", .string(cycle.description))) }
                                if let keys = settings.rules.sortsBy[column.name] { fields.append(("sortsBy", .string(keys.description))) }
                                return .object(fields)
                            })
                    ),
                    ("fixed", .object([("before", .string(settings.rules.before.description)), ("after", .string(settings.rules.after.description))])),
                    ("pinned", .array(settings.pinned.ids.map(JSON.integer))),
                    ("maxSortKeys", settings.maxKeys.map { .integer(Int64($0)) } ?? .null),
                    (
                        "index",
                        usage.map { usage in
                            .object([
                                ("rows", .integer(Int64(usage.rows))), ("rankings", .integer(Int64(usage.rankings))),
                                ("rankingBytes", .integer(Int64(usage.rankingBytes))), ("rankingBudget", .integer(Int64(usage.rankingBudget))),
                                (
                                    "bytes",
                                    .object(usage.structureBytes.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })
                                ),
                            ])
                        } ?? .null
                    ),
                    (
                        "presets",
                        .array(
                            schema.presets.keys.sorted().map { name in
                                .object([("name", .string(name)), ("sort", .string(schema.presets[name]!.description))])
                            } + [.object([("name", .string(TableOrder.manualPresetName)), ("sort", .string("manual"))])])
                    ),
                ]))
        }
        return .json(.object([("tables", .array(tables))]))
    }

    /// `GET /api/tables/{table}/rows?sort=…|preset=…&q=…&filter[COLUMN]=…&limit=…&offset=…|after=…`.
    func rows(_ table: String, query: ViewQuery) async throws -> Reply {
        let stored = try await store.table(table)
        let schema = stored.schema
        var request = try query.resolved(against: schema, server: server)
        request.limit = try query.limit(default: 50, cap: server.maxPageSize)
        request.offset = try query.offset()
        request.after = query.after
        let page = try await self.page(stored, request)
        var fields: [(String, JSON)] = [
            ("rows", .array(page.rows.map { Self.json($0, schema) })),
            ("total", .integer(Int64(page.total))),
            ("filtered", .integer(Int64(page.filtered))),
            ("next", page.next.map(JSON.string) ?? .null),
        ]
        if query.explain { fields.append(("explain", self.explain(page.rows, order: request.order, schema: schema))) }
        return .json(.object(fields))
    }

    /// `GET /api/tables/{table}/rows.csv?sort=…|preset=…&q=…&filter[COLUMN]=…`: the view as
    /// CSV, every row, streamed — the header first, then batches of rows read one after the
    /// other by cursor, so the first bytes leave at once and the table is never held whole.
    /// Bad parameters are answered (400/404) before the first byte; a failure later cuts the
    /// download short (the client sees an incomplete transfer, never a partial file as a
    /// complete one).
    func csv(_ table: String, query: ViewQuery) async throws -> Response {
        let stored = try await store.table(table)
        let schema = stored.schema
        var firstRequest = try query.resolved(against: schema, server: server)
        firstRequest.limit = server.limits.exportBatchRows
        // Text cells a spreadsheet would run as formulas are defused unless asked not to;
        // numbers in number columns keep their sign. The index writes the rows' bytes itself.
        let export = CSVExport(defusing: query.keepsFormulas ? nil : schema.columns.map(\.type))
        firstRequest.csv = export
        let first = try await page(stored, firstRequest)
        var header: [UInt8] = []
        CSVExport(defusing: export.defusing.map { $0.map { _ in .string } }).appendRecords([schema.columns.map(\.name)], to: &header)
        let handlers = self
        let body = ResponseBody { [firstRequest, header] writer in
            func bytes(_ page: TablePage) -> [UInt8] {
                if let csv = page.csv { return csv }
                var output: [UInt8] = []
                export.appendRecords(page.rows.map(\.cells), to: &output)
                return output
            }
            var request = firstRequest
            try await writer.write(ByteBuffer(bytes: header))
            try await writer.write(ByteBuffer(bytes: bytes(first)))
            var next = first.next
            // The rest in one read where the store can (a table served from the database).
            if let cursor = next {
                var rest = firstRequest
                rest.after = cursor
                switch try await handlers.streamPages(stored, rest, { try await writer.write(ByteBuffer(bytes: bytes($0))) }) {
                case .finished: next = nil
                case .notStreamed: break
                // The client fell behind the database: page by page from where the read stopped.
                case .continues(let cursor): next = cursor
                }
            }
            while let cursor = next {
                request.after = cursor
                // Each later batch reads the catalog again: a download can outlast a schema
                // change or a drop, which its batches then see, as a request would.
                let page = try await handlers.page(handlers.store.table(table), request)
                try await writer.write(ByteBuffer(bytes: bytes(page)))
                next = page.next
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: Self.attachment(table + ".csv"),
            ], body: body)
    }

    /// `POST /api/tables?name=NAME[&delimiter=C]` with a `text/csv` body: a new table, types
    /// inferred, rows 1…n in file order, in one transaction. 201 with the table; 400 naming the
    /// line for malformed CSV, or the problem with the name or the header (nothing created);
    /// 409 when the name is taken (also as another Unicode spelling of it); 413 for a body over
    /// the limit (announced by `Content-Length`, refused before it is read); 503 when
    /// ``RequestLimits/maxConcurrentImports`` imports are already running.
    func importTable(query: String, contentLength: Int?, body readBody: () async throws -> [UInt8]) async throws -> Reply {
        let form = FormParameters(query, limit: server.limits.maxParameters)
        try form.checkLimit(server.limits.maxParameters)
        guard let given = form["name"], !_isBlank(given) else {
            throw APIError.badRequest("name the new table: POST /api/tables?name=NAME with the CSV as the body")
        }
        // Names are stored in NFC, so two spellings of one name are one table.
        let name = given.precomposedStringWithCanonicalMapping
        // A '/' would make the table's page address look like a folder's.
        guard !name.unicodeScalars.contains("/") else { throw APIError.badRequest("a table name has no control characters or '/'") }
        try TableSchema.checkName(name)
        var delimiter = UInt8(ascii: ",")
        if let text = form["delimiter"], !text.isEmpty {
            let byte = text == "tab" ? 0x09 : text.utf8.count == 1 ? text.utf8.first! : 0
            guard byte != 0, byte < 0x80, byte != 0x22, byte != 0x0A, byte != 0x0D else {
                throw APIError.badRequest("delimiter must be one ASCII character other than a quote or a line break, or 'tab'")
            }
            delimiter = byte
        }
        if let contentLength, contentLength > server.limits.maxImportBytes {
            throw APIError(status: .contentTooLarge, message: "the body is over \(server.limits.maxImportBytes) bytes")
        }
        if try await store.tables().contains(where: { $0.name == name }) { throw TableStoreError.tableExists(name) }
        // The body is read only once the name and delimiter are good, and a slot is free.
        let limit = max(1, server.limits.maxConcurrentImports)
        guard server.imports.take(limit: limit) else {
            throw APIError(
                status: .serviceUnavailable,
                message: "\(limit == 1 ? "an import is" : "\(limit) imports are") running; send this one again when one has finished")
        }
        defer { server.imports.give() }
        let body = try await readBody()
        guard !body.isEmpty else { throw APIError.badRequest("the CSV is empty: send a header row and the rows") }
        let started = ContinuousClock.now
        let schema = try await store.importCSV(consume body, as: name, delimiter: delimiter, presets: [:])
        let count = try await store.catalog().first { $0.schema.name == name }?.rowCount ?? 0
        server.metrics.imported(table: schema.name, rows: count, duration: ContinuousClock.now - started)
        return .json(
            .object([
                ("name", .string(schema.name)),
                ("columns", .array(schema.columns.map { .object([("name", .string($0.name)), ("type", .string($0.type.rawValue))]) })),
                ("rows", .integer(Int64(count))),
                ("url", .string(URLText.tablePage(schema.name))),
            ]), status: .created)
    }

    /// Each served table's in-memory index use, for `GET /metrics` (tables without an index
    /// loaded are left out).
    /// A table dropped meanwhile, or a store that can't answer, is left out: a scrape never fails
    /// for it.
    func indexUsage() async -> [String: IndexUsage] {
        var usage: [String: IndexUsage] = [:]
        for entry in (try? await store.catalog()) ?? [] {
            usage[entry.schema.name] = try? await store.indexUsage(of: entry.schema.name)
        }
        return usage
    }

    /// `DELETE /api/tables/{table}`: the table, its rows, presets, manual order and index, in
    /// one transaction. 204; 404 for an unknown table.
    func dropTable(_ table: String) async throws -> Reply {
        try await store.dropTable(table)
        server.metrics.dropped(table: table)
        return .empty
    }

    private static let attributeCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A `Content-Disposition` for a download named `name`: an ASCII fallback (other
    /// characters, quotes and backslashes as `_`) and the exact name in RFC 5987 form.
    static func attachment(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0.value != 0x7F ? Character($0) : "_" })
        // RFC 8187's attr-char: ASCII letters, digits and a few marks; everything else %-encoded.
        let exact = name.addingPercentEncoding(withAllowedCharacters: Self.attributeCharacters) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(exact)"
    }

    /// A page of `table` as the server shows it: for a spec order, the table's
    /// ``TableSortSettings`` rules applied and its pinned rows first.
    func page(_ table: StoredTable, _ request: PageRequest) async throws -> TablePage {
        // "My order" is the user's own arrangement: neither rules nor pins change it.
        guard case .spec = request.order else { return try await store.page(of: table, request) }
        var request = request
        let name = table.schema.name
        request.order = sortedBy(request.order, table: name)
        return try await server.settings(for: name).pinned.page(of: table, request, in: store)
    }

    /// ``page(_:_:)``'s view from `request`'s cursor to its end, in one read where the store can
    /// (``TableStore/streamPages(of:_:_:)``): the same rules and pinned rows.
    func streamPages(_ table: StoredTable, _ request: PageRequest, _ body: (TablePage) async throws -> Void) async throws -> StreamedPages {
        guard case .spec = request.order else { return try await store.streamPages(of: table, request, body) }
        var request = request
        let name = table.schema.name
        request.order = sortedBy(request.order, table: name)
        return try await server.settings(for: name).pinned.streamPages(of: table, request, in: store, body)
    }

    /// The order `table` sorts by when `order` is picked: a spec with the table's rules
    /// applied; "My order" as it is.
    func sortedBy(_ order: TableOrder, table: String) -> TableOrder {
        guard case .spec(let spec) = order else { return order }
        return .spec(server.settings(for: table).applied(to: spec))
    }

    /// `explain=1`: for each pair of adjacent rows, how they compare under the order the table
    /// sorts by (rules applied): each key's values and sort keys up to the deciding one.
    func explain(_ rows: [TableRow], order: TableOrder, schema: TableSchema) -> JSON {
        guard case .spec(let spec) = sortedBy(order, table: schema.name) else {
            return .object([("note", .string("\(order.description) order is kept by moves, not compared by keys"))])
        }
        let columns = spec.keys.compactMap { key in schema.columns.firstIndex { $0.name == key.column } }
        guard columns.count == spec.keys.count else { return .null }
        // A key reads by the column's type only where it reads by type (`sortValue(of:columnType:)`).
        let types = columns.map { schema.columns[$0].type }
        let pinned = Set(server.settings(for: schema.name).pinned.ids)
        return .array(
            zip(rows, rows.dropFirst()).map { first, second in
                var fields: [(String, JSON)] = [("ids", .array([.integer(first.id), .integer(second.id)]))]
                if pinned.contains(first.id) || pinned.contains(second.id) {
                    let id = pinned.contains(first.id) ? first.id : second.id
                    fields.append(("pinned", .integer(id)))
                    fields.append(("text", .string("row \(id) is pinned to the top")))
                    return .object(fields)
                }
                let why = spec.explain(columns.map { first.cells[$0] }, columns.map { second.cells[$0] }, columnTypes: types)
                fields.append(("decidingKey", why.decidingKey.map { .integer(Int64($0)) } ?? .null))
                fields.append(
                    (
                        "keys",
                        .array(
                            why.steps.map { step in
                                .object([
                                    ("key", .string(step.key.description)),
                                    ("values", .array([step.first, step.second].map { $0.isNull ? .null : .string($0.description) })),
                                    ("sortKeys", .array([step.firstKey, step.secondKey].map { $0.map(JSON.string) ?? .null })),
                                    ("order", .string(step.order == .orderedAscending ? "before" : step.order == .orderedDescending ? "after" : "ties")),
                                ])
                            })
                    ))
                fields.append(("text", .string(why.description)))
                return .object(fields)
            })
    }

    func insert(_ table: String, body: [UInt8]) async throws -> Reply {
        let schema = try await store.schema(of: table)
        let id = try await store.insert(try Self.values(body), into: table)
        return .json(Self.json(try await store.row(id, in: table), schema), status: .created)
    }

    func update(_ table: String, id: String, body: [UInt8]) async throws -> Reply {
        let schema = try await store.schema(of: table)
        let id = try rowID(id, table: table)
        try await store.update(id, in: table, set: try Self.values(body))
        return .json(Self.json(try await store.row(id, in: table), schema))
    }

    func delete(_ table: String, id: String) async throws -> Reply {
        try await store.delete(try rowID(id, table: table), from: table)
        return .empty
    }

    /// `{"after": ID}`, `{"before": ID}` or `{"toIndex": N}`.
    func move(_ table: String, id: String, body: [UInt8]) async throws -> Reply {
        let id = try rowID(id, table: table)
        guard let json = JSON.parse(body) else { throw APIError.badRequest("the body must be JSON: {\"after\": id}, {\"before\": id} or {\"toIndex\": n}") }
        let destination: MoveDestination
        switch (json["after"], json["before"], json["toIndex"]) {
        case (.integer(let after)?, nil, nil): destination = .after(after)
        case (nil, .integer(let before)?, nil): destination = .before(before)
        case (nil, nil, .integer(let index)?): destination = .toIndex(Int(index))
        default: throw APIError.badRequest("give exactly one of \"after\": id, \"before\": id or \"toIndex\": n (integers)")
        }
        try await store.move(id, in: table, to: destination)
        return .json(.object([("moved", .integer(id))]))
    }

    /// `{"ids": [ID…]}`: deletes the rows, all or none.
    func deleteRows(_ table: String, body: [UInt8]) async throws -> Reply {
        let (_, ids) = try Self.ids(body, example: "{\"ids\": [3, 7]}")
        try await store.delete(ids, from: table)
        return .json(.object([("deleted", .integer(Int64(ids.count)))]))
    }

    /// `{"ids": [ID…], "after": ID}` or `{"ids": [ID…], "before": ID}`: moves the rows as one
    /// block in the manual order, in the order listed (or with `"keepOrder": true`, in their
    /// current order), all or none.
    func moveRows(_ table: String, body: [UInt8]) async throws -> Reply {
        let example = "{\"ids\": [3, 7], \"after\": 12}"
        let (json, ids) = try Self.ids(body, example: example)
        let destination: MoveDestination
        switch (json["after"], json["before"]) {
        case (.integer(let after)?, nil): destination = .after(after)
        case (nil, .integer(let before)?): destination = .before(before)
        default: throw APIError.badRequest("give exactly one of \"after\": id or \"before\": id (an integer), as in \(example)")
        }
        let keepOrder: Bool
        switch json["keepOrder"] {
        case nil, .bool(false)?: keepOrder = false
        case .bool(true)?: keepOrder = true
        default: throw APIError.badRequest("\"keepOrder\" must be true or false")
        }
        try await store.move(ids, in: table, to: destination, keepingOrder: keepOrder)
        return .json(.object([("moved", .integer(Int64(ids.count)))]))
    }

    /// A JSON object body and its `ids` array.
    static func ids(_ body: [UInt8], example: String) throws -> (JSON, [Int64]) {
        guard let json = JSON.parse(body) else { throw APIError.badRequest("\(JSON.problem(body)); send an object such as \(example)") }
        guard case .object = json else { throw APIError.badRequest("the body must be a JSON object such as \(example)") }
        guard case .array(let items)? = json["ids"] else { throw APIError.badRequest("\"ids\" must be an array of row ids, as in \(example)") }
        let ids = try items.map { item in
            guard case .integer(let id) = item else {
                // The value quoted, cut short: a megabyte string is not echoed back.
                let text = item.text
                let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
                throw APIError.badRequest("\"ids\" must hold only row ids (integers); got \(shown)")
            }
            return id
        }
        return (json, ids)
    }

    // MARK: Parameters

    func rowID(_ text: String, table: String) throws -> Int64 {
        guard let id = Int64(text) else { throw APIError.notFound("table '\(table)' has no row '\(text.prefix(40))'") }
        return id
    }

    /// A JSON object body as column name → cell text.
    static func values(_ body: [UInt8]) throws -> [String: String] {
        guard let json = JSON.parse(body) else {
            throw APIError.badRequest("\(JSON.problem(body)); send a JSON object of column names to values")
        }
        guard case .object(let pairs) = json else {
            throw APIError.badRequest("the body must be a JSON object of column names to values")
        }
        var values: [String: String] = [:]
        for (key, value) in pairs where key != "id" {
            guard let text = value.cellText else { throw APIError.badRequest("column '\(key)' needs a string, number, boolean or null") }
            values[key] = text
        }
        return values
    }

    /// A row as `{"id": …, "<column>": value, …}`.
    static func json(_ row: TableRow, _ schema: TableSchema) -> JSON {
        .object([("id", .integer(row.id))] + zip(schema.columns, row.cells).map { ($0.name, JSON.cell($1, type: $0.type)) })
    }
}
