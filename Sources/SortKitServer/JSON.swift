import Foundation
import SortKit

/// A JSON value that keeps object keys in order (rows list their columns in schema order) and
/// decodes request bodies.
enum JSON: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func == (lhs: JSON, rhs: JSON) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: _Key.self) {
            self = .object(try container.allKeys.map { ($0.stringValue, try container.decode(JSON.self, forKey: $0)) })
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var items: [JSON] = []
            while !container.isAtEnd { items.append(try container.decode(JSON.self)) }
            self = .array(items)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else { self = .string(try container.decode(String.self)) }
    }

    private struct _Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Parses JSON text; `nil` if it isn't JSON.
    static func parse(_ bytes: [UInt8]) -> JSON? {
        try? JSONDecoder().decode(JSON.self, from: Data(bytes))
    }

    /// The value for `key` of an object.
    subscript(key: String) -> JSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The JSON text.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value): output += value.isFinite ? "\(value)" : "null"
        case .string(let value): JSON.writeString(value, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let pairs):
            output += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { output += "," }
                JSON.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    /// A JSON string literal; `<`, `>` and `&` escaped too, so JSON embedded in a page can't
    /// close a `<script>`.
    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                output += String(format: "\\u%04x", scalar.value)
            default:
                if scalar.value < 0x20 {
                    output += String(format: "\\u%04x", scalar.value)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    /// A cell's text as a typed JSON value: numbers and booleans as JSON numbers and booleans,
    /// blank as null, everything else (dates included) as the text.
    static func cell(_ text: String, type: ColumnType) -> JSON {
        if text.allSatisfy(\.isWhitespace) { return .null }
        switch type {
        case .integer: return Int64(text.trimmingCharacters(in: .whitespaces)).map(JSON.integer) ?? .string(text)
        case .float: return Double(text.trimmingCharacters(in: .whitespaces)).map(JSON.number) ?? .string(text)
        case .bool: return .bool(text.trimmingCharacters(in: .whitespaces).lowercased() == "true")
        case .date, .string: return .string(text)
        }
    }

    /// The text a JSON value stands for in a cell.
    var cellText: String? {
        switch self {
        case .null: ""
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): value
        case .array, .object: nil
        }
    }
}
