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
/// Rankings are kept under the byte budgets of ``IndexLimits``, the least recently used going
/// first; a write updates only the rankings kept. Results that cost a scan — a search's
/// matches, a full sort for a deep page — are kept for the versions they were computed at (a
/// few of each), so paging on and repeated requests don't scan again.
final class _TableIndexCache: Sendable {
    private struct State {
        var indexes: [Int64: _TableIndex] = [:]
        var matches = _Kept<_Matches>()
        var sorts = _Kept<[UInt32]>()
        /// The first rows of orders no ranking holds yet (``firstRowsKept(_:)`` each).
        var firstRows = _Kept<[UInt32]>()
        /// Background ranking builds running, by table state and variants.
        var building: Set<String> = []
        /// Per table and variant, when a request last read the ranking (a tick of `clock`).
        var lastUse: [Int64: [KeyVariant: UInt64]] = [:]
        var clock: UInt64 = 0
        /// Per table, the line its searches wait in.
        var lines: [Int64: _Line] = [:]
        /// Per table placed under ``IndexLimits/indexBytes``, its index's estimated bytes
        /// (held in memory) or `nil` (served from the database).
        var placed: [Int64: Int?] = [:]
        /// Bytes claimed by imports running, not placed yet.
        var claimed = 0
    }

    private let state = Mutex(State())
    private let refreshes = _Line()
    let limits: IndexLimits
    /// Whole orders of tables served from the database, in the room the held indexes leave.
    let orders = _KeptOrders()

    init(limits: IndexLimits = IndexLimits()) {
        self.limits = limits
    }

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
            let kept = old?.schemaVersion == schemaVersion ? old : nil
            let index = try await refresh(kept)
            self.install(index, table: table)
            // What reading the whole table allocated on every core and freed goes back to the
            // system (not after each small update).
            if kept == nil { _returnFreedMemoryToSystemSoon() }
            return index
        }
    }

    private func current(_ table: Int64, schemaVersion: Int64, dataVersion: Int64) -> _TableIndex? {
        state.withLock { state in
            guard let index = state.indexes[table], index.schemaVersion == schemaVersion, index.dataVersion >= dataVersion else { return nil }
            return index
        }
    }

    /// Installs an index an import built beside its transaction, as of the committed table
    /// `info`; nothing for `nil` (a store without in-memory indexes).
    func installImported(_ index: _TableIndex?, _ info: _TableInfo) {
        guard var index else { return }
        index.schemaVersion = info.schemaVersion
        index.dataVersion = info.dataVersion
        install(index, table: info.id)
    }

    /// Keeps `index` for `table` (an import's, or a refreshed one), unless a newer one is kept.
    func install(_ index: _TableIndex, table: Int64) {
        state.withLock { state in
            if let kept = state.indexes[table], kept.schemaVersion == index.schemaVersion, kept.dataVersion > index.dataVersion { return }
            state.indexes[table] = index
            Self.keepWithinBudgets(&state, table: table, limits: limits)
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
        let (added, dropped) = state.withLock { state -> (Bool, Bool) in
            guard var index = state.indexes[table], index.schemaVersion == schemaVersion, index.dataVersion == dataVersion else {
                return (false, false)
            }
            var added = false
            var randoms = index.rankings.keys.filter(\.isRandom).count
            for (variant, ranking) in rankings {
                if let kept = index.rankings[variant] {
                    // A kept ranking with pending writes, brought up to date by a request.
                    guard !kept.isCurrent else { continue }
                } else if variant.isRandom {
                    guard randoms < Self.maxRandomRankings else { continue }
                    randoms += 1
                }
                // A new ranking, not one brought up to date after a few writes.
                added = added || index.rankings[variant] == nil
                index.rankings[variant] = ranking
                state.clock += 1
                state.lastUse[table, default: [:]][variant] = state.clock
            }
            state.indexes[table] = index
            return (added, Self.keepWithinBudgets(&state, table: table, limits: limits))
        }
        // A dropped ranking's memory (megabytes a million rows) goes back to the system once
        // the requests still reading it are done with it, and so does what building a new one
        // allocated on every core and freed.
        if added || dropped { _returnFreedMemoryToSystemSoon() }
    }

    /// Notes that a request read `variants`' rankings of `table` (for the least-recently-used
    /// order in which rankings go).
    func touch(_ variants: some Sequence<KeyVariant>, table: Int64) {
        state.withLock { state in
            state.clock += 1
            for variant in variants { state.lastUse[table, default: [:]][variant] = state.clock }
        }
    }

    /// Drops the least recently used rankings until `table`'s fit its budget and all tables'
    /// fit theirs.
    @discardableResult
    private static func keepWithinBudgets(_ state: inout State, table: Int64, limits: IndexLimits) -> Bool {
        func bytes(_ table: Int64) -> Int { state.indexes[table]?.rankings.values.reduce(0) { $0 + $1.byteCount } ?? 0 }
        // Per table, each default variant's place in its priority, made once for all the drops.
        var priorities: [Int64: [KeyVariant: Int]] = [:]
        func dropOldest(of tables: [Int64]) -> Bool {
            // Rankings no request has read (tick 0) go first, the least important of those first
            // (the last columns' before the first's, every column's before the presets'), not in
            // a dictionary's order.
            var oldest: (table: Int64, variant: KeyVariant, tick: UInt64, rank: Int)?
            for table in tables {
                guard let index = state.indexes[table] else { continue }
                let ranks =
                    priorities[table]
                    ?? Dictionary(
                        ((try? _TableIndex.defaultVariantsByPriority(index.schema)) ?? []).enumerated().map { ($0.element, $0.offset) },
                        uniquingKeysWith: { first, _ in first })
                priorities[table] = ranks
                for variant in index.rankings.keys {
                    // A variant no default names (a request's) is the least important.
                    let tick = state.lastUse[table]?[variant] ?? 0, rank = ranks[variant] ?? Int.max
                    let older = oldest.map { tick < $0.tick || (tick == $0.tick && (rank > $0.rank || (rank == $0.rank && $0.variant < variant))) } ?? true
                    if older { oldest = (table, variant, tick, rank) }
                }
            }
            guard let oldest else { return false }
            state.indexes[oldest.table]?.rankings[oldest.variant] = nil
            state.lastUse[oldest.table]?[oldest.variant] = nil
            return true
        }
        var dropped = false
        while bytes(table) > limits.rankingBytesPerTable, dropOldest(of: [table]) { dropped = true }
        let tables = Array(state.indexes.keys)
        while tables.reduce(0, { $0 + bytes($1) }) > limits.rankingBytes, dropOldest(of: tables) { dropped = true }
        return dropped
    }

    /// What `table`'s index holds now; `nil` when none is loaded.
    func usage(table: Int64) -> IndexUsage? {
        state.withLock { state in
            state.indexes[table].map { index in
                IndexUsage(
                    rows: index.liveCount, rankings: index.rankings.count,
                    rankingBytes: index.rankings.values.reduce(0) { $0 + $1.byteCount }, rankingBudget: limits.rankingBytesPerTable,
                    structureBytes: index.structureBytes)
            }
        }
    }

    /// The key of a background build of `variants` if it should start: not while another one
    /// runs (one build at a time per store bounds the memory and the cores that requests'
    /// first pages can set to work). Call ``finishedBuilding(_:)`` with it when done.
    func startBuilding(_ variants: Set<KeyVariant>, table: Int64, schemaVersion: Int64, dataVersion: Int64) -> String? {
        let key = "\(table)/\(schemaVersion)/\(dataVersion)/" + variants.sorted().map(\.columnName).joined(separator: ",")
        return state.withLock { state in
            guard state.building.isEmpty else { return false }
            return state.building.insert(key).inserted
        } ? key : nil
    }

    /// The tables whose index is held now (for tests).
    var loadedTables: Int {
        state.withLock { $0.indexes.count }
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
        state.withLock { state in
            state.indexes[table] = nil
            state.lastUse[table] = nil
            state.lines[table] = nil
            state.placed[table] = nil
        }
        orders.forget(table: table)
    }

    // MARK: Placement under the index budget

    /// Whether an index of `bytes` fits ``IndexLimits/indexBytes`` beside those held and
    /// claimed (always, without a budget); if so the bytes are counted at once (two imports
    /// at the same time can't both take the room one has) until ``place(_:bytes:inMemory:)``
    /// or ``release(_:)``.
    func claim(_ bytes: Int) -> Bool {
        guard let budget = limits.indexBytes else { return true }
        return state.withLock { state in
            let held = Self.held(state)
            guard held + bytes <= budget else { return false }
            // Kept orders give their room back to an index.
            orders.free(held + bytes + orders.bytes - budget)
            state.claimed += bytes
            return true
        }
    }

    /// Keeps a whole order of a table served from the database in the room the held and
    /// claimed indexes leave (``_KeptOrders``); `false` without a budget or room.
    func keepOrder(_ ids: [Int64], key: String, table: Int64) -> Bool {
        guard let budget = limits.indexBytes else { return false }
        // Under the lock a claim takes: no claim counts its bytes between the room and the keep.
        return state.withLock { state in orders.keep(ids, key: key, table: table, room: budget - Self.held(state)) }
    }

    /// The bytes kept orders may take: what the held and claimed indexes leave of
    /// ``IndexLimits/indexBytes`` (none without a budget).
    var roomForOrders: Int {
        guard let budget = limits.indexBytes else { return 0 }
        return state.withLock { state in budget - Self.held(state) }
    }

    /// The bytes of the indexes held in memory and claimed by imports.
    private static func held(_ state: State) -> Int {
        state.claimed + state.placed.values.reduce(0, { $0 + ($1 ?? 0) })
    }

    /// Gives back an import's claim that won't be placed (the import failed).
    func release(_ bytes: Int) {
        guard limits.indexBytes != nil else { return }
        state.withLock { $0.claimed -= bytes }
    }

    /// Records where `table` is served from under a budget: in memory, its claim of `bytes`
    /// now held by it, or from the database.
    func place(_ table: Int64, bytes: Int, inMemory: Bool) {
        guard limits.indexBytes != nil else { return }
        state.withLock { state in
            if inMemory { state.claimed -= bytes }
            state.placed[table] = inMemory ? bytes : Int?.none
            if !inMemory { state.indexes[table] = nil }
        }
    }

    /// Where `table` was placed, if it was.
    func placement(_ table: Int64) -> IndexPlacement? {
        state.withLock { state in state.placed[table].map { $0 == nil ? .database : .memory } }
    }

    /// Whether `table` was placed in the database (by an import or the store's
    /// `placeIndexes()` under a budget), or, not placed yet, has the database's indexes.
    func servesFromDatabase(_ info: _TableInfo) -> Bool {
        guard limits.indexBytes != nil else { return false }
        // A table with the database's indexes that isn't placed yet (an import committed a
        // moment ago, placed right after) is served from them: loading it would take the
        // memory it was put there to spare.
        return state.withLock { state in state.placed[info.id].map { $0 == nil } ?? (info.databaseIndex != nil) }
    }

    /// Runs `body`, a page from `index`, directly, or — when `request` searches, which may
    /// scan every row on every core — after the searches of the same table before it, its scan
    /// done first on the low-priority scan threads (``_ScanThreads``) while this task waits: a
    /// stream of new search terms keeps one scan of a table going at a time, searches of other
    /// tables aren't held up by it, and sorted pages, which take microseconds, are served
    /// between and beside them. The wait counts in the request's `deadline`; a line already
    /// ``IndexLimits/waitingSearchesPerTable`` long refuses it (`unavailable`).
    func searching<T: Sendable>(
        _ request: PageRequest, index: _TableIndex, table: Int64, deadline: _Deadline, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let searches = !SearchQuery(request.search).isBlank || request.columnSearch.values.contains { !SearchQuery($0).isBlank }
        guard searches else { return try body() }
        let (search, columnSearch, key) = try index.matchesKey(request, table: table)
        if state.withLock({ $0.matches[key] }) != nil { return try body() }
        let line = state.withLock { state in
            if let line = state.lines[table] { return line }
            let line = _Line(maxWaiting: limits.waitingSearchesPerTable)
            state.lines[table] = line
            return line
        }
        return try await line.run(deadline: deadline) {
            try deadline.check()
            if self.state.withLock({ $0.matches[key] }) == nil {
                _ = try await _ScanThreads.shared.run {
                    try self.matches(key) { try index.matches(search, columnSearch: columnSearch, deadline: deadline) }.count
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

    /// The sorted slots kept under `key`, or `compute`'s, kept. What a big one's sort
    /// allocated on every core and freed goes back to the system.
    func sorted(_ key: String, _ compute: () -> [UInt32]) -> [UInt32] {
        kept(key, firstRows: false, compute)
    }

    /// The first rows of an order no ranking holds yet, kept under `key`, or `compute`'s,
    /// kept: apart from the full sorts, so that these small lists don't push those out.
    func firstRows(_ key: String, _ compute: () throws -> [UInt32]) rethrows -> [UInt32] {
        try kept(key, firstRows: true, compute)
    }

    private func kept(_ key: String, firstRows: Bool, _ compute: () throws -> [UInt32]) rethrows -> [UInt32] {
        if let kept = state.withLock({ firstRows ? $0.firstRows[key] : $0.sorts[key] }) { return kept }
        let slots = try compute()
        state.withLock { state in
            if firstRows { state.firstRows[key] = slots } else { state.sorts[key] = slots }
        }
        if slots.count >= 1 << 16 { _returnFreedMemoryToSystemSoon() }
        return slots
    }

    /// How many of an order's first rows a first page without a ranking selects and keeps:
    /// the next pages, or the same order from another client, while its ranking is built in
    /// the background (a second or so at 1M rows) are a slice of them, not a new selection
    /// over every row on cores the build is using (15–80 ms against the first page's 20–40).
    /// A deeper page keeps the next power of two, so that the pages near it share one list.
    static func firstRowsKept(_ need: Int) -> Int {
        need <= 256 ? 256 : 1 << (Int.bitWidth - (need - 1).leadingZeroBitCount)
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
        deadline: _Deadline = _Deadline(.seconds(5))
    ) throws -> TablePage {
        let (search, columnSearch, key) = try matchesKey(request, table: table)
        let versions = "\(table)/\(schemaVersion)/\(dataVersion)"
        let variants = try spec.keys.map { try Self.variant($0, schema: schema) }
        let missing = Set(variants).subtracting(rankings.keys)
        // Each new variant is a ranking to build (and to keep current): a request may ask for a few.
        guard missing.count <= cache.limits.newVariantsPerRequest else {
            throw TableStoreError.invalid(
                "the sort needs \(missing.count) orders the table hasn't built ("
                    + zip(spec.keys, variants).filter { missing.contains($0.1) }.map(\.0.description).joined(separator: ", ") + "); "
                    + "one request may ask for at most \(cache.limits.newVariantsPerRequest) new ones")
        }
        cache.touch(variants, table: table)
        var filter = key
        var matches = try cache.matches(key) {
            try self.matches(search, columnSearch: columnSearch, deadline: deadline)
        }
        if !request.excluding.isEmpty {
            matches = excluding(request.excluding, from: matches)
            filter += "|" + request.cursorScope
        }
        // A variant no request has sorted by yet (`title:nocase`): a first page comes from a
        // top-k selection over the cells while its ranking is built in the background, so
        // that first request costs what a ranked one costs, not a full sort.
        if !missing.isEmpty, cursor == nil, request.offset + request.limit < 4_096 {
            // The page first, on every core; then the build behind it, which would otherwise
            // take a core from the selection.
            let need = request.offset + request.limit + 1, kept = _TableIndexCache.firstRowsKept(need)
            let first = try cache.firstRows("\(versions)|\(kept)|\(spec.description)|\(filter)") {
                try selected(spec, matches: matches, need: kept).map { UInt32($0) }
            }
            let slots = first.prefix(need).map(Int.init)
            // A `random=` order past the kept ones isn't built in the background: it would be dropped.
            let full = rankings.keys.filter(\.isRandom).count >= _TableIndexCache.maxRandomRankings
            let toBuild = Array(full ? missing.filter { !$0.isRandom } : missing)
            if !toBuild.isEmpty, let key = cache.startBuilding(Set(toBuild), table: table, schemaVersion: schemaVersion, dataVersion: dataVersion) {
                let index = self
                Task.detached(priority: .utility) {
                    let built = Self.buildRankings(toBuild, cells: index.cells, live: index.live, schema: index.schema)
                    cache.remember(
                        Dictionary(uniqueKeysWithValues: zip(toBuild, built)), table: table,
                        schemaVersion: index.schemaVersion, dataVersion: index.dataVersion)
                    cache.finishedBuilding(key)
                }
            }
            return try page(Array(slots.dropFirst(request.offset)), request, spec: spec, matches: matches, secret: secret)
        }
        var built: [KeyVariant: _Ranking] = [:]
        let components = try components(spec, built: &built, deadline: deadline)
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

    /// The page of `slots` (up to limit + 1, the extra one telling that more follow): rows,
    /// counts, and a cursor after the last row.
    private func page(_ slots: [Int], _ request: PageRequest, spec: SortSpec, matches: _Matches, secret: Data) throws -> TablePage {
        let kept = slots.prefix(request.limit)
        var rows: [TableRow] = []
        var csv: [UInt8]? = nil
        if let export = request.csv {
            csv = cells.csv(kept, export)
        } else {
            rows = kept.map { TableRow(id: ids[$0], cells: cells.row($0)) }
        }
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
        return TablePage(rows: rows, csv: csv, total: liveCount, filtered: matches.count, next: next)
    }
}
