import Foundation
import SortKit

/// A store of tables that sorts, searches and pages in the database, in exactly the order
/// memory gives for the same `SortSpec` (see ``SQLOrdering``).
///
///     let store = try SQLiteTableStore(path: "library.sqlite")   // or PostgresTableStore(url:)
///     let schema = try await store.importCSV(Array(csv.utf8), as: "books")
///     let page = try await store.page(of: "books", PageRequest(order: .spec(SortSpec(parsing: "-price")), search: "tolkien", limit: 20))
///     page.rows.first?.cells   // ["The Hobbit", "Tolkien", "12.50"]
///     // next page: PageRequest(…, after: page.next)
public protocol TableStore: Sendable {
    /// Every table's schema, by name.
    func tables() async throws -> [TableSchema]
    /// Every table's schema and row count, from the catalog alone: no table is read and no
    /// index loaded, so a list of a thousand tables costs one query.
    func catalog() async throws -> [TableCatalogEntry]
    /// The schema of `table`.
    func schema(of table: String) async throws -> TableSchema
    /// What `table`'s in-memory index holds now (rows, rankings and their bytes against their
    /// budget); `nil` when no index of it is loaded (or the store keeps none).
    func indexUsage(of table: String) async throws -> IndexUsage?
    /// Where `table`'s sorted pages are answered from: the store's in-memory index, or — under
    /// an index budget (``IndexLimits/indexBytes``) that its index doesn't fit — the database's
    /// own indexes.
    func indexPlacement(of table: String) async throws -> IndexPlacement
    /// Whether `table` is served from the database and some of its indexes are still being
    /// made: they are made after an import or schema change commits, one at a time in the
    /// background; its pages are scans meanwhile, with the same answers. Asking starts the
    /// background work again if it had given up (the database unreachable for seconds).
    ///
    ///     try await store.indexesPending(of: "books")   // true for a few seconds after a big import
    func indexesPending(of table: String) async throws -> Bool
    /// Makes now every index that tables served from the database still lack (what the store
    /// does in the background after an import), and returns once this store makes none (on
    /// PostgreSQL another server may still be making one: ``indexesPending(of:)`` says so).
    ///
    ///     try await store.importCSV(csv, as: "books")   // served from the database
    ///     try await store.buildIndexes()                  // its column and search indexes made
    func buildIndexes() async throws
    /// Places every stored table under the index budget, in the order they were made: a table
    /// whose estimated index fits beside those before it is held in memory, others are served
    /// from the database, which gets their column and search indexes if they lack them, in
    /// the background (``indexesPending(of:)``). Without a budget every table is in memory.
    /// Imports place themselves as they arrive. Returns each table's placement, by name.
    ///
    ///     let store = try SQLiteTableStore(path: "db.sqlite", indexLimits: IndexLimits(indexBytes: 64 << 20))
    ///     try await store.placeIndexes()   // ["books": .database, "authors": .memory]
    @discardableResult
    func placeIndexes() async throws -> [String: IndexPlacement]
    /// Creates an empty table.
    func createTable(_ schema: TableSchema) async throws
    /// Creates table `name` from CSV (header first, types inferred), all rows or none. The
    /// bytes are the store's: passed with `consume`, they are freed once read into columns
    /// (75 MB less at the peak of a 1M-row import).
    @discardableResult
    func importCSV(_ csv: consuming [UInt8], as name: String, delimiter: UInt8, presets: [String: SortSpec]) async throws -> TableSchema
    /// Adds a row (column name → text; missing columns are blank) at the end of the manual
    /// order. Returns its id.
    @discardableResult
    func insert(_ values: [String: String], into table: String) async throws -> Int64
    /// Changes some cells of row `id`.
    func update(_ id: Int64, in table: String, set values: [String: String]) async throws
    /// Deletes row `id`.
    func delete(_ id: Int64, from table: String) async throws
    /// One row.
    func row(_ id: Int64, in table: String) async throws -> TableRow
    /// A page of rows: sorted, searched, from an offset or after a cursor.
    func page(of table: String, _ request: PageRequest) async throws -> TablePage
    /// `table` as the catalog describes it now, read once: its schema, and what
    /// ``page(of:_:)-(StoredTable,_)`` and ``row(_:in:)-(_,StoredTable)`` need to serve it
    /// without reading the catalog again (a request that reads the schema to make its page
    /// request reads the catalog once).
    ///
    ///     let books = try await store.table("books")
    ///     let page = try await store.page(of: books, PageRequest(order: .spec(SortSpec(parsing: "-price")), limit: 20))
    func table(_ name: String) async throws -> StoredTable
    /// A page of `table`, as ``table(_:)`` read it.
    func page(of table: StoredTable, _ request: PageRequest) async throws -> TablePage
    /// One row of `table`, as ``table(_:)`` read it.
    func row(_ id: Int64, in table: StoredTable) async throws -> TableRow
    /// Moves row `id` in the manual order.
    func move(_ id: Int64, in table: String, to destination: MoveDestination) async throws
    /// The rest of a view in one read, for an export: `request`'s rows from its cursor or
    /// offset to the end, in pages of `request.limit` rows passed to `body` as they are read
    /// (each page's `next` is `nil`; `filtered` counts the rows given so far). The read ends
    /// early, with a cursor to go on from page by page, when the client falls behind the
    /// database (the read holds a connection and a snapshot only while it keeps up).
    ///
    ///     let books = try await store.table("books")
    ///     var request = PageRequest(order: .spec(SortSpec(parsing: "title")), limit: 10_000)
    ///     switch try await store.streamPages(of: books, request, { page in write(page.rows) }) {
    ///     case .finished: break
    ///     case .notStreamed: break                                  // page by cursor from `request`
    ///     case .continues(let cursor): request.after = cursor       // page by cursor from there
    ///     }
    func streamPages(of table: StoredTable, _ request: PageRequest, _ body: (TablePage) async throws -> Void) async throws -> StreamedPages
    /// Deletes rows `ids`, in one transaction: all of them, or — for an unknown or repeated
    /// id — none.
    func delete(_ ids: [Int64], from table: String) async throws
    /// Moves rows `ids` as one block right after or before another row of the manual order,
    /// in one transaction: all of them or none. The block is in the order listed, or with
    /// `keepingOrder`, in the order the rows have now (a selection moved as it stands). The
    /// anchor can't be in the block; `toIndex` is for single rows. At most 10,000 rows.
    ///
    ///     try await store.move([7, 3, 9], in: "books", to: .after(12), keepingOrder: false)   // 12, 7, 3, 9
    func move(_ ids: [Int64], in table: String, to destination: MoveDestination, keepingOrder: Bool) async throws
    /// Deletes `table` — its rows, presets, manual order and change log — in one
    /// transaction, and forgets its in-memory index. Its id is never given to another table.
    ///
    /// - Throws: ``TableStoreError`` (`notFound`) for an unknown table.
    func dropTable(_ table: String) async throws
    /// Changes a table's schema in one transaction that keeps every row, and returns the new
    /// schema (see ``SchemaChange``).
    @discardableResult
    func alter(_ table: String, _ changes: [SchemaChange]) async throws -> TableSchema
}

/// A table as the catalog lists it.
public struct TableCatalogEntry: Sendable, Hashable {
    /// The table's schema.
    public var schema: TableSchema
    /// Its rows, as the catalog counts them (kept in the same transaction as every write).
    public var rowCount: Int

    /// An entry.
    public init(schema: TableSchema, rowCount: Int) {
        self.schema = schema
        self.rowCount = rowCount
    }
}

/// One stored row: its id and each column's text (blank for null), in schema order.
public struct TableRow: Sendable, Hashable {
    /// The row's id.
    public var id: Int64
    /// The cells' text, one per column.
    public var cells: [String]

    /// A row.
    public init(id: Int64, cells: [String]) {
        self.id = id
        self.cells = cells
    }
}

extension PageRequest {
    /// Checks the limit and offset, and decodes the cursor (signed with `secret`, for this
    /// request's order and search).
    ///
    /// - Throws: ``TableStoreError`` naming the bad parameter, or a tampered or foreign cursor.
    func checkedCursor(secret: Data) throws -> KeysetCursor? {
        guard limit >= 0 else { throw TableStoreError.invalid("limit must be 0 or more, got \(limit)") }
        guard offset >= 0 else { throw TableStoreError.invalid("offset must be 0 or more, got \(offset)") }
        // Bounds that keep offset + limit far from overflow (no table has 2^48 rows).
        guard limit <= 1 << 31 else { throw TableStoreError.invalid("limit must be at most \(1 << 31), got \(limit)") }
        guard offset <= 1 << 48 else { throw TableStoreError.invalid("offset must be at most \(1 << 48), got \(offset)") }
        return try after.map { try KeysetCursor.decode($0, secret: secret, order: order.description, search: cursorScope) }
    }

    /// What a cursor is signed for besides the order: the search, and the rows left out (a
    /// cursor of one view doesn't page another).
    var cursorScope: String {
        excluding.isEmpty ? search : search + "\u{1}" + excluding.map(String.init).joined(separator: ",")
    }
}

/// A table as one read of the catalog found it (see ``TableStore/table(_:)``): its schema, and
/// for the SQL stores its catalog entry, so that its pages and rows are served without reading
/// the catalog again.
public struct StoredTable: Sendable {
    /// The table's schema when it was read.
    public let schema: TableSchema
    /// The catalog entry, from a SQL store.
    let info: _TableInfo?

    /// A table known by its schema alone (for a ``TableStore`` that keeps nothing else).
    public init(schema: TableSchema) {
        self.schema = schema
        info = nil
    }

    init(_ info: _TableInfo) {
        schema = info.schema
        self.info = info
    }
}

/// A page of rows and the counts a pager shows.
public struct TablePage: Sendable, Hashable {
    /// The rows, in order (none when they are in ``csv``).
    public var rows: [TableRow]
    /// The rows as CSV records, when the request asked for them (`PageRequest.csv`) and the
    /// store could write them so; `nil` means they are in ``rows``.
    public var csv: [UInt8]? = nil
    /// Rows in the table.
    public var total: Int
    /// Rows matching the search.
    public var filtered: Int
    /// A cursor for the page after this one; `nil` on the last page.
    public var next: String?
}

/// How ``TableStore/streamPages(of:_:_:)`` ended.
public enum StreamedPages: Sendable, Hashable {
    /// Every row of the view was handed on.
    case finished
    /// Nothing was read: the store serves this view page by page (a table held in memory, the
    /// manual order, or as many streams running as it allows).
    case notStreamed
    /// The read stopped part way (the client fell behind, or the connection was lost): go on
    /// page by page after this cursor.
    case continues(after: String)
}

/// Where a manual-order move puts a row: right after or before another row, or at an index
/// of the manual order (counted without the moved row, so `toIndex(0)` is the front).
public enum MoveDestination: Sendable, Hashable {
    /// Right after the row with this id.
    case after(Int64)
    /// Right before the row with this id.
    case before(Int64)
    /// At this index; past the end means the end.
    case toIndex(Int)
}

extension TableStore {
    /// A store without an index budget holds every table in memory (or in none).
    public func indexPlacement(of table: String) async throws -> IndexPlacement { .memory }

    /// A store that makes its indexes with their table's rows has none pending.
    public func indexesPending(of table: String) async throws -> Bool { false }

    /// A store that makes its indexes with their table's rows has none to make.
    public func buildIndexes() async throws {}

    @discardableResult
    public func placeIndexes() async throws -> [String: IndexPlacement] {
        Dictionary(try await tables().map { ($0.name, .memory) }, uniquingKeysWith: { first, _ in first })
    }

    /// The schema alone: a store that keeps nothing else reads the catalog again for each
    /// page and row.
    public func table(_ name: String) async throws -> StoredTable {
        StoredTable(schema: try await schema(of: name))
    }

    public func page(of table: StoredTable, _ request: PageRequest) async throws -> TablePage {
        try await page(of: table.schema.name, request)
    }

    public func row(_ id: Int64, in table: StoredTable) async throws -> TableRow {
        try await row(id, in: table.schema.name)
    }

    /// A store that reads views page by page only: ``StreamedPages/notStreamed``.
    public func streamPages(
        of table: StoredTable, _ request: PageRequest, _ body: (TablePage) async throws -> Void
    ) async throws -> StreamedPages {
        .notStreamed
    }

    /// Moves rows `ids` as one block, in the order listed (see
    /// ``move(_:in:to:keepingOrder:)``).
    ///
    ///     try await store.move([7, 3, 9], in: "books", to: .after(12))   // 12, 7, 3, 9
    public func move(_ ids: [Int64], in table: String, to destination: MoveDestination) async throws {
        try await move(ids, in: table, to: destination, keepingOrder: false)
    }
}

/// The checks of bulk deletes and block moves, shared by the stores.
enum _BlockMove {
    /// The most rows one bulk delete may name.
    static let maxIDs = 100_000
    /// The most rows one block move may name (the transaction holds the list's lock; a block
    /// that doesn't fit its gap is placed row by row).
    static let maxMoveIDs = 10_000

    /// Throws for an empty or oversized list or a repeated id.
    static func checkIDs(_ ids: [Int64], most: Int = maxIDs) throws {
        guard !ids.isEmpty else { throw TableStoreError.invalid("ids is empty: name at least one row") }
        guard ids.count <= most else { throw TableStoreError.invalid("ids names \(ids.count) rows; the most is \(most)") }
        var seen = Set<Int64>()
        for id in ids where !seen.insert(id).inserted { throw TableStoreError.invalid("ids names row \(id) twice") }
    }

    /// Checks a block move and returns its anchor.
    static func check(_ ids: [Int64], _ destination: MoveDestination) throws -> Int64 {
        try checkIDs(ids, most: maxMoveIDs)
        let anchor: Int64
        switch destination {
        case .after(let id), .before(let id): anchor = id
        case .toIndex: throw TableStoreError.invalid("a block moves after or before a row, not to an index")
        }
        guard !ids.contains(anchor) else { throw TableStoreError.invalid("row \(anchor) is in the block; it can't be its anchor") }
        return anchor
    }
}
