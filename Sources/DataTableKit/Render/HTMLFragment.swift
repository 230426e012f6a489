import Foundation

/// HTML that is safe by construction: text is always escaped, elements come from a short list
/// of inline tags, attributes from a list without event handlers or styles, and a link's
/// `href` is kept only for `http:`, `https:`, `mailto:` and relative addresses. A cell
/// formatter returns one, so a hostile cell value can't become markup or script.
///
///     let badge: HTMLFragment = .element(.span, [.class: "badge badge-\(status)"], .text(status))
///     let price: HTMLFragment = .text("€") + .element(.strong, .text("12.50"))
///     let link: HTMLFragment = .element(.a, [.href: "https://example.org/?q=\(title)"], .text(title))
///     badge.html   // <span class="badge badge-done">done</span>
public struct HTMLFragment: Sendable, Hashable, CustomStringConvertible {
    /// The markup.
    public private(set) var html: String

    private init(html: String) {
        self.html = html
    }

    /// No markup.
    public static let empty = HTMLFragment(html: "")

    /// `text`, escaped: `<`, `>`, `&`, `"` and `'` become entities.
    public static func text(_ text: String) -> HTMLFragment {
        HTMLFragment(html: HTMLTableRenderer.escape(text))
    }

    /// An element with attributes (names from ``Attribute``, values escaped; an unsafe `href`
    /// is dropped) around `children`.
    public static func element(_ tag: Tag, _ attributes: KeyValuePairs<Attribute, String> = [:], _ children: HTMLFragment...) -> HTMLFragment {
        var html = "<" + tag.rawValue
        for (name, value) in attributes {
            if name == .href, !Self.isSafeLink(value) { continue }
            html += " \(name.rawValue)=\"\(HTMLTableRenderer.escape(value))\""
        }
        html += ">" + children.map(\.html).joined() + "</\(tag.rawValue)>"
        return HTMLFragment(html: html)
    }

    /// An element without attributes around `children`.
    public static func element(_ tag: Tag, _ children: HTMLFragment...) -> HTMLFragment {
        HTMLFragment(html: "<\(tag.rawValue)>" + children.map(\.html).joined() + "</\(tag.rawValue)>")
    }

    /// The two fragments one after the other.
    public static func + (lhs: HTMLFragment, rhs: HTMLFragment) -> HTMLFragment {
        HTMLFragment(html: lhs.html + rhs.html)
    }

    public var description: String { html }

    /// Inline elements a cell may hold.
    public enum Tag: String, Sendable, CaseIterable {
        case a, abbr, b, code, em, i, mark, small, span, strong, sub, sup, time
    }

    /// Attributes an element may carry: no `style`, no `on…` handlers.
    public enum Attribute: String, Sendable, CaseIterable {
        case `class`, title, href, lang, dir, datetime
        case ariaLabel = "aria-label"
        case dataValue = "data-value"
    }

    /// Whether `href` is an `http:`, `https:` or `mailto:` URL or a relative address (after
    /// dropping what browsers ignore: controls and whitespace), so `javascript:` can't slip in.
    static func isSafeLink(_ href: String) -> Bool {
        // On scalars, not Characters: a ':' joined to a combining mark is still the scheme's end.
        let visible = href.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }
        guard let colon = visible.firstIndex(of: ":") else { return true }
        // A ':' after the first '/', '?' or '#' is part of a relative path, not a scheme.
        if let boundary = visible.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }), boundary < colon { return true }
        let scheme = String(String.UnicodeScalarView(visible[..<colon])).lowercased()
        return scheme == "http" || scheme == "https" || scheme == "mailto"
    }
}
