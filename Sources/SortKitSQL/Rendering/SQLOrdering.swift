import Foundation
import SortKit

/// A stored sort-key column: the ``SortValue/sortKey(collation:)`` bytes of a column's values
/// read one way (`num`, `date`, `text` or by type) under one collation. Stores keep one per
/// key form a query or preset needs, on every insert and update, so the database orders
/// exactly as memory does.
public struct KeyVariant: Sendable, Hashable, Codable, Comparable {
    /// The column's position in the schema.
    public var column: Int
    /// How the text is read.
    public var interpretation: SortSpec.Interpretation
    /// The string collation.
    public var collation: Collation

    /// The physical column name, made only of the column's position and two enum names.
    public var columnName: String { "k\(column)_\(interpretation.rawValue)_\(collation.name)" }

    /// The key bytes of a cell's text, `nil` for null.
    func key(of text: String, type: ColumnType) -> [UInt8]? {
        SortSpec.Key("", .ascending, [.interpretation(interpretation)]).sortValue(of: text, columnType: type)
            .sortKey(collation: collation)
    }

    public static func < (lhs: KeyVariant, rhs: KeyVariant) -> Bool {
        lhs.columnName < rhs.columnName
    }
}

extension Collation {
    /// The collation's modifier name in sort specs.
    var name: String {
        switch self {
        case .binary: "binary"
        case .caseInsensitive: "nocase"
        case .folded: "fold"
        case .natural: "natural"
        }
    }
}

extension SortSpec.Interpretation: Codable {}

/// What a query orders by: a sort spec or the table's manual order.
public enum TableOrder: Sendable, Hashable {
    /// A sort spec; an empty spec is id order (file order for imports).
    case spec(SortSpec)
    /// The manual order ("My order"), kept by move requests.
    case manual

    /// The text form: `manual`, or the spec's text.
    public var description: String {
        switch self {
        case .spec(let spec): spec.description
        case .manual: "manual"
        }
    }
}

/// A sort spec rendered for one table and dialect: the `ORDER BY` terms (ending with the id
/// tie-breaker), the stored key columns they read, and keyset predicates.
///
///     let ordering = try SQLOrdering(.spec(SortSpec(parsing: "-price,title")), schema: schema, dialect: .sqlite)
///     ordering.orderBy.render(.sqlite).sql
///     // "\"n1\" DESC, coalesce(\"k0_text_natural\", X'FF') ASC, \"t\".\"id\" ASC" (nulls last both ways)
///
/// Null placement is always explicit. SQLite puts nulls first ascending, so a key whose nulls
/// belong at the high end of the value order (`nulls-last` ascending, `nulls-first`
/// descending) reads `coalesce(x, X'')` — a blob sorts after every number and text, and
/// `X'FF'` after every stored key — which a plain expression index serves. PostgreSQL says
/// `NULLS FIRST`/`NULLS LAST`.
public struct SQLOrdering: Sendable {
    /// One `ORDER BY` term.
    public struct Term: Sendable {
        /// The expression, null handling included.
        public var expression: SQLFragment
        /// Whether the term sorts descending.
        public var descending: Bool
        /// Whether the expression may be NULL.
        public var mayBeNull: Bool
        /// Whether NULLs come before other values in the output order.
        public var nullsFirst: Bool
    }

    /// The terms, the id tie-breaker last.
    public let terms: [Term]
    /// The stored key columns the terms read.
    public let variants: Set<KeyVariant>
    /// Whether the order reads the manual-order table (joined as `o`).
    public let isManual: Bool
    /// The dialect.
    public let dialect: SQLDialect

    /// Renders `order` for a table with `schema`.
    ///
    /// - Throws: ``TableStoreError`` for a column the schema doesn't have.
    public init(_ order: TableOrder, schema: TableSchema, dialect: SQLDialect) throws {
        self.dialect = dialect
        var terms: [Term] = []
        var variants: Set<KeyVariant> = []
        switch order {
        case .manual:
            isManual = true
            terms.append(Term(expression: SQLFragment("\"o\".\"pos\""), descending: false, mayBeNull: false, nullsFirst: false))
        case .spec(let spec):
            isManual = false
            for key in spec.keys {
                let column = try schema.columnIndex(key.column)
                let type = schema.columns[column].type
                if let order = key.enumOrder {
                    let variant = KeyVariant(column: column, interpretation: .text, collation: key.collation)
                    variants.insert(variant)
                    terms.append(Self.term(Self.enumRank(variant, order: order, dialect: dialect), key, blob: false, dialect))
                    terms.append(Self.term(SQLFragment(dialect.quoted(variant.columnName)), key, blob: true, dialect))
                    continue
                }
                var interpretation = key.interpretation
                if interpretation == .inferred || (interpretation == .text && type == .string)
                    || (interpretation == .number && (type == .integer || type == .float))
                    || (interpretation == .date && type == .date) {
                    interpretation = .inferred
                }
                if interpretation == .inferred && type != .string {
                    terms.append(Self.term(SQLFragment(dialect.quoted("n\(column)")), key, blob: false, dialect))
                } else if interpretation == .inferred && key.collation == .binary {
                    let text = SQLFragment(dialect.quoted("c\(column)"))
                    terms.append(Self.term(text, key, blob: false, dialect, collate: dialect.binaryCollation))
                } else {
                    let variant = KeyVariant(
                        column: column, interpretation: interpretation == .inferred ? .text : interpretation,
                        collation: key.collation)
                    variants.insert(variant)
                    terms.append(Self.term(SQLFragment(dialect.quoted(variant.columnName)), key, blob: true, dialect))
                }
            }
        }
        terms.append(Term(expression: SQLFragment("\"t\".\"id\""), descending: false, mayBeNull: false, nullsFirst: false))
        self.terms = terms
        self.variants = variants
    }

    /// `CASE` mapping the key column to the value's rank in `order` (matched by the
    /// collation's equivalence range, as memory does), the order's length otherwise.
    private static func enumRank(_ variant: KeyVariant, order: [String], dialect: SQLDialect) -> SQLFragment {
        let name = dialect.quoted(variant.columnName)
        // Literals, not parameters: an index on the order must repeat the expression exactly,
        // and the literals are key bytes in hex, never the user's text.
        var sql = "CASE WHEN \(name) IS NULL THEN NULL"
        for (rank, value) in order.enumerated() {
            let range = variant.collation.equivalenceKeyRange(for: value)
            sql += " WHEN \(name) >= \(dialect.literal([0x30] + range.lower))"
            sql += " AND \(name) < \(dialect.literal([0x30] + range.upper)) THEN \(rank)"
        }
        return SQLFragment(sql + " ELSE \(order.count) END")
    }

    private static func term(
        _ value: SQLFragment, _ key: SortSpec.Key, blob: Bool, _ dialect: SQLDialect, collate: String? = nil
    ) -> Term {
        let descending = key.direction == .descending
        // Where nulls go in the value order: at the high end, or the low end (first ascending).
        let nullsHigh = switch key.nulls {
        case .last: !descending
        case .first: descending
        case .natural: false
        }
        let nullsFirst = nullsHigh == descending
        switch dialect {
        case .sqlite:
            var expression = value
            if nullsHigh {
                expression = SQLFragment("coalesce(")
                expression.append(value)
                expression.append(blob ? ", X'FF')" : ", X'')")
            }
            if let collate { expression.append(" COLLATE \(collate)") }
            return Term(expression: expression, descending: descending, mayBeNull: !nullsHigh, nullsFirst: nullsFirst)
        case .postgresql:
            var expression = value
            if let collate { expression.append(" COLLATE \(collate)") }
            return Term(expression: expression, descending: descending, mayBeNull: true, nullsFirst: nullsFirst)
        }
    }

    /// The `ORDER BY` list (without the keywords).
    public var orderBy: SQLFragment {
        SQLFragment.joined(terms.map { term in
            var fragment = term.expression
            fragment.append(term.descending ? " DESC" : " ASC")
            if dialect == .postgresql { fragment.append(term.nullsFirst ? " NULLS FIRST" : " NULLS LAST") }
            return fragment
        }, separator: ", ")
    }

    /// The `ORDER BY` list as an index's columns: the same expressions and directions, the
    /// tie-breaker unqualified (an index can't name the query's table alias).
    public var indexColumns: SQLFragment {
        var fragment = SQLFragment()
        for term in terms.dropLast() {
            fragment.append(term.expression)
            fragment.append(term.descending ? " DESC" : " ASC")
            if dialect == .postgresql { fragment.append(term.nullsFirst ? " NULLS FIRST" : " NULLS LAST") }
            fragment.append(", ")
        }
        fragment.append("\"id\"")
        return fragment
    }

    /// The rows strictly after a row whose term values are `values` (one per term, the id last):
    /// the keyset ("seek") predicate, with a leading range on the first term where that is
    /// exact, so that an index on the order can seek to the cursor.
    public func after(_ values: [SQLValue]) throws -> SQLFragment {
        guard values.count == terms.count else { throw TableStoreError.invalid("the cursor doesn't match the sort order") }
        var predicate = after(values, from: 0)
        let first = terms[0]
        if values[0] != .null && (!first.mayBeNull || first.nullsFirst) {
            var lead = first.expression
            lead.append(first.descending ? " <= " : " >= ")
            lead.bind(values[0])
            lead.append(" AND ")
            lead.append(predicate)
            predicate = lead
        }
        return predicate
    }

    private func after(_ values: [SQLValue], from index: Int) -> SQLFragment {
        guard index < terms.count else { return SQLFragment("0") }
        let term = terms[index]
        let rest = after(values, from: index + 1)
        var fragment = SQLFragment("(")
        if values[index] == .null {
            if term.nullsFirst {
                fragment.append(term.expression)
                fragment.append(" IS NOT NULL OR (")
            } else {
                fragment.append("(")
            }
            fragment.append(term.expression)
            fragment.append(" IS NULL AND ")
            fragment.append(rest)
            fragment.append("))")
            return fragment
        }
        fragment.append(term.expression)
        fragment.append(term.descending ? " < " : " > ")
        fragment.bind(values[index])
        if term.mayBeNull && !term.nullsFirst {
            fragment.append(" OR ")
            fragment.append(term.expression)
            fragment.append(" IS NULL")
        }
        if index + 1 < terms.count {
            fragment.append(" OR (")
            fragment.append(term.expression)
            fragment.append(" = ")
            fragment.bind(values[index])
            fragment.append(" AND ")
            fragment.append(rest)
            fragment.append(")")
        }
        fragment.append(")")
        return fragment
    }
}
