import SortKit

/// The page and count queries of one request.
struct PageQuery {
    let info: _TableInfo
    let ordering: SQLOrdering
    let search: SearchQuery
    let columnSearch: [Int: SearchQuery]

    var isUnfiltered: Bool { search.isBlank && columnSearch.isEmpty }

    private var from: SQLFragment {
        var fragment = SQLFragment(" FROM \(info.physical) AS t")
        if ordering.isManual {
            fragment.append(" JOIN ordered_item AS o ON o.list = ")
            fragment.bind(.text(info.list))
            fragment.append(" AND o.id = t.id")
        }
        return fragment
    }

    private var conditions: [SQLFragment] {
        let find = ordering.dialect == .sqlite ? "instr(" : "strpos("
        var conditions = search.terms.map { term in
            var fragment = SQLFragment(find + "t.s, ")
            fragment.bind(.text(term))
            fragment.append(") > 0")
            return fragment
        }
        for (column, query) in columnSearch.sorted(by: { $0.key < $1.key }) {
            for term in query.terms {
                // The column's folded text: SQLite folds it with memory's function; PostgreSQL
                // cuts it out of the stored folded row (fields are joined by U+001F).
                let folded = ordering.dialect == .sqlite ? "sortkit_fold(t.c\(column))" : "split_part(t.s, chr(31), \(column + 1))"
                var fragment = SQLFragment(find + folded + ", ")
                fragment.bind(.text(term))
                fragment.append(") > 0")
                conditions.append(fragment)
            }
        }
        return conditions
    }

    func select(after values: [SQLValue]?, offset: Int, limit: Int) -> (sql: String, arguments: [SQLValue]) {
        let columns = info.schema.columns.indices.map { ", t.c\($0)" }.joined()
        var fragment = SQLFragment("SELECT t.id\(columns)")
        for (index, term) in ordering.terms.enumerated() {
            fragment.append(", ")
            fragment.append(term.expression)
            fragment.append(" AS e\(index)")
        }
        fragment.append(from)
        var conditions = conditions
        if let values, let seek = try? ordering.after(values) { conditions.append(seek) }
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(conditions, separator: " AND "))
        }
        fragment.append(" ORDER BY ")
        fragment.append(ordering.orderBy)
        fragment.append(" LIMIT ")
        fragment.bind(.integer(Int64(limit)))
        fragment.append(" OFFSET ")
        fragment.bind(.integer(Int64(offset)))
        return fragment.render(ordering.dialect)
    }

    func count() -> (sql: String, arguments: [SQLValue]) {
        var fragment = SQLFragment("SELECT COUNT(*)")
        fragment.append(SQLFragment(" FROM \(info.physical) AS t"))
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            fragment.append(SQLFragment.joined(conditions, separator: " AND "))
        }
        return fragment.render(ordering.dialect)
    }
}
