import Crypto
import Foundation

/// A keyset cursor as an opaque, tamper-evident string: the last row's order values, the order
/// and search they belong to, and an HMAC-SHA256 tag under the store's secret. A cursor that
/// was edited, or is used with another order or search, is rejected with a clear error.
package struct KeysetCursor: Codable, Hashable {
    /// The order's text form.
    package var order: String
    /// The search text.
    package var search: String
    /// The row's value of each order term, the id last.
    package var values: [SQLValue]

    private enum CodingKeys: String, CodingKey { case order = "o", search = "q", values = "v" }

    package init(order: String, search: String, values: [SQLValue]) {
        self.order = order
        self.search = search
        self.values = values
    }

    /// Values as short strings: `n` null, `i…` integer, `d…` double bits in hex, `t…` text,
    /// `b…` base64 bytes.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        order = try container.decode(String.self, forKey: .order)
        search = try container.decode(String.self, forKey: .search)
        values = try container.decode([String].self, forKey: .values).map { text in
            // The tag is one scalar: dropping a Character would take a combining mark that
            // starts the value with it ("t" + "\u{301}…" is one grapheme).
            let body = String(text.unicodeScalars.dropFirst())
            switch text.unicodeScalars.first {
            case "n": return .null
            case "i": if let value = Int64(body) { return .integer(value) }
            case "d": if let bits = UInt64(body, radix: 16) { return .double(Double(bitPattern: bits)) }
            case "t": return .text(body)
            case "b": if let data = Data(base64Encoded: body) { return .blob(Array(data)) }
            default: break
            }
            throw DecodingError.dataCorruptedError(forKey: .values, in: container, debugDescription: "bad value")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(order, forKey: .order)
        try container.encode(search, forKey: .search)
        try container.encode(
            values.map { value -> String in
                switch value {
                case .null: "n"
                case .integer(let integer): "i\(integer)"
                case .double(let double): "d" + String(double.bitPattern, radix: 16)
                case .text(let text): "t" + text
                case .blob(let bytes): "b" + Data(bytes).base64EncodedString()
                }
            }, forKey: .values)
    }

    package func encoded(secret: Data) throws -> String {
        let secret = SymmetricKey(data: secret)
        // Sorted keys: the same cursor text from every process (a dictionary's order is seeded).
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = try encoder.encode(self)
        let tag = HMAC<SHA256>.authenticationCode(for: payload, using: secret)
        return Self.base64URL(payload) + "." + Self.base64URL(Data(tag))
    }

    package static func decode(_ text: String, secret: Data, order: String, search: String) throws -> KeysetCursor {
        let secret = SymmetricKey(data: secret)
        let invalid = TableStoreError.invalid("invalid cursor: pass the 'next' value of a previous page unchanged")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = data(base64URL: parts[0]), let tag = data(base64URL: parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: payload, using: secret),
            let cursor = try? JSONDecoder().decode(KeysetCursor.self, from: payload)
        else { throw invalid }
        guard cursor.order == order, cursor.search == search else {
            throw TableStoreError.invalid("the cursor belongs to another sort or search; start from the first page")
        }
        return cursor
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
