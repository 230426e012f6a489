import Foundation
import SortKit
import SortKitSQL

/// The server-rendered pages. Every link and form works without JavaScript; `app.js` then
/// swaps the view in place, adds shift-click multi-sort, debounced search, drag-and-drop in
/// "My order", inline edits, adding and deleting rows.
struct Pages {
    let server: SortKitServer

    func index() async throws -> Reply {
        var items = ""
        for schema in try await server.store.tables() {
            let count = try await server.store.page(of: schema.name, PageRequest(limit: 0)).total
            items += """
                <li><a href="/tables/\(HTML.query(schema.name))">\(HTML.escape(schema.name))</a>
                <span class="muted">\(count) rows · \(schema.columns.map { HTML.escape($0.name) }.joined(separator: ", "))</span></li>
                """
        }
        // The import posts the file as text/csv (POST /api/tables), so it needs the script.
        let importForm = """
            <section class="import needs-js"><h2>Import a CSV file</h2>
            <form id="import-csv"><label>CSV file <input type="file" name="file" accept=".csv,.tsv,text/csv" required></label>
            <label>Table name <input name="name" maxlength="128" required placeholder="from the file name"></label>
            <button type="submit">Import</button></form>
            <p class="hint">Column types are inferred; a malformed line is named and nothing is imported.</p>
            <p id="status" role="status" aria-live="polite"></p></section>
            """
        return .html(layout(title: "SortKit", body: "<main><h1>Tables</h1><ul class=\"tables\">\(items)</ul>\(importForm)</main>"))
    }

    /// The view's state from the URL: `sort` or `preset`, `q`, `filter[COLUMN]`, `page`
    /// (from 1), `size`.
    struct ViewState {
        var sort = ""
        var preset = ""
        var q = ""
        /// Per-column filters in URL order (first value of a repeated one), blank ones kept
        /// out.
        var filters: [(column: String, text: String)] = []
        var page = 1
        var size = 25

        /// The state of a query's parameters (checked by ``APIHandlers/view(_:_:)``).
        init(_ form: FormParameters) {
            sort = form["sort"] ?? ""
            preset = form["preset"] ?? ""
            q = form["q"] ?? ""
            for (key, value) in form.pairs where key.hasPrefix("filter[") && key.hasSuffix("]") && key.count > 8 {
                let column = String(key.dropFirst(7).dropLast())
                if !value.trimmingCharacters(in: .whitespaces).isEmpty, !filters.contains(where: { $0.column == column }) {
                    filters.append((column, value))
                }
            }
            // Bounded so that (page - 1) * size can't overflow; a page past the end shows the last.
            page = min(max(1, Int(form["page"] ?? "") ?? 1), 1 << 30)
            size = min(max(1, Int(form["size"] ?? "") ?? 25), 500)
        }

        func url(_ table: String, sort: String? = nil, preset: String? = nil, page: Int? = nil) -> String {
            "/tables/\(HTML.query(table))" + query(sort: sort, preset: preset, page: page)
        }

        /// The query part of ``url(_:sort:preset:page:)``: `?…`, or empty.
        func query(sort: String? = nil, preset: String? = nil, page: Int? = nil) -> String {
            var parts: [String] = []
            let preset = preset ?? (sort == nil ? self.preset : "")
            let sort = sort ?? (preset.isEmpty ? self.sort : "")
            if !preset.isEmpty { parts.append("preset=" + HTML.query(preset)) }
            if !sort.isEmpty { parts.append("sort=" + HTML.query(sort)) }
            if !q.isEmpty { parts.append("q=" + HTML.query(q)) }
            for (column, text) in filters { parts.append("filter[" + HTML.query(column) + "]=" + HTML.query(text)) }
            let page = page ?? 1
            if page > 1 { parts.append("page=\(page)") }
            if size != 25 { parts.append("size=\(size)") }
            return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
        }
    }

    func table(_ name: String, query: String) async throws -> Reply {
        let api = APIHandlers(server: server)
        let form = FormParameters(query, limit: server.limits.maxParameters)
        var (schema, request) = try await api.view(name, form)
        var state = ViewState(form)
        let order = request.order
        // A sort that equals a preset shows that preset as selected.
        if state.preset.isEmpty, case .spec(let spec) = order, let match = schema.presets.first(where: { $0.value == spec }) {
            state.preset = match.key
        }
        // One read gives the page and its counts; a page past the end is read again as the last.
        request.limit = state.size
        request.offset = (state.page - 1) * state.size
        var page = try await api.page(name, request)
        let pageCount = max(1, (page.filtered + state.size - 1) / state.size)
        if state.page > pageCount {
            state.page = pageCount
            request.offset = (state.page - 1) * state.size
            page = try await api.page(name, request)
        }
        let counts = page
        let isManual = order == .manual
        let spec: SortSpec = if case .spec(let spec) = order { spec } else { SortSpec() }
        let settings = server.settings(for: name)
        let headerState = settings.headerState(spec)
        let pinned = Set(settings.pinned.ids)

        // A checkbox column for row selection (shown with JavaScript; the page's bulk actions
        // need it), then the drag handle in My order.
        var head = "<th class=\"select-col\"><input type=\"checkbox\" class=\"select-all\" data-count=\"\(page.filtered)\" "
            + "aria-label=\"Select all \(page.filtered) matching rows\" title=\"Select all \(page.filtered) matching rows\"></th>"
        if isManual { head += "<th class=\"handle-col\" aria-label=\"Drag to reorder\"></th>" }
        for column in schema.columns {
            let modifiers = server.headerModifiers[name]?[column.name].flatMap {
                try? SortSpec(parsing: "x:" + $0).keys.first?.modifiers
            } ?? []
            var plain = headerState, additive = headerState
            plain.tap(column.name, modifiers: modifiers)
            additive.tap(column.name, additive: true, modifiers: modifiers)
            let direction = headerState.direction(of: column.name)
            let ariaSort = direction.map { $0 == .ascending ? "ascending" : "descending" } ?? "none"
            var indicator = ""
            if let direction {
                indicator = direction == .ascending ? "▲" : "▼"
                if headerState.keys.count > 1, let priority = headerState.priority(of: column.name) { indicator += "\(priority)" }
            }
            // Sorted columns are marked by priority, as DataTables' orderClasses.
            let sortedClasses = headerState.priority(of: column.name).map { ["sorted", "sorted-\($0)"] } ?? []
            let headClasses = (column.type == .integer || column.type == .float ? ["num"] : []) + sortedClasses
            let numeric = headClasses.isEmpty ? "" : " class=\"\(headClasses.joined(separator: " "))\""
            // In a multi-key sort, × takes this key out and keeps the others.
            var remove = ""
            if headerState.keys.count > 1, direction != nil {
                var without = headerState
                without.remove(column.name)
                remove = "<a data-nav class=\"unsort\" href=\"\(HTML.escape(state.url(name, sort: without.spec.description)))\" "
                    + "title=\"Remove \(HTML.escape(column.name)) from the sort\" aria-label=\"Remove \(HTML.escape(column.name)) from the sort\">×</a>"
            }
            head += """
                <th scope="col" aria-sort="\(ariaSort)" data-column="\(HTML.escape(column.name))"\(numeric)>\
                <a data-nav href="\(HTML.escape(state.url(name, sort: plain.spec.description)))" \
                data-add-href="\(HTML.escape(state.url(name, sort: additive.spec.description)))" \
                title="Click or Enter to sort, shift-click or Shift+Enter to add a sort key">\(HTML.escape(column.name))\
                <span class="ind" aria-hidden="true">\(indicator)</span></a>\(remove)<span class="resizer" aria-hidden="true"></span></th>
                """
        }
        head += "<th class=\"actions-col\"><span class=\"visually-hidden\">Actions</span></th>"
        // Per-column filters: inputs of the controls form (by its id), one under each header.
        var filterRow = "<td></td>" + (isManual ? "<td></td>" : "")
        for column in schema.columns {
            let value = state.filters.first { $0.column == column.name }?.text ?? ""
            filterRow += "<td data-column=\"\(HTML.escape(column.name))\"><input type=\"search\" form=\"controls\" class=\"filter\" "
                + "name=\"filter[\(HTML.escape(column.name))]\" value=\"\(HTML.escape(value))\" placeholder=\"Filter\" "
                + "aria-label=\"Filter \(HTML.escape(column.name))\" autocomplete=\"off\"></td>"
        }
        filterRow += "<td></td>"
        // Show, hide, reorder and freeze columns (kept in the browser with the saved view).
        var columnItems = ""
        for column in schema.columns {
            let label = HTML.escape(column.name)
            columnItems += "<li data-column=\"\(label)\"><label><input type=\"checkbox\" checked data-toggle-column=\"\(label)\"> \(label)</label>"
                + "<button type=\"button\" data-move=\"-1\" aria-label=\"Move \(label) left\">◀</button>"
                + "<button type=\"button\" data-move=\"1\" aria-label=\"Move \(label) right\">▶</button></li>"
        }
        let columnsMenu = """
            <details class="columns-menu needs-js"><summary>Columns</summary><ul>\(columnItems)</ul>
            <label>Freeze <select class="freeze" aria-label="Columns frozen when scrolling sideways">            <option value="0">no</option><option value="1">the first</option><option value="2">the first two</option></select> columns</label>
            <label><input type="checkbox" class="rtl"> Right to left</label>
            <button type="button" class="columns-reset">Show all columns in order</button></details>
            """
        let downloadURL = "/api/tables/\(HTML.query(name))/rows.csv" + state.query(page: 1)

        var body = ""
        for row in page.rows {
            let pin = pinned.contains(row.id) ? " class=\"pinned\" title=\"Pinned to the top\"" : ""
            body += "<tr data-id=\"\(row.id)\"\(pin) tabindex=\"0\" aria-selected=\"false\"\(isManual ? " draggable=\"true\"" : "")>"
            body += "<td class=\"select\"><input type=\"checkbox\" class=\"select-row\" tabindex=\"-1\" aria-label=\"Select row \(row.id)\">"
                + (pin.isEmpty ? "" : "<span class=\"visually-hidden\">Pinned</span>") + "</td>"
            if isManual { body += "<td class=\"handle\" aria-hidden=\"true\">⠿</td>" }
            for (column, cell) in zip(schema.columns, row.cells) {
                var numeric = column.type == .integer || column.type == .float ? " num" : ""
                if let priority = headerState.priority(of: column.name) { numeric += " sorted sorted-\(priority)" }
                body += "<td class=\"cell\(numeric)\" data-column=\"\(HTML.escape(column.name))\">\(HTML.escape(cell))</td>"
            }
            let moveHere = isManual
                ? "<button type=\"button\" class=\"move-here\" title=\"Move the selected rows after this row\" aria-label=\"Move the selected rows after row \(row.id)\">⤵</button>"
                : ""
            body += "<td class=\"actions\">\(moveHere)<button type=\"button\" class=\"delete\" title=\"Delete row \(row.id)\" aria-label=\"Delete row \(row.id)\">✕</button></td></tr>"
        }
        if page.rows.isEmpty {
            body = "<tr><td class=\"empty\" colspan=\"\(schema.columns.count + (isManual ? 3 : 2))\">No rows match.</td></tr>"
        }

        var presetOptions = "<option value=\"\"\(state.preset.isEmpty && !spec.isEmpty ? " selected" : "")>"
            + (spec.isEmpty ? "File order" : "Custom: " + HTML.escape(spec.description)) + "</option>"
        for preset in schema.presets.keys.sorted() + ["My order"] {
            let selected = preset == state.preset || (preset == "My order" && isManual)
            presetOptions += "<option\(selected ? " selected" : "")>\(HTML.escape(preset))</option>"
        }
        let sizeOptions = [10, 25, 50, 100, 500].map { "<option\($0 == state.size ? " selected" : "")>\($0)</option>" }.joined()
        let first = counts.filtered == 0 ? 0 : (state.page - 1) * state.size + 1
        let last = (state.page - 1) * state.size + page.rows.count
        let previous = state.page > 1
            ? "<a data-nav rel=\"prev\" href=\"\(HTML.escape(state.url(name, page: state.page - 1)))\">‹ Previous</a>" : "<span>‹ Previous</span>"
        let next = state.page < pageCount
            ? "<a data-nav rel=\"next\" href=\"\(HTML.escape(state.url(name, page: state.page + 1)))\">Next ›</a>" : "<span>Next ›</span>"
        let addFields = schema.columns.map { column in
            "<label>\(HTML.escape(column.name)) <input name=\"\(HTML.escape(column.name))\" placeholder=\"\(column.type.rawValue)\"></label>"
        }.joined()
        let sortField = state.preset.isEmpty && !spec.isEmpty ? "<input type=\"hidden\" name=\"sort\" value=\"\(HTML.escape(spec.description))\">" : ""

        let view = """
            <main id="view" data-table="\(HTML.escape(name))" data-manual="\(isManual)">
            <h1>\(HTML.escape(name))</h1>
            <form class="controls" id="controls" method="get" action="/tables/\(HTML.query(name))">
            <label>Search <input type="search" name="q" value="\(HTML.escape(state.q))" placeholder="Every word must match" autocomplete="off"></label>
            <label>Sort by <select name="preset">\(presetOptions)</select></label>
            <label>Rows <select name="size">\(sizeOptions)</select></label>\(sortField)
            <button type="submit" class="apply">Apply</button>
            \(columnsMenu)
            <a class="download" href="\(HTML.escape(downloadURL))" download>Download CSV</a>
            <a data-nav class="reset" href="/tables/\(HTML.escape(HTML.query(name)))" title="The table's default sort, no search; forgets the saved view">Reset</a>
            </form>
            \(isManual ? "<p class=\"hint\">My order: drag rows, or click a row and press Alt+↑/Alt+↓. Selected rows move together: drag one, or press ⤵ on the row they go after.</p>" : "")
            <div class="bulk" hidden><span class="selected-count" aria-live="polite"></span>\
            <button type="button" class="bulk-delete">Delete selected…</button>\
            <button type="button" class="bulk-clear">Clear selection</button></div>
            <div class="scroll"><table class="grid" role="grid" aria-multiselectable="true">
            <thead><tr>\(head)</tr><tr class="filters">\(filterRow)</tr></thead>
            <tbody>\(body)</tbody>
            </table></div>
            <nav class="pager" aria-label="Pages">\(previous)<span class="range">rows \(first)–\(last) of \(counts.filtered)\
            \(counts.filtered != counts.total ? " (\(counts.total) in all)" : "") · page \(state.page) of \(pageCount)</span>\(next)</nav>
            <details class="add"><summary>Add a row</summary><form id="add-row">\(addFields)<button type="submit">Add</button></form></details>
            <p id="status" role="status" aria-live="polite"></p>
            </main>
            """
        return .html(layout(title: "\(name) — SortKit", body: view))
    }

    func layout(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title><link rel="stylesheet" href="/assets/app.css"></head>
        <body><header class="top"><a href="/">SortKit</a></header>
        \(body)
        <p id="announce" class="visually-hidden" aria-live="polite"></p>
        <script src="/assets/app.js" defer></script>
        </body>
        </html>
        """
    }
}
