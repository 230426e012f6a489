import Foundation
import SortKit
import Synchronization

/// A store's in-memory table indexes, kept current with its catalog.
///
/// Every write to a table's rows raises the table's data version and logs the row's id in the
/// same transaction; a schema change raises its schema version. A page request reads both
/// versions (one small query) and, when the index it has is older, brings it up to date: the
/// logged rows are read and merged in (O(n) integer passes per ranking), or, after a schema
/// change or when the log no longer reaches back, the table is read again. So several
/// processes sharing one database answer alike, and a write through one is seen by the next
/// read through another. Refreshes of one store are serialized; pages are computed on
/// snapshots, in parallel, without locks.
///
/// Results that cost a scan — a search's matches, a full sort for a deep page — are kept for
/// the versions they were computed at (a few of each), so paging on and repeated requests
/// don't scan again.
final class _TableIndexCache: Sendable {
    private struct State {
        var indexes: [Int64: _TableIndex] = [:]
        var matches = _Kept<_Matches>()
        var sorts = _Kept<[UInt32]>()
        /// Background ranking builds started, by table state and variants.
        var building: Set<String> = []
    }

    private let state = Mutex(State())
    private let refreshes = _Serial()
    /// Pages with a search, one at a time (see ``searching(_:index:table:budget:_:)``).
    private let scans = _Serial()

    /// The index of `table`, current for the catalog versions a request read: the kept one if it
    /// is, else `refresh`'s (given the kept one, to update it in place where it can).
    func index(
        table: Int64, schemaVersion: Int64, dataVersion: Int64,
        refresh: @escaping @Sendable (_TableIndex?) async throws -> _TableIndex
    ) async throws -> _TableIndex {
        if let index = current(table, schemaVersion: schemaVersion, dataVersion: dataVersion) { return index }
        return try await refreshes.run {
            if let index = self.current(table, schemaVersion: schemaVersion, dataVersion: dataVersion) { return index }
            let old = self.state.withLock { $0.indexes[table] }
            let index = try await refresh(old?.schemaVersion == schemaVersion ? old : nil)
            self.install(index, table: table)
            return index
        }
    }

    private func current(_ table: Int64, schemaVersion: Int64, dataVersion: Int64) -> _TableIndex? {
        state.withLock { state in
            guard let index = state.indexes[table], index.schemaVersion == schemaVersion, index.dataVersion >= dataVersion else { return nil }
            return index
        }
    }

    /// Keeps `index` for `table` (an import's, or a refreshed one), unless a newer one is kept.
    func install(_ index: _TableIndex, table: Int64) {
        state.withLock { state in
            if let kept = state.indexes[table], kept.schemaVersion == index.schemaVersion, kept.dataVersion > index.dataVersion { return }
            state.indexes[table] = index
        }
    }

    /// The most `random=` rankings a table keeps: every seed is a different order, so requests
    /// could otherwise make the index keep a ranking (12 bytes a row) per seed they name, and
    /// update each on every write. Orders by other seeds are built for their request and
    /// dropped.
    static let maxRandomRankings = 2

    /// Adds rankings a request built to the kept index, if it is still the one they were built
    /// on (`random=` ones while fewer than ``maxRandomRankings`` are kept).
    func remember(_ rankings: [KeyVariant: _Ranking], table: Int64, schemaVersion: Int64, dataVersion: Int64) {
        guard !rankings.isEmpty else { return }
        state.withLock { state in
            guard var index = state.indexes[table], index.schemaVersion == schemaVersion, index.dataVersion == dataVersion else { return }
            var randoms = index.rankings.keys.filter(\.isRandom).count
            for (variant, ranking) in rankings where index.rankings[variant] == nil {
                if variant.isRandom {
                    guard randoms < Self.maxRandomRankings else { continue }
                    randoms += 1
                }
                index.rankings[variant] = ranking
            }
            state.indexes[table] = index
        }
    }

    /// The key of a background build of `variants` if it should start: not if one already runs
    /// for the same table state. Call ``finishedBuilding(_:)`` with it when done.
    func startBuilding(_ variants: Set<KeyVariant>, table: Int64, schemaVersion: Int64, dataVersion: Int64) -> String? {
        let key = "\(table)/\(schemaVersion)/\(dataVersion)/" + variants.sorted().map(\.columnName).joined(separator: ",")
        return state.withLock { $0.building.insert(key).inserted } ? key : nil
    }

    /// The variants whose rankings every kept index holds (for tests).
    var keptVariants: [KeyVariant] {
        state.withLock { $0.indexes.values.flatMap(\.rankings.keys) }
    }

    /// Forgets a finished background build.
    func finishedBuilding(_ key: String) {
        state.withLock { _ = $0.building.remove(key) }
    }

    /// Forgets a table's index (it was dropped or replaced).
    func forget(table: Int64) {
        state.withLock { _ = $0.indexes.removeValue(forKey: table) }
    }

    /// Runs `body`, a page from `index`, directly, or — when `request` searches, which may
    /// scan every row on every core — after the searching pages before it, its scan done first
    /// on the low-priority scan threads (``_ScanThreads``) while this task waits: a stream of
    /// new search terms then keeps one scan going at a time, and sorted pages, which take
    /// microseconds, are served between and beside them instead of queueing behind several.
    func searching<T: Sendable>(
        _ request: PageRequest, index: _TableIndex, table: Int64, budget: Duration, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let searches = !SearchQuery(request.search).isBlank || request.columnSearch.values.contains { !SearchQuery($0).isBlank }
        guard searches else { return try body() }
        return try await scans.run {
            let (search, columnSearch, key) = try index.matchesKey(request, table: table)
            if state.withLock({ $0.matches[key] }) == nil {
                _ = try await _ScanThreads.shared.run {
                    try self.matches(key) { try index.matches(search, columnSearch: columnSearch, budget: budget) }.count
                }
            }
            return try body()
        }
    }

    /// The matches kept under `key`, or `compute`'s, kept.
    func matches(_ key: String, _ compute: () throws -> _Matches) rethrows -> _Matches {
        if let kept = state.withLock({ $0.matches[key] }) { return kept }
        let matches = try compute()
        state.withLock { $0.matches[key] = matches }
        return matches
    }

    /// The sorted slots kept under `key`, or `compute`'s, kept.
    func sorted(_ key: String, _ compute: () -> [UInt32]) -> [UInt32] {
        if let kept = state.withLock({ $0.sorts[key] }) { return kept }
        let slots = compute()
        state.withLock { $0.sorts[key] = slots }
        return slots
    }
}

/// The last few results of one kind, by key; the oldest goes when a ninth comes.
private struct _Kept<Value> {
    private var values: [String: Value] = [:]
    private var keys: [String] = []
    private let limit = 8

    subscript(key: String) -> Value? {
        get { values[key] }
        set {
            if values.updateValue(newValue!, forKey: key) == nil { keys.append(key) }
            if keys.count > limit { values[keys.removeFirst()] = nil }
        }
    }
}

/// Runs async work one piece at a time, in the order it arrives.
///
/// An actor alone doesn't do this: awaiting a nonisolated async closure leaves the actor, so
/// a second call would start while the first runs. The actor only guards a flag and a queue of
/// waiters; the work runs off it.
actor _Serial {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        while busy { await withCheckedContinuation { waiting.append($0) } }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}

extension _TableIndex {
    /// A request's search and column searches, and the key its matches are kept under (this
    /// table's versions, then each term length-prefixed, so no two searches — terms may hold
    /// ',', ':' or '|' — share a key).
    func matchesKey(_ request: PageRequest, table: Int64) throws -> (search: SearchQuery, columnSearch: [Int: SearchQuery], key: String) {
        var columnSearch: [Int: SearchQuery] = [:]
        for (name, text) in request.columnSearch where !SearchQuery(text).isBlank {
            columnSearch[try schema.columnIndex(name)] = SearchQuery(text)
        }
        let search = SearchQuery(request.search)
        let terms = { (query: SearchQuery) in query.terms.map { "\($0.utf8.count):\($0)" }.joined() }
        let filter = terms(search) + "|" + columnSearch.sorted { $0.key < $1.key }.map { "\($0.key)=\(terms($0.value));" }.joined()
        return (search, columnSearch, "\(table)/\(schemaVersion)/\(dataVersion)|" + filter)
    }

    /// The page `request` asks for, sorted by `spec`, from this index: rows, counts and a
    /// cursor (signed with `secret`) after the last row when more follow.
    ///
    /// - Throws: ``TableStoreError`` for an unknown column or a bad cursor; `timedOut` when a
    ///   search's scan runs over `budget`.
    func tablePage(
        _ request: PageRequest, spec: SortSpec, cursor: KeysetCursor?, secret: Data, cache: _TableIndexCache, table: Int64,
        budget: Duration = .seconds(5)
    ) throws -> TablePage {
        let (search, columnSearch, key) = try matchesKey(request, table: table)
        let versions = "\(table)/\(schemaVersion)/\(dataVersion)"
        var filter = key
        var matches = try cache.matches(key) {
            try self.matches(search, columnSearch: columnSearch, budget: budget)
        }
        if !request.excluding.isEmpty {
            matches = excluding(request.excluding, from: matches)
            filter += "|" + request.cursorScope
        }
        // A variant no request has sorted by yet (`title:nocase`): a first page comes from a
        // top-k selection over the cells while its ranking is built in the background, so
        // that first request costs what a ranked one costs, not a full sort.
        let missing = Set(try spec.keys.map { try Self.variant($0, schema: schema) }).subtracting(rankings.keys)
        if !missing.isEmpty, cursor == nil, request.offset + request.limit < 4_096 {
            // A `random=` order past the kept ones isn't built in the background: it would be dropped.
            let full = rankings.keys.filter(\.isRandom).count >= _TableIndexCache.maxRandomRankings
            let toBuild = Array(full ? missing.filter { !$0.isRandom } : missing)
            if !toBuild.isEmpty, let key = cache.startBuilding(Set(toBuild), table: table, schemaVersion: schemaVersion, dataVersion: dataVersion) {
                let index = self
                Task.detached(priority: .utility) {
                    let built = Self.buildRankings(toBuild, cells: index.cells, live: index.live, schema: index.schema)
                    cache.remember(Dictionary(uniqueKeysWithValues: zip(toBuild, built)), table: table,
                                   schemaVersion: index.schemaVersion, dataVersion: index.dataVersion)
                    cache.finishedBuilding(key)
                }
            }
            let slots = try selected(spec, matches: matches, need: request.offset + request.limit + 1)
            return try page(Array(slots.dropFirst(request.offset)), request, spec: spec, matches: matches, secret: secret)
        }
        var built: [KeyVariant: _Ranking] = [:]
        let components = try components(spec, built: &built)
        cache.remember(built, table: table, schemaVersion: schemaVersion, dataVersion: dataVersion)
        var after: (ordinals: [UInt64], id: Int64)? = nil
        var cursorTexts: [String?] = []
        if let cursor {
            // An index cursor: a marker, each key's cell text (null for blank), the row id.
            let values = cursor.values
            guard values.count == spec.keys.count + 2, values.first == .text("index"), case .integer(let id)? = values.last else {
                throw TableStoreError.invalid("invalid cursor: pass the 'next' value of a previous page unchanged")
            }
            let texts: [String?] = values.dropFirst().dropLast().map { value in
                if case .text(let text) = value { return text }
                return nil
            }
            after = (try cursorOrdinals(spec, components: components, texts: texts), id)
            cursorTexts = texts
        }
        let query = _IndexQuery(components: components, matches: matches, after: after)
        let offset = cursor == nil ? request.offset : 0
        let need = offset + request.limit + 1
        let slots: [Int]
        if after == nil, components.count > 1, need > 4_096 {
            // A deep page of a multi-key order: the full sort, kept for the next pages.
            let sorted = cache.sorted(versions + "|" + spec.description + "|" + filter) { self.sortedByComposite(query, need: Int.max) }
            slots = sorted.dropFirst(offset).prefix(request.limit + 1).map(Int.init)
        } else if let after, components.count > 1, let position = cursorPosition(after.id, texts: cursorTexts, spec: spec, matches: matches) {
            // The next page after a cursor whose row is still as the cursor saw it: the rows
            // after its place in the full sort, kept for the pages after it (a download reads
            // every page of a view this way), instead of a pass over every row per page.
            var unbounded = query
            unbounded.after = nil
            let sorted = cache.sorted(versions + "|" + spec.description + "|" + filter) { self.sortedByComposite(unbounded, need: Int.max) }
            if let place = sorted.firstIndex(of: UInt32(position)) {
                slots = sorted[(place + 1)...].prefix(request.limit + 1).map(Int.init)
            } else {
                slots = page(query, offset: offset, limit: request.limit + 1)
            }
        } else {
            slots = page(query, offset: offset, limit: request.limit + 1)
        }
        return try page(slots, request, spec: spec, matches: matches, secret: secret)
    }

    /// The slot of the cursor's row when it is live, matches, and its key cells read as the
    /// cursor recorded them (so its place in the current order is the cursor's place).
    private func cursorPosition(_ id: Int64, texts: [String?], spec: SortSpec, matches: _Matches) -> Int? {
        guard let slot = slot(of: id), live[slot], matches.contains(slot, live: live), texts.count == spec.keys.count else { return nil }
        for (key, text) in zip(spec.keys, texts) {
            guard let column = try? schema.columnIndex(key.column) else { return nil }
            let current = cells.text(slot, column)
            guard (current.isEmpty ? nil : current) == text else { return nil }
        }
        return slot
    }

    /// `matches` without the rows `ids` names (pinned rows shown apart).
    private func excluding(_ ids: [Int64], from matches: _Matches) -> _Matches {
        var flags = matches.matches ?? live
        var count = matches.count
        for id in Set(ids) {
            guard let slot = slot(of: id), live[slot], flags[slot] else { continue }
            flags[slot] = false
            count -= 1
        }
        return _Matches(matches: flags, count: count)
    }

    /// The first `need` matching rows in `spec`'s order by the engine's top-k over the cells
    /// (SortKit's own semantics, enum ranks included), without rankings.
    private func selected(_ spec: SortSpec, matches: _Matches, need: Int) throws -> [Int] {
        var keys: [SortKey<Int>] = []
        for key in spec.keys {
            let variant = try Self.variant(key, schema: schema)
            let type = schema.columns[variant.column].type
            let cells = cells
            // The key reads the text itself, so its transform applies once.
            keys += key.sortKeys(readingText: { slot in cells.text(slot, variant.column) }, columnType: type)
        }
        let slots = (0..<slotCount).filter { matches.contains($0, live: live) }
        return slots.indices(ofMin: need, sortedBy: keys).map { slots[$0] }
    }

    /// The page of `slots` (up to limit + 1, the extra one telling that more follow): rows,
    /// counts, and a cursor after the last row.
    private func page(_ slots: [Int], _ request: PageRequest, spec: SortSpec, matches: _Matches, secret: Data) throws -> TablePage {
        let kept = slots.prefix(request.limit)
        let rows = kept.map { TableRow(id: ids[$0], cells: cells.row($0)) }
        var next: String? = nil
        if slots.count > request.limit, let last = kept.last {
            let columns = try spec.keys.map { try schema.columnIndex($0.column) }
            let texts = columns.map { column -> SQLValue in
                let text = cells.text(last, column)
                return text.isEmpty ? .null : .text(text)
            }
            next = try KeysetCursor(order: request.order.description, search: request.cursorScope, values: [.text("index")] + texts + [.integer(ids[last])])
                .encoded(secret: secret)
        }
        return TablePage(rows: rows, total: liveCount, filtered: matches.count, next: next)
    }
}
