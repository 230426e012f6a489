import DataTableKit
import Foundation
import Mustache
import Synchronization

/// The page templates (`Templates/*.mustache`, swift-mustache), loaded once, with SortKit's
/// own HTML content type.
///
/// Every template starts with `{{% CONTENT_TYPE: SORTKIT_HTML}}`, which makes `{{value}}`
/// escape through ``HTMLEscaping`` — on UTF-8 bytes. swift-mustache's own `HTML` type
/// compares `Character`s, so a `<` joined into a grapheme cluster with a mark (U+0600 before
/// it, a combining mark after it) would pass through it raw; and a partial starts again with
/// that type, so each template must name ours itself (a test checks every file). Templates
/// never use the unescaped forms `{{{…}}}` or `{{&…}}` (also checked).
struct PageTemplates: Sendable {
    /// The pragma every template begins with.
    static let pragma = "{{% CONTENT_TYPE: SORTKIT_HTML}}"

    static let shared: PageTemplates = {
        MustacheContentTypes.register(EscapedHTML(), named: "SORTKIT_HTML")
        do {
            return try PageTemplates(directory: templatesDirectory())
        } catch {
            preconditionFailure("the page templates don't parse: \(error)")
        }
    }()

    let library: MustacheLibrary

    init(directory: URL) throws {
        var library = MustacheLibrary()
        for name in try Self.templateNames(in: directory) {
            let text = try String(contentsOf: directory.appendingPathComponent(name + ".mustache"), encoding: .utf8)
            try library.register(text, named: name)
        }
        self.library = library
    }

    /// The folder of the templates in the module's resources.
    static func templatesDirectory() -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Templates")
    }

    /// The names of the templates in `directory` (file names without `.mustache`).
    static func templateNames(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".mustache") }.map { String($0.dropLast(".mustache".count)) }.sorted()
    }

    /// `model` rendered by template `name`. A page is a function of its model: the last pages
    /// rendered are kept by model (``RenderedPages``), so going back, reloading or several
    /// people viewing one page render it once. (swift-mustache finds each value with dynamic
    /// casts, which made a 25-row page take a millisecond or two to render.)
    func render<Model: Hashable & Sendable>(_ model: Model, template name: String) -> String {
        let key = RenderedPages.Key(template: name, model: AnyHashableSendable(model))
        if let html = rendered.html(for: key) { return html }
        guard let html = library.render(model, withTemplate: name) else {
            preconditionFailure("no page template '\(name)'")
        }
        rendered.keep(html, for: key)
        return html
    }

    let rendered = RenderedPages()
}

/// The last pages rendered, by template and model: at most 64 of them and 16 MB.
final class RenderedPages: Sendable {
    struct Key: Hashable, Sendable {
        var template: String
        var model: AnyHashableSendable
    }

    private struct State {
        var pages: [Key: String] = [:]
        var order: [Key] = []
        var bytes = 0
    }

    private let state = Mutex(State())
    static let maxPages = 64
    static let maxBytes = 16 << 20

    func html(for key: Key) -> String? {
        state.withLock { $0.pages[key] }
    }

    func keep(_ html: String, for key: Key) {
        let size = html.utf8.count
        guard size <= Self.maxBytes / 4 else { return }
        state.withLock { state in
            guard state.pages.updateValue(html, forKey: key) == nil else { return }
            state.order.append(key)
            state.bytes += size
            while state.order.count > Self.maxPages || state.bytes > Self.maxBytes {
                let oldest = state.order.removeFirst()
                state.bytes -= state.pages.removeValue(forKey: oldest)?.utf8.count ?? 0
            }
        }
    }
}

/// A hashable, sendable value of any such type.
struct AnyHashableSendable: Hashable, @unchecked Sendable {
    // Unchecked: it only ever wraps `Hashable & Sendable` values.
    let value: AnyHashable

    init<Value: Hashable & Sendable>(_ value: Value) {
        self.value = AnyHashable(value)
    }
}

/// swift-mustache's content type for SortKit's pages: values escaped by ``HTMLEscaping``.
struct EscapedHTML: MustacheContentType {
    func escapeText(_ text: String) -> String { HTMLEscaping.escape(text) }
}
