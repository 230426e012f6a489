import Foundation
import SortKit

/// The page and count queries of one request.
struct PageQuery: Sendable {
    let info: _TableInfo
    let ordering: SQLOrdering
    let search: SearchQuery
    let columnSearch: [Int: SearchQuery]
    /// Rows left out (`PageRequest.excluding`).
    var excluding: [Int64] = []
    /// When set, only the rows with these ids (a kept order's page, ``_KeptOrders``); not a
    /// filter of the request: counts are the request's.
    var only: [Int64]?
    /// When set, only the rows whose ids are in the range (a part of a scan or count read side
    /// by side with the others: ``_SQLTableStore/pageInHalves(_:_:_:_:)``,
    /// ``_SQLTableStore/countInHalves(_:_:)``); with a term SQLite's search index finds, the
    /// range is asked of that index alone.
    var idRange: ClosedRange<Int64>?
    /// When set, no rows unless the table's catalog entry still has these versions, seen in
    /// the statement's own snapshot (a kept order's page and build: a write since, and the
    /// caller scans instead).
    var atVersions: (schema: Int64, data: Int64)?
    /// Whether the search index narrows the rows a search tests (``indexedMatch(_:)``); off,
    /// the rows are walked in the order and each tested (``narrowsBySearchIndex``). Either way
    /// the same rows: the index only ever finds more than the exact test keeps.
    var usesSearchIndex = true

    var isUnfiltered: Bool { search.isBlank && columnSearch.isEmpty && excluding.isEmpty }

    /// The query for `request` on a table (per-column searches resolved against its schema).
    ///
    /// - Throws: ``TableStoreError`` for a column search naming an unknown column.
    init(_ request: PageRequest, info: _TableInfo, ordering: SQLOrdering) throws {
        var columnSearch: [Int: SearchQuery] = [:]
        for (name, text) in request.columnSearch where !SearchQuery(text).isBlank {
            columnSearch[try info.schema.columnIndex(name)] = SearchQuery(text)
        }
        self.init(info: info, ordering: ordering, search: SearchQuery(request.search), columnSearch: columnSearch)
        excluding = request.excluding
    }

    init(info: _TableInfo, ordering: SQLOrdering, search: SearchQuery, columnSearch: [Int: SearchQuery]) {
        self.info = info
        self.ordering = ordering
        self.search = search
        self.columnSearch = columnSearch
    }

    /// The select for one page: after the cursor or from the offset, one row more than the
    /// limit (to know whether a next page exists).
    func select(_ request: PageRequest, cursor: KeysetCursor?) -> (sql: String, arguments: [SQLValue]) {
        select(after: cursor?.values, offset: cursor == nil ? request.offset : 0, limit: request.limit + 1)
    }

    /// The page from the fetched rows (up to limit + 1), with a cursor after its last row when
    /// more follow; `terms(i)` reads row `i`'s order values.
    func page(
        _ rows: [TableRow], _ request: PageRequest, total: Int, filtered: Int, secret: Data, terms: (Int) throws -> [SQLValue]
    ) throws -> TablePage {
        let kept = Array(rows.prefix(request.limit))
        let next =
            try rows.count > request.limit && !kept.isEmpty
            ? KeysetCursor(order: request.order.description, search: request.cursorScope, values: terms(kept.count - 1)).encoded(secret: secret)
            : nil
        return TablePage(rows: kept, total: total, filtered: filtered, next: next)
    }

    private var from: SQLFragment {
        var fragment = SQLFragment(" FROM \(info.rows(ordering.dialect)) AS t")
        if ordering.isManual {
            fragment.append(" JOIN ordered_item AS o ON o.list = ")
            fragment.bind(.text(info.list))
            fragment.append(" AND o.id = t.id")
        }
        return fragment
    }

    private var conditions: [SQLFragment] {
        let find = ordering.dialect == .sqlite ? "instr(" : "strpos("
        var conditions: [SQLFragment] = [], indexed = false
        for term in search.terms {
            if usesSearchIndex, let match = indexedMatch(term) {
                conditions.append(match)
                indexed = ordering.dialect == .sqlite
                // PostgreSQL's `LIKE` is the exact test; SQLite's trigram `LIKE` folds ASCII case.
                if ordering.dialect == .postgresql { continue }
            }
            var fragment = SQLFragment(find + "t.s, ")
            fragment.bind(.text(term))
            fragment.append(") > 0")
            conditions.append(fragment)
        }
        for (column, query) in columnSearch.sorted(by: { $0.key < $1.key }) {
            for term in query.terms {
                // A column's term is in the row's folded text too: the search index narrows.
                if usesSearchIndex, let match = indexedMatch(term) {
                    conditions.append(match)
                    indexed = ordering.dialect == .sqlite
                }
                // The column's folded text: SQLite folds it with memory's function; PostgreSQL
                // cuts it out of the stored folded row (fields are joined by U+001F).
                let folded = ordering.dialect == .sqlite ? "sortkit_fold(t.c\(column))" : "split_part(t.s, chr(31), \(column + 1))"
                var fragment = SQLFragment(find + folded + ", ")
                fragment.bind(.text(term))
                fragment.append(") > 0")
                conditions.append(fragment)
            }
        }
        if let atVersions {
            var fragment = SQLFragment("(SELECT data_version FROM sortkit_table WHERE id = ")
            fragment.bind(.integer(info.id))
            fragment.append(" AND version = ")
            fragment.bind(.integer(atVersions.schema))
            fragment.append(") = ")
            fragment.bind(.integer(atVersions.data))
            conditions.append(fragment)
        }
        if let only { conditions.append(idIn(only)) }
        // Where the search index finds the rows, it finds only the range's (``indexedMatch(_:)``):
        // a range of `t.id` too would lead SQLite to walk the range and test every row.
        if let idRange, !indexed {
            var fragment = SQLFragment("t.id BETWEEN ")
            fragment.bind(.integer(idRange.lowerBound))
            fragment.append(" AND ")
            fragment.bind(.integer(idRange.upperBound))
            conditions.append(fragment)
        }
        if !excluding.isEmpty {
            var fragment = SQLFragment("NOT (")
            fragment.append(idIn(excluding))
            fragment.append(")")
            conditions.append(fragment)
        }
        return conditions
    }

    /// `t.id` among `ids`, bound as one argument as the stores' other id lists are (a JSON array
    /// on SQLite, an array on PostgreSQL: ``SQLDialect/ids(_:)``).
    private func idIn(_ ids: [Int64]) -> SQLFragment {
        var fragment = SQLFragment(ordering.dialect == .sqlite ? "t.id IN (SELECT value FROM json_each(" : "t.id = ANY(")
        fragment.bind(ordering.dialect.ids(ids))
        fragment.append(ordering.dialect == .sqlite ? "))" : "::bigint[])")
        return fragment
    }

    /// Whether a term of the search is found through SQLite's search index, so that a page
    /// may instead walk the order's index and test each row (``usesSearchIndex``): a term
    /// whose rows are many is found sooner that way (``_SQLTableStore/pageBesideCount(_:_:cursor:csv:_:)``).
    var narrowsBySearchIndex: Bool {
        ordering.dialect == .sqlite && usesSearchIndex
            && (search.terms + columnSearch.values.flatMap(\.terms)).contains(where: searchIndexFinds)
    }

    /// Whether the table's search index finds `term`'s rows (``indexedMatch(_:)``): on SQLite a
    /// term of three scalars or more without `%` or `_` (by scalars: a combining mark after `%`
    /// makes a Character that isn't "%").
    private func searchIndexFinds(_ term: String) -> Bool {
        guard info.databaseIndex != nil, info.searchIndexed else { return false }
        return ordering.dialect == .postgresql
            || (term.unicodeScalars.count >= 3 && !term.unicodeScalars.contains(where: { $0 == "%" || $0 == "_" }))
    }

    /// This query with only the rows whose ids are in `range` (``idRange``).
    func ranged(_ range: ClosedRange<Int64>) -> PageQuery {
        var query = self
        query.idRange = range
        return query
    }

    /// For a table served from the database, the rows whose folded text holds `term` as its
    /// search index finds them: SQLite's FTS5 `trigram` table by `LIKE` (terms of three
    /// characters or more without `%` or `_`; it folds ASCII case, so `instr` stays the exact
    /// test), PostgreSQL's `pg_trgm` index by an exact `LIKE`.
    private func indexedMatch(_ term: String) -> SQLFragment? {
        guard searchIndexFinds(term) else { return nil }
        switch ordering.dialect {
        case .sqlite:
            var fragment = SQLFragment("t.id IN (SELECT rowid FROM \(info.searchIndex) WHERE s LIKE ")
            fragment.bind(.text("%" + term + "%"))
            // A part of the ids: the index finds only that part's rows (SQLite makes the whole
            // list of the subquery's rows before it tests the first).
            if let idRange {
                fragment.append(" AND rowid BETWEEN ")
                fragment.bind(.integer(idRange.lowerBound))
                fragment.append(" AND ")
                fragment.bind(.integer(idRange.upperBound))
            }
            fragment.append(")")
            return fragment
        case .postgresql:
            var pattern = ""
            for scalar in term.unicodeScalars {
                if scalar == "\\" || scalar == "%" || scalar == "_" { pattern.unicodeScalars.append("\\") }
                pattern.unicodeScalars.append(scalar)
            }
            var fragment = SQLFragment("t.s LIKE ")
            fragment.bind(.text("%" + pattern + "%"))
            return fragment
        }
    }

    /// Offsets from which a page of all rows by two keys or more (on PostgreSQL, one or more)
    /// starts at its first key's group (``select(after:offset:limit:)``; with a search, the
    /// rows before the offset are found anyway).
    static let leadGroupOffset = 10_000

    func select(after values: [SQLValue]?, offset: Int, limit: Int) -> (sql: String, arguments: [SQLValue]) {
        if ordering.isManual && !info.manualReady { return partlyComputed(after: values, offset: offset, limit: limit).render(ordering.dialect) }
        // Deep in an order by two keys or more, the database would sort every row before the
        // offset by all keys (an offset of 500,000 by author,-published: 1.6–3 s). The page
        // starts in the group of rows sharing the first key's value at the offset: that value
        // and the count of rows before it are read off the first key's index alone, and
        // only that group and the rows after it are sorted, up to the page (50 ms). One
        // statement, so one snapshot.
        // PostgreSQL skips to an offset reading each heap row (SQLite reads the index alone), so
        // a page by one key starts after the row before the offset, found on the index alone:
        // a keyset page, no count (the last page by title at 1M rows: 1.6 s → 0.2 s).
        let keys = ordering.dialect == .postgresql ? 1 : 2
        let leadGroup = values == nil && offset >= Self.leadGroupOffset && isUnfiltered && !ordering.isManual && ordering.terms.count > keys
        let afterRow = leadGroup && ordering.terms.count == 2 && !ordering.terms[0].mayBeNull
        // PostgreSQL sorts every row from the first key's group on, SQLite one group at a time
        // (its index gives the first key's order), so on PostgreSQL the rows are bounded by the
        // page's last row's group too: a first key of four values from an offset of 300,000 at
        // 1M rows sorts a quarter of the rows, not three. (A page's last row, not a stream's:
        // its limit is unbounded.)
        let lastRow =
            leadGroup && !afterRow && ordering.dialect == .postgresql && !ordering.terms[0].mayBeNull && limit <= Int(Int32.max)
            ? offset + limit - 1 : nil
        // And the sort carries the ids, not the rows: the page's rows are read after it. From
        // 300,000 by status,-price: SQLite 0.69–0.74 s → 0.28–0.33, PostgreSQL 1.02–1.20 →
        // 0.42–0.61 (DuckDB 0.27–0.28).
        let deferred = leadGroup && !afterRow
        let columns = info.schema.columns.indices.map { ", t.c\($0)" }.joined()
        var fragment = SQLFragment()
        if leadGroup {
            fragment.append("WITH p(v, i) AS ")
            fragment.append(leadWalk(to: afterRow ? offset - 1 : offset, id: true))
            // The first key's value on the page's last row.
            if let lastRow {
                fragment.append(", q(v) AS ")
                fragment.append(leadWalk(to: lastRow, id: false))
            }
            fragment.append(" ")
        }
        fragment.append("SELECT t.id\(columns)")
        for (index, term) in ordering.terms.enumerated() {
            fragment.append(", ")
            fragment.append(term.expression)
            fragment.append(" AS e\(index)")
        }
        if deferred { fragment.append(" FROM (SELECT t.id AS m") }
        fragment.append(from)
        var conditions = conditions(after: values)
        let lead = SQLFragment("(SELECT v FROM p)")
        if afterRow {
            conditions.append(ordering.lead(atOrAfter: true, lead))
            conditions.append(ordering.lead(after: lead, id: SQLFragment("(SELECT i FROM p)")))
        } else if leadGroup {
            conditions.append(ordering.lead(atOrAfter: true, lead))
            // Past the table's last row, no bound.
            if lastRow != nil { conditions.append(ordering.lead(atOrBefore: SQLFragment("(SELECT v FROM q)"))) }
        }
        appendOrdered(conditions, by: ordering.orderBy, limit: limit, to: &fragment)
        if afterRow {
            fragment.bind(.integer(0))
        } else if leadGroup {
            fragment.bind(.integer(Int64(offset)))
            fragment.append(" - (SELECT COUNT(*)")
            fragment.append(from)
            appendWhere(self.conditions + [ordering.lead(atOrAfter: false, lead)], to: &fragment)
            fragment.append(")")
        } else {
            fragment.bind(.integer(Int64(offset)))
        }
        if deferred {
            fragment.append(") AS d JOIN \(info.rows(ordering.dialect)) AS t ON t.id = d.m ORDER BY ")
            fragment.append(ordering.orderBy)
        }
        return fragment.render(ordering.dialect)
    }

    /// `(SELECT first term[, t.id] … LIMIT 1 OFFSET row)`: the first key's value (and id) of
    /// the row at `row`, off the first key's index.
    private func leadWalk(to row: Int, id: Bool) -> SQLFragment {
        var fragment = SQLFragment("(SELECT ")
        fragment.append(ordering.terms[0].expression)
        if id { fragment.append(", t.id") }
        fragment.append(from)
        appendOrdered(conditions, by: ordering.leadOrderBy, limit: 1, to: &fragment)
        fragment.bind(.integer(Int64(row)))
        fragment.append(")")
        return fragment
    }

    /// ` WHERE conditions ORDER BY order LIMIT limit OFFSET `, the offset left to the caller.
    private func appendOrdered(_ conditions: [SQLFragment], by order: SQLFragment, limit: Int, to fragment: inout SQLFragment) {
        appendWhere(conditions, to: &fragment)
        fragment.append(" ORDER BY ")
        fragment.append(order)
        fragment.append(" LIMIT ")
        fragment.bind(.integer(Int64(limit)))
        fragment.append(" OFFSET ")
    }

    /// The request's conditions and, after a cursor (`values`), the keyset seek past its row.
    private func conditions(after values: [SQLValue]?) -> [SQLFragment] {
        guard let values, let seek = try? ordering.after(values) else { return conditions }
        return conditions + [seek]
    }

    private func appendWhere(_ conditions: [SQLFragment], to fragment: inout SQLFragment) {
        guard !conditions.isEmpty else { return }
        fragment.append(" WHERE ")
        fragment.append(SQLFragment.joined(conditions, separator: " AND "))
    }

    /// The page of a manual order not written out in full (``_ImplicitLabels``): the first
    /// rows of those with entries (in label order, off the list's label index) and of those
    /// without (in id order, which is their label order, off the primary key), merged; each
    /// part's first `offset + limit` rows hold the page. The parts carry ids and labels only;
    /// the page's rows are read after (an offset of 500,000 on 1M rows: 0.36 s, not 1.6 s).
    private func partlyComputed(after values: [SQLValue]?, offset: Int, limit: Int) -> SQLFragment {
        let columns = info.schema.columns.indices.map { ", t.c\($0)" }.joined()
        var list = SQLFragment()
        list.bind(.text(info.list))
        func part(_ label: String, join: SQLFragment, _ own: [SQLFragment], order: String) -> SQLFragment {
            var fragment = SQLFragment("SELECT * FROM (SELECT \(label) AS e0, t.id AS e1 FROM \(info.rows(ordering.dialect)) AS t")
            fragment.append(join)
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(own + conditions, separator: " AND "))
            fragment.append(" ORDER BY \(order) LIMIT ")
            fragment.bind(.integer(Int64(offset + limit)))
            fragment.append(")")
            return fragment
        }
        var entries = [SQLFragment("o.pos >= 0")]
        var low: SQLFragment?
        if let values, let seek = try? ordering.after(values) {
            entries.append(seek)
            // Labels are unique, so the rows after the cursor's are those with larger labels.
            let labels = values.first?.integer.flatMap { $0 < Int64.max / 2 ? ($0 + 1)...Int64.max / 2 : nil }
            low = SQLFragment()
            low?.bind(.integer(labels.flatMap { _ImplicitLabels.ids(labelledIn: $0)?.lowerBound } ?? _ImplicitLabels.ids.upperBound + 1))
        }
        let computed = [_ImplicitLabels.rows(list: list, low: low)]
        var join = SQLFragment(" JOIN ordered_item AS o ON o.list = ")
        join.append(list)
        join.append(" AND o.id = t.id")
        var fragment = SQLFragment("SELECT t.id\(columns), m.e0, m.e1 FROM (SELECT * FROM (")
        fragment.append(part("o.pos", join: join, entries, order: "o.pos, t.id"))
        fragment.append(" AS a UNION ALL ")
        fragment.append(part(_ImplicitLabels.sql, join: SQLFragment(), computed, order: "t.id"))
        fragment.append(" AS b) AS n ORDER BY e0, e1 LIMIT ")
        fragment.bind(.integer(Int64(limit)))
        fragment.append(" OFFSET ")
        fragment.bind(.integer(Int64(offset)))
        fragment.append(") AS m JOIN \(info.rows(ordering.dialect)) AS t ON t.id = m.e1 ORDER BY m.e0, m.e1")
        return fragment
    }

    /// The scan of an order SortKit computes (``SQLOrdering/ComputedTerm``): every row the
    /// request's conditions keep, as its terms' values — for a term in `computing`, the text of
    /// the column its key is computed from. No order, no limit: the store sorts.
    func scan(computing: Set<Int>) -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT ")
        fragment.append(SQLFragment.joined(scanned(computing: computing), separator: ", "))
        fragment.append(from)
        appendWhere(conditions, to: &fragment)
        return fragment.render(ordering.dialect)
    }

    /// The values a scan reads of each term: for a term in `computing`, the text of the column
    /// its key is computed from.
    private func scanned(computing: Set<Int>) -> [SQLFragment] {
        ordering.terms.enumerated().map { index, term in
            guard computing.contains(index), let computed = term.computed else { return term.expression }
            return SQLFragment("t.c\(computed.variant.column)")
        }
    }

    /// ``scan(computing:)`` of the rows whose ids are in `ids`, as one row of arrays, one per
    /// term (PostgreSQL: `array_agg`; each array NULL where no row is in range).
    func aggregatedScan(computing: Set<Int>, ids: ClosedRange<Int64>) -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT ")
        let values = ordering.terms.indices.map { "array_agg(scanned.v\($0))" }.joined(separator: ", ")
        fragment.append(values)
        fragment.append(" FROM (SELECT ")
        // The terms as ``scan(computing:)`` reads them, named.
        let terms = scanned(computing: computing).enumerated().map { index, term in
            var named = term
            named.append(" AS v\(index)")
            return named
        }
        fragment.append(SQLFragment.joined(terms, separator: ", "))
        fragment.append(from)
        var range = SQLFragment("t.id BETWEEN ")
        range.bind(.integer(ids.lowerBound))
        range.append(" AND ")
        range.bind(.integer(ids.upperBound))
        appendWhere(conditions + [range], to: &fragment)
        fragment.append(") AS scanned")
        return fragment.render(ordering.dialect)
    }

    /// The ids of the rows after the cursor's (`values`) or from `offset`, in order: off the
    /// order's index alone where it has one.
    func ids(after values: [SQLValue]?, offset: Int) -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT t.id")
        fragment.append(from)
        appendWhere(conditions(after: values), to: &fragment)
        fragment.append(" ORDER BY ")
        fragment.append(ordering.orderBy)
        if offset > 0 {
            fragment.append(ordering.dialect == .sqlite ? " LIMIT -1 OFFSET " : " OFFSET ")
            fragment.bind(.integer(Int64(offset)))
        }
        return fragment.render(ordering.dialect)
    }

    /// The rows (an id, then the cells) with the given ids, in their order; an id without a
    /// row is left out.
    func rows(inOrder ids: [Int64]) -> (sql: String, arguments: [SQLValue]) {
        let columns = info.schema.columns.indices.map { ", t.c\($0)" }.joined()
        let numbered = ordering.dialect.numberedIDs(1), rows = info.rows(ordering.dialect)
        return ("SELECT t.id\(columns) FROM \(numbered) JOIN \(rows) AS t ON t.id = numbered.row_id ORDER BY numbered.n", [ordering.dialect.ids(ids)])
    }

    func count() -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT COUNT(*)")
        fragment.append(SQLFragment(" FROM \(info.rows(ordering.dialect)) AS t"))
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(conditions, separator: " AND "))
        }
        return fragment.render(ordering.dialect)
    }
}
