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
/// cursor — read their ids' rows (the page's, and one more to know whether a next page
/// follows), ordered and given their terms by the same query as a scanned page, so the rows
/// and cursors are the same either way.
///
/// Every read is checked against the version it was kept for, in the read's own snapshot (the
/// query returns no row once the catalog has another version): a page read after a write, or
/// a cursor whose row's terms aren't the cursor's any more (it was made before a write that
/// moved the row), is scanned instead. A search or a column filter always scans.
extension _SQLTableStore {
    /// Whether `order` has a key `info`'s table doesn't store (on a table served from the
    /// database: a scan).
    static func computesKeys(_ order: TableOrder, _ info: _TableInfo) -> Bool {
        guard case .spec = order, let all = try? SQLOrdering(order, schema: info.schema, dialect: dialect, stored: nil) else { return false }
        return !all.variants.isSubset(of: info.variants)
    }

    /// The key of a table's kept order: the table, its versions, the order.
    static func keptOrderKey(_ info: _TableInfo, _ order: TableOrder) -> String {
        keptOrderKey(table: info.id, schemaVersion: info.schemaVersion, dataVersion: info.dataVersion, order)
    }

    static func keptOrderKey(table: Int64, schemaVersion: Int64, dataVersion: Int64, _ order: TableOrder) -> String {
        "\(table)/\(schemaVersion)/\(dataVersion)|\(order.description)"
    }

    /// The page `request` asks for from the kept order of its table version, or `nil` (no kept
    /// order, a search or filter, a write since, a cursor the order can't place): the caller
    /// scans.
    func keptOrderPage(_ request: PageRequest, cursor: KeysetCursor?, _ info: _TableInfo, _ ordering: SQLOrdering) async throws -> TablePage? {
        var query = try PageQuery(request, info: info, ordering: ordering)
        guard query.isUnfiltered, let ids = indexes.orders[Self.keptOrderKey(info, request.order)] else { return nil }
        var start = request.offset
        var after: Int64?
        if let cursor {
            // The row the cursor was made after: its id is the last term; its terms are
            // checked below.
            guard cursor.values.count == ordering.terms.count, case .integer(let id)? = cursor.values.last,
                let at = ids.firstIndex(of: id)
            else { return nil }
            (start, after) = (at + 1, id)
        }
        let from = min(start, ids.count)
        let slice = ids[from..<(from + min(request.limit + 1, ids.count - from))]
        query.only = (after.map { [$0] } ?? []) + slice
        query.atVersions = (info.schemaVersion, info.dataVersion)
        var (rows, terms) = try await orderedRows(request, query, info, ordering)
        // Each id's row, at the kept version: else a write came in between.
        guard rows.count == query.only?.count else { return nil }
        if let after, let cursor {
            guard rows.first?.id == after, terms.first == cursor.values else { return nil }
            (rows, terms) = (Array(rows.dropFirst()), Array(terms.dropFirst()))
        }
        indexes.orders.countServed()
        return try query.page(rows, request, total: info.rowCount, filtered: info.rowCount, secret: secret) { terms[$0] }
    }

    /// The rows `query` keeps (its ``PageQuery/only`` ids) with their terms, in order, read in
    /// one snapshot: SQLite's page query, or PostgreSQL's scan keyed by SortKit.
    private func orderedRows(
        _ request: PageRequest, _ query: PageQuery, _ info: _TableInfo, _ ordering: SQLOrdering
    ) async throws -> (rows: [TableRow], terms: [[SQLValue]]) {
        let count = query.only?.count ?? 0
        let columns = info.schema.columns.count
        if !ordering.variants.isSubset(of: info.variants) {
            var first = request
            (first.offset, first.after) = (0, nil)
            let selection = try Self.computedScan(first, cursor: nil, info, ordering, keep: count).1
            guard let result = try await computedRows(query, into: selection, from: 0, reading: count) else { return ([], []) }
            return Self.rows(result.cells, inOrderOf: result.terms, columns: columns)
        }
        let rows = try await pageRows(select: query.select(after: nil, offset: 0, limit: count), count: nil, csv: nil).rows
        return Self.rowsAndTerms(rows, columns: columns, terms: ordering.terms.count)
    }

    /// Starts a background build of the whole order of `info`'s table by `order`, unless it is
    /// kept or being built, another build runs, the table's builds are held off, or it can't
    /// fit the room the indexes leave (or holds more than ``computedStreamRows`` rows).
    func keepOrderInBackground(_ info: _TableInfo, _ order: TableOrder) {
        let key = Self.keptOrderKey(info, order)
        guard info.rowCount <= Self.computedStreamRows, _KeptOrders.bytes(rows: info.rowCount) <= indexes.roomForOrders,
            indexes.orders.start(key, table: info.id)
        else { return }
        Task.detached(priority: .utility) {
            let started = ContinuousClock.now
            let kept = (try? await self.keepOrder(of: info.schema.name, order)) ?? false
            self.indexes.orders.finished(key, table: info.id, kept: kept, took: ContinuousClock.now - started)
        }
    }

    /// Sorts a first page's scan of every row (`scanned.whole`, from
    /// ``computedPage(_:cursor:_:_:)``) in the background and keeps its ids under the versions
    /// of the scan's snapshot, then ends the build reserved as `building`.
    func keepInBackground(_ scanned: _ComputedRows?, order: TableOrder, table: Int64, building: String, started: ContinuousClock.Instant) {
        Task.detached(priority: .utility) {
            var kept = false
            if let scanned, let whole = scanned.whole, let ids = whole.order.sortedIDs(), ids.count == scanned.count {
                let key = Self.keptOrderKey(table: table, schemaVersion: whole.schemaVersion, dataVersion: whole.dataVersion, order)
                kept = self.indexes.keepOrder(ids, key: key, table: table)
                if ids.count >= 1 << 16 { _returnFreedMemoryToSystemSoon() }
            }
            self.indexes.orders.finished(building, table: table, kept: kept, took: ContinuousClock.now - started)
        }
    }

    /// Computes the whole order of `table` by `order` (every row's keys, sorted: SQLite's
    /// query, or PostgreSQL's scan keyed by SortKit) within the query budget and keeps its ids,
    /// if the scan's own snapshot still had the table's versions and the ids fit
    /// (``_TableIndexCache/keepOrder(_:key:table:)``).
    @discardableResult
    func keepOrder(of table: String, _ order: TableOrder) async throws -> Bool {
        let info = try await read { session in try await Self.info(table, session) }
        let ordering = try Self.ordering(order, info)
        var (query, selection) = try Self.computedScan(PageRequest(order: order), cursor: nil, info, ordering, keep: nil)
        query.atVersions = (info.schemaVersion, info.dataVersion)
        // No rows: the catalog had another version in the scan's snapshot.
        guard let ids = try await orderIDs(query, _WholeOrder(descending: selection.descending, computing: selection.computing)),
            ids.count == info.rowCount
        else { return false }
        // Exactly their bytes (a growing array has up to twice the room).
        let kept = indexes.keepOrder(
            [Int64](unsafeUninitializedCapacity: ids.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: ids)
            }, key: Self.keptOrderKey(info, order), table: info.id)
        if ids.count >= 1 << 16 { _returnFreedMemoryToSystemSoon() }
        return kept
    }
}
