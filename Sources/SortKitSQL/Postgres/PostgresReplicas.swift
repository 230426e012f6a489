import Foundation
import Logging
import PostgresNIO
import SortKit
import Synchronization

/// Where a ``PostgresTableStore`` reads: its read replicas (streaming standbys) in turn, each
/// read once the replica has replayed what this store wrote or read before, else the primary.
///
/// Written here rather than taken from a library: PostgresNIO pools connections to one server
/// and knows nothing of replication positions.
final class _PostgresReplicas: Sendable {
    /// One pool per replica.
    let clients: [PostgresClient]
    /// The longest a read waits for the replica to replay the store's floor before it reads
    /// from the primary instead.
    let wait: Duration
    /// The longest a read waits for a replica's connection before it leaves the replica out:
    /// ``wait``, and at least 5 s (a loaded machine's new connection, TLS and SCRAM included,
    /// can take seconds; 1 s left healthy standbys out under the test suite's load).
    var connectionWait: Duration { max(wait, .seconds(5)) }
    /// The least WAL position (as a 64-bit number) this store's next read must see: raised by
    /// each write's commit and by each read's position, so a server reads its own writes and
    /// never reads older data than it read before (with several replicas, one may lag). 0
    /// before any.
    private let floor = Atomic<UInt64>(0)
    /// Set when a write's position couldn't be read: reads go to the primary until the next
    /// write's position is.
    private let floorUnknown = Atomic<Bool>(false)
    /// When each replica may be tried again after it couldn't be reached (`nil`: now).
    private let downUntil: Mutex<[ContinuousClock.Instant?]>
    private let turn = Atomic<Int>(0)
    private let counts = Mutex(_ReplicaReads())
    /// How long a replica that couldn't be reached is left out.
    static let backOff = Duration.seconds(30)

    init(urls: [String], maximumConnections: Int, startup: [(String, String)], wait: Duration, logger: Logger) throws {
        clients = try urls.map { url in
            var configuration = try PostgresClient.Configuration(url: url)
            configuration.options.maximumConnections = maximumConnections
            configuration.options.additionalStartupParameters = startup
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
        downUntil = Mutex(urls.map { _ in nil })
        self.wait = wait
    }

    /// The replica the next read tries (its place in ``clients``): the next in turn that isn't
    /// left out; `nil` for none, or while the floor is unknown.
    func next() -> Int? {
        guard !clients.isEmpty, !floorUnknown.load(ordering: .relaxed) else { return nil }
        let now = ContinuousClock.now, first = turn.add(1, ordering: .relaxed).oldValue, count = clients.count
        return downUntil.withLock { downUntil in
            (0..<count).lazy.map { (first + $0) % count }.first { downUntil[$0].map { $0 <= now } ?? true }
        }
    }

    /// Leaves replica `index` out for ``backOff``.
    func unreachable(_ index: Int) {
        downUntil.withLock { $0[index] = .now + Self.backOff }
    }

    /// Raises the floor to WAL position `position` (`X/Y`), which a commit or a read reached;
    /// `nil` (a write whose position couldn't be read) sends reads to the primary until a write's is.
    func reached(_ position: String?, byWrite: Bool) {
        guard let position, let value = Self.number(position) else {
            if byWrite { floorUnknown.store(true, ordering: .relaxed) }
            return
        }
        floor.max(value, ordering: .relaxed)
        if byWrite { floorUnknown.store(false, ordering: .relaxed) }
    }

    /// The floor as PostgreSQL spells a position.
    var floorPosition: String {
        let value = floor.load(ordering: .relaxed)
        return String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    func count(_ read: @Sendable (inout _ReplicaReads) -> Void) {
        counts.withLock { read(&$0) }
    }

    var reads: _ReplicaReads { counts.withLock { $0 } }

    /// `X/Y` (two hexadecimal halves) as one number.
    static func number(_ position: String) -> UInt64? {
        let halves = position.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(\.isHexDigit) }), let high = UInt64(halves[0], radix: 16),
            let low = UInt64(halves[1], radix: 16), high <= 0xFFFF_FFFF,
            low <= 0xFFFF_FFFF
        else { return nil }
        return high << 32 | low
    }
}

/// Where a store's reads went, for tests.
package struct _ReplicaReads: Sendable, Equatable {
    /// Reads a replica answered.
    package var replica = 0
    /// Reads the primary answered because the replica hadn't replayed this store's last write
    /// in time.
    package var behind = 0
    /// Reads the primary answered because the replica couldn't be reached.
    package var unreachable = 0
}

extension UInt8 {
    fileprivate var isHexDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self) }
}

/// A replica that hadn't replayed this store's last write within the wait.
struct _ReplicaBehind: Error {}

extension PostgresTableStore {
    /// Where this store's reads went: replicas, or the primary and why.
    package var _replicaReads: _ReplicaReads { replicas.reads }

    /// Runs `body`'s reads on a replica that has replayed this store's floor (its writes, and
    /// what it read before), or on the primary if none is configured or reachable, or none
    /// catches up within the wait.
    func readTransaction<T: Sendable>(budget: Duration? = nil, _ body: (_PostgresSession) async throws -> T) async throws -> T {
        if let index = replicas.next() {
            let replicas = replicas, floor = replicas.floorPosition
            do {
                let value = try await Self.transaction(
                    replicas.clients[index], logger, budget: budget, connectionWait: replicas.connectionWait,
                    ready: { session in
                        let position = try await Self.awaitReplay(of: floor, on: session, within: replicas.wait)
                        replicas.reached(position, byWrite: false)
                    }, body)
                replicas.count { $0.replica += 1 }
                return value
            } catch is _ReplicaBehind {
                replicas.count { $0.behind += 1 }
            } catch let error as TableStoreError where error.kind == .unavailable {
                logger.warning(
                    "a read replica can't be reached; reading from the primary, and from the replica again in \(_PostgresReplicas.backOff)",
                    metadata: ["error": "\(error)"])
                replicas.unreachable(index)
                replicas.count { $0.unreachable += 1 }
            }
        }
        return try await Self.transaction(client, logger, budget: budget, connectionWait: connectionWait, body)
    }

    /// Runs `body` in a write transaction on `client` (the primary) and, with replicas, raises
    /// the floor to the WAL position after its commit, which the next reads wait for.
    static func writeTransaction<T: Sendable>(
        _ client: PostgresClient, _ replicas: _PostgresReplicas, _ logger: Logger, connectionWait: Duration?,
        _ body: (_PostgresSession) async throws -> T
    ) async throws -> T {
        guard !replicas.clients.isEmpty else { return try await transaction(client, logger, connectionWait: connectionWait, body) }
        return try await transaction(
            client, logger, connectionWait: connectionWait,
            committed: { session in
                // The insert position: at or after the commit record even where commits don't
                // wait for their WAL to be written (synchronous_commit = off).
                let position = try? await session.value("SELECT pg_current_wal_insert_lsn()::text")
                if case .text(let position)? = position {
                    replicas.reached(position, byWrite: true)
                } else {
                    logger.warning("the primary's WAL position after a write couldn't be read; reading from the primary until the next write")
                    replicas.reached(nil, byWrite: true)
                }
            }, body)
    }

    /// Waits until the server behind `session` has replayed the primary's WAL up to
    /// `position` (a standby), or holds it (a primary, or a promoted standby), polling with a
    /// back-off from 2 to 50 ms; returns the position it reached, or throws
    /// ``_ReplicaBehind`` after `wait`.
    static func awaitReplay(of position: String, on session: _PostgresSession, within wait: Duration) async throws -> String? {
        let clock = ContinuousClock(), deadline = clock.now + wait
        var pause = Duration.milliseconds(2)
        while true {
            let row = try await session.select(
                """
                WITH p AS (SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END AS lsn)
                SELECT coalesce(lsn >= $1::pg_lsn, false)::int, lsn::text FROM p
                """, [.text(position)]
            ).first
            if row?[0].integer == 1 { return row?[1].cell }
            guard clock.now + pause < deadline else { throw _ReplicaBehind() }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Runs `body` with a connection of `client`, or throws ``TableStoreError/Kind/unavailable``
    /// if none is leased within `wait`. PostgresNIO's pool keeps a request waiting while it
    /// retries a server that refuses connections, until its circuit breaker trips a minute
    /// later; a lost primary has to answer 503 sooner than that.
    static func leased<T: Sendable>(
        _ client: PostgresClient, within wait: Duration?, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        guard let wait else { return try await client.withConnection(body) }
        // The lease and the timer race; whichever moves the state first decides, so a body
        // that started is never cancelled by the timer.
        let state = _LeaseState()
        let timeout = TableStoreError(.unavailable, "the PostgreSQL server can't be reached (no connection within \(wait)); try again")
        // `body` runs in the child task while this task waits for the group, which ends before
        // `withoutActuallyEscaping` returns: it never outlives this call, runs once and never
        // beside its caller.
        return try await withoutActuallyEscaping(body) { body in
            let work = _UncheckedBox(body)
            return try await withThrowingTaskGroup(of: _LeaseOutcome<T>.self) { group in
                group.addTask {
                    .value(
                        try await client.withConnection { connection in
                            guard state.start() else { throw timeout }
                            return try await work.value(connection)
                        })
                }
                group.addTask {
                    do {
                        try await Task.sleep(for: wait)
                    } catch {
                        // Cancelled (the caller was): a body that started decides the outcome,
                        // so a write that commits is never reported as failed.
                        guard state.expire() else { return .started }
                        throw error
                    }
                    guard state.expire() else { return .started }
                    throw timeout
                }
                while let outcome = try await group.next() {
                    if case .value(let value) = outcome {
                        group.cancelAll()
                        return value
                    }
                }
                throw CancellationError()
            }
        }
    }
}

private enum _LeaseOutcome<T: Sendable>: Sendable {
    case value(T)
    case started
}

/// A lease's race with its timer: waiting, then started or expired, once.
private final class _LeaseState: Sendable {
    private let value = Atomic<Int>(0) // 0 waiting, 1 started, 2 expired

    func start() -> Bool { value.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged }
    func expire() -> Bool { value.compareExchange(expected: 0, desired: 2, ordering: .relaxed).exchanged }
}
