import Foundation
import OrderKeys
import SortKit

/// Where a row goes in a manual order: right after a row (or first), or right before one (or last).
typealias _Placement = LabelPlacement<Int64>

/// How the manual order's labels are first written out (see `_SQLTableStore.manualLabelSteps`):
/// `first + (id - lowest) × step`, or `first + (rank in id order) × step`.
enum _ManualLabels: Equatable {
    case fromIDs(step: UInt64, lowest: Int64)
    case numbered(step: UInt64)
}

/// The manual order of a table, kept in `ordered_item` (``SQLiteOrderedListStore``'s layout):
/// OrderKeys' `LabelPlanner` plans each move through ``_LabelReplay`` (its reads answered by
/// SQL, which a store reads asynchronously), and the labels are written in two phases.
extension _SQLTableStore {
    /// Writes out the manual order (id order until now) before its first move: one label per
    /// row, in id order, in one statement. A row's label is computed from its id (`first +
    /// (id - smallest id) × step`), so the rows go in as they are stored, with no numbering
    /// pass: half the time of `ROW_NUMBER() OVER (ORDER BY id)` on SQLite (1M rows: 0.95 s
    /// instead of 1.93). Ids spread so far apart that their labels would lie closer than
    /// numbered rows' (the usual step, 2^32, for fewer than 2^29 rows) are numbered instead.
    static func prepareManualOrder(_ info: _TableInfo, _ session: Session) async throws {
        guard !info.manualReady else { return }
        let row = try await session.select("SELECT COUNT(*), MIN(id), MAX(id) FROM \(info.physical)", [], long: true).first ?? []
        let ids = row.count == 3 ? row[1].integer.flatMap { low in row[2].integer.map { low...$0 } } : nil
        let (list, first) = (SQLValue.text(info.list), SQLValue.integer(Int64(OrderLabels.first)))
        let labels: String
        let values: [SQLValue]
        switch manualLabelSteps(count: row.first?.integer ?? 0, ids: ids) {
        case .fromIDs(let step, let low):
            (labels, values) = ("$2 + (id - $4) * $3", [list, first, .integer(Int64(step)), .integer(low)])
        case .numbered(let step):
            (labels, values) = ("$2 + (ROW_NUMBER() OVER (ORDER BY id) - 1) * $3", [list, first, .integer(Int64(step))])
        }
        try await session.execute(
            "INSERT INTO ordered_item (list, id, pos) SELECT $1, id, \(labels) FROM \(info.physical) ORDER BY id", values, long: true)
        try await session.execute("UPDATE sortkit_table SET manual_ready = \(dialect.boolean(true)) WHERE id = $1", [.integer(info.id)])
    }

    /// How ``prepareManualOrder(_:_:)`` labels `count` rows whose ids span `ids`: from the ids,
    /// unless that would put labels closer than numbering the rows does.
    static func manualLabelSteps(count: Int64, ids: ClosedRange<Int64>?) -> _ManualLabels {
        let room = OrderLabels.limit - OrderLabels.first
        let numbered = min(OrderLabels.step, room / UInt64(max(count, 0) + 1))
        guard let ids else { return .numbered(step: numbered) }
        let (span, overflow) = ids.upperBound.subtractingReportingOverflow(ids.lowerBound)
        let step = overflow || span == .max ? 0 : min(OrderLabels.step, room / (UInt64(span) + 1))
        return step >= numbered ? .fromIDs(step: step, lowest: ids.lowerBound) : .numbered(step: numbered)
    }

    /// Moves one row inside a write that holds the list.
    static func move(_ id: Int64, to destination: MoveDestination, _ info: _TableInfo, _ session: Session) async throws {
        let list = info.list
        do {
            let placement: _Placement
            var known: [_LabelReplay.Query: _LabelReplay.Answer] = [:]
            switch destination {
            case .after(let anchor), .before(let anchor):
                guard let answers = try await detach(id, anchor: anchor, list: list, session) else { return }
                known = answers
                if case .after = destination { placement = .after(anchor) } else { placement = .before(anchor) }
            case .toIndex(let index):
                guard index >= 0 else { throw TableStoreError.invalid("toIndex must be 0 or more, got \(index)") }
                let predecessor =
                    index == 0
                    ? nil
                    : try await session.integer(
                        "SELECT id FROM ordered_item WHERE list = $1 AND id != $2 ORDER BY pos, id LIMIT 1 OFFSET $3",
                        [.text(list), .integer(id), .integer(Int64(index - 1))])
                _ = try await detach(id, anchor: nil, list: list, session)
                placement = index > 0 && predecessor == nil ? .before(nil) : .after(predecessor)
            }
            try await apply(plan(id, placement, list: list, known: known, session), to: list, absent: id, session)
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// Moves `block` (rows of the table, none of them the anchor) right after or before the
    /// anchor, in its order, inside a write that holds the list. The block is taken out in one
    /// statement; when the gap beside the anchor holds it with room to spare (2^20 labels
    /// apart, or an append's or prepend's step at an end), its labels are spaced evenly there
    /// and written in one statement: a block of any size is a few statements. Otherwise each
    /// row is placed after the one before it, as single moves are, relabels included.
    static func moveBlock(_ block: [Int64], to destination: MoveDestination, _ info: _TableInfo, _ session: Session) async throws {
        let list = SQLValue.text(info.list)
        do {
            let removed = Set(
                try await session.integers("DELETE FROM ordered_item WHERE list = $1 AND id \(dialect.inIDs(2)) RETURNING id", [list, dialect.ids(block)]))
            if let missing = block.first(where: { !removed.contains($0) }) { throw OrderKeyError.unknownID(missing) }
            let anchor: Int64
            let after: Bool
            switch destination {
            case .after(let id): (anchor, after) = (id, true)
            case .before(let id): (anchor, after) = (id, false)
            case .toIndex: throw TableStoreError.invalid("a block moves after or before a row, not to an index")
            }
            let neighbour = after ? "min(pos) FROM ordered_item WHERE list = $1 AND pos > a.pos" : "max(pos) FROM ordered_item WHERE list = $1 AND pos < a.pos"
            guard
                let row = try await session.select(
                    "SELECT a.pos, (SELECT \(neighbour)) FROM ordered_item AS a WHERE a.list = $1 AND a.id = $2", [list, .integer(anchor)]
                ).first, let label = row[0].integer
            else { throw OrderKeyError.unknownID(anchor) }
            let other = row[1].integer
            let (low, high) = after ? (label, other) : (other, label)
            if let labels = evenLabels(block.count, between: low, and: high) {
                try await session.execute(
                    "INSERT INTO ordered_item (list, id, pos) SELECT $1, id, pos FROM \(dialect.idsAndLabels(2))",
                    [list, dialect.ids(block), dialect.ids(labels)])
                return
            }
            var placement: _Placement = after ? .after(anchor) : .before(anchor)
            for id in block {
                try await apply(plan(id, placement, list: info.list, session), to: info.list, absent: id, session)
                placement = .after(id)
            }
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// `count` labels spaced evenly between two adjacent labels (`nil`: the list's start or
    /// end, where they are an append's or prepend's step apart), or `nil` when they would be
    /// closer than 2^20.
    static func evenLabels(_ count: Int, between low: Int64?, and high: Int64?) -> [Int64]? {
        let n = Int128(count)
        let step = Int128(OrderLabels.step)
        let ks = (1...count).map { Int128($0) }
        if let low, let high {
            let gap = Int128(high) - Int128(low)
            guard gap / (n + 1) >= Int128(1 << 20) else { return nil }
            return ks.map { k in Int64(Int128(low) + gap * k / (n + 1)) }
        }
        if let low {
            guard Int128(low) + step * n < Int128(OrderLabels.limit) else { return nil }
            return ks.map { k in Int64(Int128(low) + step * k) }
        }
        if let high {
            guard Int128(high) - step * n >= 0 else { return nil }
            return ks.map { k in Int64(Int128(high) - step * (n + 1 - k)) }
        }
        return nil
    }

    /// Takes `id` out of the list after reading `anchor`'s label; returns that label as a
    /// planner answer, or `nil` when the move is a no-op (`id` is its own anchor). An unknown
    /// id or anchor throws, and the transaction's rollback undoes the delete.
    static func detach(
        _ id: Int64, anchor: Int64?, list: String, _ session: Session
    ) async throws -> [_LabelReplay.Query: _LabelReplay.Answer]? {
        let values: [SQLValue] = [.text(list), .integer(id)]
        if let anchor, anchor != id, dialect.writesInWith {
            // One round trip: the delete and the anchor's label (read as before the delete).
            let row = try await session.select(
                """
                WITH d AS (DELETE FROM ordered_item WHERE list = $1 AND id = $2 RETURNING pos)
                SELECT (SELECT pos FROM d), (SELECT pos FROM ordered_item WHERE list = $1 AND id = $3)
                """, values + [.integer(anchor)])[0]
            guard row[0] != .null else { throw OrderKeyError.unknownID(id) }
            guard let label = row[1].integer else { throw OrderKeyError.unknownID(anchor) }
            return [.label(anchor): .label(UInt64(label))]
        }
        var known: [_LabelReplay.Query: _LabelReplay.Answer] = [:]
        if let anchor {
            let row = try await session.select(
                "SELECT (SELECT pos FROM ordered_item WHERE list = $1 AND id = $2), (SELECT pos FROM ordered_item WHERE list = $1 AND id = $3)",
                values + [.integer(anchor)])[0]
            guard row[0] != .null else { throw OrderKeyError.unknownID(id) }
            guard let label = row[1].integer else { throw OrderKeyError.unknownID(anchor) }
            if anchor == id { return nil }
            known[.label(anchor)] = .label(UInt64(label))
        }
        guard try await session.integer("DELETE FROM ordered_item WHERE list = $1 AND id = $2 RETURNING pos", values) != nil
        else { throw OrderKeyError.unknownID(id) }
        return known
    }

    /// The label writes that place `id` (already detached) in the list.
    static func plan(
        _ id: Int64, _ placement: _Placement, list: String, known: [_LabelReplay.Query: _LabelReplay.Answer] = [:], _ session: Session
    ) async throws -> [LabelWrite<Int64>] {
        try await _LabelReplay.run(
            known: known,
            { reader in
                var random = SystemRandomNumberGenerator()
                return try LabelPlanner.insert(id, placement, in: reader, using: &random)
            }, fetch: { try await answer($0, list: list, session) })
    }

    /// One planner read, answered from `ordered_item`.
    static func answer(_ query: _LabelReplay.Query, list: String, _ session: Session) async throws -> _LabelReplay.Answer {
        let list = SQLValue.text(list)
        /// `what` of the list's rows that pass `condition`.
        func select(_ what: String, _ condition: String = "", _ values: [SQLValue] = []) async throws -> [[SQLValue]] {
            try await session.select("SELECT \(what) FROM ordered_item WHERE list = $1" + condition, [list] + values)
        }
        func label(_ what: String, _ condition: String = "", _ values: [SQLValue] = []) async throws -> _LabelReplay.Answer {
            .label(try await select(what, condition, values).first?.first?.integer.map(UInt64.init))
        }
        switch query {
        case .label(let id): return try await label("pos", " AND id = $2", [.integer(id)])
        case .after(let value): return try await label("min(pos)", " AND pos > $2", [.integer(Int64(value))])
        case .before(let value): return try await label("max(pos)", " AND pos < $2", [.integer(Int64(value))])
        case .first: return try await label("min(pos)")
        case .last: return try await label("max(pos)")
        case .count(let range):
            let bounds: [SQLValue] = [.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]
            return .count(Int(try await select("count(*)", " AND pos BETWEEN $2 AND $3", bounds).first?.first?.integer ?? 0))
        case .items(let range):
            let bounds: [SQLValue] = [.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]
            return .items(
                try await select("id, pos", " AND pos BETWEEN $2 AND $3 ORDER BY pos", bounds).map { ($0[0].integer ?? 0, UInt64($0[1].integer ?? 0)) })
        }
    }

    /// Writes labels. One write of the row being placed (`absent`: not in the list) at a
    /// free label is a plain insert; otherwise two phases: park every written row at a unique
    /// negative label, then flip them all, so the `UNIQUE (list, pos)` constraint never sees
    /// two rows at one label midway.
    static func apply(_ writes: [LabelWrite<Int64>], to list: String, absent: Int64, _ session: Session) async throws {
        guard !writes.isEmpty else { return }
        if writes.count == 1 && writes[0].id == absent {
            try await session.execute(
                "INSERT INTO ordered_item (list, id, pos) VALUES ($1, $2, $3)", [.text(list), .integer(absent), .integer(Int64(writes[0].label))])
            return
        }
        try await session.execute(
            """
            INSERT INTO ordered_item (list, id, pos) SELECT $1, id, pos FROM \(dialect.idsAndLabels(2)) WHERE true
            ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos
            """, [.text(list), dialect.ids(writes.map(\.id)), dialect.ids(writes.map { -Int64($0.label) - 1 })])
        try await session.execute("UPDATE ordered_item SET pos = -pos - 1 WHERE list = $1 AND pos < 0", [.text(list)])
    }
}
