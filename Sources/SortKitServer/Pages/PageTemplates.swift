import DataTableKit
import Foundation
import Mustache

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

    /// `model` rendered by template `name`.
    func render(_ model: Any, template name: String) -> String {
        guard let html = library.render(model, withTemplate: name) else {
            preconditionFailure("no page template '\(name)'")
        }
        return html
    }
}

/// swift-mustache's content type for SortKit's pages: values escaped by ``HTMLEscaping``.
struct EscapedHTML: MustacheContentType {
    func escapeText(_ text: String) -> String { HTMLEscaping.escape(text) }
}
