import Foundation
import SortKit

/// Pages of an order a table served from the database has no index for, from its kept whole
/// order (``_KeptOrders``).
///
/// Such an order (`title:len`, `-price:abs,title`, `title:random=7`, `title:locale=sv`) is a
/// scan of every row: SQLite computes the keys in its query, PostgreSQL's rows are keyed by
/// SortKit as they arrive (``_ComputedSelection``). Its first page is that scan, cut to the
/// page; behind it, one more scan in the background sorts every row and keeps their ids for the
/// table's version. The next pages of all rows in that order — by offset, however deep, or by
/// cursor — read their rows by id (the ids of the page, and one more to know whether a next
/// page follows), ordered and given their cursor by the same query as a scanned page's, so
/// the rows and cursors are the same either way. A search or a column filter still scans.
extension _SQLTableStore {
    /// Whether `order` has a key `info`'s table doesn't store (on a table served from the
    /// database: a scan).
    static func computesKeys(_ order: TableOrder, _ info: _TableInfo) -> Bool {
        guard case .spec = order, let all = try? SQLOrdering(order, schema: info.schema, dialect: dialect, stored: nil) else { return false }
        return !all.variants.isSubset(of: info.variants)
    }

    /// The key of a table's kept order: the table, its versions, the order.
    static func keptOrderKey(_ info: _TableInfo, _ order: TableOrder) -> String {
        "\(info.id)/\(info.schemaVersion)/\(info.dataVersion)|\(order.description)"
    }

    /// The page `request` asks for from the kept order of its table version, or `nil` (no kept
    /// order, a search or filter, or a cursor of a row the order doesn't hold): the caller
    /// scans.
    func keptOrderPage(_ request: PageRequest, cursor: KeysetCursor?, _ info: _TableInfo, _ ordering: SQLOrdering) async throws -> TablePage? {
        guard try PageQuery(request, info: info, ordering: ordering).isUnfiltered,
            let ids = indexes.orders[Self.keptOrderKey(info, request.order)]
        else { return nil }
        var start = request.offset
        if let cursor {
            // The row the cursor was made after (its id is the last term). An in-memory
            // index's cursor (it starts with a marker) is left to the scan, which refuses it.
            guard cursor.values.count == ordering.terms.count, cursor.values.first != .text("index"),
                case .integer(let id)? = cursor.values.last, let at = ids.firstIndex(of: id)
            else { return nil }
            start = at + 1
        }
        let from = min(start, ids.count)
        let slice = Array(ids[from..<(from + min(request.limit + 1, ids.count - from))])
        guard !slice.isEmpty else { return TablePage(rows: [], total: info.rowCount, filtered: info.rowCount, next: nil) }
        var first = request
        (first.offset, first.after) = (0, nil)
        return try await scannedPage(first, cursor: nil, info, ordering, only: slice)
    }

    /// Starts a background build of the whole order of `info`'s table by `order`, unless it is
    /// kept, being built, another build runs, or it can't fit the room the indexes leave.
    func keepOrderInBackground(_ info: _TableInfo, _ order: TableOrder) {
        let key = Self.keptOrderKey(info, order)
        guard let budget = indexes.limits.indexBytes, _KeptOrders.bytes(rows: info.rowCount) <= budget, indexes.orders.start(key) else { return }
        Task.detached(priority: .utility) {
            defer { self.indexes.orders.finished(key) }
            _ = try? await self.keepOrder(of: info.schema.name, order)
        }
    }

    /// Computes the whole order of `table` by `order` (every row's keys, sorted: SQLite's
    /// query, or PostgreSQL's scan keyed by SortKit) and keeps its ids, if the table's
    /// versions were the same before and after and the ids fit (``_TableIndexCache/keepOrder(_:key:table:)``).
    @discardableResult
    func keepOrder(of table: String, _ order: TableOrder) async throws -> Bool {
        let info = try await read { session in try await Self.info(table, session) }
        let ordering = try Self.ordering(order, info)
        let (query, selection) = try Self.computedScan(PageRequest(order: order), cursor: nil, info, ordering, keep: nil)
        let ids: [Int64]
        if let result = try await computedRows(query, into: selection, from: 0, reading: 0) {
            ids = result.terms.compactMap { $0.last?.integer }
        } else {
            let select = query.ids(after: nil, offset: 0)
            ids = try await read { session in try await session.select(select.sql, select.arguments) }.compactMap { $0.first?.integer }
        }
        let now = try await read { session in try await Self.info(table, session) }
        guard now.id == info.id, now.schemaVersion == info.schemaVersion, now.dataVersion == info.dataVersion, ids.count == info.rowCount
        else { return false }
        let kept = indexes.keepOrder(ids, key: Self.keptOrderKey(info, order), table: info.id)
        if ids.count >= 1 << 16 { _returnFreedMemoryToSystemSoon() }
        return kept
    }
}
