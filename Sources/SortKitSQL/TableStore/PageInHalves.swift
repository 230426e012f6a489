import Foundation
import SortKit

extension _SQLTableStore {
    /// The most rows (offset and page) a first page read in halves takes from each half.
    static var halvesRows: Int { 10_000 }

    /// A filtered page's rows and its count on SQLite, read side by side, each on a reader of
    /// its own: SQLite runs a query on one core, and a search reads its matches twice, for the
    /// page and for the count (`isla` in 140,571 of 1M ASCII rows: 0.24 s each). Each reads the
    /// table's versions in its own snapshot; where the two differ (a write came between), `nil`,
    /// and the page and count are read in one snapshot.
    func pageBesideCount(
        select: (sql: String, arguments: [SQLValue]), count: (sql: String, arguments: [SQLValue]), csv: _PageCSV?, _ info: _TableInfo
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)? {
        guard Self.dialect == .sqlite else { return nil }
        let versions = info.dataVersionQuery
        async let page = pageRows(select: select, count: versions, csv: csv)
        async let counted = pageRows(select: count, count: versions, csv: nil)
        let (rows, total) = try await (page, counted)
        // The same versions in both: the same rows, whether or not a write came since the
        // request read the catalog (as a page read in one snapshot).
        guard let version = rows.filtered, version >= 0, total.filtered == version, let filtered = total.rows.first?.first?.integer
        else { return nil }
        return (rows.rows, rows.csv, Int(filtered))
    }

    /// A first page by an order SQLite computes in its query (`sortkit_key`: a key the table
    /// doesn't store, of a table served from the database), read as two halves of the table's
    /// ids side by side, each on a reader of its own, and merged by the rows' terms.
    ///
    /// SQLite runs a query on one core, computing the key of one row after another: the first
    /// page by `title:len` of 1M rows took 0.43 s, of which reading the rows alone is 0.2 s.
    /// Each half selects its first offset + limit + 1 rows in the order, which are merged by
    /// their terms written as byte strings (``_WholeOrder``, whose order is SQLite's for
    /// integers and blobs: a term that is a double or text, and the page is read in one
    /// query). Each half reads the table's catalog entry in its own snapshot: where one
    /// doesn't have the versions the request saw (a write came between), `nil`, and the page is
    /// read in one query.
    ///
    /// `nil` too where it doesn't apply: PostgreSQL (SortKit computes its keys as the rows
    /// arrive, ``computedPage(_:cursor:_:_:)``), a filtered view, an offset past
    /// ``halvesRows``, a CSV page, an order whose first key is stored (an index walk), a term
    /// of doubles or text, a small table.
    func pageInHalves(_ request: PageRequest, _ info: _TableInfo, _ ordering: SQLOrdering, _ query: PageQuery) async throws -> TablePage? {
        let keep = request.offset + request.limit + 1
        // An order led by a stored key walks that key's index and stops at the page; terms
        // that may be doubles or text can't be merged as bytes.
        guard Self.dialect == .sqlite, request.csv == nil, query.isUnfiltered, keep <= Self.halvesRows, info.rowCount >= 4 * Self.halvesRows,
            ordering.leadsWithComputedKey, ordering.termsAreIntegersOrBlobs
        else { return nil }
        // As the page's count: the table's data version in the half's snapshot.
        let versions = info.dataVersionQuery
        guard let range = try await read({ try await $0.select("SELECT min(id), max(id) FROM \(info.physical)").first }),
            let low = range.first?.integer, let high = range.last?.integer, high > low
        else { return nil }
        let middle = low + (high - low) / 2
        let selects = [low...middle, middle + 1...high].map { range in
            var half = query
            half.idRange = range
            return half.select(after: nil, offset: 0, limit: keep)
        }
        async let first = pageRows(select: selects[0], count: versions, csv: nil)
        async let second = pageRows(select: selects[1], count: versions, csv: nil)
        let results = try await [first, second]
        guard results.allSatisfy({ $0.filtered.map(Int64.init) == info.dataVersion }) else { return nil }
        let columns = info.schema.columns.count
        let (rows, terms) = Self.rowsAndTerms(results.flatMap(\.rows), columns: columns, terms: ordering.terms.count)
        var order = _WholeOrder(descending: ordering.terms.map(\.descending), computing: [:])
        for rowTerms in terms { order.add(terms: rowTerms) }
        // (Not `nil`: `termsAreIntegersOrBlobs`.)
        guard let ids = order.sortedIDs() else { return nil }
        let place = Dictionary(uniqueKeysWithValues: rows.indices.map { (rows[$0].id, $0) })
        let ordered = ids.dropFirst(request.offset).prefix(request.limit + 1).compactMap { place[$0] }
        return try query.page(ordered.map { rows[$0] }, request, total: info.rowCount, filtered: info.rowCount, secret: secret) {
            terms[ordered[$0]]
        }
    }
}
