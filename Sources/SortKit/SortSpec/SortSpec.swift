import Foundation

/// A sort order as text: the form the CLI, URLs and saved settings use.
///
/// Grammar: `KEY[,KEY...]` where `KEY := ['-'|'+'] column [':' modifier]...`; `-` means
/// descending. A column name or value containing `,` `:` `|` or `\` (or starting with `-`,
/// `+` or a space) escapes that character with `\`. Spaces around a key are ignored.
///
///     let spec = try SortSpec(parsing: "status:enum=todo|reading|done,-price:num,title")
///     spec.keys[1].direction       // .descending
///     spec.keys[1].interpretation  // .number
///     spec.description             // "status:enum=todo|reading|done,-price:num,title"
///
/// Modifiers:
///
/// | modifier | meaning |
/// |---|---|
/// | `num` | parse numbers leniently: "$1,234.56" → 1234.56, "75%" → 75, "(12)" → -12 |
/// | `text` | compare as text, even where the column holds numbers |
/// | `date` | parse ISO 8601 dates and date-times |
/// | `binary`, `nocase`, `fold`, `natural` | the string ``Collation`` (default `natural`) |
/// | `nulls-first`, `nulls-last`, `nulls-natural` | the ``NullPlacement`` (default last) |
/// | `enum=a\|b\|c` | an explicit order of values; unknown values after them |
/// | `auto` | read values by the column's inferred type (the default) |
/// | `abs` | by absolute value (numbers; other values unchanged) |
/// | `len` | by length in characters |
/// | `empty=null` | blank or whitespace-only text is null |
/// | `random=SEED` | a seeded shuffle: the same order for the same seed everywhere |
///
/// `nulls-natural` extends the spec grammar (<doc:SortSpecFormat>) so that every null placement
/// has a text form. ``description`` prints the canonical form, which parses back to an equal spec; a spec
/// in canonical form prints back to the same text. `SortSpec` is `Codable` as that string.
public struct SortSpec: Sendable, Hashable {
    /// The keys, most significant first.
    public var keys: [Key]

    /// A spec with the given keys.
    ///
    ///     SortSpec([.init("author"), .init("price", .descending, [.number])]).description
    ///     // "author,-price:num"
    public init(_ keys: [Key] = []) {
        self.keys = keys
    }

    /// Whether the spec has no keys (keeps the input order).
    public var isEmpty: Bool { keys.isEmpty }

    /// The key for `column`, if the spec sorts by it (the first, if several read it).
    public func key(for column: String) -> Key? {
        keys.first { $0.column == column }
    }

    /// The spec, or an error when two keys read the same column the same way: a later such
    /// key could never decide anything (its values tie whenever the earlier key's do), so it is
    /// a mistake. A column may appear in several keys that read it differently — by length,
    /// then by value (`name:len,name`), as SQL's `ORDER BY length(name), name`.
    ///
    ///     try SortSpec(parsing: "name:len,name").checkingDistinctKeys()   // fine
    ///     try SortSpec([.init("a"), .init("a", .descending)]).checkingDistinctKeys()   // throws: key 2 repeats key 1
    ///
    /// - Throws: ``SortSpecError`` naming both keys.
    public func checkingDistinctKeys() throws -> SortSpec {
        var seen: [Key.Reading: Int] = [:]
        for (index, key) in keys.enumerated() {
            if let earlier = seen[key.reading] {
                throw SortSpecError.repeatedKey(
                    "key \(index + 1) ('\(key)') repeats key \(earlier + 1) ('\(keys[earlier])'): the same column read the same way can never decide",
                    in: description)
            }
            seen[key.reading] = index
        }
        return self
    }
}

extension SortSpec.Key {
    /// What a key sorts by, whatever its direction and null placement: the column, and how its
    /// text is read (interpretation, collation, `enum=` order, transform, `empty=null`).
    struct Reading: Hashable {
        var column: String
        var interpretation: SortSpec.Interpretation
        var collation: Collation
        var enumOrder: [String]?
        var transform: SortSpec.Transform?
        var emptyIsNull: Bool
    }

    var reading: Reading {
        Reading(
            column: column, interpretation: interpretation, collation: collation, enumOrder: enumOrder, transform: transform,
            emptyIsNull: emptyIsNull)
    }
}

extension SortSpec {
    /// One key of a sort spec: a column, a direction and modifiers.
    public struct Key: Sendable, Hashable {
        /// The column's name.
        public var column: String
        /// The direction.
        public var direction: SortDirection
        /// The modifiers, in the order written.
        public var modifiers: [Modifier]

        /// A key for `column`.
        ///
        ///     SortSpec.Key("price", .descending, [.number]).description   // "-price:num"
        public init(_ column: String, _ direction: SortDirection = .ascending, _ modifiers: [Modifier] = []) {
            self.column = column
            self.direction = direction
            self.modifiers = modifiers
        }

        /// How the column's text is read: from a `num`, `text` or `date` modifier, or inferred.
        public var interpretation: Interpretation {
            for case .interpretation(let value) in modifiers { return value }
            return .inferred
        }

        /// The collation named by a modifier, or ``Collation/default``.
        public var collation: Collation {
            for case .collation(let value) in modifiers { return value }
            return .default
        }

        /// The null placement named by a modifier, or ``NullPlacement/last``.
        public var nulls: NullPlacement {
            for case .nulls(let value) in modifiers { return value }
            return .last
        }

        /// The explicit value order of an `enum=` modifier, if any.
        public var enumOrder: [String]? {
            for case .enumOrder(let values) in modifiers { return values }
            return nil
        }

        /// The value transform of an `abs`, `len` or `random=` modifier, if any.
        public var transform: Transform? {
            for case .transform(let value) in modifiers { return value }
            return nil
        }

        /// Whether an `empty=null` modifier makes blank text null.
        public var emptyIsNull: Bool {
            modifiers.contains(.emptyIsNull)
        }

        /// This key in the other direction, modifiers kept.
        public var reversed: Key {
            Key(column, direction.reversed, modifiers)
        }
    }

    /// How a column's text becomes sort values.
    public enum Interpretation: String, Sendable, Hashable, CaseIterable {
        /// By the column's inferred ``ColumnType``.
        case inferred
        /// `num`: lenient numbers (``LenientNumber``); text that isn't a number stays text.
        case number
        /// `text`: every value is a string.
        case text
        /// `date`: ISO 8601 dates; text that isn't a date stays text.
        case date
    }

    /// A key modifier.
    public enum Modifier: Sendable, Hashable {
        /// `num`, `text` or `date`.
        case interpretation(Interpretation)
        /// `binary`, `nocase`, `fold` or `natural`.
        case collation(Collation)
        /// `nulls-first`, `nulls-last` or `nulls-natural`.
        case nulls(NullPlacement)
        /// `enum=a|b|c`.
        case enumOrder([String])
        /// `abs`, `len` or `random=SEED`: the key orders by a value computed from the cell's.
        case transform(Transform)
        /// `empty=null`: blank or whitespace-only text is null, so "blanks last" holds for
        /// text from any source (CSV cells are read this way already).
        case emptyIsNull
    }

    /// A value computed from a cell's before it is compared: the second wave's key kinds.
    ///
    ///     try SortSpec(parsing: "delta:abs").keys[0].transform          // .absolute
    ///     try SortSpec(parsing: "title:random=42").keys[0].transform    // .random(seed: 42)
    ///
    /// Each is a function of the value alone, so the same rows get the same order in memory,
    /// in SQLite and in PostgreSQL, on every page.
    public enum Transform: Sendable, Hashable {
        /// `abs`: numbers by magnitude (`-3` and `3` tie); other values unchanged.
        case absolute
        /// `len`: the text's length in characters (grapheme clusters, as `String.count`).
        case length
        /// `random=SEED`: a 63-bit hash of the value and the seed — a shuffle that is the same
        /// for the same seed on every page, reload and backend. Equal values tie.
        case random(seed: UInt64)
    }
}

extension SortSpec: ExpressibleByArrayLiteral {
    /// A spec from keys: `[.init("title"), .init("price", .descending)]`.
    public init(arrayLiteral keys: Key...) {
        self.init(keys)
    }
}

extension SortSpec: Codable {
    /// Decodes the text form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try SortSpec(parsing: text)
    }

    /// Encodes the canonical text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension SortSpec {
    /// This spec with `collation` on every key that names none (and has no `abs`, `len` or
    /// `random=` transform, which fix their own). A key's strength modifier combines with a
    /// locale: with `.locale(sv)`, `title:nocase` becomes `title:locale=sv:nocase`.
    ///
    ///     let swedish = Collation.locale(try LocaleCollation("sv"))
    ///     try SortSpec(parsing: "title,-price:num").withDefaultCollation(swedish).description
    ///     // "title:locale=sv,-price:num:locale=sv"
    public func withDefaultCollation(_ collation: Collation) -> SortSpec {
        guard collation != .default else { return self }
        return SortSpec(
            keys.map { key in
                var key = key
                if key.modifiers.contains(where: { if case .transform = $0 { true } else { false } }) { return key }
                if let index = key.modifiers.firstIndex(where: { if case .collation = $0 { true } else { false } }) {
                    if case .collation(let own) = key.modifiers[index], !own.isLocale, own != .binary,
                        let merged = collation.combined(with: own)
                    {
                        key.modifiers[index] = .collation(merged)
                    }
                    return key
                }
                key.modifiers.append(.collation(collation))
                return key
            })
    }
}
