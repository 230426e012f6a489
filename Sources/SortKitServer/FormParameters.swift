import Foundation

/// Decoded `application/x-www-form-urlencoded` parameters, in order, with repeated keys kept.
///
/// Written here because Hummingbird's query decoding keeps `+` as a plus and bracketed keys
/// such as `order[0][column]` as opaque strings; DataTables sends both (a space as `+`, keys
/// percent-encoded or not).
///
///     let form = FormParameters("order%5B0%5D%5Bdir%5D=desc&search%5Bvalue%5D=le+guin")
///     form["order[0][dir]"]    // "desc"
///     form["search[value]"]    // "le guin"
struct FormParameters: Sendable {
    private(set) var pairs: [(key: String, value: String)] = []

    /// Parses a query string or form body.
    init(_ text: String) {
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs.append((Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : ""))
        }
    }

    /// Parameters from key-value pairs (used for JSON bodies flattened to DataTables keys).
    init(pairs: [(key: String, value: String)]) {
        self.pairs = pairs
    }

    /// The first value for `key`.
    subscript(key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    /// `+` is a space; `%XX` a byte; invalid escapes are kept as written.
    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
