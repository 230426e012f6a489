import Foundation
import SortKit
import SortKitSQL

/// A table view as a URL's query names it — `sort` or `preset`, `q`, `filter[COLUMN]`, the
/// page (`page` and `size` on pages; `limit`, `offset` or `after` in the API), `explain` and
/// `formulas` — parsed once per request and written back to a URL for links.
///
/// The JSON API, the pages, the CSV download and (through its own protocol) the DataTables
/// endpoint all read a view through this type; ``resolved(against:server:)`` checks it
/// against the table and gives the store's `PageRequest`.
///
///     let query = try ViewQuery(FormParameters("sort=-price&q=zola&page=2"), limits: RequestLimits())
///     query.url("/tables/books", page: 3)   // "/tables/books?sort=-price&q=zola&page=3"
struct ViewQuery: Sendable {
    /// The sort spec's text; empty for none.
    var sort = ""
    /// A preset's name; empty for none. A preset wins over `sort`.
    var preset = ""
    /// The multi-term search; empty for none.
    var search = ""
    /// Per-column filters in URL order: the first non-blank value of each column.
    var filters: [(column: String, text: String)] = []
    /// The page number (from 1) and rows per page of a page view.
    var page = 1
    var size = ViewQuery.defaultSize
    /// The API's paging parameters as sent (checked by ``limit(default:cap:)`` and ``offset()``).
    var limitText: String?
    var offsetText: String?
    /// A cursor from a previous page's `next`; nil for none.
    var after: String?
    /// Whether the reply explains each adjacent pair's order (`explain=1`).
    var explain = false
    /// Whether a CSV download writes cells exactly as stored (`formulas=keep`) instead of
    /// defusing the ones a spreadsheet would run as formulas.
    var keepsFormulas = false

    /// The query parameters the JSON API's rows route reads (`filter` stands for `filter[COLUMN]`);
    /// the OpenAPI document lists each (a test compares them).
    static let apiParameters = ["sort", "preset", "q", "filter", "limit", "offset", "after", "explain"]
    /// Those the CSV download reads.
    static let csvParameters = ["sort", "preset", "q", "filter", "formulas"]

    static let defaultSize = 25
    static let pageSizes = [10, 25, 50, 100, 500]

    /// An empty view: the table's own order, no search, the first page.
    init() {}

    /// The view `form` names, with its texts checked against `limits` (length, words).
    ///
    /// - Throws: ``APIError`` (400) naming the parameter that is too long, has too many words,
    ///   or isn't one of its allowed values; or a request with more parameters than allowed.
    init(_ form: FormParameters, limits: RequestLimits) throws {
        try form.checkLimit(limits.maxParameters)
        sort = form["sort"] ?? ""
        preset = form["preset"] ?? ""
        search = form["q"] ?? ""
        guard sort.utf8.count <= limits.maxTextLength else {
            throw APIError.badRequest("sort is \(sort.utf8.count) bytes long; the most is \(limits.maxTextLength)")
        }
        var terms = try Self.checkSearch(search, name: "q", limits: limits)
        var seen = Set<String>()
        for (key, value) in form.pairs where key.hasPrefix("filter[") && key.hasSuffix("]") && key.utf8.count > 8 {
            let column = String(key.dropFirst(7).dropLast())
            guard !seen.contains(column) else { continue }
            let count = try Self.checkSearch(value, name: "filter[\(column.prefix(40))]", limits: limits)
            guard !SearchQuery(value).isBlank else { continue }
            seen.insert(column)
            terms += count
            guard terms <= limits.maxSearchTerms else {
                throw APIError.badRequest("the search and filters have more than \(limits.maxSearchTerms) words in all")
            }
            filters.append((column, value))
        }
        // Bounded so that (page - 1) * size can't overflow; a page past the end shows the last.
        page = min(max(1, Int(form["page"] ?? "") ?? 1), 1 << 30)
        size = min(max(1, Int(form["size"] ?? "") ?? Self.defaultSize), Self.pageSizes.last!)
        limitText = form["limit"]
        offsetText = form["offset"]
        after = form["after"].flatMap { $0.isEmpty ? nil : $0 }
        explain = try Self.flag(form["explain"], name: "explain")
        switch form["formulas"] {
        case nil, "", "safe": keepsFormulas = false
        case "keep": keepsFormulas = true
        case let text?: throw APIError.badRequest("formulas must be safe or keep, got '\(text.prefix(40))'")
        }
    }

    /// Checks a search text against the limits — at most ``RequestLimits/maxTextLength`` bytes
    /// and ``RequestLimits/maxSearchTerms`` words — and returns its number of words.
    @discardableResult
    static func checkSearch(_ text: String, name: String, limits: RequestLimits) throws -> Int {
        guard text.utf8.count <= limits.maxTextLength else {
            throw APIError.badRequest("\(name) is \(text.utf8.count) bytes long; the most is \(limits.maxTextLength)")
        }
        let terms = SearchQuery(text).terms.count
        guard terms <= limits.maxSearchTerms else {
            throw APIError.badRequest("\(name) has \(terms) words; the most is \(limits.maxSearchTerms)")
        }
        return terms
    }

    /// A boolean parameter: absent, empty, `0` or `false` is off; `1` or `true` on.
    static func flag(_ text: String?, name: String) throws -> Bool {
        switch text {
        case nil, "", "0", "false": return false
        case "1", "true": return true
        case let text?: throw APIError.badRequest("\(name) must be 1 or 0, got '\(text.prefix(40))'")
        }
    }

    /// `limit`: the default when absent, clamped to `cap`.
    ///
    /// - Throws: 400 for a negative or non-numeric value.
    func limit(default value: Int, cap: Int) throws -> Int {
        min(try Self.whole(limitText, name: "limit", default: value), cap)
    }

    /// `offset`: 0 when absent.
    ///
    /// - Throws: 400 for a negative or non-numeric value.
    func offset() throws -> Int {
        try Self.whole(offsetText, name: "offset", default: 0)
    }

    /// A whole number, 0 or more, or `value` when absent.
    static func whole(_ text: String?, name: String, default value: Int) throws -> Int {
        guard let text, !text.isEmpty else { return value }
        guard let number = Int(text), number >= 0 else {
            throw APIError.badRequest("\(name) must be a whole number, 0 or more; got '\(text.prefix(40))'")
        }
        return number
    }

    /// The store's request for this view of `schema`: the order (a preset, or the sort spec
    /// with the table's header cycles and key cap, its columns named as the schema names
    /// them), the search and the filters; the caller sets the paging.
    ///
    /// - Throws: 400 for an unknown preset, a bad spec or one over the limits, or a filter of
    ///   a column the table doesn't have; 404 (``TableStoreError``) for an unknown sort column.
    func resolved(against schema: TableSchema, server: SortKitServer) throws -> PageRequest {
        var columnSearch: [String: String] = [:]
        for (column, text) in filters {
            guard schema.columns.contains(where: { $0.name == column }) else {
                throw APIError.badRequest(
                    "filter[\(column.prefix(40))]: table '\(schema.name)' has no such column (columns: \(schema.columns.map(\.name).joined(separator: ", ")))")
            }
            columnSearch[column] = text
        }
        return PageRequest(order: try order(schema, server: server), search: search, columnSearch: columnSearch)
    }

    /// The order this view names on `schema`.
    func order(_ schema: TableSchema, server: SortKitServer) throws -> TableOrder {
        if !preset.isEmpty {
            if preset == "manual" || preset == TableOrder.manualPresetName { return .manual }
            guard let spec = schema.presets[preset] else {
                let known = (schema.presets.keys.sorted() + [TableOrder.manualPresetName]).joined(separator: ", ")
                throw APIError.badRequest("unknown preset '\(preset.prefix(80))' (presets: \(known))")
            }
            return .spec(spec)
        }
        guard !sort.trimmingCharacters(in: .whitespaces).isEmpty else { return .spec(SortSpec()) }
        if sort == "manual" { return .manual }
        var spec = try SortSpec(parsing: sort)
        try server.checkLimits(spec, name: "sort")
        // Keys name columns as the schema does ("TITLE" is "title"), so rules and explanations
        // find them; a table's key cap keeps the first keys, as its headers show.
        for index in spec.keys.indices { spec.keys[index].column = schema.columns[try schema.columnIndex(spec.keys[index].column)].name }
        // Checked again once named as the schema names them: `title,TITLE` is one key twice.
        return .spec(server.settings(for: schema.name).headerState(try spec.checkingDistinctKeys()).spec)
    }

    // MARK: Back to a URL

    /// `path` with this view's query, changed by the arguments: a `sort` drops the preset, a
    /// `preset` the sort; `page` 1 (the default) is left out, as is the default size.
    ///
    ///     query.url("/tables/books", sort: "-price")   // "/tables/books?sort=-price&q=zola"
    func url(_ path: String, sort: String? = nil, preset: String? = nil, page: Int? = nil) -> String {
        path + self.query(sort: sort, preset: preset, page: page)
    }

    /// The query part of ``url(_:sort:preset:page:)``: `?…`, or empty.
    func query(sort: String? = nil, preset: String? = nil, page: Int? = nil) -> String {
        var parts: [String] = []
        let preset = preset ?? (sort == nil ? self.preset : "")
        let sort = sort ?? (preset.isEmpty ? self.sort : "")
        if !preset.isEmpty { parts.append("preset=" + URLText.query(preset)) }
        if !sort.isEmpty { parts.append("sort=" + URLText.query(sort)) }
        if !search.isEmpty { parts.append("q=" + URLText.query(search)) }
        for (column, text) in filters { parts.append("filter[" + URLText.query(column) + "]=" + URLText.query(text)) }
        let page = page ?? 1
        if page > 1 { parts.append("page=\(page)") }
        if size != Self.defaultSize { parts.append("size=\(size)") }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }
}

/// Percent-encoding for the parts of a URL the server writes.
enum URLText {
    /// A query component, percent-encoded so it can't end the value or the attribute; sort
    /// specs keep `,`, `:` and `|` readable.
    ///
    ///     URLText.query("status:enum=a|b,-price")   // "status:enum%3Da|b,-price"
    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? ""
    }

    /// A table's page path: `/tables/NAME`, the name percent-encoded.
    static func tablePage(_ table: String) -> String { "/tables/" + query(table) }

    /// A path under a table's API: `/api/tables/NAME` + `rest`.
    static func tableAPI(_ table: String, _ rest: String = "") -> String { "/api/tables/" + query(table) + rest }

    private static let queryAllowed = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~,:|")
}
