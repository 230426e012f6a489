import Foundation
import SortKit

extension _SQLTableStore {
    /// The most rows (offset and page) a first page read in halves takes from each half.
    static var halvesRows: Int { 10_000 }

    /// The longest a search's page walks the order's index, testing each row, before it is
    /// found through the search index instead (``pageBesideCount(_:_:cursor:csv:_:)``).
    static var searchWalkBudget: Duration { .milliseconds(20) }

    /// A filtered page's rows and its count on SQLite, read side by side, each on a reader of
    /// its own: SQLite runs a query on one core, and a search reads its matches twice, for the
    /// page and for the count (`isla` in 140,571 of 1M ASCII rows: 0.24 s each). Each reads the
    /// table's versions in its own snapshot; where the two differ (a write came between), `nil`,
    /// and the page and count are read in one snapshot.
    ///
    /// A search's page is read two ways side by side: walked in the order's index, testing each
    /// row, for at most ``searchWalkBudget``, and through the search index; the first answer is
    /// the page. SQLite can't tell how many rows the search index will find, and it finds them
    /// all before the first is read in order. A term in one row of seven (`isla` in 1M ASCII
    /// titles) had its page walked in under a millisecond, against 0.16 s through the search
    /// index; a rare term runs out the walk's budget, and the index's read answers. The count
    /// is read in two halves (``countInHalves(_:_:)``): a search takes up to four readers.
    func pageBesideCount(
        _ query: PageQuery, _ request: PageRequest, cursor: KeysetCursor?, csv: _PageCSV?, _ info: _TableInfo
    ) async throws -> (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)? {
        guard Self.dialect == .sqlite, !query.isUnfiltered else { return nil }
        let versions = info.dataVersionQuery
        let select = query.select(request, cursor: cursor)
        async let counted = countInHalves(query, info)
        let page: (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)
        if query.narrowsBySearchIndex, !query.ordering.leadsWithComputedKey {
            var walk = query
            walk.usesSearchIndex = false
            let walkSelect = walk.select(request, cursor: cursor), budget = min(Self.searchWalkBudget, queryBudget)
            // Both at once; the first to answer is the page, and the other is interrupted. A
            // walk past its budget gives way to the search index's reading.
            page = try await withThrowingTaskGroup(of: (rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)?.self) { group in
                group.addTask {
                    // Past its budget (a wait for a reader counts in it) or failed: the search
                    // index's read answers.
                    do {
                        return try await self.pageRows(select: walkSelect, count: versions, csv: csv, budget: budget)
                    } catch {
                        if Task.isCancelled { throw error }
                        return nil
                    }
                }
                group.addTask { try await self.pageRows(select: select, count: versions, csv: csv) }
                while let result = try await group.next() {
                    guard let result else { continue }
                    group.cancelAll()
                    return result
                }
                throw TableStoreError.timedOut(queryBudget)
            }
        } else {
            page = try await pageRows(select: select, count: versions, csv: csv)
        }
        let total = try await counted
        // The same versions in all: the same rows, whether or not a write came since the
        // request read the catalog (as a page read in one snapshot).
        guard let version = page.filtered, version >= 0, let total, total.version == version else { return nil }
        return (page.rows, page.csv, total.count)
    }

    /// A filtered count on SQLite, of two halves of the table's ids side by side, each on a
    /// reader of its own (`isla` in 1M ASCII rows: 0.11 s each, 0.21 s in one), with the
    /// table's data version each read in its snapshot; `nil` where the halves' versions differ.
    func countInHalves(_ query: PageQuery, _ info: _TableInfo) async throws -> (count: Int, version: Int)? {
        let halves = info.rowCount >= 4 * Self.halvesRows ? try await readInHalves(info, { query.ranged($0).count() }) : nil
        guard let counts = halves else {
            let whole = try await pageRows(select: query.count(), count: info.dataVersionQuery, csv: nil)
            return whole.filtered.flatMap { version in whole.rows.first?.first?.integer.map { (Int($0), version) } }
        }
        guard let version = counts[0].filtered, counts[1].filtered == version else { return nil }
        return (counts.reduce(0) { $0 + Int($1.rows.first?.first?.integer ?? 0) }, version)
    }

    /// `select` of each of two halves of the table's ids (every id in one of them, a row added
    /// past the highest read here in the second), read side by side, each on a reader of its
    /// own with the table's data version in its snapshot; `nil` for fewer than two ids. The
    /// bounds are read apart off the primary key (`min(id), max(id)` in one select is a scan of
    /// every id on SQLite: 57 ms at 1M rows).
    func readInHalves(
        _ info: _TableInfo, _ select: (ClosedRange<Int64>) -> (sql: String, arguments: [SQLValue])
    ) async throws -> [(rows: [[SQLValue]], csv: [UInt8]?, filtered: Int?)]? {
        let bounds = try await read { session in
            try await session.select("SELECT (SELECT min(id) FROM \(info.physical)), (SELECT max(id) FROM \(info.physical))").first
        }
        guard let low = bounds?.first?.integer, let high = bounds?.last?.integer, high > low else { return nil }
        let middle = low + (high - low) / 2
        let selects = [Int64.min...middle, middle + 1...Int64.max].map(select)
        async let first = pageRows(select: selects[0], count: info.dataVersionQuery, csv: nil)
        async let second = pageRows(select: selects[1], count: info.dataVersionQuery, csv: nil)
        return try await [first, second]
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
        guard let results = try await readInHalves(info, { query.ranged($0).select(after: nil, offset: 0, limit: keep) }),
            results.allSatisfy({ $0.filtered.map(Int64.init) == info.dataVersion })
        else { return nil }
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
