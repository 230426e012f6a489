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

/// The manual order of a table, kept in `ordered_item` (``SQLiteOrderedListStore``'s layout;
/// an imported table's rows without an entry at labels computed from their ids, see
/// ``_ImplicitLabels``): OrderKeys' `LabelPlanner` plans each move through ``_LabelReplay``
/// (its reads answered by SQL, which a store reads asynchronously), and the labels are
/// written in two phases.
extension _SQLTableStore {
    /// Makes the manual order ready for a move: an imported table's order stays partly
    /// computed (``_ImplicitLabels``) while every row has a place; a table stored before that
    /// layout, with a row whose id has no computed label, has its order written out first.
    /// Returns `info` as it is after.
    ///
    /// Writing out is one label per row, in id order, in one statement. A row's label is
    /// computed from its id (`first + (id - smallest id) × step`), so the rows go in as they
    /// are stored, with no numbering pass. Ids spread so far apart that their labels would
    /// lie closer than numbered rows' are numbered instead.
    static func prepareManualOrder(_ info: _TableInfo, _ session: Session) async throws -> _TableInfo {
        guard !info.manualReady, try await !everyRowPlaced(info, session) else { return info }
        // Such a table has never moved (a move writes it out first): its only entries are rows
        // inserted since with ids past the computed labels' — last in id order, as written below.
        try await session.execute("DELETE FROM ordered_item WHERE list = $1", [.text(info.list)])
        let row = try await session.select("SELECT COUNT(*), MIN(id), MAX(id) FROM \(info.rows(dialect))", [], long: true).first ?? []
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
            "INSERT INTO ordered_item (list, id, pos) SELECT $1, id, \(labels) FROM \(info.rows(dialect)) ORDER BY id", values, long: true)
        try await session.execute("UPDATE sortkit_table SET manual_ready = \(dialect.boolean(true)) WHERE id = $1", [.integer(info.id)])
        var ready = info
        ready.manualReady = true
        return ready
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
                guard let answers = try await detach(id, anchor: anchor, info, session) else { return }
                known = answers
                if case .after = destination { placement = .after(anchor) } else { placement = .before(anchor) }
            case .toIndex(let index):
                guard index >= 0 else { throw TableStoreError.invalid("toIndex must be 0 or more, got \(index)") }
                let predecessor = index == 0 ? nil : try await row(at: index - 1, excluding: id, info, session)
                _ = try await detach(id, anchor: nil, info, session)
                placement = index > 0 && predecessor == nil ? .before(nil) : .after(predecessor)
            }
            try await apply(plan(id, placement, info, known: known, session), to: list, absent: id, session)
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// Moves `block` (rows of the table, none of them the anchor) right after or before the
    /// anchor, in its order, inside a write that holds the list. The block is taken out in one
    /// statement; when the gap beside the anchor holds it with room to spare (2^20 labels
    /// apart, or an append's or prepend's step at an end), its labels are spaced evenly there
    /// and written in one statement: a block of any size is a few statements. Otherwise the
    /// narrowest window around the anchor that holds its rows and the block is re-spaced
    /// (``respaced(_:beside:at:after:_:_:)``); only in a list too crowded for that is each row
    /// placed after the one before it, as single moves are.
    static func moveBlock(_ block: [Int64], to destination: MoveDestination, _ info: _TableInfo, _ session: Session) async throws {
        do {
            try await detachRows(block, info, session)
            let anchor: Int64
            let after: Bool
            switch destination {
            case .after(let id): (anchor, after) = (id, true)
            case .before(let id): (anchor, after) = (id, false)
            case .toIndex: throw TableStoreError.invalid("a block moves after or before a row, not to an index")
            }
            guard case .label(let label?) = try await answer(.label(anchor), info, session) else { throw OrderKeyError.unknownID(anchor) }
            var other: UInt64?
            if case .label(let label) = try await answer(after ? .after(label) : .before(label), info, session) { other = label }
            let (low, high) = after ? (Int64(label), other.map(Int64.init)) : (other.map(Int64.init), Int64(label))
            if let labels = evenLabels(block.count, between: low, and: high) {
                try await setLabels(block, labels, in: info.list, session)
                return
            }
            if let writes = try await respaced(block, beside: anchor, at: Int64(label), after: after, info, session) {
                try await apply(writes, to: info.list, absent: block[0], session)
                return
            }
            var placement: _Placement = after ? .after(anchor) : .before(anchor)
            for id in block {
                try await apply(plan(id, placement, info, session), to: info.list, absent: id, session)
                placement = .after(id)
            }
        } catch let error as OrderKeyError where error.isUnknownID {
            throw TableStoreError(.notFound, "table '\(info.schema.name)': \(error.description)")
        }
    }

    /// The writes that place `block` (detached) beside `anchor` (at `label`) when the gap
    /// there is too narrow: the narrowest window of labels around the anchor's, doubling from
    /// the block's own room, that holds its rows and the block 2^21 labels apart, re-spaced
    /// evenly with the block in place — a read of the window's count per doubling, one of its
    /// rows, one write. `nil` when even the whole label space is too crowded.
    static func respaced(
        _ block: [Int64], beside anchor: Int64, at label: Int64, after: Bool, _ info: _TableInfo, _ session: Session
    ) async throws -> [LabelWrite<Int64>]? {
        let (limit, spacing) = (Int64(OrderLabels.limit), Int64(1) << 21)
        var half = Int64(block.count + 1) * spacing
        while true {
            let window = UInt64(max(0, label - half))...UInt64(min(limit - 1, label + half))
            let width = Int64(window.upperBound - window.lowerBound)
            if case .count(let count) = try await answer(.count(window), info, session), width / Int64(count + block.count + 1) >= spacing {
                guard case .items(let items) = try await answer(.items(window), info, session) else { return nil }
                var ids = items.map(\.id)
                guard let at = ids.firstIndex(of: anchor) else { throw OrderKeyError.unknownID(anchor) }
                ids.insert(contentsOf: block, at: after ? at + 1 : at)
                let slots = Int128(ids.count + 1)
                return ids.enumerated().map { index, id in
                    LabelWrite(id: id, label: window.lowerBound + UInt64(Int128(width) * Int128(index + 1) / slots))
                }
            }
            if window == 0...UInt64(limit - 1) { return nil }
            half *= 2
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
        _ id: Int64, anchor: Int64?, _ info: _TableInfo, _ session: Session
    ) async throws -> [_LabelReplay.Query: _LabelReplay.Answer]? {
        let values: [SQLValue] = [.text(info.list), .integer(id)]
        if !info.manualReady {
            var known: [_LabelReplay.Query: _LabelReplay.Answer] = [:]
            if let anchor {
                let label = try await implicitAnswer(.label(anchor), info, session)
                guard case .label(_?) = label else { throw OrderKeyError.unknownID(anchor) }
                if anchor == id { return nil }
                known[.label(anchor)] = label
            }
            try await detachRows([id], info, session)
            return known
        }
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
        _ id: Int64, _ placement: _Placement, _ info: _TableInfo, known: [_LabelReplay.Query: _LabelReplay.Answer] = [:], _ session: Session
    ) async throws -> [LabelWrite<Int64>] {
        try await _LabelReplay.run(
            known: known,
            { reader in
                var random = SystemRandomNumberGenerator()
                return try LabelPlanner.insert(id, placement, in: reader, using: &random)
            }, fetch: { try await answer($0, info, session) })
    }

    /// The row at `index` (from 0) of the manual order without row `id`, or `nil` past its
    /// end: the manual page of one row at that offset, as pages read it.
    static func row(at index: Int, excluding id: Int64, _ info: _TableInfo, _ session: Session) async throws -> Int64? {
        var query = PageQuery(info: info, ordering: try ordering(.manual, info), search: SearchQuery(""), columnSearch: [:])
        query.excluding = [id]
        let select = query.select(after: nil, offset: index, limit: 1)
        return try await session.select(select.sql, select.arguments).first?.first?.integer
    }

    /// One planner read of the manual order.
    static func answer(_ query: _LabelReplay.Query, _ info: _TableInfo, _ session: Session) async throws -> _LabelReplay.Answer {
        guard info.manualReady else { return try await implicitAnswer(query, info, session) }
        let list = SQLValue.text(info.list)
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
    /// free label is a plain insert (over its detached entry, if it has one); otherwise two
    /// phases: park every written row at a unique negative label, then flip them all (and no
    /// detached entry, which lies below), so the `UNIQUE (list, pos)` constraint never sees
    /// two rows at one label midway.
    static func apply(_ writes: [LabelWrite<Int64>], to list: String, absent: Int64, _ session: Session) async throws {
        guard !writes.isEmpty else { return }
        if writes.count == 1 && writes[0].id == absent {
            try await session.execute(
                "INSERT INTO ordered_item (list, id, pos) VALUES ($1, $2, $3) ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos",
                [.text(list), .integer(absent), .integer(Int64(writes[0].label))])
            return
        }
        try await setLabels(writes.map(\.id), writes.map { -Int64($0.label) - 1 }, in: list, session)
        try await session.execute(
            "UPDATE ordered_item SET pos = -pos - 1 WHERE list = $1 AND pos < 0 AND pos >= $2", [.text(list), .integer(-Int64(OrderLabels.limit))])
    }

    /// Sets the labels of `ids` in `list` (`labels[i]` for `ids[i]`), writing entries for rows
    /// that have none, in one statement.
    static func setLabels(_ ids: [Int64], _ labels: [Int64], in list: String, _ session: Session) async throws {
        try await session.execute(
            """
            INSERT INTO ordered_item (list, id, pos) SELECT $1, id, pos FROM \(dialect.idsAndLabels(2)) WHERE true
            ON CONFLICT (list, id) DO UPDATE SET pos = excluded.pos
            """, [.text(list), dialect.ids(ids), dialect.ids(labels)])
    }
}
