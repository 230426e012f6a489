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
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    private struct _Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Parses JSON text; `nil` if it isn't JSON or an object names a key twice.
    static func parse(_ bytes: [UInt8]) -> JSON? {
        guard let value = try? JSONDecoder().decode(JSON.self, from: Data(bytes)), repeatedKey(in: bytes) == nil else { return nil }
        return value
    }

    /// Why `bytes` isn't a body ``parse(_:)`` accepts, for an error message.
    static func problem(_ bytes: [UInt8]) -> String {
        if (try? JSONDecoder().decode(JSON.self, from: Data(bytes))) == nil { return "the body isn't JSON" }
        if let key = repeatedKey(in: bytes) { return "the body names \"\(key)\" twice" }
        return "the body is JSON"
    }

    /// The first key an object of `bytes` (JSON text) names twice, if any. JSONDecoder keeps
    /// one of the two silently, and a body that says two things must not be read as one of
    /// them; no JSON library here reports repeats, so this scans the text: strings are
    /// skipped (escapes included) and each object's keys are compared as Swift strings
    /// (canonically equivalent keys are one key, as they are to JSONDecoder).
    static func repeatedKey(in bytes: [UInt8]) -> String? {
        var objects: [(keys: Set<String>, expectsKey: Bool)] = []
        var containers: [Bool] = [] // true for an object
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                containers.append(true)
                objects.append(([], true))
            case UInt8(ascii: "["):
                containers.append(false)
            case UInt8(ascii: "}"):
                if containers.popLast() == true { objects.removeLast() }
            case UInt8(ascii: "]"):
                _ = containers.popLast()
            case UInt8(ascii: ","):
                if containers.last == true { objects[objects.count - 1].expectsKey = true }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if containers.last == true && objects[objects.count - 1].expectsKey {
                    objects[objects.count - 1].expectsKey = false
                    let literal = Array(bytes[start...min(index, bytes.count - 1)])
                    // Only a key with escapes needs decoding (a decoder per key would make a
                    // body of many small objects costly).
                    let key =
                        literal.contains(UInt8(ascii: "\\"))
                        ? (try? JSONDecoder().decode(String.self, from: Data(literal))) ?? String(decoding: literal, as: UTF8.self)
                        : String(decoding: literal.dropFirst().dropLast(), as: UTF8.self)
                    if !objects[objects.count - 1].keys.insert(key).inserted { return key }
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The value for `key` of an object.
    subscript(key: String) -> JSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The JSON text.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The JSON text as UTF-8, as a response body sends it.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    /// Written as bytes, not by appending to a `String`: a page of rows is mostly cell text,
    /// and appending it a Unicode scalar at a time cost more than answering the page did.
    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number(let value): output.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): JSON.writeString(value, to: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let pairs):
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSON.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string literal as UTF-8; `<`, `>` and `&` escaped too, so JSON embedded in a page
    /// can't close a `<script>`, and U+2028 and U+2029, which end a line in older JavaScript. It walks the bytes: each byte that needs
    /// an escape is ASCII (a UTF-8 sequence's other bytes are all 0x80 or above, so a `<` that
    /// a combining mark follows is still seen), but for U+2028 and U+2029 (E2 80 A8/A9); runs
    /// of other bytes are copied whole.
    static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        // The ASCII bytes below 0x40 written escaped: control characters, `"`, `&`, `<`, `>`.
        let escapedBelow40: UInt64 = 0xFFFF_FFFF | 1 << 0x22 | 1 << 0x26 | 1 << 0x3C | 1 << 0x3E
        value.withUTF8 { bytes in
            var run = 0, index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                guard byte < 0x40 ? (escapedBelow40 >> UInt64(byte)) & 1 != 0 : byte == 0x5C || byte == 0xE2 else {
                    index += 1
                    continue
                }
                if byte == 0xE2 {
                    guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else {
                        index += 1
                        continue
                    }
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
                case 0xE2:
                    output.append(contentsOf: (bytes[index + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8)
                    index += 2
                default:
                    // \u00XX: control characters, `<`, `>` and `&`.
                    output.append(contentsOf: #"\u00"#.utf8)
                    let digits = hexDigits
                    output.append(digits[Int(byte >> 4)])
                    output.append(digits[Int(byte & 0xF)])
                }
                index += 1
                run = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A cell's text as a typed JSON value, read as the column sorts it
    /// (``ColumnType/sortValue(_:)``): numbers and booleans as JSON numbers and booleans, blank
    /// as null, everything else — dates, and text that doesn't parse as the column's type — as
    /// the text.
    ///
    ///     JSON.cell(" 42", type: .integer)   // .integer(42)
    ///     JSON.cell("maybe", type: .bool)    // .string("maybe")
    static func cell(_ text: String, type: ColumnType) -> JSON {
        switch type.sortValue(text) {
        case .null: .null
        case .integer(let value): .integer(value)
        case .double(let value): value.isFinite ? .number(value) : .string(text)
        case .bool(let value): .bool(value)
        // Beyond 64 bits an integer is sent as its text: JSON readers would round a number.
        case .date, .string, .largeInteger: .string(text)
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
