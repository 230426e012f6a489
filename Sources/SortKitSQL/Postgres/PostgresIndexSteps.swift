import Foundation
import PostgresNIO
import Synchronization

/// PostgreSQL's steps of ``_IndexBuilder``: each makes one index with `CREATE INDEX
/// CONCURRENTLY`, outside a transaction, so the table's reads and writes go on meanwhile.
extension PostgresTableStore {
    /// Makes one index that a table served from the database lacks, drops one that a failed
    /// build left invalid, or marks a table whose indexes are all made (its comment goes from
    /// ``indexesPendingMark`` to ``columnIndexesMark``); returns whether it did one of these
    /// (`false`: nothing is left). A table whose step fails doesn't hold up the others.
    ///
    /// A PostgreSQL B-tree entry holds at most 2,704 bytes: a text column whose keys pass
    /// 2,000 bytes gets no index (its pages sort without one). The indexes include the key
    /// column itself: PostgreSQL reads an index alone (an index-only scan) only when it holds
    /// every column the query reads, and an expression's column isn't held. So a deep page's
    /// walk to its offset reads the index, not a heap row per entry (an offset of 500,000:
    /// 1.35 s → 0.1 s). Included, a key counts twice in an entry: a column whose keys pass
    /// 1,000 bytes gets its index without it.
    func indexStep() async throws -> Bool { try await indexStepper() }

    /// ``indexStep()`` holding what it needs but not the store: a step waits for the
    /// transactions older than its build, and a store freed meanwhile closes its connections
    /// (the step then fails and is left).
    var indexStepper: _IndexBuilder.Step {
        let steps = _PostgresIndexSteps(client: client, logger: logger, indexFacts: indexFacts)
        return { [builder] in try await builder.exclusive { try await steps.step() } }
    }
}

/// What a PostgreSQL step of ``_IndexBuilder`` reads and writes (see
/// ``PostgresTableStore/indexStep()``).
struct _PostgresIndexSteps: Sendable {
    typealias Store = PostgresTableStore
    let client: PostgresClient
    let logger: Logger
    let indexFacts: _IndexFacts

    func step() async throws -> Bool {
        try await client.withConnection { connection in
            let session = _PostgresSession(connection: connection, logger: logger)
            let tables = try await session.select(
                """
                SELECT \(Store.catalogColumns) FROM sortkit_table WHERE db_index IS NOT NULL
                AND obj_description(to_regclass('st_' || id), 'pg_class') = $1 ORDER BY id
                """, [.text(Store.indexesPendingMark)])
            var failure: (any Error)?
            for info in try tables.map(Store.decodeInfo) {
                do {
                    if let done = try await self.indexStep(info, session) { return done }
                } catch {
                    failure = failure ?? error
                }
            }
            if let failure { throw failure }
            return false
        }
    }

    /// The step for table `info`: `nil` when it has nothing to do there (another session is
    /// making one of its indexes).
    private func indexStep(_ info: _TableInfo, _ session: _PostgresSession) async throws -> Bool? {
        let table = info.physical
        var present: Set<String> = []
        for row in try await Self.indexes(of: table, session) {
            let name = row[0].cell
            if row[1].integer == 1 {
                present.insert(name)
            } else if row[2].integer == 1 {
                // Being made by another session (another server on this database).
                return nil
            } else {
                // Left invalid by a build that failed (a crash, a lost connection): made again,
                // twice at most in this process's life, then left without an index.
                let key = "\(info.id).\(info.schemaVersion).\(name)"
                let failures = indexFacts.withLock { facts in
                    facts.failures[key, default: 0] += 1
                    return facts.failures[key]!
                }
                try await session.execute("DROP INDEX CONCURRENTLY IF EXISTS \(SQLDialect.postgresql.quoted(name))", [], long: true)
                if failures > 2 {
                    logger.warning("gave up making an index after three failed builds", metadata: ["table": "\(info.schema.name)", "index": "\(name)"])
                }
                return true
            }
        }
        for index in try Store.databaseIndexes(info) where !present.contains(index.name(info)) {
            let facts = "\(info.id).\(info.schemaVersion).\(index.name(info))"
            if indexFacts.withLock({ $0.failures[facts, default: 0] > 2 }) { continue }
            let statement: String
            switch index {
            case .column(let name, let columns, let key):
                var include = key.map { " INCLUDE (\($0))" } ?? ""
                if let key {
                    // Both directions' indexes share the key column: one scan for both.
                    let known = "\(info.id).\(info.schemaVersion).\(key)"
                    let longest: Int64
                    if let found = indexFacts.withLock({ $0.longest[known] }) {
                        longest = found
                    } else {
                        longest = try await session.select("SELECT coalesce(max(octet_length(\(key))), 0) FROM \(table)").first?.first?.integer ?? 0
                        indexFacts.withLock { $0.longest[known] = longest }
                    }
                    if longest > 2_000 { continue }
                    if longest > 1_000 { include = "" }
                }
                statement = "CREATE INDEX CONCURRENTLY IF NOT EXISTS \(name) ON \(table) (\(columns))\(include)"
            case .search:
                let find = "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'"
                // (Made by the write that served the table: ``trigramSchema(_:_:)``.)
                guard let extensionSchema = try await session.select(find).first?.first?.cell else {
                    throw TableStoreError.invalid("the pg_trgm extension for the search index of '\(info.schema.name)' is gone")
                }
                statement = "CREATE INDEX CONCURRENTLY IF NOT EXISTS \(info.searchIndex) ON \(table) USING gin (s \(extensionSchema).gin_trgm_ops)"
            }
            // PostgreSQL builds an index in memory up to `maintenance_work_mem` (64 MB by
            // default) and spills beyond it; a role's or database's timeouts would fail a
            // build of a big table again and again. For this statement only.
            let settings = ["maintenance_work_mem = '512MB'", "statement_timeout = 0", "lock_timeout = 0"]
            for setting in settings { try await session.execute("SET \(setting)") }
            do {
                try await session.execute(statement, [], long: true)
            } catch {
                try? await session.execute("RESET ALL")
                throw error
            }
            try await session.execute("RESET ALL")
            return true
        }
        // Marked in a transaction that locks out schema changes (which drop the column indexes
        // and mark the table pending again under an exclusive lock) and finds every index
        // again: a change that came after the look above leaves the table pending, for the
        // next step.
        try await session.execute("BEGIN")
        do {
            try await session.execute("LOCK TABLE \(table) IN SHARE UPDATE EXCLUSIVE MODE", [], long: true)
            let valid = Set(try await Self.indexes(of: table, session).filter { $0[1].integer == 1 }.map { $0[0].cell })
            let mark = try await session.select("SELECT coalesce(obj_description('\(table)'::regclass, 'pg_class'), '')")
            if valid.isSuperset(of: present), mark.first?.first?.cell == Store.indexesPendingMark {
                try await session.execute("COMMENT ON TABLE \(table) IS '\(Store.columnIndexesMark)'")
            }
            try await session.execute("COMMIT")
        } catch {
            try? await session.execute("ROLLBACK")
            throw error
        }
        return true
    }

    /// The indexes of table `table`: each one's name, whether it is valid, and whether a
    /// session is making it now (1 or 0).
    private static func indexes(of table: String, _ session: _PostgresSession) async throws -> [[SQLValue]] {
        try await session.select(
            """
            SELECT c.relname, i.indisvalid::int, EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = c.oid)::int
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = to_regclass($1)
            """, [.text(table)])
    }
}

extension PostgresTableStore {
    /// Whether table `table` is served from the database and its indexes are being made (its
    /// comment says so until the builder has made them all).
    public func indexesPending(of table: String) async throws -> Bool {
        let pending = try await read { session in
            let rows = try await session.select(
                """
                SELECT coalesce(obj_description(to_regclass('st_' || id), 'pg_class'), '') FROM sortkit_table
                WHERE name = $1 AND db_index IS NOT NULL
                """, [.text(table)])
            return rows.first?.first?.cell == Self.indexesPendingMark
        }
        // A run that gave up (the primary unreachable throughout its retries) starts again
        // when someone asks.
        if pending { databaseIndexesMissing() }
        return pending
    }
}

/// What the builder learned of a PostgreSQL index (by table id, schema version and index
/// name): the longest key of its key column, and how often a build of it failed.
final class _IndexFacts: Sendable {
    typealias Facts = (longest: [String: Int64], failures: [String: Int])
    private let facts = Mutex<Facts>(([:], [:]))

    func withLock<T: Sendable>(_ body: (inout Facts) -> T) -> T { facts.withLock { body(&$0) } }
}
