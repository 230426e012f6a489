import Foundation
import SortKit

/// A stored sort-key column: the `SortValue.sortKey(collation:)` bytes of a column's values
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
    /// The value transform (`abs`, `len`, `random=SEED`), if any.
    public var transform: SortSpec.Transform?

    /// A variant; `len` and `random=` ignore the collation (their values are integers), and
    /// `len` the interpretation (it counts the text).
    public init(column: Int, interpretation: SortSpec.Interpretation, collation: Collation, transform: SortSpec.Transform? = nil) {
        self.column = column
        self.interpretation = transform == .length ? .text : interpretation
        self.collation = transform == nil || transform == .absolute ? collation : .natural
        self.transform = transform
    }

    /// Whether the variant is a `random=` order (one of as many as there are seeds).
    var isRandom: Bool {
        if case .random = transform { return true }
        return false
    }

    /// The physical column name, made only of the column's position, two enum names and the
    /// transform's name and seed.
    public var columnName: String {
        "k\(column)_\(interpretation.rawValue)_\(collation.name)" + (transform.map { "_" + $0.columnSuffix } ?? "")
    }

    /// The key bytes of a cell's text, `nil` for null.
    func key(of text: String, type: ColumnType) -> [UInt8]? {
        self.key.sortValue(of: text, columnType: type).sortKey(collation: collation)
    }

    /// The SQLite expression computing this key from the cell text (see ``computedKey(_:)``):
    /// only positions, enum names and a seed's digits, never user text.
    func computedExpression(type: ColumnType) -> String {
        let transform = transform.map { ", '\(SortSpec.Modifier.transform($0))'" } ?? ""
        return "sortkit_key(\"c\(column)\", '\(interpretation.rawValue)', '\(collation.rawValue)', '\(type.rawValue)'\(transform))"
    }

    /// `sortkit_key(text, interpretation, collation, type[, transform])`: the key of a cell's
    /// text read as ``computedExpression(type:)`` names; `nil` for null or unknown names.
    static func computedKey(_ arguments: [String?]) -> [UInt8]? {
        guard let first = arguments.first, let reader = ComputedKeyReader(names: Array(arguments.dropFirst())) else { return nil }
        return reader.key(of: first ?? "")
    }

    /// What `sortkit_key`'s names (every argument but the cell) read as, parsed once for every
    /// row of a statement: the key, its collation and the column's type.
    struct ComputedKeyReader: Sendable {
        let key: SortSpec.Key
        let collation: Collation
        let type: ColumnType
        /// `len` and `random=` of text, read off the cell's bytes (``_BytesInteger``): no
        /// `String` per row (a String, its value and its key took a first page by
        /// `title:random=7` of 1M rows a third of its time).
        private let bytesInteger: _BytesInteger?

        /// The reader of `interpretation, collation, type[, transform]`; `nil` for unknown names.
        init?(names: [String?]) {
            guard names.count == 3 || names.count == 4,
                let interpretation = names[0].flatMap(SortSpec.Interpretation.init(rawValue:)),
                let collation = names[1].flatMap(Collation.init(rawValue:)), let type = names[2].flatMap(ColumnType.init(rawValue:))
            else { return nil }
            var transform: SortSpec.Transform?
            if names.count == 4 {
                guard let name = names[3], let parsed = SortSpec.Transform(name) else { return nil }
                transform = parsed
            }
            let variant = KeyVariant(column: 0, interpretation: interpretation, collation: collation, transform: transform)
            (key, self.collation, self.type) = (variant.key, variant.collation, type)
            let text = key.interpretation == .text || (key.interpretation == .inferred && type == .string)
            bytesInteger = text ? _BytesInteger(key, type: type) : nil
        }

        /// The key bytes of a cell's text (empty for NULL), `nil` for a null key.
        func key(of text: String) -> [UInt8]? {
            key.sortValue(of: text, columnType: type).sortKey(collation: collation)
        }

        /// ``key(of:)`` of a cell's bytes as text: `len` and `random=` of well-formed UTF-8
        /// (for `random=`, in NFC: every scalar its own NFC, as `random=` hashes NFC bytes)
        /// from the bytes, the rest through a `String` (which repairs ill-formed bytes).
        func key(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            if let bytesInteger, _isValidUTF8(bytes) {
                let nfc: Bool =
                    switch bytesInteger {
                    case .length: true
                    case .random: _allNFCAlone(bytes)
                    }
                if nfc { return bytesInteger(bytes).flatMap { SortValue.integer($0).sortKey(collation: collation) } }
            }
            return key(of: String(decoding: bytes, as: UTF8.self))
        }
    }

    public static func < (lhs: KeyVariant, rhs: KeyVariant) -> Bool {
        (lhs.columnName, lhs.collation.rawValue) < (rhs.columnName, rhs.collation.rawValue)
    }

    /// Refuses variants that would share a stored column: a region that reads as a strength
    /// (`locale=en-KN` and `locale=en:natural` are both `…_loc_en_kn`).
    static func checkDistinctColumns(_ variants: Set<KeyVariant>) throws {
        var seen: [String: KeyVariant] = [:]
        for variant in variants.sorted() {
            if let other = seen.updateValue(variant, forKey: variant.columnName), other != variant {
                throw TableStoreError.invalid(
                    "collations '\(other.collation.rawValue)' and '\(variant.collation.rawValue)' of column \(variant.column + 1) "
                        + "would share the key column \(variant.columnName); sort by one of them")
            }
        }
    }
}

extension Collation {
    /// The collation's name in stored key columns: its modifier name in sort specs, or
    /// `loc_TAG_STRENGTH` (lower-case letters, digits and `_` only: tags are validated ASCII).
    /// Lower case because PostgreSQL folds the unquoted names `CREATE TABLE` and `COPY` write
    /// while `ORDER BY` quotes them: `sv-SE`'s column is `loc_sv_se` in both. Tables made before
    /// this spelling keep working: PostgreSQL folded their names already and SQLite compares
    /// names without case.
    var name: String {
        switch self {
        case .binary: "binary"
        case .caseInsensitive: "nocase"
        case .folded: "fold"
        case .natural: "natural"
        case .locale(let locale):
            "loc_" + locale.identifier.lowercased().replacingOccurrences(of: "-", with: "_")
                + (locale.numeric ? "_kn" : locale.strength == .tertiary ? "" : locale.strength == .secondary ? "_s2" : "_s1")
        }
    }
}

extension SortSpec.Interpretation: Codable {}

extension SortSpec.Transform {
    /// The suffix of a stored key column's name: `abs`, `len` or `r` and the seed.
    var columnSuffix: String {
        switch self {
        case .absolute: "abs"
        case .length: "len"
        case .random(let seed): "r\(seed)"
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
/// `X'FF'` after every stored key — which a plain expression index serves. PostgreSQL has no
/// order across types, so there every term reads a stored key column (`bytea`, typed values
/// included) with nulls coalesced to `'\\x'` (below every key) or `'\\xff'` (above): no term is
/// ever NULL, and a keyset cursor becomes an index range (`coalesce(…) >= $1 AND …`) on
/// both dialects.
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
        /// How SortKit computes the term's value from its column's text (PostgreSQL's key terms):
        /// for an order whose key columns the table doesn't store, served from the database.
        var computed: ComputedTerm? = nil
    }

    /// A PostgreSQL term computed by SortKit: the value its SQL expression would read, were the
    /// key column stored (stored keys are ``KeyVariant/key(of:type:)`` of the cell's text).
    struct ComputedTerm: Sendable {
        /// The key column the term reads.
        let variant: KeyVariant
        /// The column's type.
        let type: ColumnType
        /// The term's value for a null key: a key term's sentinel, an `enum=` rank's null rank.
        let null: SQLValue
        /// For an `enum=` rank, each listed value's key range (the text tag `0x30` first, as the
        /// rank's `CASE` compares); `nil` for the key itself.
        let ranks: [KeyRange]?
        /// The variant's key, made once (not per cell).
        private let key: SortSpec.Key

        /// A half-open range of key bytes: from `lower`, up to but not including `upper`.
        struct KeyRange: Sendable {
            let lower: [UInt8]
            let upper: [UInt8]
        }

        init(variant: KeyVariant, type: ColumnType, null: SQLValue, ranks: [KeyRange]?) {
            (self.variant, self.type, self.null, self.ranks, key) = (variant, type, null, ranks, variant.key)
        }

        /// The term's value for a cell's text (empty for NULL), compared as SQL compares it:
        /// bytes as `bytea`, ranks as integers.
        func value(of text: String) -> SQLValue {
            let key = self.key.sortValue(of: text, columnType: type).sortKey(collation: variant.collation)
            guard let ranks else { return key.map { .blob($0) } ?? null }
            guard let key else { return null }
            for (rank, range) in ranks.enumerated()
            where !key.lexicographicallyPrecedes(range.lower) && key.lexicographicallyPrecedes(range.upper) {
                return .integer(Int64(rank))
            }
            return .integer(Int64(ranks.count))
        }
    }

    /// The terms, the id tie-breaker last.
    public let terms: [Term]
    /// The stored key columns the terms read.
    public let variants: Set<KeyVariant>
    /// Whether the order reads the manual-order table (joined as `o`).
    public let isManual: Bool
    /// On SQLite, whether the first term is a key computed in the query (`sortkit_key`): no
    /// index serves the order, so the query reads every row.
    let leadsWithComputedKey: Bool
    /// On SQLite, whether every term's values are integers, blobs or NULL (not a number column
    /// that holds doubles, not text): what ``_WholeOrder`` can put in SQLite's order.
    let termsAreIntegersOrBlobs: Bool
    /// The dialect.
    public let dialect: SQLDialect

    /// Renders `order` for a table with `schema`.
    ///
    /// - Parameters:
    ///   - order: The order to render: a sort spec or the manual order.
    ///   - schema: The table's columns (their types choose each key's expression).
    ///   - dialect: SQLite or PostgreSQL.
    ///   - stored: The key columns the table stores; on SQLite a key it doesn't store
    ///     is computed in the query (`sortkit_key(…)`, registered by ``SQLiteTableStore``) rather
    ///     than read, so a read never adds a column. `nil`: every key is a column (index DDL).
    /// - Throws: ``TableStoreError`` for a column the schema doesn't have.
    public init(_ order: TableOrder, schema: TableSchema, dialect: SQLDialect, stored: Set<KeyVariant>? = nil) throws {
        /// The expression of a key: its column, or on SQLite the computed key when it isn't stored.
        var computedKeys = 0, integersOrBlobs = true
        func keyExpression(_ variant: KeyVariant) -> SQLFragment {
            if dialect == .sqlite, let stored, !stored.contains(variant) {
                computedKeys += 1
                return SQLFragment(variant.computedExpression(type: schema.columns[variant.column].type))
            }
            return SQLFragment(dialect.quoted(variant.columnName))
        }
        self.dialect = dialect
        var terms: [Term] = []
        var variants: Set<KeyVariant> = []
        var leadsWithComputedKey = false
        switch order {
        case .manual:
            isManual = true
            terms.append(Term(expression: SQLFragment("\"o\".\"pos\""), descending: false, mayBeNull: false, nullsFirst: false))
        case .spec(let spec):
            isManual = false
            for (index, key) in spec.keys.enumerated() {
                // The first key's terms (an `enum=` key's rank reads its key too) are computed.
                defer { if index == 0 { leadsWithComputedKey = computedKeys > 0 } }
                let column = try schema.columnIndex(key.column)
                let type = schema.columns[column].type
                if let order = key.enumOrder {
                    let variant = KeyVariant(column: column, interpretation: .text, collation: key.collation)
                    if stored?.contains(variant) ?? true { variants.insert(variant) }
                    let expression = keyExpression(variant)
                    var rank = Self.term(Self.enumRank(variant, expression, order: order, dialect: dialect, key: key), key, blob: false, dialect)
                    if dialect == .postgresql {
                        rank.computed = ComputedTerm(
                            variant: variant, type: type, null: .integer(Self.nullsHigh(key) ? Int64(order.count + 1) : -1),
                            ranks: order.map { value in
                                let range = variant.collation.equivalenceKeyRange(for: value)
                                return ComputedTerm.KeyRange(lower: [0x30] + range.lower, upper: [0x30] + range.upper)
                            })
                    }
                    terms.append(rank)
                    terms.append(Self.computed(Self.term(expression, key, blob: true, dialect), variant, type, key, dialect))
                    continue
                }
                if key.transform != nil {
                    // `abs`, `len` and `random=` values are computed by SortKit, as in memory: a
                    // stored key column, or on SQLite the computed key.
                    let variant = try _TableIndex.variant(key, schema: schema)
                    if dialect == .postgresql || stored?.contains(variant) ?? true { variants.insert(variant) }
                    terms.append(Self.computed(Self.term(keyExpression(variant), key, blob: true, dialect), variant, type, key, dialect))
                    continue
                }
                var interpretation = key.interpretation
                if interpretation == .inferred || (interpretation == .text && type == .string)
                    || (interpretation == .number && (type == .integer || type == .float))
                    || (interpretation == .date && type == .date)
                {
                    interpretation = .inferred
                }
                if dialect == .postgresql {
                    // Every PostgreSQL term is a key column with nulls coalesced to an end
                    // sentinel: never NULL, so a keyset seek is an index range (see `term`).
                    let variant =
                        interpretation == .inferred && type != .string
                        ? KeyVariant(column: column, interpretation: .inferred, collation: .natural)
                        : KeyVariant(
                            column: column, interpretation: interpretation == .inferred ? .text : interpretation,
                            collation: key.collation)
                    variants.insert(variant)
                    terms.append(Self.computed(Self.term(keyExpression(variant), key, blob: true, dialect), variant, type, key, dialect))
                } else if interpretation == .inferred && type != .string {
                    // Floats and dates (seconds) are stored as REAL.
                    if type == .float || type == .date { integersOrBlobs = false }
                    terms.append(Self.term(SQLFragment(dialect.quoted("n\(column)")), key, blob: false, dialect))
                } else if interpretation == .inferred && key.collation == .binary {
                    integersOrBlobs = false
                    let text = SQLFragment(dialect.quoted("c\(column)"))
                    terms.append(Self.term(text, key, blob: false, dialect, collate: dialect.binaryCollation))
                } else {
                    let variant = KeyVariant(
                        column: column, interpretation: interpretation == .inferred ? .text : interpretation,
                        collation: key.collation)
                    if stored?.contains(variant) ?? true { variants.insert(variant) }
                    terms.append(Self.term(keyExpression(variant), key, blob: true, dialect))
                }
            }
        }
        terms.append(Term(expression: SQLFragment("\"t\".\"id\""), descending: false, mayBeNull: false, nullsFirst: false))
        self.terms = terms
        self.variants = variants
        self.leadsWithComputedKey = leadsWithComputedKey
        termsAreIntegersOrBlobs = integersOrBlobs
    }

    /// `CASE` mapping the key column to the value's rank in `order` (matched by the
    /// collation's equivalence range, as memory does), the order's length otherwise.
    private static func enumRank(
        _ variant: KeyVariant, _ expression: SQLFragment, order: [String], dialect: SQLDialect, key: SortSpec.Key
    ) -> SQLFragment {
        precondition(expression.render(dialect).arguments.isEmpty, "key expressions are literal")
        let name = expression.render(dialect).sql
        // Null's rank: SQLite leaves it NULL for `term` to place; PostgreSQL ranks it past
        // either end so the expression is never NULL.
        let null = dialect == .sqlite ? "NULL" : nullsHigh(key) ? "\(order.count + 1)" : "-1"
        // Literals, not parameters: an index on the order must repeat the expression exactly,
        // and the literals are key bytes in hex, never the user's text.
        var sql = "CASE WHEN \(name) IS NULL THEN \(null)"
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
        let nullsHigh = nullsHigh(key)
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
            // Keys are never empty and start below 0xFF, so '\x' and '\xff' sit past either end.
            guard blob else { return Term(expression: value, descending: descending, mayBeNull: false, nullsFirst: nullsFirst) }
            var expression = SQLFragment("coalesce(")
            expression.append(value)
            expression.append(nullsHigh ? ", '\\xff'::bytea)" : ", '\\x'::bytea)")
            return Term(expression: expression, descending: descending, mayBeNull: false, nullsFirst: nullsFirst)
        }
    }

    /// `term` (a key column's, coalesced) with how SortKit computes it, on PostgreSQL.
    private static func computed(_ term: Term, _ variant: KeyVariant, _ type: ColumnType, _ key: SortSpec.Key, _ dialect: SQLDialect) -> Term {
        guard dialect == .postgresql else { return term }
        var term = term
        term.computed = ComputedTerm(variant: variant, type: type, null: .blob(nullsHigh(key) ? [0xFF] : []), ranks: nil)
        return term
    }

    /// Whether nulls belong at the high end of the value order (else the low end): SortKit's
    /// one null rule (`NullPlacement.nullsFirst`) seen from the value order.
    private static func nullsHigh(_ key: SortSpec.Key) -> Bool {
        key.nulls.nullsFirst(key.direction) == (key.direction == .descending)
    }

    /// The `ORDER BY` list (without the keywords).
    public var orderBy: SQLFragment {
        SQLFragment.joined(
            terms.map { term in
                var fragment = term.expression
                fragment.append(term.descending ? " DESC" : " ASC")
                return fragment
            }, separator: ", ")
    }

    /// The first term and the tie-breaker, as an `ORDER BY` list: the order of the first
    /// term's index.
    var leadOrderBy: SQLFragment {
        var fragment = terms[0].expression
        fragment.append(terms[0].descending ? " DESC, " : " ASC, ")
        fragment.append(terms[terms.count - 1].expression)
        fragment.append(terms[terms.count - 1].descending ? " DESC" : " ASC")
        return fragment
    }

    /// The rows whose first term sorts at or after `value` (`atOrAfter`), or strictly before
    /// it, in this order: `value` an SQL expression of the first term's value, null included.
    func lead(atOrAfter: Bool, _ value: SQLFragment) -> SQLFragment {
        let term = terms[0]
        var fragment = SQLFragment("(")
        if term.mayBeNull {
            // Nulls first: every row is at or after a null, none before it; nulls last: a
            // null's group is the nulls, and every value is before it.
            let (isNull, notNull) = atOrAfter == term.nullsFirst ? (value, term.expression) : (term.expression, value)
            if atOrAfter {
                fragment.append(isNull)
                fragment.append(" IS NULL OR ")
            } else {
                fragment.append("(")
                fragment.append(isNull)
                fragment.append(" IS NULL AND ")
                fragment.append(notNull)
                fragment.append(" IS NOT NULL) OR ")
            }
        }
        fragment.append(term.expression)
        let comparison =
            switch (atOrAfter, term.descending) {
            case (true, false): " >= "
            case (true, true): " <= "
            case (false, false): " < "
            case (false, true): " > "
            }
        fragment.append(comparison)
        fragment.append(value)
        fragment.append(")")
        return fragment
    }

    /// For a first term that is never null, the rows whose first term sorts at or before
    /// `value` in this order (`value` an SQL expression of its value, NULL for no bound: it is
    /// coalesced to a value past every row's, so that the bound stays an index range).
    func lead(atOrBefore value: SQLFragment) -> SQLFragment {
        let term = terms[0]
        precondition(!term.mayBeNull, "a first term that is never null")
        let end: String
        switch dialect {
        // Numbers sort before text and text before blobs; every key is below X'FF'.
        case .sqlite: end = term.descending ? "-9e999" : "X'FF'"
        // A key (bytea, never empty, below '\xff') or an `enum=` rank (an integer from -1).
        case .postgresql:
            end =
                term.computed?.ranks != nil
                ? (term.descending ? "-2147483648" : "2147483647") : (term.descending ? "'\\x'::bytea" : "'\\xff'::bytea")
        }
        var fragment = term.expression
        fragment.append(term.descending ? " >= coalesce(" : " <= coalesce(")
        fragment.append(value)
        fragment.append(", \(end))")
        return fragment
    }

    /// For an order by one key that is never null, the rows after the row whose key is
    /// `value` and whose id is `id` (SQL expressions): a keyset seek on expressions.
    func lead(after value: SQLFragment, id: SQLFragment) -> SQLFragment {
        precondition(terms.count == 2 && !terms[0].mayBeNull, "one key, never null")
        var fragment = SQLFragment("(")
        fragment.append(terms[0].expression)
        fragment.append(terms[0].descending ? " < " : " > ")
        fragment.append(value)
        fragment.append(" OR (")
        fragment.append(terms[0].expression)
        fragment.append(" = ")
        fragment.append(value)
        fragment.append(" AND ")
        fragment.append(terms[1].expression)
        fragment.append(" > ")
        fragment.append(id)
        fragment.append("))")
        return fragment
    }

    /// The `ORDER BY` list as an index's columns: the same expressions and directions, the
    /// tie-breaker unqualified (an index can't name the query's table alias).
    public var indexColumns: SQLFragment {
        var fragment = SQLFragment()
        for term in terms.dropLast() {
            // PostgreSQL needs parentheses around an index expression other than a column.
            if dialect == .postgresql { fragment.append("(") }
            fragment.append(term.expression)
            if dialect == .postgresql { fragment.append(")") }
            fragment.append(term.descending ? " DESC" : " ASC")
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
        guard index < terms.count else { return SQLFragment("FALSE") }
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
