import Foundation
import Mustache
import SortKit
import SortKitSQL

/// The server-rendered pages: a view model per page, rendered by the templates in
/// `Templates/` (``PageTemplates``), which escape every value. Every link and form works
/// without JavaScript; the page's modules (`Assets/app.mjs`) then swap the view in place.
struct Pages {
    let server: SortKitServer

    /// The start page: each table with its row count (from the catalog: listing tables loads
    /// no index) and columns, a Delete button, and the CSV import.
    func index() async throws -> Reply {
        let tables = try await server.store.catalog().map { entry in
            IndexModel.Table(
                name: entry.schema.name, href: URLText.tablePage(entry.schema.name), rows: entry.rowCount,
                columns: entry.schema.columns.map(\.name).joined(separator: ", "))
        }
        return .html(PageTemplates.shared.render(IndexModel(title: "SortKit", tables: tables), template: "index"))
    }

    /// A table's page for the view `query` names.
    func table(_ name: String, query: ViewQuery) async throws -> Reply {
        let api = APIHandlers(server: server)
        let stored = try await server.store.table(name)
        let schema = stored.schema
        var request = try query.resolved(against: schema, server: server)
        var state = query
        let order = request.order
        // A sort that equals a preset shows that preset as selected.
        if state.preset.isEmpty, case .spec(let spec) = order, let match = schema.presets.first(where: { $0.value == spec }) {
            state.preset = match.key
        }
        // One read gives the page and its counts; a page past the end is read again as the last.
        request.limit = state.size
        request.offset = (state.page - 1) * state.size
        var page = try await api.page(stored, request)
        let pageCount = max(1, (page.filtered + state.size - 1) / state.size)
        if state.page > pageCount {
            state.page = pageCount
            request.offset = (state.page - 1) * state.size
            page = try await api.page(stored, request)
        }
        let isManual = order == .manual
        let spec: SortSpec = if case .spec(let spec) = order { spec } else { SortSpec() }
        let settings = server.settings(for: name)
        let headerState = settings.headerState(spec)
        let pinned = Set(settings.pinned.ids)
        let path = URLText.tablePage(name)

        let headers = schema.columns.map { column -> TableModel.Header in
            let modifiers =
                server.headerModifiers[name]?[column.name].flatMap {
                    try? SortSpec(parsing: "x:" + $0).keys.first?.modifiers
                } ?? []
            var plain = headerState, additive = headerState
            plain.tap(column.name, modifiers: modifiers)
            additive.tap(column.name, additive: true, modifiers: modifiers)
            let direction = headerState.direction(of: column.name)
            var indicator = ""
            if let direction {
                indicator = direction == .ascending ? "▲" : "▼"
                if headerState.keys.count > 1, let priority = headerState.priority(of: column.name) { indicator += "\(priority)" }
            }
            // Sorted columns are marked by priority, as DataTables' orderClasses.
            let sortedClasses = headerState.priority(of: column.name).map { ["sorted", "sorted-\($0)"] } ?? []
            let classes = (column.type.isNumeric ? ["num"] : []) + sortedClasses
            // In a multi-key sort, × takes this key out and keeps the others.
            var removeHref: String?
            if headerState.keys.count > 1, direction != nil {
                var without = headerState
                without.remove(column.name)
                removeHref = state.url(path, sort: without.spec.description)
            }
            return TableModel.Header(
                name: column.name, ariaSort: direction.map { $0 == .ascending ? "ascending" : "descending" } ?? "none",
                classes: classes.isEmpty ? nil : classes.joined(separator: " "),
                href: state.url(path, sort: plain.spec.description), addHref: state.url(path, sort: additive.spec.description),
                indicator: indicator, removeHref: removeHref)
        }
        let cellClasses = schema.columns.map { column in
            (column.type.isNumeric ? " num" : "") + (headerState.priority(of: column.name).map { " sorted sorted-\($0)" } ?? "")
        }
        let rows = page.rows.map { row in
            TableModel.Row(
                id: row.id, pinned: pinned.contains(row.id),
                cells: zip(schema.columns.indices, row.cells).map { index, text in
                    TableModel.Cell(column: schema.columns[index].name, classes: cellClasses[index], text: text)
                })
        }
        let customLabel = spec.isEmpty ? "File order" : "Custom: " + spec.description
        let presets =
            [TableModel.Option(label: customLabel, value: "", selected: state.preset.isEmpty && !spec.isEmpty)]
            + (schema.presets.keys.sorted() + [TableOrder.manualPresetName]).map { preset in
                TableModel.Option(label: preset, value: nil, selected: preset == state.preset || (preset == TableOrder.manualPresetName && isManual))
            }
        let first = page.filtered == 0 ? 0 : (state.page - 1) * state.size + 1
        let model = TableModel(
            title: "\(name) — SortKit", table: name, manual: isManual, formAction: path, search: state.search, presets: presets,
            sizes: ViewQuery.pageSizes.map { TableModel.Option(label: String($0), value: nil, selected: $0 == state.size) },
            sortField: state.preset.isEmpty && !spec.isEmpty ? spec.description : nil,
            columns: schema.columns.map { TableModel.Column(name: $0.name, type: $0.type.rawValue) },
            downloadHref: URLText.tableAPI(name, "/rows.csv") + state.query(page: 1), resetHref: path,
            filtered: page.filtered, total: page.total, narrowed: page.filtered != page.total, headers: headers,
            filters: schema.columns.map { column in
                TableModel.Filter(column: column.name, value: state.filters.first { $0.column == column.name }?.text ?? "")
            },
            rows: rows, emptySpan: schema.columns.count + (isManual ? 3 : 2), first: first,
            last: (state.page - 1) * state.size + page.rows.count, page: state.page, pageCount: pageCount,
            previousHref: state.page > 1 ? state.url(path, page: state.page - 1) : nil,
            nextHref: state.page < pageCount ? state.url(path, page: state.page + 1) : nil)
        return .html(PageTemplates.shared.render(model, template: "table"))
    }
}

extension TableOrder {
    /// The preset name of the manual order, as pages and `GET /api/tables` show it.
    static let manualPresetName = "My order"
}

extension ColumnType {
    /// Whether cells of the type are numbers (right-aligned on pages).
    var isNumeric: Bool { self == .integer || self == .float }
}

/// A view model that answers the templates' names itself (``MustacheParent``), from a table of
/// names and reads: swift-mustache otherwise finds each value by reflection (`Mirror`), which
/// made a 25-row page five times slower to render.
protocol _TemplateModel: MustacheParent {
    static var fields: _TemplateFields<Self> { get }
}

/// The values a template names, each read from the model.
typealias _TemplateFields<Model> = [String: @Sendable (Model) -> Any?]

extension _TemplateModel {
    func child(named name: String) -> Any? {
        Self.fields[name].flatMap { $0(self) }
    }
}

/// The start page's view model (`index.mustache`).
struct IndexModel: _TemplateModel, Hashable, Sendable {
    struct Table: _TemplateModel, Hashable, Sendable {
        var name: String
        var href: String
        var rows: Int
        var columns: String

        static let fields: _TemplateFields<Self> = ["name": { $0.name }, "href": { $0.href }, "rows": { $0.rows }, "columns": { $0.columns }]
    }

    var title: String
    var tables: [Table]

    static let fields: _TemplateFields<Self> = ["title": { $0.title }, "tables": { $0.tables }]
}

/// The table page's view model (`table.mustache`): only values, no markup; the template
/// escapes each one.
struct TableModel: _TemplateModel, Hashable, Sendable {
    struct Header: _TemplateModel, Hashable, Sendable {
        var name: String
        var ariaSort: String
        var classes: String?
        var href: String
        var addHref: String
        var indicator: String
        var removeHref: String?

        static let fields: _TemplateFields<Self> = [
            "name": { $0.name }, "ariaSort": { $0.ariaSort }, "classes": { $0.classes }, "href": { $0.href }, "addHref": { $0.addHref },
            "indicator": { $0.indicator }, "removeHref": { $0.removeHref },
        ]
    }

    struct Filter: _TemplateModel, Hashable, Sendable {
        var column: String
        var value: String

        static let fields: _TemplateFields<Self> = ["column": { $0.column }, "value": { $0.value }]
    }

    struct Row: _TemplateModel, Hashable, Sendable {
        var id: Int64
        var pinned: Bool
        var cells: [Cell]

        static let fields: _TemplateFields<Self> = ["id": { $0.id }, "pinned": { $0.pinned }, "cells": { $0.cells }]
    }

    struct Cell: _TemplateModel, Hashable, Sendable {
        var column: String
        var classes: String
        var text: String

        static let fields: _TemplateFields<Self> = ["column": { $0.column }, "classes": { $0.classes }, "text": { $0.text }]
    }

    struct Option: _TemplateModel, Hashable, Sendable {
        var label: String
        var value: String?
        var selected: Bool

        static let fields: _TemplateFields<Self> = ["label": { $0.label }, "value": { $0.value }, "selected": { $0.selected }]
    }

    struct Column: _TemplateModel, Hashable, Sendable {
        var name: String
        var type: String

        static let fields: _TemplateFields<Self> = ["name": { $0.name }, "type": { $0.type }]
    }

    var title, table: String
    var manual: Bool
    var formAction, search: String
    var presets, sizes: [Option]
    var sortField: String?
    var columns: [Column]
    var downloadHref, resetHref: String
    /// Rows matching the view, and in the table.
    var filtered, total: Int
    var narrowed: Bool
    var headers: [Header]
    var filters: [Filter]
    var rows: [Row]
    /// The columns an empty table's one cell spans, and the page's rows and place.
    var emptySpan, first, last, page, pageCount: Int
    var previousHref, nextHref: String?

    static let fields: _TemplateFields<Self> = [
        "title": { $0.title }, "table": { $0.table }, "manual": { $0.manual }, "formAction": { $0.formAction }, "search": { $0.search },
        "presets": { $0.presets }, "sizes": { $0.sizes }, "sortField": { $0.sortField }, "columns": { $0.columns }, "downloadHref": { $0.downloadHref },
        "resetHref": { $0.resetHref }, "filtered": { $0.filtered }, "total": { $0.total }, "narrowed": { $0.narrowed }, "headers": { $0.headers },
        "filters": { $0.filters }, "rows": { $0.rows }, "emptySpan": { $0.emptySpan }, "first": { $0.first }, "last": { $0.last }, "page": { $0.page },
        "pageCount": { $0.pageCount }, "previousHref": { $0.previousHref }, "nextHref": { $0.nextHref },
    ]
}
