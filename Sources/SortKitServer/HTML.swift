import DataTableKit
import Foundation

/// HTML text escaping for every value a page shows.
enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped, safe in element content and in quoted
    /// attribute values.
    ///
    ///     HTML.escape("<script>\"x\" & 'y'")   // "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;"
    static func escape(_ text: String) -> String {
        HTMLTableRenderer.escape(text)
    }

    /// A URL query component, percent-encoded so it can't end the value or the attribute.
    ///
    ///     HTML.query("status:enum=a|b,-price")   // "status:enum%3Da|b,-price"
    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? ""
    }

    private static let queryAllowed = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~,:|")
}
