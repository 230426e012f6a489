import OrderKeys
import SortKit

/// The labels of rows that have no `ordered_item` entry in an imported table's manual order.
///
/// An import writes no manual order (`manual_ready` false): every row sits at a label computed
/// from its id, `first + (id - 1) × step` — id order, 2^32 labels apart, the spacing a full
/// relabel would give. A move writes entries for the rows it places (and a relabel for the
/// rows it respaces); a row with an entry sits at the entry's label. So the first move of a
/// 1M-row table writes a few rows, not a million, and a block lands in the gap after its
/// anchor. Ids 1...2^29 have such labels (all below `OrderLabels.limit`); a row with another
/// id is given an entry when it is inserted, or the table's order is written out in full
/// (``_SQLTableStore/prepareManualOrder(_:_:)``) before its first move.
enum _ImplicitLabels {
    static let first = Int64(OrderLabels.first)
    static let shift: Int64 = 32
    /// The ids a row may hold and still have no entry.
    static let ids: ClosedRange<Int64> = 1...(1 << 29)
    /// An entry that takes a row out of the order while a move places it (below every label
    /// and every parked label `-label - 1`), replaced by the row's new label before the
    /// write commits.
    static func detached(_ id: Int64) -> Int64 { Int64.min / 2 - id }

    /// `WHERE` conditions of the rows (as `t`) of a table whose list is `list` that sit at
    /// their computed label, with ids between `low` and `high` (SQL; within ``ids``, which is
    /// the default). One range, so the database seeks the primary key to its start.
    static func rows(list: SQLFragment, low: SQLFragment? = nil, high: SQLFragment? = nil) -> SQLFragment {
        var fragment = SQLFragment("t.id BETWEEN ")
        fragment.append(low ?? SQLFragment("\(ids.lowerBound)"))
        fragment.append(" AND ")
        fragment.append(high ?? SQLFragment("\(ids.upperBound)"))
        fragment.append(" AND NOT EXISTS (SELECT 1 FROM ordered_item AS x WHERE x.list = ")
        fragment.append(list)
        fragment.append(" AND x.id = t.id)")
        return fragment
    }

    /// The label of a row with id `id` (in ``ids``) and no entry.
    static func label(_ id: Int64) -> Int64 { first + (id - 1) << shift }
    /// ``label(_:)`` in SQL, of the row `t`.
    static var sql: String { "(\(first) + (t.id - 1) * \(Int64(1) << shift))" }

    /// The ids whose labels lie in `range`, within ``ids``; `nil` when there are none.
    static func ids(labelledIn range: ClosedRange<Int64>) -> ClosedRange<Int64>? {
        // label(id) >= a ⇔ (id - 1) × 2^32 > a - 1 - first ⇔ id ≥ ⌊(a - 1 - first) / 2^32⌋ + 2;
        // label(id) <= b ⇔ id ≤ ⌊(b - first) / 2^32⌋ + 1 (an arithmetic shift floors).
        let low = max(ids.lowerBound, ((range.lowerBound - 1 - first) >> shift) + 2)
        let high = min(ids.upperBound, ((range.upperBound - first) >> shift) + 1)
        return low <= high ? low...high : nil
    }
}

/// The manual order of a table that isn't written out in full (see ``_ImplicitLabels``): its
/// planner reads, its rows' labels and its first rows read entries and computed labels alike.
extension _SQLTableStore {
    /// One planner read of a table's manual order that isn't written out: the entries' answer
    /// and the computed labels' answer, combined.
    static func implicitAnswer(_ query: _LabelReplay.Query, _ info: _TableInfo, _ session: Session) async throws -> _LabelReplay.Answer {
        let list = SQLValue.text(info.list)
        // The list is `$1`, the computed side's id range `$4`...`$5`.
        let computed = _ImplicitLabels.rows(list: SQLFragment("$1"), low: SQLFragment("$4"), high: SQLFragment("$5"))
        let rows = "FROM \(info.rows(dialect)) AS t WHERE " + computed.render(dialect).sql
        /// The list, a label range and the ids labelled in it.
        func bounds(_ low: Int64, _ high: Int64) -> [SQLValue] {
            let ids = low <= high ? _ImplicitLabels.ids(labelledIn: low...high) : nil
            return [list, .integer(low), .integer(high), .integer(ids?.lowerBound ?? 1), .integer(ids?.upperBound ?? 0)]
        }
        /// The smaller or larger of an entry's label and a computed one (from an id).
        func pick(_ sql: String, _ values: [SQLValue], larger: Bool) async throws -> _LabelReplay.Answer {
            let row = try await session.select(sql, values)[0]
            let labels = [row[0].integer, row[1].integer.map(_ImplicitLabels.label)].compactMap { $0 }
            return .label((larger ? labels.max() : labels.min()).map(UInt64.init))
        }
        let limit = Int64(OrderLabels.limit)
        switch query {
        case .label(let id):
            let row = try await session.select(
                "SELECT (SELECT pos FROM ordered_item WHERE list = $1 AND id = $2), (SELECT count(*) FROM \(info.rows(dialect)) WHERE id = $2)",
                [list, .integer(id)])[0]
            if let label = row[0].integer { return .label(label >= 0 ? UInt64(label) : nil) }
            return .label(row[1].integer == 1 && _ImplicitLabels.ids.contains(id) ? UInt64(_ImplicitLabels.label(id)) : nil)
        case .after, .before, .first, .last:
            // The labels the answer may be in; an empty range (before 0) has none.
            var (low, high, larger) = (Int64(0), limit - 1, query == .last)
            if case .after(let value) = query { low = Int64(value) + 1 }
            if case .before(let value) = query { (high, larger) = (Int64(value) - 1, true) }
            // The computed side as `ORDER BY … LIMIT 1`, not `min`/`max`: PostgreSQL then walks
            // the primary key and stops at the first row without an entry (0.1 ms) instead of
            // hashing the whole table against the entries (220 ms at 1M rows).
            let aggregate = larger ? "max" : "min"
            return try await pick(
                """
                SELECT (SELECT \(aggregate)(pos) FROM ordered_item WHERE list = $1 AND pos BETWEEN $2 AND $3),
                (SELECT t.id \(rows) ORDER BY t.id \(larger ? "DESC" : "ASC") LIMIT 1)
                """, bounds(low, high), larger: larger)
        case .count(let range):
            let row = try await session.select(
                """
                SELECT (SELECT count(*) FROM ordered_item WHERE list = $1 AND pos BETWEEN $2 AND $3),
                (SELECT count(*) \(rows))
                """, bounds(Int64(range.lowerBound), Int64(range.upperBound)))[0]
            return .count(Int((row[0].integer ?? 0) + (row[1].integer ?? 0)))
        case .items(let range):
            let rows = try await session.select(
                """
                SELECT id, pos FROM ordered_item WHERE list = $1 AND pos BETWEEN $2 AND $3
                UNION ALL SELECT t.id, \(_ImplicitLabels.sql) \(rows)
                """, bounds(Int64(range.lowerBound), Int64(range.upperBound)))
            return .items(rows.map { ($0[0].integer ?? 0, UInt64($0[1].integer ?? 0)) }.sorted { $0.1 < $1.1 })
        }
    }

    /// The labels of `ids` (rows of the table) in the manual order, entries and computed ones.
    static func manualLabels(of ids: [Int64], _ info: _TableInfo, _ session: Session) async throws -> [Int64: Int64] {
        var labels: [Int64: Int64] = [:]
        for row in try await session.select(
            "SELECT id, pos FROM ordered_item WHERE list = $1 AND id \(dialect.inIDs(2))", [.text(info.list), dialect.ids(ids)])
        {
            if let id = row[0].integer, let label = row[1].integer { labels[id] = label }
        }
        if !info.manualReady {
            for id in ids where labels[id] == nil && _ImplicitLabels.ids.contains(id) { labels[id] = _ImplicitLabels.label(id) }
        }
        return labels
    }

    /// Takes `ids` out of the order while a move places them: deletes their entries, or — in
    /// an order not written out, where a row without an entry still has a place — sets each
    /// entry to ``_ImplicitLabels/detached(_:)``, which the move's own writes replace.
    static func detachRows(_ ids: [Int64], _ info: _TableInfo, _ session: Session) async throws {
        if info.manualReady {
            try await session.execute("DELETE FROM ordered_item WHERE list = $1 AND id \(dialect.inIDs(2))", [.text(info.list), dialect.ids(ids)])
            return
        }
        try await setLabels(ids, ids.map(_ImplicitLabels.detached), in: info.list, session)
    }

    /// Whether every row of a table whose order isn't written out has a place: an entry, or an
    /// id with a computed label (a row inserted since this layout is given an entry if it
    /// needs one; a table stored before may hold others). Checked before a move; otherwise
    /// the order is written out in full.
    static func everyRowPlaced(_ info: _TableInfo, _ session: Session) async throws -> Bool {
        let unplaced = try await session.integer(
            """
            SELECT count(*) FROM \(info.rows(dialect)) AS t WHERE (t.id < \(_ImplicitLabels.ids.lowerBound) OR t.id > \(_ImplicitLabels.ids.upperBound))
            AND NOT EXISTS (SELECT 1 FROM ordered_item AS x WHERE x.list = $1 AND x.id = t.id)
            """, [.text(info.list)])
        return unplaced == 0
    }

    /// Gives a row just inserted into a table whose order isn't written out its place last:
    /// its computed label is last already unless a move wrote a larger one (or its id has no
    /// computed label); then it gets an entry after the last label.
    static func placeInserted(_ id: Int64, _ info: _TableInfo, _ session: Session) async throws {
        var known: [_LabelReplay.Query: _LabelReplay.Answer] = [:]
        if _ImplicitLabels.ids.contains(id) {
            let largest = try await session.integer("SELECT max(pos) FROM ordered_item WHERE list = $1", [.text(info.list)])
            guard let largest, largest >= _ImplicitLabels.label(id) else { return }
            // Every other row's computed label lies below this row's: the largest entry is
            // the last label (no walk past the rows inserted since, which have entries too).
            known[.last] = .label(UInt64(largest))
        }
        try await detachRows([id], info, session)
        try await apply(plan(id, .before(nil), info, known: known, session), to: info.list, absent: id, session)
    }
}
