import DataTableKit
import Foundation
import SortKit
import SortKitSQL

/// A SQL table as a `DataTableSource`: a `LazyDataTable` over it reads each page from the
/// store (sorted, searched and filtered there), so the table in memory is a few pages however
/// big the SQL table is. With a store's in-memory index (the default) pages come from the
/// index; open the store with `inMemoryIndex: false` to keep the process small, every page
/// then being one SQL query served by the order's index.
///
///     let store = try SQLiteTableStore(path: "big.sqlite", inMemoryIndex: false)
///     var table = try await TableStoreSource.table(store: store, table: "events", pageSize: 50)
///     try await table.tapHeader(0)
///     table.pageRows.map(\.cells)
public struct TableStoreSource: DataTableSource {
    /// The store.
    public let store: any TableStore
    /// The table's name.
    public let table: String

    /// A source over `table` in `store`.
    public init(store: any TableStore, table: String) {
        self.store = store
        self.table = table
    }

    public func page(_ request: PageRequest) async throws -> DataTablePage<TableRow> {
        let page = try await store.page(of: table, request)
        return DataTablePage(rows: page.rows, totalCount: page.total, filteredCount: page.filtered)
    }

    /// A lazy table over `table` with its columns as headers, its first page read.
    ///
    /// - Throws: `TableStoreError` for an unknown table.
    public static func table(
        store: any TableStore, table: String, defaultSort: SortSpec = SortSpec(), pageSize: Int = 50
    ) async throws -> LazyDataTable<TableStoreSource> {
        let schema = try await store.schema(of: table)
        var lazy = LazyDataTable(
            source: TableStoreSource(store: store, table: table), headers: schema.columns.map(\.name),
            defaultSort: defaultSort, pageSize: pageSize)
        try await lazy.load()
        return lazy
    }
}
