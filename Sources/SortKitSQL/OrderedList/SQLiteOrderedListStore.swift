import Foundation
import GRDB
import OrderKeys

/// Manually ordered lists in SQLite: one row per item with a 64-bit order label, so a move
/// writes one row typically and the order survives restarts.
///
/// ```sql
/// CREATE TABLE ordered_item (
///   list TEXT NOT NULL, id INTEGER NOT NULL, pos INTEGER NOT NULL,
///   PRIMARY KEY (list, id), UNIQUE (list, pos))
/// SELECT id FROM ordered_item WHERE list = ? ORDER BY pos, id
/// ```
///
///     let store = try SQLiteOrderedListStore(path: "lists.sqlite")
///     try store.append(1, to: "reading")
///     try store.append(2, to: "reading")
///     try store.move(2, before: 1, in: "reading")   // one row written
///     try store.ids(in: "reading")                  // [2, 1]
///
/// Every operation is one `BEGIN IMMEDIATE` transaction: the planner (`LabelPlanner`) reads
/// labels inside it, and the writes it returns are applied in two phases — temporary negative
/// labels, then one flip — so the unique constraint never fails midway. Clients name neighbours
/// by id ("move 7 after 3"), never by stale positions; an unknown id throws and changes nothing.
/// Concurrent writers (threads or processes) queue on SQLite's write lock, with a busy timeout.
public final class SQLiteOrderedListStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (creating if needed) the store at `path`, in WAL mode with a busy timeout.
    ///
    /// - Parameters:
    ///   - path: The SQLite file.
    ///   - busyTimeout: How long a writer waits for another's lock before failing.
    public init(path: String, busyTimeout: TimeInterval = 10) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.journalMode = .wal
        database = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        registerMigrations(in: &migrator)
        return migrator
    }

    /// The list table's migrations, shared with stores that keep lists in the same file.
    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v1: ordered_item") { db in
            try db.execute(
                sql: """
                    CREATE TABLE ordered_item (
                      list TEXT NOT NULL,
                      id INTEGER NOT NULL,
                      pos INTEGER NOT NULL,
                      PRIMARY KEY (list, id),
                      UNIQUE (list, pos))
                    """)
        }
    }

    /// A hook for tests: called between the two write phases; throwing aborts the transaction.
    let _betweenPhases = _Hook()

    // MARK: Reading

    /// The ids of `list` in order.
    public func ids(in list: String) throws -> [Int64] {
        try database.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM ordered_item WHERE list = ? ORDER BY pos, id", arguments: [list])
        }
    }

    /// The (id, label) pairs of `list` in order.
    public func entries(in list: String) throws -> [(id: Int64, label: Int64)] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, pos FROM ordered_item WHERE list = ? ORDER BY pos, id", arguments: [list])
                .map { ($0["id"], $0["pos"]) }
        }
    }

    // MARK: Writing

    /// Appends `id` to `list`.
    @discardableResult
    public func append(_ id: Int64, to list: String) throws -> [LabelWrite<Int64>] {
        try insert(id, before: nil, in: list)
    }

    /// Inserts `id` at the front of `list`.
    @discardableResult
    public func prepend(_ id: Int64, to list: String) throws -> [LabelWrite<Int64>] {
        try insert(id, after: nil, in: list)
    }

    /// Inserts `id` right after `predecessor` (at the front if `nil`).
    ///
    ///     try store.insert(3, after: 1, in: "reading")   // 1, 3, 2
    ///
    /// - Throws: `OrderKeyError` for an id already in the list or an unknown predecessor.
    @discardableResult
    public func insert(_ id: Int64, after predecessor: Int64?, in list: String) throws -> [LabelWrite<Int64>] {
        try place(id, .after(predecessor), in: list, moving: false)
    }

    /// Inserts `id` right before `successor` (at the end if `nil`).
    ///
    ///     try store.insert(4, before: nil, in: "reading")   // appends: 1, 3, 2, 4
    ///
    /// - Throws: `OrderKeyError` for an id already in the list or an unknown successor.
    @discardableResult
    public func insert(_ id: Int64, before successor: Int64?, in list: String) throws -> [LabelWrite<Int64>] {
        try place(id, .before(successor), in: list, moving: false)
    }

    /// Moves `id` right after `predecessor` (to the front if `nil`). Usually writes one row;
    /// a move onto itself writes none.
    ///
    /// - Throws: `OrderKeyError` for an id or a predecessor not in the list; nothing changes.
    @discardableResult
    public func move(_ id: Int64, after predecessor: Int64?, in list: String) throws -> [LabelWrite<Int64>] {
        try place(id, .after(predecessor), in: list, moving: true)
    }

    /// Moves `id` right before `successor` (to the end if `nil`). Usually writes one row.
    ///
    ///     try store.move(4, before: 1, in: "reading")   // 4, 1, 3, 2
    @discardableResult
    public func move(_ id: Int64, before successor: Int64?, in list: String) throws -> [LabelWrite<Int64>] {
        try place(id, .before(successor), in: list, moving: true)
    }

    /// Places `id` next to its anchor: a new id (`moving` false: one already in the list
    /// throws), or one taken out of the list first (a move onto itself changes nothing).
    private func place(_ id: Int64, _ placement: _Placement, in list: String, moving: Bool) throws -> [LabelWrite<Int64>] {
        try transaction(list) { reader in
            if moving {
                guard try reader.detach(id, anchor: placement.anchor) else { return [] }
            } else {
                guard try reader.label(of: id) == nil else { throw OrderKeyError.duplicateID(id) }
            }
            var random = SystemRandomNumberGenerator()
            return try LabelPlanner.insert(id, placement, in: reader, using: &random)
        }
    }

    /// Moves the items at `offsets` before the item now at `destination` — SwiftUI `onMove`
    /// semantics, offsets read inside the transaction.
    @discardableResult
    public func move(fromOffsets offsets: some Sequence<Int>, toOffset destination: Int, in list: String) throws -> [LabelWrite<Int64>] {
        let offsets = Array(offsets)
        return try transaction(list) { reader in
            var model = OrderedList<Int64>(seed: UInt64.random(in: 0...UInt64.max))
            let entries = try reader.items(in: 0...(OrderLabels.limit - 1))
            model.apply(entries.map { LabelWrite(id: $0.id, label: $0.label) })
            return try model.move(fromOffsets: offsets, toOffset: destination)
        }
    }

    /// Removes `id` from `list`. Returns whether it was there.
    @discardableResult
    public func remove(_ id: Int64, from list: String) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM ordered_item WHERE list = ? AND id = ?", arguments: [list, id])
            return db.changesCount > 0
        }
    }

    /// Runs a planning step and applies its writes in one immediate transaction.
    private func transaction(
        _ list: String, _ plan: (_SQLiteLabelReader) throws -> [LabelWrite<Int64>]
    ) throws -> [LabelWrite<Int64>] {
        try database.writeWithoutTransaction { db in
            var writes: [LabelWrite<Int64>] = []
            try db.inTransaction(.immediate) {
                writes = try plan(_SQLiteLabelReader(db: db, list: list))
                try apply(writes, to: list, in: db)
                return .commit
            }
            return writes
        }
    }

    /// Phase 1 parks every written row at a unique negative label (−label − 1); phase 2 flips
    /// them all at once. Existing labels are never negative, so nothing collides.
    private func apply(_ writes: [LabelWrite<Int64>], to list: String, in db: Database) throws {
        for write in writes {
            try db.execute(
                sql: """
                    INSERT INTO ordered_item (list, id, pos) VALUES (?, ?, ?)
                    ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos
                    """,
                arguments: [list, write.id, -Int64(write.label) - 1])
        }
        try _betweenPhases.run()
        try db.execute(sql: "UPDATE ordered_item SET pos = -pos - 1 WHERE list = ? AND pos < 0", arguments: [list])
    }

    // MARK: Integrity

    /// Problems in `list`: labels outside [0, 2^62) (as an outside writer may leave them).
    /// Uniqueness is enforced by the table's constraint. Empty when the list is valid.
    public func verify(_ list: String) throws -> [String] {
        try database.read { db in
            let outside =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM ordered_item WHERE list = ? AND (pos < 0 OR pos >= ?)",
                    arguments: [list, Int64(OrderLabels.limit)]) ?? 0
            return outside == 0 ? [] : ["\(outside) labels outside [0, 2^62) in list '\(list)'"]
        }
    }

    /// Re-spaces every label of `list` evenly, keeping the current order (`pos`, then `id`).
    /// Returns the number of rows rewritten.
    @discardableResult
    public func repair(_ list: String) throws -> Int {
        try database.writeWithoutTransaction { db in
            var count = 0
            try db.inTransaction(.immediate) {
                let ids = try Int64.fetchAll(db, sql: "SELECT id FROM ordered_item WHERE list = ? ORDER BY pos, id", arguments: [list])
                count = ids.count
                let writes = ids.enumerated().map { k, id in
                    LabelWrite(id: id, label: UInt64((Int128(2 * k + 1) * Int128(OrderLabels.limit)) / Int128(2 * ids.count)))
                }
                // Park every row at a temporary label first, so a corrupt negative label can't collide.
                try db.execute(sql: "UPDATE ordered_item SET pos = ? - id WHERE list = ?", arguments: [Int64.min / 2, list])
                try apply(writes, to: list, in: db)
                return .commit
            }
            return count
        }
    }
}

/// Reads labels of one list inside the current transaction.
struct _SQLiteLabelReader: LabelReader {
    let db: Database
    let list: String

    func label(of id: Int64) throws -> UInt64? {
        try Int64.fetchOne(db, sql: "SELECT pos FROM ordered_item WHERE list = ? AND id = ?", arguments: [list, id]).map(UInt64.init)
    }

    func label(after label: UInt64) throws -> UInt64? {
        try Int64.fetchOne(db, sql: "SELECT MIN(pos) FROM ordered_item WHERE list = ? AND pos > ?", arguments: [list, Int64(label)]).map(UInt64.init)
    }

    func label(before label: UInt64) throws -> UInt64? {
        try Int64.fetchOne(db, sql: "SELECT MAX(pos) FROM ordered_item WHERE list = ? AND pos < ?", arguments: [list, Int64(label)]).map(UInt64.init)
    }

    func firstLabel() throws -> UInt64? {
        try Int64.fetchOne(db, sql: "SELECT MIN(pos) FROM ordered_item WHERE list = ?", arguments: [list]).map(UInt64.init)
    }

    func lastLabel() throws -> UInt64? {
        try Int64.fetchOne(db, sql: "SELECT MAX(pos) FROM ordered_item WHERE list = ?", arguments: [list]).map(UInt64.init)
    }

    func count(in range: ClosedRange<UInt64>) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM ordered_item WHERE list = ? AND pos BETWEEN ? AND ?",
            arguments: [list, Int64(range.lowerBound), Int64(range.upperBound)]) ?? 0
    }

    func items(in range: ClosedRange<UInt64>) throws -> [(id: Int64, label: UInt64)] {
        try Row.fetchAll(
            db, sql: "SELECT id, pos FROM ordered_item WHERE list = ? AND pos BETWEEN ? AND ? ORDER BY pos",
            arguments: [list, Int64(range.lowerBound), Int64(range.upperBound)]
        ).map { ($0["id"], UInt64($0["pos"] as Int64)) }
    }

    /// Takes `id` out of the list for a move, after checking both ids exist. Returns `false`,
    /// changing nothing, when the move is onto `id` itself.
    func detach(_ id: Int64, anchor: Int64?) throws -> Bool {
        guard try label(of: id) != nil else { throw OrderKeyError.unknownID(id) }
        if let anchor, try label(of: anchor) == nil { throw OrderKeyError.unknownID(anchor) }
        if anchor == id { return false }
        try db.execute(sql: "DELETE FROM ordered_item WHERE list = ? AND id = ?", arguments: [list, id])
        return true
    }
}

/// A test hook that can make an operation fail between its two write phases.
final class _Hook: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (() throws -> Void)?

    func set(_ action: (() throws -> Void)?) { lock.withLock { self.action = action } }
    func run() throws { try lock.withLock { action }?() }
}
