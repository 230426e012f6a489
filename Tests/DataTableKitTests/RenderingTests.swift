import Foundation
import SortKit
import Testing

@testable import DataTableKit

@Suite("Widths and renderers")
struct RenderingTests {
    @Test("Terminal widths: wide CJK and emoji take 2, combining marks 0")
    func widths() {
        #expect(TerminalWidth.of("abc") == 3)
        #expect(TerminalWidth.of("日本語") == 6)
        #expect(TerminalWidth.of("e\u{301}te\u{301}") == 3)
        #expect(TerminalWidth.of("👍🏽") == 2 && TerminalWidth.of("🇫🇷") == 2)
        #expect(TerminalWidth.truncate("日本語です", to: 5) == "日本…")
        #expect(TerminalWidth.wrap("the quick brown fox", to: 9) == ["the quick", "brown fox"])
    }

    @Test("Width strategies, clamps, overrides; the header always fits")
    func strategies() {
        let rows = (1...100).map { TextRow(id: $0, cells: [String(repeating: "x", count: $0 == 100 ? 50 : 4), "h"]) }
        let table = DataTable(
            rows: rows,
            columns: [
                DataTableColumn("text", display: { $0.cells[0] }, sortKey: nil),
                DataTableColumn("a long header", display: { $0.cells[1] }, sortKey: SortKey(by: { (row: TextRow) in row.cells[1] })),
            ])
        func width(_ strategy: ColumnWidthStrategy, max: Int = 40) -> [Int] {
            table.columnWidths(ColumnWidthOptions(strategy: strategy, minimum: 3, maximum: max))
        }
        #expect(width(.estimatedAverage) == [5, 15]) // mean 4.46 → 5; header 13 + indicator 2
        #expect(width(.maxMeasured) == [40, 15]) // 50 clamped to the max
        #expect(width(.maxMeasured, max: 100) == [50, 15])
        #expect(width(.sampledMax(sampleSize: 10)) == [4, 15]) // the long row isn't sampled
        #expect(width(.hybrid(sampleSize: 10)) == [5, 15])
        #expect(width(.percentile(100, sampleSize: 1_000)) == [40, 15])
        #expect(width(.fixed(7)) == [7, 15])
        #expect(ColumnWidthStrategy(parsing: "percentile:90:50") == .percentile(90, sampleSize: 50))
        #expect(ColumnWidthStrategy(parsing: "wide") == nil)
    }

    @Test("Text rendering: box drawing, ▲, right-aligned numbers, truncation, RTL isolated, footer")
    func text() throws {
        var table = DataTable(csv: try TextTable(csv: Array("name,price\nשלום,9.5\nA very long name indeed,10\nbob,\n".utf8)), pageSize: 2)
        table.tapHeader(1)
        let text = TextTableRenderer(widths: ColumnWidthOptions(strategy: .maxMeasured, maximum: 10)).render(table)
        #expect(
            text == """
                ┌────────────┬─────────┐
                │ name       │ price ▲ │
                ├────────────┼─────────┤
                │ \u{2068}שלום\u{2069}       │     9.5 │
                │ A very lo… │      10 │
                └────────────┴─────────┘
                rows 1–2 of 3 (3)

                """)
    }

    @Test("A multi-key sort's priority digit fits in the header (no \"published ▼…\")")
    func priorityFits() throws {
        var table = DataTable(csv: try TextTable(csv: Array("ab,cd\nx,1\ny,2\n".utf8)), pageSize: 5)
        table.tapHeader(1)
        table.tapHeader(1)
        table.tapHeader(0, additive: true)
        let text = TextTableRenderer(widths: ColumnWidthOptions(strategy: .maxMeasured, minimum: 1)).render(table)
        #expect(text.contains("│ ab ▲2 │ cd ▼1 │"), "\(text)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("priority-\(UUID().uuidString).csv")
        try Data("ab,cd\nx,1\ny,2\n".utf8).write(to: file)
        let page = try CSVPage(contentsOf: file, sort: SortSpec(parsing: "-cd,ab"), pageSize: 5)
        let paged = TextTableRenderer(widths: ColumnWidthOptions(strategy: .maxMeasured, minimum: 1)).render(page)
        #expect(paged.contains("│ ab ▲2 │ cd ▼1 │"), "\(paged)")
    }

    @Test("Frozen columns stay on every horizontal page")
    func horizontalPages() throws {
        let csv = "id,a,b,c,d\n1,aaaaaaaaaa,bbbbbbbbbb,cccccccccc,dddddddddd\n"
        let table = DataTable(csv: try TextTable(csv: Array(csv.utf8)))
        let renderer = TextTableRenderer(maxWidth: 40, fixedColumns: 1)
        let pages = renderer.horizontalPages(table)
        #expect(pages == [[0, 1, 2], [0, 3, 4]])
        var second = renderer
        second.horizontalPage = 1
        let text = second.render(table)
        #expect(text.contains("│   id │ c          │ d          │") && text.contains("columns page 2 of 2"), "\(text)")
    }

    @Test("HTML: semantic table, aria-sort, sort links, every cell escaped, sticky frozen column")
    func html() throws {
        var table = DataTable(csv: try TextTable(csv: Array("name,note\n<script>alert(1)</script>,\"say \"\"hi\"\" & 'bye'\"\n".utf8)))
        table.tapHeader(0)
        let html = HTMLTableRenderer(fixedColumns: 1).render(table)
        #expect(
            html == """
                <table class="data-table">
                <thead><tr><th scope="col" aria-sort="ascending" class="fixed" style="position: sticky; left: 0"><a href="?sort=-name">name ▲</a></th><th scope="col" aria-sort="none"><a href="?sort=note">note</a></th></tr></thead>
                <tbody>
                <tr><td class="fixed" style="position: sticky; left: 0">&lt;script&gt;alert(1)&lt;/script&gt;</td><td>say &quot;hi&quot; &amp; &#39;bye&#39;</td></tr>
                </tbody>
                </table>

                """)
    }

    @Test("Cell formatters: HTML built by HTMLFragment stays escaped with hostile values; links keep only safe schemes; the sort value is unaffected")
    func formatters() throws {
        struct Item: Identifiable, Sendable { var id: Int; var name: String; var status: String; var price: Double; var url: String }
        let items = [
            Item(id: 1, name: "<img src=x onerror=alert(1)>", status: "done\" onmouseover=\"x", price: 12.5, url: "javascript:alert(1)"),
            Item(id: 2, name: "Émile & Co", status: "todo", price: 3, url: "https://example.org/a?b=1&c=<2>"),
            Item(id: 3, name: "RTL שלום", status: "todo", price: 7.25, url: " JaVaScRiPt:alert(2)"),
        ]
        var name = DataTableColumn<Item>("Name", \.name)
        name.htmlCell = { .element(.a, [.href: $0.url, .title: $0.name], .text($0.name)) }
        var status = DataTableColumn<Item>("Status", \.status)
        status.htmlCell = { .element(.span, [.class: "badge \($0.status)"], .text($0.status)) }
        status.textCell = { $0.status == "todo" ? "○ todo" : "✔ " + $0.status }
        status.alignment = .center
        var price = DataTableColumn<Item>("Price", \.price)
        price.htmlCell = { .text("€") + .element(.strong, .text(String(format: "%.2f", $0.price))) }
        var table = DataTable(rows: items, columns: [name, status, price], pageSize: 10)
        table.tapHeader(2)
        #expect(table.pageRows.map(\.id) == [2, 3, 1], "sorted by the value, not the formatted text")
        var renderer = HTMLTableRenderer(fixedColumns: 1, stickyHeader: true, highlightSortedColumns: true, stripes: true)
        let html = renderer.render(table)
        #expect(!html.contains("<img") && !html.contains("javascript") && !html.contains("JaVaScRiPt") && !html.contains("\" onmouseover"))
        #expect(
            html.contains(
                #"<td class="fixed" style="position: sticky; left: 0"><a href="https://example.org/a?b=1&amp;c=&lt;2&gt;" title="Émile &amp; Co">Émile &amp; Co</a></td>"#
            ))
        #expect(html.contains(#"<a title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</a>"#), "an unsafe href is dropped")
        #expect(html.contains(#"<span class="badge done&quot; onmouseover=&quot;x">done&quot; onmouseover=&quot;x</span>"#))
        #expect(html.contains(#"<td class="num sorted sorted-1" style="text-align: right">€<strong>3.00</strong></td>"#))
        #expect(html.contains(#"<th scope="col" aria-sort="ascending" class="sorted sorted-1" style="position: sticky; top: 0; text-align: right">"#))
        #expect(html.contains(#"<th scope="col" aria-sort="none" class="fixed" style="position: sticky; left: 0; top: 0">"#))
        #expect(
            html.contains(#"<table class="data-table sticky-header striped">"#) && html.contains(#"<tr class="odd">"#) && html.contains(#"<tr class="even">"#))
        #expect(html.contains(#"style="text-align: center"><span class="badge todo">todo</span>"#))
        renderer.direction = .rightToLeft
        let rtl = renderer.render(table)
        #expect(
            rtl.contains(#"<table class="data-table sticky-header striped" dir="rtl">"#) && rtl.contains("position: sticky; right: 0")
                && rtl.contains("text-align: left"))
        // The text renderer shows the text formatter, centered; search still reads the display text.
        let text = TextTableRenderer(widths: ColumnWidthOptions(strategy: .maxMeasured)).render(table)
        #expect(text.contains("│         ○ todo         │") && text.contains("│ ✔ done\" onmouseover=\"x │"), "\(text)")
        table.setSearch("○")
        #expect(table.filteredCount == 0)
    }

    @Test("HTMLFragment: every tag and attribute escapes; only http, https, mailto and relative links survive")
    func fragments() {
        for tag in HTMLFragment.Tag.allCases {
            let html = HTMLFragment.element(tag, [.title: "\"><script>"], .text("<b>")).html
            #expect(html == "<\(tag.rawValue) title=\"&quot;&gt;&lt;script&gt;\">&lt;b&gt;</\(tag.rawValue)>")
        }
        let safe = ["https://x.org", "http://x", "mailto:a@b.c", "/tables/books", "?sort=a:b", "#top", "a/b:c", "plain"]
        let unsafe = ["javascript:alert(1)", "JAVASCRIPT:x", " java\tscript:x", "\u{1}javascript:x", "data:text/html,<x>", "vbscript:x", "file:///etc/passwd"]
        for href in safe { #expect(HTMLFragment.isSafeLink(href), "\(href)") }
        for href in unsafe { #expect(!HTMLFragment.isSafeLink(href), "\(href)") }
        #expect((HTMLFragment.text("a") + .empty + .text("&")).html == "a&amp;")
        #expect(HTMLFragment.text(String(repeating: "<", count: 1 << 20)).html.count == 4 << 20)
    }
}
