import Foundation
import SortKit

/// What the store core asks of a database inside a transaction or a read: statements with
/// ``SQLValue`` arguments and rows of ``SQLValue``s (docs/ARCHITECTURE.md, §4).
///
/// The core writes its SQL once, with PostgreSQL's `$1`, `$2`, … placeholders (SQLite reads
/// them as `?1`, `?2`, …), and asks ``SQLDialect`` for the few spellings that differ.
protocol _SQLSession: Sendable {
    /// The rows of `sql` with `values` bound to `$1`, `$2`, …, each as its values. A `long`
    /// statement reads or writes a whole table (or builds its index): a session that waits for
    /// short statements in place runs it without holding a thread.
    func select(_ sql: String, _ values: [SQLValue], long: Bool) async throws -> [[SQLValue]]
    /// Runs a statement (`long`: as in ``select(_:_:long:)``).
    func execute(_ sql: String, _ values: [SQLValue], long: Bool) async throws
}

extension _SQLSession {
    func select(_ sql: String, _ values: [SQLValue] = []) async throws -> [[SQLValue]] {
        try await select(sql, values, long: false)
    }

    func execute(_ sql: String, _ values: [SQLValue] = []) async throws {
        try await execute(sql, values, long: false)
    }

    /// The first column of the first row, if any.
    func value(_ sql: String, _ values: [SQLValue] = []) async throws -> SQLValue? {
        try await select(sql, values).first?.first
    }

    /// The first column of the first row as an integer; `nil` for no row or NULL.
    func integer(_ sql: String, _ values: [SQLValue] = []) async throws -> Int64? {
        try await value(sql, values)?.integer
    }

    /// The first column of every row as integers.
    func integers(_ sql: String, _ values: [SQLValue] = []) async throws -> [Int64] {
        try await select(sql, values).compactMap { $0.first?.integer }
    }
}

extension SQLValue {
    /// The value as an integer (`nil` for NULL or another kind).
    var integer: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }

    /// The value as a cell's text: NULL is the empty cell.
    var cell: String {
        if case .text(let text) = self { return text }
        return ""
    }
}

/// How the core's row reads and writes are spelled in each dialect: the named differences
/// between the two stores' SQL.
extension SQLDialect {
    /// Row ids as one statement argument, read by ``inIDs(_:)``: a JSON array for SQLite's
    /// `json_each`, an array literal for PostgreSQL's `bigint[]`. No list of placeholders to
    /// build, and no limit on its length.
    func ids(_ ids: [Int64]) -> SQLValue {
        let list = ids.map(String.init).joined(separator: ",")
        return .text(self == .sqlite ? "[" + list + "]" : "{" + list + "}")
    }

    /// `IN` the ids bound to parameter `n` (see ``ids(_:)``).
    func inIDs(_ n: Int) -> String {
        self == .sqlite ? "IN (SELECT value FROM json_each($\(n)))" : "= ANY($\(n)::bigint[])"
    }

    /// The ids bound to parameter `n` as a table of `row_id` and its place `n` from 0.
    func numberedIDs(_ n: Int) -> String {
        self == .sqlite
            ? "(SELECT value AS row_id, key AS n FROM json_each($\(n))) AS numbered"
            : "(SELECT row_id, n - 1 AS n FROM unnest($\(n)::bigint[]) WITH ORDINALITY AS u(row_id, n)) AS numbered"
    }

    /// The ids bound to parameter `n` beside the labels bound to `n + 1`, as a table of
    /// `id` and `pos`.
    func idsAndLabels(_ n: Int) -> String {
        self == .sqlite
            ? "(SELECT i.value AS id, p.value AS pos FROM json_each($\(n)) AS i JOIN json_each($\(n + 1)) AS p ON p.key = i.key) AS z"
            : "unnest($\(n)::bigint[], $\(n + 1)::bigint[]) AS z(id, pos)"
    }

    /// Whether a `WITH` can hold a `DELETE … RETURNING` (PostgreSQL): two statements in one
    /// round trip.
    var writesInWith: Bool { self == .postgresql }

    /// A boolean literal.
    func boolean(_ value: Bool) -> String {
        self == .sqlite ? (value ? "1" : "0") : (value ? "true" : "false")
    }

    /// The row id column of a new table; without its primary key when `keyLater` (see
    /// `createIndexes`).
    func idColumn(keyLater: Bool) -> String {
        self == .sqlite ? "id INTEGER PRIMARY KEY" : keyLater ? "id bigserial NOT NULL" : "id bigserial PRIMARY KEY"
    }

    /// A cell's column: text compared by code point.
    var textColumn: String { self == .sqlite ? "TEXT" : "text COLLATE \"C\"" }

    /// A sort key's column.
    var blobColumn: String { self == .sqlite ? "BLOB" : "bytea" }

    /// A typed value's column. SQLite's NUMERIC keeps an integral float as an INTEGER (exact
    /// beyond 2^53, and SQLite compares INTEGER with REAL exactly) and a fractional one as a
    /// REAL. (SQLite tables made before kept REAL columns: their integers beyond 2^53 are
    /// rounded where SQL orders by them; the in-memory index is exact.)
    func typedColumn(_ type: ColumnType) -> String {
        switch (self, type) {
        case (.sqlite, .integer), (.sqlite, .bool): "INTEGER"
        case (.sqlite, .float): "NUMERIC"
        case (.sqlite, _): "REAL"
        case (_, .integer), (_, .bool): "bigint"
        default: "double precision"
        }
    }

    /// A new table's id: SQLite's is above every id given before, dropped tables' included
    /// (see `dropTable`); PostgreSQL's sequence never gives one twice.
    var newTableID: String {
        self == .sqlite
            ? """
            max((SELECT coalesce(max(id), 0) FROM sortkit_table),
              (SELECT coalesce(max(CAST(value AS INTEGER)), 0) FROM sortkit_meta WHERE key = 'last-table-id')) + 1
            """
            : "DEFAULT"
    }

    /// A row lock on what a `SELECT` reads, to the end of the transaction: PostgreSQL's
    /// `FOR NO KEY UPDATE` or `FOR UPDATE`. SQLite's writes already hold the database's write lock.
    func locking(_ lock: _CatalogLock) -> String {
        guard self == .postgresql else { return "" }
        switch lock {
        case .none: return ""
        case .rows: return " FOR NO KEY UPDATE"
        case .update: return " FOR UPDATE"
        }
    }
}

/// How a write holds a table's catalog entry (see ``SQLDialect/locking(_:)``).
///
/// A row write takes it `FOR NO KEY UPDATE`: it raises the entry's data version before it
/// commits, which needs that lock anyway. Taken first, it orders the table's writers at the
/// start; a `FOR SHARE` lock raised to it later deadlocked two concurrent writers (each held
/// the share the other's raise waited for). A schema change takes it `FOR UPDATE`, so that no
/// row write runs under it.
enum _CatalogLock {
    case none, rows, update
}
