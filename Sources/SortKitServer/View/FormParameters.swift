import Foundation

/// Decoded `application/x-www-form-urlencoded` parameters, in order, with repeated keys kept,
/// and looked up by key in constant time (the first value wins).
///
/// Written here because Hummingbird's query decoding keeps `+` as a plus and bracketed keys
/// such as `order[0][column]` as opaque strings; DataTables sends both (a space as `+`, keys
/// percent-encoded or not).
///
///     let form = FormParameters("order%5B0%5D%5Bdir%5D=desc&search%5Bvalue%5D=le+guin")
///     form["order[0][dir]"]    // "desc"
///     form["search[value]"]    // "le guin"
package struct FormParameters: Sendable {
    package private(set) var pairs: [(key: String, value: String)] = []
    /// Key → index of its first pair: every lookup is a hash, so a request with 30,000
    /// parameters is parsed and read in linear time.
    private var first: [String: Int] = [:]
    /// Whether parsing stopped at the limit.
    package private(set) var isTruncated = false

    /// Parses a query string or form body, keeping the first `limit` parameters (a request with
    /// more is refused by ``checkLimit(_:)``).
    package init(_ text: String, limit: Int = .max) {
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard pairs.count < limit else {
                isTruncated = true
                break
            }
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            append(Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : "")
        }
    }

    /// Parameters from key-value pairs (used for JSON bodies flattened to DataTables keys).
    init(pairs: [(key: String, value: String)], isTruncated: Bool = false) {
        for (key, value) in pairs { append(key, value) }
        self.isTruncated = isTruncated
    }

    private mutating func append(_ key: String, _ value: String) {
        if first[key] == nil { first[key] = pairs.count }
        pairs.append((key, value))
    }

    /// The first value for `key`.
    package subscript(key: String) -> String? {
        first[key].map { pairs[$0].value }
    }

    /// Throws a 400 naming the limit when the request had more than `limit` parameters.
    func checkLimit(_ limit: Int) throws {
        if isTruncated { throw APIError.badRequest("the request has more than \(limit) parameters") }
    }

    /// `+` is a space; `%XX` a byte; invalid escapes are kept as written.
    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
