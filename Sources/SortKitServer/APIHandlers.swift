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

    /// Runs a handler, turning any error into a JSON error reply. An internal error's details
    /// are logged under a request id, and the client gets only the id.
    func respond(_ context: some RequestContext, _ body: () async throws -> Reply) async throws -> Response {
        do {
            return try await body().response
        } catch {
            return Self.errorResponse(error, logger: context.logger)
        }
    }

    /// `{"error": …}` for `error`; internal ones logged with a request id.
    static func errorResponse(_ error: any Error, logger: Logger) -> Response {
        let error = APIError(error)
        guard error.isInternal || error.status == .serviceUnavailable else { return Reply.error(error.status, error.message) }
        // Hummingbird's per-request id, which its log lines for the request carry too.
        let id = logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? String(UInt64.random(in: 0...UInt64.max), radix: 16)
        logger.error("request \(id): \(error.status.code) \(error.message)")
        let message = error.isInternal ? "internal error; the server's log has the details under request id \(id)" : error.message
        return Reply.json(.object([("error", .string(message)), ("request", .string(id))]), status: error.status).response
    }

    func tables() async throws -> Reply {
        .json(.object([("tables", .array(try await store.tables().map { schema in
            let settings = server.settings(for: schema.name)
            return .object([
                ("name", .string(schema.name)),
                ("columns", .array(schema.columns.map { column in
                    var fields: [(String, JSON)] = [("name", .string(column.name)), ("type", .string(column.type.rawValue)), ("sortable", .bool(true))]
                    if let cycle = settings.cycles[column.name] { fields.append(("cycle", .string(cycle.description))) }
                    if let keys = settings.rules.sortsBy[column.name] { fields.append(("sortsBy", .string(keys.description))) }
                    return .object(fields)
                })),
                ("fixed", .object([("before", .string(settings.rules.before.description)), ("after", .string(settings.rules.after.description))])),
                ("pinned", .array(settings.pinned.ids.map(JSON.integer))),
                ("maxSortKeys", settings.maxKeys.map { .integer(Int64($0)) } ?? .null),
                ("presets", .array(
                    schema.presets.keys.sorted().map { name in
                        .object([("name", .string(name)), ("sort", .string(schema.presets[name]!.description))])
                    } + [.object([("name", .string("My order")), ("sort", .string("manual"))])])),
            ])
        }))]))
    }

    /// `GET /api/tables/{table}/rows?sort=…|preset=…&q=…&limit=…&offset=…|after=…`.
    func rows(_ table: String, query: String) async throws -> Reply {
        let form = FormParameters(query, limit: server.limits.maxParameters)
        var (schema, request) = try await view(table, form)
        request.limit = min(try integer(form["limit"], name: "limit", default: 50), server.maxPageSize)
        request.offset = try integer(form["offset"], name: "offset", default: 0)
        request.after = form["after"].flatMap { $0.isEmpty ? nil : $0 }
        let explain = try flag(form["explain"], name: "explain")
        let page = try await self.page(table, request)
        var fields: [(String, JSON)] = [
            ("rows", .array(page.rows.map { Self.json($0, schema) })),
            ("total", .integer(Int64(page.total))),
            ("filtered", .integer(Int64(page.filtered))),
            ("next", page.next.map(JSON.string) ?? .null),
        ]
        if explain { fields.append(("explain", self.explain(page.rows, order: request.order, schema: schema))) }
        return .json(.object(fields))
    }

    /// The view a query names on `table` — `sort` or `preset`, `q`, `filter[COLUMN]` — checked:
    /// the table's schema and a request for the view's first rows (the caller sets limit,
    /// offset and cursor).
    func view(_ table: String, _ form: FormParameters) async throws -> (schema: TableSchema, request: PageRequest) {
        try form.checkLimit(server.limits.maxParameters)
        let schema = try await store.schema(of: table)
        let order = try self.order(schema, sort: form["sort"], preset: form["preset"])
        let search = form["q"] ?? ""
        try checkSearch(search, name: "q")
        return (schema, PageRequest(order: order, search: search, columnSearch: try filters(form, schema: schema)))
    }

    /// Per-column filters, `filter[COLUMN]=TEXT` (multi-term, folded, matched against that
    /// column only; blank ones ignored, a repeated one's first value counts).
    ///
    /// - Throws: 400 naming an unknown column or a filter over the search limits.
    func filters(_ form: FormParameters, schema: TableSchema) throws -> [String: String] {
        var filters: [String: String] = [:]
        var terms = 0
        for (key, value) in form.pairs where key.hasPrefix("filter[") && key.hasSuffix("]") && key.count > 8 {
            let column = String(key.dropFirst(7).dropLast())
            guard schema.columns.contains(where: { $0.name == column }) else {
                throw APIError.badRequest("filter[\(column.prefix(40))]: table '\(schema.name)' has no such column (columns: \(schema.columns.map(\.name).joined(separator: ", ")))")
            }
            guard filters[column] == nil else { continue }
            terms += try checkSearch(value, name: "filter[\(column)]")
            guard terms <= server.limits.maxSearchTerms else {
                throw APIError.badRequest("the filters have more than \(server.limits.maxSearchTerms) words in all")
            }
            if !SearchQuery(value).isBlank { filters[column] = value }
        }
        return filters
    }

    /// `GET /api/tables/{table}/rows.csv?sort=…|preset=…&q=…&filter[COLUMN]=…`: the view as
    /// CSV, every row, streamed — the header first, then batches of rows read one after the
    /// other by cursor, so the first bytes leave at once and the table is never held whole.
    /// Bad parameters are answered (400/404) before the first byte; a failure later cuts the
    /// download short (the client sees an incomplete transfer, never a partial file as a
    /// complete one).
    func csv(_ table: String, query: String) async throws -> Response {
        let (schema, viewRequest) = try await view(table, FormParameters(query, limit: server.limits.maxParameters))
        var firstRequest = viewRequest
        firstRequest.limit = server.limits.exportBatchRows
        let first = try await page(table, firstRequest)
        let header = schema.columns.map(\.name)
        let handlers = self
        let body = ResponseBody { [firstRequest] writer in
            var request = firstRequest
            try await writer.write(ByteBuffer(string: CSV.format([header] + first.rows.map(\.cells))))
            var next = first.next
            while let cursor = next {
                request.after = cursor
                let page = try await handlers.page(table, request)
                try await writer.write(ByteBuffer(string: CSV.format(page.rows.map(\.cells))))
                next = page.next
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [
            .contentType: "text/csv; charset=utf-8",
            .contentDisposition: Self.attachment(table + ".csv"),
        ], body: body)
    }

    /// `POST /api/tables?name=NAME[&delimiter=C]` with a `text/csv` body: a new table, types
    /// inferred, rows 1…n in file order, in one transaction. 201 with the table; 400 naming the
    /// line for malformed CSV (nothing created), 409 when the name is taken, 503 when
    /// ``RequestLimits/maxConcurrentImports`` imports are already running.
    func importTable(query: String, body readBody: () async throws -> [UInt8]) async throws -> Reply {
        let form = FormParameters(query, limit: server.limits.maxParameters)
        try form.checkLimit(server.limits.maxParameters)
        guard let name = form["name"], !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.badRequest("name the new table: POST /api/tables?name=NAME with the CSV as the body")
        }
        // Counted in scalars: a name of one letter and 100,000 combining marks is one Character.
        guard name.unicodeScalars.count <= 128, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "/" }) else {
            throw APIError.badRequest("a table name has at most 128 characters and no control characters or '/'")
        }
        guard name != ".", name != ".." else { throw APIError.badRequest("'\(name)' can't name a table: its page address would be a folder's") }
        var delimiter = UInt8(ascii: ",")
        if let text = form["delimiter"], !text.isEmpty {
            let byte = text == "tab" ? 0x09 : text.utf8.count == 1 ? text.utf8.first! : 0
            guard byte != 0, byte < 0x80, byte != 0x22, byte != 0x0A, byte != 0x0D else {
                throw APIError.badRequest("delimiter must be one ASCII character other than a quote or a line break, or 'tab'")
            }
            delimiter = byte
        }
        // The body is read only once the name and delimiter are good, and a slot is free.
        let limit = max(1, server.limits.maxConcurrentImports)
        guard server.imports.take(limit: limit) else {
            throw APIError(status: .serviceUnavailable,
                           message: "\(limit == 1 ? "an import is" : "\(limit) imports are") running; send this one again when one has finished")
        }
        defer { server.imports.give() }
        let body = try await readBody()
        guard !body.isEmpty else { throw APIError.badRequest("the CSV is empty: send a header row and the rows") }
        let schema = try await store.importCSV(body, as: name, delimiter: delimiter, presets: [:])
        let count = try await store.page(of: name, PageRequest(limit: 0)).total
        return .json(.object([
            ("name", .string(schema.name)),
            ("columns", .array(schema.columns.map { .object([("name", .string($0.name)), ("type", .string($0.type.rawValue))]) })),
            ("rows", .integer(Int64(count))),
            ("url", .string("/tables/" + HTML.query(schema.name))),
        ]), status: .created)
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
    func page(_ table: String, _ request: PageRequest) async throws -> TablePage {
        // "My order" is the user's own arrangement: neither rules nor pins change it.
        guard case .spec = request.order else { return try await store.page(of: table, request) }
        var request = request
        request.order = sortedBy(request.order, table: table)
        return try await server.settings(for: table).pinned.page(of: table, request, in: store)
    }

    /// The order `table` sorts by when `order` is picked: a spec with the table's rules
    /// applied; "My order" as it is.
    func sortedBy(_ order: TableOrder, table: String) -> TableOrder {
        guard case .spec(let spec) = order else { return order }
        return .spec(server.settings(for: table).rules.applied(to: spec))
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
        return .array(zip(rows, rows.dropFirst()).map { first, second in
            var fields: [(String, JSON)] = [("ids", .array([.integer(first.id), .integer(second.id)]))]
            if pinned.contains(first.id) || pinned.contains(second.id) {
                let id = pinned.contains(first.id) ? first.id : second.id
                fields.append(("pinned", .integer(id)))
                fields.append(("text", .string("row \(id) is pinned to the top")))
                return .object(fields)
            }
            let why = spec.explain(columns.map { first.cells[$0] }, columns.map { second.cells[$0] }, columnTypes: types)
            fields.append(("decidingKey", why.decidingKey.map { .integer(Int64($0)) } ?? .null))
            fields.append(("keys", .array(why.steps.map { step in
                .object([
                    ("key", .string(step.key.description)),
                    ("values", .array([step.first, step.second].map { $0.isNull ? .null : .string($0.description) })),
                    ("sortKeys", .array([step.firstKey, step.secondKey].map { $0.map(JSON.string) ?? .null })),
                    ("order", .string(step.order == .orderedAscending ? "before" : step.order == .orderedDescending ? "after" : "ties")),
                ])
            })))
            fields.append(("text", .string(why.description)))
            return .object(fields)
        })
    }

    /// A boolean parameter: absent, empty, `0` or `false` is off; `1` or `true` on.
    func flag(_ text: String?, name: String) throws -> Bool {
        switch text {
        case nil, "", "0", "false": return false
        case "1", "true": return true
        case let text?: throw APIError.badRequest("\(name) must be 1 or 0, got '\(text.prefix(40))'")
        }
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

    /// Checks a search text against the limits — at most ``RequestLimits/maxTextLength``
    /// characters and ``RequestLimits/maxSearchTerms`` words — and returns its number of words.
    @discardableResult
    func checkSearch(_ text: String?, name: String) throws -> Int {
        guard let text else { return 0 }
        let limits = server.limits
        guard text.utf8.count <= limits.maxTextLength else {
            throw APIError.badRequest("\(name) is \(text.utf8.count) bytes long; the most is \(limits.maxTextLength)")
        }
        let terms = SearchQuery(text).terms.count
        guard terms <= limits.maxSearchTerms else {
            throw APIError.badRequest("\(name) has \(terms) words; the most is \(limits.maxSearchTerms)")
        }
        return terms
    }

    /// Throws a 400 when `spec` has more keys, or an `enum=` more values, than the limits allow.
    func checkLimits(_ spec: SortSpec, name: String) throws {
        let limits = server.limits
        guard spec.keys.count <= limits.maxSortKeys else {
            throw APIError.badRequest("\(name) has \(spec.keys.count) sort keys; the most is \(limits.maxSortKeys)")
        }
        for key in spec.keys {
            if let values = key.enumOrder, values.count > limits.maxEnumValues {
                throw APIError.badRequest("\(name): enum= of column '\(key.column)' lists \(values.count) values; the most is \(limits.maxEnumValues)")
            }
        }
    }

    func order(_ schema: TableSchema, sort: String?, preset: String?) throws -> TableOrder {
        if let preset, !preset.isEmpty {
            if preset == "manual" || preset == "My order" { return .manual }
            guard let spec = schema.presets[preset] else {
                let known = (schema.presets.keys.sorted() + ["My order"]).joined(separator: ", ")
                throw APIError.badRequest("unknown preset '\(preset)' (presets: \(known))")
            }
            return .spec(spec)
        }
        guard let sort, !sort.trimmingCharacters(in: .whitespaces).isEmpty else { return .spec(SortSpec()) }
        if sort == "manual" { return .manual }
        guard sort.utf8.count <= server.limits.maxTextLength else {
            throw APIError.badRequest("sort is \(sort.utf8.count) bytes long; the most is \(server.limits.maxTextLength)")
        }
        var spec = try SortSpec(parsing: sort)
        try checkLimits(spec, name: "sort")
        // Keys name columns as the schema does ("TITLE" is "title"), so rules and explanations
        // find them; a table's key cap keeps the first keys, as its headers show.
        for index in spec.keys.indices { spec.keys[index].column = schema.columns[try schema.columnIndex(spec.keys[index].column)].name }
        return .spec(server.settings(for: schema.name).headerState(spec).spec)
    }

    func integer(_ text: String?, name: String, default value: Int) throws -> Int {
        guard let text, !text.isEmpty else { return value }
        guard let number = Int(text), number >= 0 else {
            throw APIError.badRequest("\(name) must be a whole number, 0 or more; got '\(text)'")
        }
        return number
    }

    func rowID(_ text: String, table: String) throws -> Int64 {
        guard let id = Int64(text) else { throw APIError.notFound("table '\(table)' has no row '\(text)'") }
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
