import Foundation
import OrderKeys
import SortKit

/// Where a row goes in a manual order: right after a row (or first), or right before one (or last).
enum _Placement {
    case after(Int64?)
    case before(Int64?)
}

/// The manual order of a table, kept in `ordered_item` (``SQLiteOrderedListStore``'s layout):
/// OrderKeys' `LabelPlanner` plans each move through ``_LabelReplay`` (its reads answered by
/// SQL, which a store reads asynchronously), and the labels are written in two phases.
extension _SQLTableStore {
    /// Writes out the manual order (id order until now) before its first move: one label per
    /// row, evenly spaced, in one statement.
    static func prepareManualOrder(_ info: _TableInfo, _ session: Session) async throws {
        guard !info.manualReady else { return }
        let count = try await session.integer("SELECT COUNT(*) FROM \(info.physical)") ?? 0
        let step = min(OrderLabels.step, (OrderLabels.limit - OrderLabels.first) / UInt64(count + 1))
        try await session.execute(
            """
            INSERT INTO ordered_item (list, id, pos)
            SELECT $1, id, $2 + (ROW_NUMBER() OVER (ORDER BY id) - 1) * $3 FROM \(info.physical)
            """,
            [.text(info.list), .integer(Int64(OrderLabels.first)), .integer(Int64(step))])
        try await session.execute("UPDATE sortkit_table SET manual_ready = \(dialect.boolean(true)) WHERE id = $1", [.integer(info.id)])
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

    /// Takes `id` out of the list after reading `anchor`'s label; returns that label as a
    /// planner answer, or `nil` when the move is a no-op (`id` is its own anchor). An unknown
    /// id or anchor throws, and the transaction's rollback undoes the delete.
    static func detach(
        _ id: Int64, anchor: Int64?, list: String, _ session: Session
    ) async throws -> [_LabelReplay.Query: _LabelReplay.Answer]? {
        let values: [SQLValue] = [.text(list), .integer(id)]
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
                switch placement {
                case .after(let predecessor): return try LabelPlanner.insert(id, after: predecessor, in: reader, using: &random)
                case .before(let successor): return try LabelPlanner.insert(id, before: successor, in: reader, using: &random)
                }
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
