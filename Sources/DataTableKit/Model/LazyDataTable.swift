import Foundation
import SortKit

/// Where a ``LazyDataTable`` reads its rows: a count and one page at a time, in an order and
/// for a search it is told — a database table, a remote API. DataTableKitSQL's `TableStoreSource`
/// reads a SQLite or PostgreSQL table this way.
///
///     struct Numbers: DataTableSource {
///         func page(_ request: PageRequest) async throws -> DataTablePage<Int> {
///             let all = Array(1...1_000_000)   // a real source asks its database instead
///             let rows = request.order.spec?.keys.first?.direction == .descending ? Array(all.reversed()) : all
///             return DataTablePage(rows: Array(rows.dropFirst(request.offset).prefix(request.limit)), totalCount: all.count, filteredCount: all.count)
///         }
///     }
public protocol DataTableSource: Sendable {
    /// A row as the source gives it.
    associatedtype Row: Sendable
    /// The rows `request` asks for, with the counts. A ``LazyDataTable`` asks for a spec
    /// order (`.spec`), its search and column filters (`columnSearch`), an offset and a limit.
    func page(_ request: PageRequest) async throws -> DataTablePage<Row>
}

/// A page from a ``DataTableSource``.
public struct DataTablePage<Row: Sendable>: Sendable {
    /// The rows, in order.
    public var rows: [Row]
    /// Rows in the source.
    public var totalCount: Int
    /// Rows matching the search and filters.
    public var filteredCount: Int

    /// A page.
    public init(rows: [Row], totalCount: Int, filteredCount: Int) {
        self.rows = rows
        self.totalCount = totalCount
        self.filteredCount = filteredCount
    }
}

/// A headless data table over rows it fetches on demand: it holds the sort state, search,
/// filters and the current page, and asks its ``DataTableSource`` for the rows a page shows —
/// so a 10-million-row SQL table sorts, searches and pages while the table holds a few pages
/// (the current one and up to ``cachedPages`` recently seen for the same query).
///
///     var table = LazyDataTable(source: TableStoreSource(store: store, table: "books"),
///                               headers: ["title", "author", "price"], pageSize: 25)
///     try await table.load()
///     try await table.tapHeader(2)              // by price, from the source
///     try await table.setSearch("le guin")
///     try await table.goToPage(3)
///     table.pageRows                             // 25 rows at most
///
/// Header taps follow `HeaderSortState` (per-column `SortCycle`s, a key cap); a change of
/// sort, search or filter goes back to the first page.
public struct LazyDataTable<Source: DataTableSource>: Sendable {
    /// The source.
    public let source: Source
    /// The column names, as the source's sort specs and filters name them.
    public let headers: [String]
    /// The sort.
    public private(set) var sortState: HeaderSortState
    /// The whole-row search.
    public private(set) var searchText = ""
    /// Per-column filters by column name.
    public private(set) var columnFilters: [String: String] = [:]
    /// Rows per page.
    public let pageSize: Int
    /// The current page, from 0.
    public private(set) var pageIndex = 0
    /// The current page's rows.
    public private(set) var pageRows: [Source.Row] = []
    /// Rows in the source, as of the last read.
    public private(set) var totalCount = 0
    /// Rows matching the search and filters, as of the last read.
    public private(set) var filteredCount = 0
    /// Pages kept besides the current one (for going back and forth); 0 keeps none.
    public var cachedPages: Int
    /// Columns that can't sort (taps on them change nothing).
    public var unsortableColumns: Set<String> = []

    /// Pages read for the current query, by page index, oldest first.
    private var cache: [(index: Int, rows: [Source.Row])] = []

    /// A table; nothing is read until ``load()``.
    public init(
        source: Source, headers: [String], defaultSort: SortSpec = SortSpec(), pageSize: Int = 50, cachedPages: Int = 4,
        cycles: [String: SortCycle] = [:], maxSortKeys: Int? = nil
    ) {
        self.source = source
        self.headers = headers
        self.sortState = HeaderSortState(defaultSort, cycles: cycles, maxKeys: maxSortKeys)
        self.pageSize = max(1, pageSize)
        self.cachedPages = max(0, cachedPages)
    }

    /// Pages (at least 1).
    public var pageCount: Int { _pageCount(filteredCount, pageSize: pageSize) }
    /// The sort as a spec.
    public var sortSpec: SortSpec { sortState.spec }
    /// Pages held in memory now, the current one included.
    public var heldPages: Int { cache.count }

    /// The request for page `index` of the current query.
    public func request(page index: Int) -> PageRequest {
        PageRequest(order: .spec(sortState.spec), search: searchText, columnSearch: columnFilters, offset: index * pageSize, limit: pageSize)
    }

    /// Reads the current page (again, dropping kept pages: the data may have changed).
    public mutating func load() async throws {
        cache.removeAll()
        try await show(page: pageIndex)
    }

    /// A header tap (see `HeaderSortState.tap(_:additive:isSortable:modifiers:)`); reads the
    /// first page when the sort changed. Returns whether it did.
    @discardableResult
    public mutating func tapHeader(_ column: Int, additive: Bool = false) async throws -> Bool {
        precondition(headers.indices.contains(column), "column \(column) out of range")
        var state = sortState
        guard state.tap(headers[column], additive: additive, isSortable: !unsortableColumns.contains(headers[column])) else { return false }
        try await changeQuery { $0.sortState = state }
        return true
    }

    /// Sets the sort (unknown columns dropped) and reads the first page.
    public mutating func setSort(_ spec: SortSpec) async throws {
        let keys = spec.keys.filter { headers.contains($0.column) && !unsortableColumns.contains($0.column) }
        let state = HeaderSortState(SortSpec(keys), allowsUnsorted: sortState.allowsUnsorted, cycles: sortState.cycles, maxKeys: sortState.maxKeys)
        try await changeQuery { $0.sortState = state }
    }

    /// Sets the whole-row search and reads the first page.
    public mutating func setSearch(_ text: String) async throws {
        try await changeQuery { $0.searchText = text }
    }

    /// Sets (or, with blank text, clears) a column's filter and reads the first page.
    public mutating func setFilter(_ text: String, forColumn column: String) async throws {
        precondition(headers.contains(column), "no column '\(column)'")
        try await changeQuery { table in
            if SearchQuery(text).isBlank { table.columnFilters[column] = nil } else { table.columnFilters[column] = text }
        }
    }

    /// Shows page `index` (clamped to the pages there are), from the kept pages or the source.
    public mutating func goToPage(_ index: Int) async throws {
        try await show(page: min(max(0, index), pageCount - 1))
    }

    private mutating func changeQuery(_ change: (inout LazyDataTable) -> Void) async throws {
        var next = self
        change(&next)
        next.cache.removeAll()
        try await next.show(page: 0)
        self = next
    }

    /// Reads page `index` unless it is kept; the state changes only when the read succeeds.
    private mutating func show(page index: Int) async throws {
        if let kept = cache.firstIndex(where: { $0.index == index }) {
            let entry = cache.remove(at: kept)
            cache.append(entry)
            pageRows = entry.rows
            pageIndex = index
            return
        }
        var page = try await source.page(request(page: index))
        // A page past the end (rows deleted meanwhile) shows the last page instead.
        var shown = index
        if page.rows.isEmpty, index > 0, page.filteredCount > 0 {
            shown = (page.filteredCount - 1) / pageSize
            page = try await source.page(request(page: shown))
        }
        totalCount = page.totalCount
        filteredCount = page.filteredCount
        pageIndex = shown
        pageRows = page.rows
        cache.append((shown, page.rows))
        if cache.count > cachedPages + 1 { cache.removeFirst(cache.count - cachedPages - 1) }
    }
}
