import Foundation

extension SortSpec {
    /// Parses the text form. An empty or blank string is the empty spec.
    ///
    ///     try SortSpec(parsing: "-published:date:nulls-first,title:nocase")
    ///
    /// - Throws: ``SortSpecError`` naming the offending token and its position: an empty key,
    ///   a missing column name, an unknown or conflicting modifier, an empty `enum=` list, a
    ///   column named twice, or a dangling `\`.
    public init(parsing text: String) throws {
        let characters = Array(text)
        var parser = _SpecParser(characters: characters, text: text)
        self.init(try parser.parseSpec())
    }
}

extension SortSpec: CustomStringConvertible, LosslessStringConvertible {
    /// The canonical text form: `-` for descending, no `+`, modifiers in their stored order,
    /// special characters escaped.
    public var description: String {
        keys.map(\.description).joined(separator: ",")
    }

    /// Parses the text form, or returns `nil` if it is invalid.
    public init?(_ description: String) {
        guard let spec = try? SortSpec(parsing: description) else { return nil }
        self = spec
    }
}

extension SortSpec.Key: CustomStringConvertible {
    /// The key's canonical text form, such as `-price:num:nulls-first`.
    public var description: String {
        var text = direction == .descending ? "-" : ""
        text += _escape(column, special: ",:\\|", escapeLeadingSign: true)
        for modifier in modifiers { text += ":" + modifier.description }
        return text
    }
}

extension SortSpec.Modifier: CustomStringConvertible {
    /// The modifier's text, such as `nocase` or `enum=todo|done`.
    public var description: String {
        switch self {
        case .collation(.locale(let locale)): locale.description
        case .enumOrder(let values):
            "enum=" + values.map { _escape($0, special: ",:\\|", escapeLeadingSign: false) }.joined(separator: "|")
        case .transform(.random(let seed)): "random=\(seed)"
        default: Self.wordOf[self] ?? "?"
        }
    }

    /// The modifiers written as one fixed word, each with its word: the one table
    /// ``named(_:)`` reads and ``description`` writes.
    static let words: [(word: String, modifier: SortSpec.Modifier)] = [
        ("num", .interpretation(.number)), ("text", .interpretation(.text)), ("date", .interpretation(.date)), ("auto", .interpretation(.inferred)),
        ("binary", .collation(.binary)), ("nocase", .collation(.caseInsensitive)), ("fold", .collation(.folded)), ("natural", .collation(.natural)),
        ("nulls-first", .nulls(.first)), ("nulls-last", .nulls(.last)), ("nulls-natural", .nulls(.natural)),
        ("abs", .transform(.absolute)), ("len", .transform(.length)), ("empty=null", .emptyIsNull),
    ]
    private static let byWord = Dictionary(uniqueKeysWithValues: words.map { ($0.word, $0.modifier) })
    private static let wordOf = Dictionary(uniqueKeysWithValues: words.map { ($0.modifier, $0.word) })

    /// The modifier named by `word`, or `nil`.
    static func named(_ word: String) -> SortSpec.Modifier? {
        byWord[word]
    }

    /// Modifiers in the same group conflict: two interpretations, collations, null placements
    /// or enum lists on one key.
    var group: Int {
        switch self {
        case .interpretation: 0
        case .collation: 1
        case .nulls: 2
        case .enumOrder: 3
        case .transform: 4
        case .emptyIsNull: 5
        }
    }

    /// Why this modifier can't be on one key with `other`, or `nil` when they combine: two
    /// of one kind (two collations), `enum=` beside `num`, `date` or a transform, `len` beside
    /// `num` or `date`, `abs` beside `text` or `date`.
    ///
    ///     SortSpec.Modifier.transform(.absolute).conflict(with: .interpretation(.number))   // nil
    ///     SortSpec.Modifier.transform(.length).conflict(with: .interpretation(.number))     // "'len' counts …"
    public func conflict(with other: SortSpec.Modifier) -> String? {
        if group == other.group { return "modifier '\(self)' conflicts with '\(other)'" }
        switch (self, other) {
        case (.enumOrder, .interpretation(.number)), (.enumOrder, .interpretation(.date)):
            return "'enum=' orders text values and can't follow 'num' or 'date'"
        case (.interpretation(.number), .enumOrder), (.interpretation(.date), .enumOrder):
            return "'\(self)' conflicts with 'enum='"
        case (.enumOrder, .transform), (.transform, .enumOrder):
            return "'\(self)' conflicts with '\(other)': an 'enum=' key orders by its list"
        case (.transform(.length), .interpretation(let kind)), (.interpretation(let kind), .transform(.length)):
            return kind == .number || kind == .date ? "'len' counts the text's characters and can't be used with '\(kind == .number ? "num" : "date")'" : nil
        case (.transform(.absolute), .interpretation(let kind)), (.interpretation(let kind), .transform(.absolute)):
            return kind == .text || kind == .date ? "'abs' orders numbers and can't be used with '\(kind == .text ? "text" : "date")'" : nil
        default:
            return nil
        }
    }
}

/// A type whose `Codable` form is its text (``LosslessStringConvertible``): one string,
/// decoding refused when the text doesn't parse.
public protocol _TextCodable: Codable, LosslessStringConvertible {}

extension _TextCodable {
    /// Decodes the text form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a \(Self.self): \(text)"))
        }
        self = value
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension SortSpec.Transform: _TextCodable {
    /// The modifier's text: `abs`, `len` or `random=SEED`.
    public var description: String { SortSpec.Modifier.transform(self).description }

    /// The transform a modifier's text names (`abs`, `len`, `random=42`), or `nil`.
    public init?(_ description: String) {
        switch description {
        case "abs": self = .absolute
        case "len": self = .length
        default:
            guard description.hasPrefix("random="), let seed = Self.seed(description.dropFirst(7)) else { return nil }
            self = .random(seed: seed)
        }
    }

    /// A `random=` seed: ASCII digits for a number that fits 64 bits.
    static func seed(_ digits: Substring) -> UInt64? {
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }
}

private func _escape(_ text: String, special: String, escapeLeadingSign: Bool) -> String {
    var result = ""
    let characters = Array(text)
    for (offset, character) in characters.enumerated() {
        let isEdgeSpace = character == " " && (offset == 0 || offset == characters.count - 1)
        let isLeadingSign = escapeLeadingSign && offset == 0 && (character == "-" || character == "+")
        if special.contains(character) || isEdgeSpace || isLeadingSign { result.append("\\") }
        result.append(character)
    }
    return result
}

private struct _SpecParser {
    let characters: [Character]
    let text: String

    func error(_ problem: String, at offset: Int, hint: String? = nil) -> SortSpecError {
        .syntax(problem, at: offset + 1, in: text, hint: hint)
    }

    /// Splits on unescaped `separator`; a `\` keeps the next character in the piece.
    func split(_ piece: ArraySlice<Character>, on separator: Character) throws -> [ArraySlice<Character>] {
        var pieces: [ArraySlice<Character>] = []
        var start = piece.startIndex
        var index = piece.startIndex
        while index < piece.endIndex {
            if piece[index] == "\\" {
                guard index + 1 < piece.endIndex else { throw error("dangling escape '\\'", at: index) }
                index += 2
                continue
            }
            if piece[index] == separator {
                pieces.append(piece[start..<index])
                start = index + 1
            }
            index += 1
        }
        pieces.append(piece[start..<piece.endIndex])
        return pieces
    }

    func unescape(_ piece: ArraySlice<Character>) -> String {
        var result = ""
        var escaped = false
        for character in piece {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }

    /// Drops unescaped spaces at both ends.
    func trimmed(_ piece: ArraySlice<Character>) -> ArraySlice<Character> {
        var piece = piece.drop { $0 == " " }
        while let last = piece.last, last == " " {
            let backslashes = piece.dropLast().reversed().prefix { $0 == "\\" }.count
            if backslashes % 2 == 1 { break }
            piece = piece.dropLast()
        }
        return piece
    }

    mutating func parseSpec() throws -> [SortSpec.Key] {
        if characters.allSatisfy({ $0 == " " }) { return [] }
        var keys: [SortSpec.Key] = []
        for rawKey in try split(characters[...], on: ",") {
            let key = try parseKey(rawKey)
            // A column may be read several ways (`name:len,name`); the same reading twice is an error.
            if let earlier = keys.firstIndex(where: { $0.reading == key.reading }) {
                throw error(
                    "column '\(key.column)' named twice", at: trimmed(rawKey).startIndex,
                    hint:
                        "key \(keys.count + 1) reads it as key \(earlier + 1) does, so it could never decide; a column may be read several ways, as in name:len,name"
                )
            }
            keys.append(key)
        }
        return keys
    }

    func parseKey(_ raw: ArraySlice<Character>) throws -> SortSpec.Key {
        var piece = trimmed(raw)
        guard !piece.isEmpty else { throw error("empty key", at: raw.startIndex) }
        var direction = SortDirection.ascending
        if piece.first == "-" || piece.first == "+" {
            direction = piece.first == "-" ? .descending : .ascending
            piece = piece.dropFirst()
        }
        let parts = try split(piece, on: ":")
        let columnName = unescape(parts[0])
        guard !columnName.isEmpty else { throw error("missing column name", at: parts[0].startIndex) }
        var modifiers: [SortSpec.Modifier] = []
        for part in parts.dropFirst() {
            var modifier = try parseModifier(part)
            // `locale=TAG` and `nocase`/`fold`/`natural` make one collation: the locale at a strength.
            if case .collation(let collation) = modifier,
                let index = modifiers.firstIndex(where: { if case .collation = $0 { true } else { false } }),
                case .collation(let earlier) = modifiers[index]
            {
                guard let merged = earlier.combined(with: collation) else {
                    throw error(
                        "modifier '\(modifier)' conflicts with '\(modifiers[index])'", at: part.startIndex,
                        hint: earlier.isLocale || collation.isLocale
                            ? "locale=TAG combines with nocase, fold or natural, not with binary or another locale" : nil)
                }
                modifiers.remove(at: index)
                modifier = .collation(merged)
            }
            for earlier in modifiers {
                if let problem = modifier.conflict(with: earlier) { throw error(problem, at: part.startIndex) }
            }
            modifiers.append(modifier)
        }
        return SortSpec.Key(columnName, direction, modifiers)
    }

    func parseModifier(_ part: ArraySlice<Character>) throws -> SortSpec.Modifier {
        let word = unescape(part)
        if word.hasPrefix("locale=") {
            let tag = String(word.dropFirst(7))
            do {
                return .collation(.locale(try LocaleCollation(tag)))
            } catch let failure as LocaleCollationError {
                throw error(failure.description, at: part.startIndex + 7)
            }
        }
        if word.hasPrefix("enum=") {
            let list = part.dropFirst(5)
            var values: [String] = []
            for rawValue in try split(list, on: "|") {
                let value = unescape(rawValue)
                guard !value.isEmpty else { throw error("empty value in 'enum=' list", at: rawValue.startIndex) }
                guard !values.contains(value) else {
                    throw error("value '\(value)' listed twice in 'enum='", at: rawValue.startIndex)
                }
                values.append(value)
            }
            return .enumOrder(values)
        }
        if word.hasPrefix("random=") {
            let digits = word.dropFirst(7)
            guard let seed = SortSpec.Transform.seed(digits) else {
                throw error(
                    "'random=' needs a seed, a whole number from 0 to \(UInt64.max), not '\(digits.prefix(40))'",
                    at: part.startIndex + 7)
            }
            return .transform(.random(seed: seed))
        }
        guard let modifier = SortSpec.Modifier.named(word) else {
            throw error(
                word.isEmpty ? "empty modifier" : "unknown modifier '\(word)'", at: part.startIndex,
                hint:
                    "expected num, text, date, auto, binary, nocase, fold, natural, nulls-first, nulls-last, nulls-natural, locale=TAG, enum=a|b|c, abs, len, empty=null or random=SEED"
            )
        }
        return modifier
    }
}
