import DataTableKit
import Foundation
import HTTPTypes
import SortKit
import SortKitSQL

/// jQuery DataTables' server-side processing protocol (1.10+): the request's parameters and
/// the reply, over the same store queries as the JSON API.
package enum DataTablesRequest {
    /// A JSON request body (`ajax.contentType: "application/json"`, `data: JSON.stringify(d)`)
    /// flattened to the bracketed keys of the form encoding, so one parser reads both.
    package static func flatten(json body: [UInt8], limit: Int = .max) throws -> FormParameters {
        guard let json = JSON.parse(body) else { throw APIError.badRequest("the body isn't JSON") }
        var pairs: [(key: String, value: String)] = []
        var isTruncated = false
        var longKey = false
        func walk(_ value: JSON, _ key: String) {
            guard pairs.count < limit else {
                isTruncated = true
                return
            }
            // Each leaf's key repeats its parents' names: long names would make a small body
            // a huge set of keys. DataTables' keys are short.
            guard key.utf8.count <= 256 else {
                longKey = true
                return
            }
            switch value {
            case .object(let members): for (name, member) in members { walk(member, key.isEmpty ? name : "\(key)[\(name)]") }
            case .array(let items): for (index, item) in items.enumerated() { walk(item, "\(key)[\(index)]") }
            default: pairs.append((key, value.cellText ?? ""))
            }
        }
        walk(json, "")
        if longKey { throw APIError.badRequest("a parameter name in the body is over 256 bytes") }
        return FormParameters(pairs: pairs, isTruncated: isTruncated)
    }
}

extension APIHandlers {
    /// A cell with its text HTML-escaped (numbers, booleans and null as they are).
    static func escaped(_ pair: (String, JSON)) -> (String, JSON) {
        guard case .string(let text) = pair.1 else { return pair }
        return (pair.0, .string(HTMLEscaping.escape(text)))
    }

    /// The reply `{draw, recordsTotal, recordsFiltered, data}`, or `{draw, error}` for a bad
    /// request (DataTables shows `error` to the user). An unknown table is a 404.
    func dataTables(_ table: String, form: FormParameters) async throws -> Reply {
        let stored = try await store.table(table)
        let schema = stored.schema
        let draw = Int64(form["draw"] ?? "") ?? 0
        let limits = server.limits
        do {
            try form.checkLimit(limits.maxParameters)
            var columns: [String?] = []
            var columnSearch: [String: String] = [:]
            // Words of the global and every column search count against one limit.
            let search = form["search[value]"] ?? ""
            var terms = try ViewQuery.checkSearch(search, name: "search[value]", limits: limits)
            while let data = form["columns[\(columns.count)][data]"] {
                let index = columns.count
                guard index < limits.maxDataTablesColumns else {
                    throw APIError.badRequest("the request has more than \(limits.maxDataTablesColumns) columns[] entries")
                }
                let name = form["columns[\(index)][name]"].flatMap { $0.isEmpty ? nil : $0 } ?? data
                let column =
                    schema.columns.contains { $0.name == name }
                    ? name
                    : Int(data).flatMap { schema.columns.indices.contains($0) ? schema.columns[$0].name : nil }
                columns.append(column)
                if let column, let text = form["columns[\(index)][search][value]"], !text.isEmpty,
                    form["columns[\(index)][searchable]"] != "false"
                {
                    terms += try ViewQuery.checkSearch(text, name: "columns[\(index)][search][value]", limits: limits)
                    columnSearch[column] = text
                    guard terms <= limits.maxSearchTerms else {
                        throw APIError.badRequest("the searches have more than \(limits.maxSearchTerms) words in all")
                    }
                }
            }
            var keys: [SortSpec.Key] = []
            var position = 0
            while let text = form["order[\(position)][column]"] {
                guard position < limits.maxSortKeys else {
                    throw APIError.badRequest("the request has more than \(limits.maxSortKeys) order[] entries")
                }
                guard let index = Int(text), columns.indices.contains(index), let column = columns[index] else {
                    throw APIError.badRequest("order[\(position)][column] = '\(text)' is not a column of table '\(table)'")
                }
                // A column the client declares not orderable doesn't sort, as a tap on it wouldn't.
                if form["columns[\(index)][orderable]"] == "false" {
                    position += 1
                    continue
                }
                let dir = form["order[\(position)][dir]"] ?? "asc"
                guard dir == "asc" || dir == "desc" else {
                    throw APIError.badRequest("order[\(position)][dir] must be asc or desc, got '\(dir)'")
                }
                var key = SortSpec.Key(column, dir == "asc" ? .ascending : .descending)
                if let modifiers = server.headerModifiers[table]?[column] {
                    key.modifiers = (try? SortSpec(parsing: "x:" + modifiers))?.keys.first?.modifiers ?? []
                }
                keys.append(key)
                position += 1
            }
            // The table's key cap keeps the first keys, as a header state does.
            keys = server.settings(for: table).headerState(try SortSpec(keys).checkingDistinctKeys()).keys
            let start = try ViewQuery.whole(form["start"], name: "start", default: 0)
            let lengthText = form["length"] ?? "10"
            guard let length = Int(lengthText), length >= -1 else {
                throw APIError.badRequest("length must be -1 (all) or a whole number, got '\(lengthText)'")
            }
            let page = try await self.page(
                stored,
                PageRequest(
                    order: .spec(SortSpec(keys)), search: search, columnSearch: columnSearch,
                    offset: start, limit: length == -1 ? server.maxPageSize : min(length, server.maxPageSize)))
            return .json(
                .object([
                    ("draw", .integer(draw)),
                    ("recordsTotal", .integer(Int64(page.total))),
                    ("recordsFiltered", .integer(Int64(page.filtered))),
                    (
                        "data",
                        .array(
                            page.rows.map { row in
                                guard case .object(let pairs) = Self.json(row, schema) else { return .null }
                                return .object([("DT_RowId", .string("row_\(row.id)"))] + (server.dataTablesEscapesHTML ? pairs.map(Self.escaped) : pairs))
                            })
                    ),
                ]))
        } catch {
            let error = APIError(error)
            guard error.status == .badRequest || error.status == .notFound else { throw error }
            return .json(.object([("draw", .integer(draw)), ("error", .string(error.message))]))
        }
    }
}
