import Crypto
import Foundation

/// A keyset cursor as an opaque, tamper-evident string: the last row's order values, the order
/// and search they belong to, and an HMAC-SHA256 tag under the store's secret. A cursor that
/// was edited, or is used with another order or search, is rejected with a clear error.
struct KeysetCursor: Codable, Hashable {
    /// The order's text form.
    var order: String
    /// The search text.
    var search: String
    /// The row's value of each order term, the id last.
    var values: [SQLValue]

    func encoded(secret: Data) throws -> String {
        let secret = SymmetricKey(data: secret)
        let payload = try JSONEncoder().encode(self)
        let tag = HMAC<SHA256>.authenticationCode(for: payload, using: secret)
        return Self.base64URL(payload) + "." + Self.base64URL(Data(tag))
    }

    static func decode(_ text: String, secret: Data, order: String, search: String) throws -> KeysetCursor {
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
