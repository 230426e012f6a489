import Foundation
import SortKit

/// The rows of an order SortKit computes while the database scans: PostgreSQL's answer to an
/// order whose key columns a table served from the database doesn't store (`title:len`,
/// `price:abs`, `title:random=7`, `title:locale=sv`). SQLite computes such keys in its own
/// query (`sortkit_key`); PostgreSQL can't call SortKit, and reads never add key columns.
///
/// Each scanned row's terms (see ``PageQuery/scan(computing:)``) are made whole here (a
/// computed term's text turned into the key it reads), counted, and kept if they sort after
/// the cursor and among the first `keep`: the rows are held in a buffer that is sorted and cut
/// back to `keep` whenever it doubles, and once it holds `keep` rows, a row that doesn't sort
/// before the last kept one is dropped after one comparison. The terms compare as SQL compares
/// PostgreSQL's terms (never NULL: bytes as `bytea`, integers), the id last.
///
///     var selection = _ComputedSelection(descending: [false, false], computing: [0: term], keep: 26, after: nil)
///     selection.add([.text("Émile"), .integer(7)])   // the title's length key, then the id
///     selection.sorted()                              // the first 26 rows' terms, in order
struct _ComputedSelection: Sendable {
    /// Each term's direction (the id's last).
    let descending: [Bool]
    /// The terms computed from text, by position.
    let computing: [Int: SQLOrdering.ComputedTerm]
    /// How many of the first rows to keep (the offset, the page and one more); `nil`: all.
    let keep: Int?
    /// The cursor's terms: only rows after them are kept.
    let after: [SQLValue]?
    /// The rows scanned (the request's filtered count).
    private(set) var count = 0
    /// When set, every scanned row's terms are added to it too (a first page's scan that
    /// also makes the whole order kept for the table, ``_KeptOrders``).
    var whole: _WholeOrder?
    private var rows: [[SQLValue]] = []
    /// The last of the `keep` rows kept at the last cut; `nil` before one.
    private var bound: [SQLValue]?

    init(descending: [Bool], computing: [Int: SQLOrdering.ComputedTerm], keep: Int?, after: [SQLValue]?) {
        self.descending = descending
        self.computing = computing
        self.keep = keep.map { max(1, $0) }
        self.after = after
    }

    /// Adds a scanned row: its terms, computed ones as their column's text.
    mutating func add(_ scanned: [SQLValue]) {
        var terms = scanned
        for (index, term) in computing { terms[index] = term.value(of: terms[index].cell) }
        count += 1
        whole?.add(terms: terms)
        if let after, !precedes(after, terms) { return }
        if let bound, !precedes(terms, bound) { return }
        rows.append(terms)
        if let keep, rows.count >= 2 * keep + 1024 { cut() }
    }

    /// The kept rows' terms, in order (sorted in place).
    mutating func sorted() -> [[SQLValue]] {
        cut()
        return rows
    }

    private mutating func cut() {
        rows.sort(by: precedes)
        if let keep, rows.count > keep {
            rows.removeLast(rows.count - keep)
            bound = rows.last
        }
    }

    /// Whether a row with terms `a` sorts before one with terms `b`.
    func precedes(_ a: [SQLValue], _ b: [SQLValue]) -> Bool {
        for index in a.indices {
            let order = Self.compare(a[index], b[index])
            if order != 0 { return (order < 0) != descending[index] }
        }
        return false
    }

    /// -1, 0 or 1 as SQL orders two values: NULL first, then numbers, text (by its UTF-8
    /// bytes) and bytes.
    static func compare(_ a: SQLValue, _ b: SQLValue) -> Int {
        func rank(_ value: SQLValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .double: 1
            case .text: 2
            case .blob: 3
            }
        }
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a == b ? 0 : 1 }
        func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
            a.lexicographicallyPrecedes(b) ? -1 : b.lexicographicallyPrecedes(a) ? 1 : 0
        }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return sign(x, y)
        case (.integer(let x), .double(let y)): return sign(Double(x), y)
        case (.double(let x), .integer(let y)): return sign(x, Double(y))
        case (.double(let x), .double(let y)): return sign(x, y)
        case (.text(let x), .text(let y)): return bytes(x.utf8, y.utf8)
        case (.blob(let x), .blob(let y)): return bytes(x, y)
        default: return sign(rank(a), rank(b))
        }
    }
}

/// What a scan of an order SortKit computes found (``_SQLTableStore/computedRows(_:into:from:reading:)``).
struct _ComputedRows: Sendable {
    /// The chosen rows' terms, in order.
    var terms: [[SQLValue]]
    /// The rows scanned.
    var count: Int
    /// The cells of the first rows read (an id, then the cells).
    var cells: [[SQLValue]]
    /// Every scanned row's terms, when the selection collected them (``_ComputedSelection/whole``),
    /// with the table's versions in the scan's snapshot.
    var whole: (order: _WholeOrder, schemaVersion: Int64, dataVersion: Int64)?
}

extension _SQLTableStore {
    /// A page of an order whose keys SortKit computes as the database scans the request's rows
    /// (``_ComputedSelection``; PostgreSQL, keys the table served from the database doesn't store).
    func computedPage(_ request: PageRequest, cursor: KeysetCursor?, _ info: _TableInfo, _ ordering: SQLOrdering) async throws -> TablePage {
        let offset = cursor == nil ? request.offset : 0
        // The rows before the offset are held to find it: a bound on what one request holds
        // (a table is served from the database because it doesn't fit memory).
        guard offset <= Self.computedOffsetRows else {
            throw TableStoreError.invalid(
                "an offset past \(Self.computedOffsetRows) rows in '\(request.order)', an order computed as table '\(info.schema.name)' is scanned; page on from a cursor (after=)"
            )
        }
        let (query, scan) = try Self.computedScan(request, cursor: cursor, info, ordering, keep: offset + request.limit + 1)
        var selection = scan
        // A first page of all rows also collects every row's terms, for its whole order kept
        // behind it without a scan of its own (``_KeptOrders``).
        let key = Self.keptOrderKey(info, request.order)
        let keeps =
            cursor == nil && query.isUnfiltered && info.rowCount <= Self.computedStreamRows
            && _KeptOrders.bytes(rows: info.rowCount) <= indexes.roomForOrders && indexes.orders.start(key, table: info.id)
        if keeps { selection.whole = _WholeOrder(descending: selection.descending, computing: [:]) }
        let started = ContinuousClock.now
        var scanned: _ComputedRows?
        do {
            scanned = try await computedRows(query, into: selection, from: offset, reading: request.limit + 1)
            if keeps { keepInBackground(scanned, order: request.order, table: info.id, building: key, started: started) }
        } catch let error as TableStoreError where keeps && error.kind == .timedOut {
            // Collecting every row's terms took the scan past its budget: the page without
            // them (and the table's builds held off a while).
            indexes.orders.finished(key, table: info.id, kept: false, took: ContinuousClock.now - started)
            selection.whole = nil
            scanned = try await computedRows(query, into: selection, from: offset, reading: request.limit + 1)
        } catch {
            if keeps { indexes.orders.finished(key, table: info.id, kept: false, took: ContinuousClock.now - started) }
            throw error
        }
        guard let result = scanned else {
            throw TableStoreError.invalid("'\(request.order)' needs key columns the table doesn't store")
        }
        let (rows, terms) = Self.rows(result.cells, inOrderOf: result.terms, columns: info.schema.columns.count)
        return try query.page(
            rows, request, total: info.rowCount, filtered: query.isUnfiltered ? info.rowCount : result.count, secret: secret
        ) { terms[$0] }
    }

    /// The rest of a view by an order SortKit computes (see ``computedPage(_:cursor:_:_:)``): one
    /// scan selects every row after the cursor, in order, then one query reads their cells in
    /// that order. Every row's terms are held for the sort, so a table of more than
    /// ``computedStreamRows`` rows goes on page by page instead.
    func streamComputed(
        _ request: PageRequest, _ info: _TableInfo, _ ordering: SQLOrdering, _ body: (TablePage) async throws -> Void
    ) async throws -> StreamedPages {
        guard indexes.servesFromDatabase(info), info.rowCount <= Self.computedStreamRows else { return .notStreamed }
        let cursor = try request.checkedCursor(secret: secret)
        let (query, selection) = try Self.computedScan(request, cursor: cursor, info, ordering, keep: nil)
        let offset = cursor == nil ? request.offset : 0, columns = info.schema.columns.count
        var given = 0
        func hand(_ rows: [TableRow], _ csv: [UInt8]?, _ count: Int) async throws {
            given += count
            try await body(TablePage(rows: rows, csv: csv, total: info.rowCount, filtered: given, next: nil))
        }
        // A download of all rows (a filtered view's ids are too sparse to place: read the usual
        // way, without a scan first): the ids after the cursor in order from one scan, its
        // rows' terms sorted as byte strings (``_WholeOrder``), and the records read in row
        // order (1M rows by `title:len` on PostgreSQL: 7.3–12.5 s, 7–11.6 s of it the server's
        // CPU sorting arrays of values and decoding the join's rows).
        if let export = request.csv, query.isUnfiltered,
            let ids = try await orderIDs(
                query, _WholeOrder(descending: selection.descending, computing: selection.computing, after: cursor?.values)),
            let end = try await streamInRowOrder(
                ids: .known(Array(ids.dropFirst(offset))), table: info, columns: columns, csv: export, batchRows: max(1, request.limit), hand)
        {
            // Nothing is read from the database once a batch is handed on: it ends finished.
            return end == .finished ? .finished : .notStreamed
        }
        guard let result = try await computedRows(query, into: selection, from: offset, reading: 0) else {
            return .notStreamed
        }
        // The rows in the selection's order, by one query: PostgreSQL joins the numbered ids to
        // one scan of the table (1M rows: 2 s; read 10,000 ids at a time, 10 s). It streams as
        // the store's other views do, and may stop for a slow client: the view then goes on
        // page by page after the last row handed on.
        let end = try await streamRows(
            query.rows(inOrder: result.terms.compactMap { $0.last?.integer }), columns: columns, terms: 0, csv: request.csv,
            batchRows: max(1, request.limit), hand)
        switch end {
        case .notStreamed:
            // Every stream taken: the cells a batch at a time, each batch one read by id.
            var start = 0
            while start < result.terms.count {
                let batch = Array(result.terms[start..<min(start + max(1, request.limit), result.terms.count)])
                start += batch.count
                let select = query.rows(inOrder: batch.compactMap { $0.last?.integer })
                let rows = try await read { session in try await session.select(select.sql, select.arguments) }.map { row in
                    TableRow(id: row[0].integer ?? 0, cells: row.dropFirst().map(\.cell))
                }
                let csv = request.csv.map { export in
                    var records: [UInt8] = []
                    export.appendRecords(rows.map(\.cells), to: &records)
                    return records
                }
                try await hand(csv == nil ? rows : [], csv, rows.count)
            }
            return .finished
        case .finished: return .finished
        case .stopped:
            // A row deleted since the scan is missing from the join: the cursor is the last
            // row handed on, or one before it.
            guard given > 0 else { return .notStreamed }
            let terms = result.terms[min(given, result.terms.count) - 1]
            return .continues(after: try KeysetCursor(order: request.order.description, search: request.cursorScope, values: terms).encoded(secret: secret))
        }
    }

    /// The most rows a view by an order SortKit computes streams (``streamComputed(_:_:_:_:)``).
    static var computedStreamRows: Int { 2_000_000 }

    /// The deepest offset of a page by an order SortKit computes (``computedPage(_:cursor:_:_:)``).
    static var computedOffsetRows: Int { 1_000_000 }

    /// The query and an empty selection for an order SortKit computes.
    static func computedScan(
        _ request: PageRequest, cursor: KeysetCursor?, _ info: _TableInfo, _ ordering: SQLOrdering, keep: Int?
    ) throws -> (PageQuery, _ComputedSelection) {
        let query = try PageQuery(request, info: info, ordering: ordering)
        var computing: [Int: SQLOrdering.ComputedTerm] = [:]
        for (index, term) in ordering.terms.enumerated() {
            if let computed = term.computed, !info.variants.contains(computed.variant) { computing[index] = computed }
        }
        // PostgreSQL's terms are bytes and integers (an in-memory index's cursor starts with text).
        if let values = cursor?.values,
            values.count != ordering.terms.count || !values.allSatisfy({ if case .blob = $0 { true } else if case .integer = $0 { true } else { false } })
        {
            throw TableStoreError.invalid("the cursor doesn't match the sort order")
        }
        let selection = _ComputedSelection(
            descending: ordering.terms.map(\.descending), computing: computing, keep: keep, after: cursor?.values)
        return (query, selection)
    }

    /// The rows of `cells` (an id, then the cells) in the order of `terms` (each row's, its id
    /// last), with their terms: a row deleted since it was selected is left out.
    static func rows(_ cells: [[SQLValue]], inOrderOf terms: [[SQLValue]], columns: Int) -> (rows: [TableRow], terms: [[SQLValue]]) {
        var byID: [Int64: [String]] = [:]
        for row in cells { byID[row[0].integer ?? 0] = (0..<columns).map { row[1 + $0].cell } }
        var rows: [TableRow] = [], kept: [[SQLValue]] = []
        for row in terms {
            guard let id = row.last?.integer, let cells = byID[id] else { continue }
            rows.append(TableRow(id: id, cells: cells))
            kept.append(row)
        }
        return (rows, kept)
    }
}
