import Foundation
import SortKit

/// Rows pinned to the top of a table's pages by id (a "featured" row): under every order and
/// every search that matches them they come first, in the pinned order, and the rest of the
/// view follows without them — on any ``TableStore``, for offset and cursor paging alike.
///
///     let pins = PinnedRows([42, 7])
///     let page = try await pins.page(of: "books", PageRequest(order: .spec(spec), search: "dune"), in: store)
///     // rows 42 and 7 first if they match "dune"; `filtered` counts them once
///
/// The pinned rows are read by id and matched against the search as memory does
/// (`SearchQuery.matches(_:)`); the rest is the store's page with them left out
/// (`PageRequest.excluding`). A cursor inside the pinned rows is `pin:N` (an offset into
/// them); after them, the store's own signed cursor.
public struct PinnedRows: Sendable, Hashable {
    /// The pinned ids, first first; repeats dropped.
    public let ids: [Int64]

    /// The most rows that may be pinned on one table.
    public static let maximum = 100

    /// Pins `ids` (repeats dropped, at most ``maximum``).
    public init(_ ids: [Int64]) {
        var seen = Set<Int64>()
        self.ids = Array(ids.filter { seen.insert($0).inserted }.prefix(Self.maximum))
    }

    /// The page `request` asks for with the pinned rows first.
    ///
    /// - Throws: what the store throws; ``TableStoreError`` for a malformed `pin:` cursor.
    public func page(of table: String, _ request: PageRequest, in store: any TableStore) async throws -> TablePage {
        try await page(of: store.table(table), request, in: store)
    }

    /// The page `request` asks for with the pinned rows first, of `table` as
    /// ``TableStore/table(_:)`` read it (no other read of the catalog).
    public func page(of table: StoredTable, _ request: PageRequest, in store: any TableStore) async throws -> TablePage {
        guard !ids.isEmpty else { return try await store.page(of: table, request) }
        // Pinned rows come as rows; so does the rest of their page, to be joined to them.
        var request = request
        request.csv = nil
        let top = try await matching(table, request, in: store)
        var rest = request
        rest.excluding = ids
        var offset = request.offset
        if let after = request.after {
            guard after.hasPrefix("pin:") else {
                // A cursor of the rows after the pinned ones.
                let page = try await store.page(of: table, rest)
                return TablePage(rows: page.rows, total: page.total, filtered: page.filtered + top.count, next: page.next)
            }
            guard let position = Int(after.dropFirst(4)), position >= 0, position <= 1 << 48 else {
                throw TableStoreError.invalid("invalid cursor: pass the 'next' value of a previous page unchanged")
            }
            offset = position
            rest.after = nil
        }
        guard offset < top.count else {
            rest.offset = offset - top.count
            let page = try await store.page(of: table, rest)
            return TablePage(rows: page.rows, total: page.total, filtered: page.filtered + top.count, next: page.next)
        }
        let head = Array(top[offset..<min(top.count, offset + request.limit)])
        rest.offset = 0
        rest.limit = request.limit - head.count
        let page = try await store.page(of: table, rest)
        let shown = offset + head.count + page.rows.count
        // A page that ends inside the pinned rows (or right after them) goes on by offset.
        let next = page.next ?? (request.limit > 0 && page.rows.isEmpty && shown < top.count + page.filtered ? "pin:\(shown)" : nil)
        return TablePage(rows: head + page.rows, total: page.total, filtered: page.filtered + top.count, next: next)
    }

    /// The rest of the view after a cursor past the pinned rows, in one read where the store can
    /// (see ``TableStore/streamPages(of:_:_:)``): the store's rows with the pinned ones left out,
    /// as ``page(of:_:in:)-(StoredTable,_,_)`` reads them. ``StreamedPages/notStreamed`` from an
    /// offset or a cursor inside the pinned rows.
    ///
    ///     var rest = request
    ///     rest.after = firstPage.next
    ///     let end = try await pins.streamPages(of: books, rest, in: store) { page in write(page) }
    public func streamPages(
        of table: StoredTable, _ request: PageRequest, in store: any TableStore, _ body: (TablePage) async throws -> Void
    ) async throws -> StreamedPages {
        guard !ids.isEmpty else { return try await store.streamPages(of: table, request, body) }
        guard let after = request.after, !after.hasPrefix("pin:") else { return .notStreamed }
        var rest = request
        rest.excluding = ids
        return try await store.streamPages(of: table, rest, body)
    }

    /// The pinned rows that exist and match the request's search and column searches, in
    /// pinned order.
    func matching(_ table: StoredTable, _ request: PageRequest, in store: any TableStore) async throws -> [TableRow] {
        let schema = table.schema
        let search = SearchQuery(request.search)
        var columnSearch: [(column: Int, query: SearchQuery)] = []
        for (name, text) in request.columnSearch.sorted(by: { $0.key < $1.key }) where !SearchQuery(text).isBlank {
            columnSearch.append((try schema.columnIndex(name), SearchQuery(text)))
        }
        var rows: [TableRow] = []
        for id in ids {
            let row: TableRow
            do {
                row = try await store.row(id, in: table)
            } catch let error as TableStoreError where error.kind == .notFound {
                continue
            }
            guard search.isBlank || search.matches(row.cells) else { continue }
            guard columnSearch.allSatisfy({ $0.query.matches([row.cells[$0.column]]) }) else { continue }
            rows.append(row)
        }
        return rows
    }
}
