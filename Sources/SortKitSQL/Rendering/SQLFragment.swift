import Foundation

/// The SQL dialects a sort spec renders to.
public enum SQLDialect: String, Sendable, Hashable, CaseIterable {
    /// SQLite 3.35+: `?` parameters, BLOB sort keys, nulls placed by `coalesce` with a blob
    /// sentinel (so a plain expression index serves the order).
    case sqlite
    /// PostgreSQL 12+: `$n` parameters, bytea sort keys, `NULLS FIRST`/`NULLS LAST`.
    case postgresql

    /// A quoted identifier. Stores only pass names they made themselves (`c0`, `k1_text_natural`),
    /// but quoting keeps even those from ever being read as keywords.
    func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A blob literal: `X'0A1B'` (SQLite) or `'\x0a1b'::bytea` (PostgreSQL).
    func literal(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return self == .sqlite ? "X'\(hex.uppercased())'" : "'\\x\(hex)'::bytea"
    }

    /// The collation that makes text compare by code point.
    var binaryCollation: String { self == .sqlite ? "BINARY" : "\"C\"" }
}

/// A value bound to a statement parameter — never spliced into SQL text.
public enum SQLValue: Sendable, Hashable, Codable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case double(Double)
    /// Text.
    case text(String)
    /// Bytes (BLOB / bytea).
    case blob([UInt8])
}

/// SQL text with its bound values, built piece by piece; placeholders are numbered when the
/// text is rendered for a dialect, so fragments compose in any order.
///
///     var fragment = SQLFragment("price > ")
///     fragment.bind(.double(10))
///     fragment.render(.postgresql).sql   // "price > $1"
public struct SQLFragment: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case text(String)
        case value(SQLValue)
    }

    var parts: [Part] = []

    /// A fragment of plain SQL text.
    public init(_ text: String = "") {
        if !text.isEmpty { parts.append(.text(text)) }
    }

    /// Appends SQL text.
    public mutating func append(_ text: String) {
        parts.append(.text(text))
    }

    /// Appends another fragment, its values included.
    public mutating func append(_ fragment: SQLFragment) {
        parts.append(contentsOf: fragment.parts)
    }

    /// Appends a placeholder bound to `value`.
    public mutating func bind(_ value: SQLValue) {
        parts.append(.value(value))
    }

    /// Whether the fragment has no text.
    public var isEmpty: Bool { parts.isEmpty }

    /// The SQL text for `dialect` and its arguments in placeholder order.
    public func render(_ dialect: SQLDialect) -> (sql: String, arguments: [SQLValue]) {
        var sql = ""
        var arguments: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let text): sql += text
            case .value(let value):
                arguments.append(value)
                sql += dialect == .sqlite ? "?" : "$\(arguments.count)"
            }
        }
        return (sql, arguments)
    }

    /// `items` joined by `separator`.
    static func joined(_ items: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (index, item) in items.enumerated() {
            if index > 0 { result.append(separator) }
            result.append(item)
        }
        return result
    }
}
