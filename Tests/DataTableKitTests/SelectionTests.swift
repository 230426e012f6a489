import Foundation
import OrderKeys
import SortKit
import Testing

@testable import DataTableKit

@Suite("Row selection by identity")
struct SelectionTests {
    static func person(_ id: Int, _ random: inout SplitMix64) -> Person {
        Person(
            id: id, first: ["Ann", "Bob", "Cy", "Di", "Émile"].randomElement(using: &random)!,
            last: ["Zed", "émile", "Young", "Adams", "Ng"].randomElement(using: &random)!,
            salary: Double(Int.random(in: 1...9, using: &random) * 100), level: Person.Level.allCases.randomElement(using: &random)!,
            started: Bool.random(using: &random) ? nil : Date(timeIntervalSince1970: Double(Int.random(in: 0...9, using: &random))))
    }

    @Test("A random sequence of selections, sorts, searches, edits and setData keeps the selection equal to a model's (seeded)")
    func modelCheck() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x5E1E_C7
        var random = SplitMix64(seed: seed)
        let replay = "seed \(seed) (replay with SORTKIT_SEED=\(seed))"
        for round in 0..<40 {
            var rows = (0..<Int.random(in: 1...40, using: &random)).map { Self.person($0, &random) }
            var nextID = rows.count
            var table = DataTable(rows: rows, columns: columns(), pageSize: 7)
            table.selectionMode = .multiple
            // The model: a set of ids and an anchor; the events, replayed, must give the same set.
            var model = Set<Int>(), anchor: Int?
            var replayed = Set<Int>()
            var lastChange: DataTable<Person>.SelectionChange?
            table.onSelectionChange = { change in
                for (id, _) in change.selected { replayed.insert(id) }
                for (id, _) in change.deselected { replayed.remove(id) }
                lastChange = change
            }
            for step in 0..<60 {
                let context = "round \(round) step \(step), \(replay)"
                let shownBefore = table.displayedIDs
                lastChange = nil
                let target = rows.randomElement(using: &random)?.id
                switch Int.random(in: 0..<11, using: &random) {
                case 0 where target != nil:
                    try table.select(target!); model.insert(target!); anchor = target
                case 1 where target != nil:
                    try table.deselect(target!); model.remove(target!); anchor = target
                case 2 where target != nil:
                    try table.toggle(target!)
                    if model.contains(target!) { model.remove(target!) } else { model.insert(target!) }
                    anchor = target
                case 3:
                    guard let end = shownBefore.randomElement(using: &random) else { continue }
                    try table.selectRange(to: end)
                    if let anchor, let start = shownBefore.firstIndex(of: anchor) {
                        let stop = shownBefore.firstIndex(of: end)!
                        model.formUnion(shownBefore[min(start, stop)...max(start, stop)])
                    } else {
                        model.insert(end); anchor = end
                    }
                case 4:
                    table.selectAllMatching(); model.formUnion(shownBefore)
                case 5:
                    table.clearSelection(); model = []; anchor = nil
                case 6:
                    table.tapHeader(Int.random(in: 0..<4, using: &random), additive: Bool.random(using: &random))
                case 7:
                    table.setSearch(["", "ann", "é", "zed", "1", "young ann"].randomElement(using: &random)!)
                case 8:
                    table.setPage(Int.random(in: 0..<4, using: &random))
                case 9 where target != nil:
                    try table.edit(target!, column: 1, to: String(Int.random(in: 1...9, using: &random) * 50))
                    rows = table.rows
                default:
                    // New data: some rows gone, some changed, some new.
                    var next = rows.filter { _ in Int.random(in: 0..<4, using: &random) > 0 }
                    for index in next.indices where Bool.random(using: &random) { next[index].salary += 1 }
                    for _ in 0..<Int.random(in: 0...3, using: &random) { next.append(Self.person(nextID, &random)); nextID += 1 }
                    next.shuffle(using: &random)
                    let kept = Set(next.map(\.id))
                    let gone = model.subtracting(kept)
                    let diff = table.setData(next)
                    #expect(Set(diff.deselected) == gone, "\(context)")
                    model.formIntersection(kept)
                    if let a = anchor, !kept.contains(a) { anchor = nil }
                    rows = next
                }
                #expect(table.selection == model, "\(context)")
                #expect(replayed == model, "events replayed — \(context)")
                #expect(table.selectionAnchor == anchor, "\(context)")
                if let change = lastChange {
                    let shown = table.displayedIDs
                    for (id, position) in change.selected + change.deselected {
                        #expect(position == shown.firstIndex(of: id), "position of \(id) — \(context)")
                    }
                }
                // Selected rows in display order first, then the hidden ones.
                let shownSelected = table.displayedIDs.filter { model.contains($0) }
                #expect(Array(table.selectedIDs.prefix(shownSelected.count)) == shownSelected, "\(context)")
                #expect(Set(table.selectedIDs) == model, "\(context)")
            }
        }
    }

    @Test("Single mode keeps one row; narrowing the mode deselects; unknown ids are errors")
    func modes() throws {
        var table = DataTable(rows: people, columns: columns(), pageSize: 2)
        table.selectionMode = .multiple
        try table.select(1)
        try table.select(3)
        try table.select(5)
        table.selectionMode = .single
        #expect(table.selection == [5])
        try table.select(2)
        #expect(table.selection == [2])
        try table.selectRange(to: 4)
        #expect(table.selection == [4])
        #expect(table.selectAllMatching().isEmpty && table.selection == [4])
        #expect(throws: DataTableError.self) { try table.select(42) }
        table.setSearch("zed")
        #expect(throws: DataTableError.self) { try table.selectRange(to: 3) } // not shown: Cy emile
        table.selectionMode = .none
        #expect(table.selection.isEmpty)
    }

    @Test("A range follows the display order at the time of the click, and survives a sort")
    func rangeInDisplayOrder() throws {
        var table = DataTable(rows: people, columns: columns(), defaultSort: try SortSpec(parsing: "Name"), pageSize: 10)
        table.selectionMode = .multiple
        // By last name: Adams(5), emile(3), Émile(2) (folded ties broken by code point), Young(4), Zed(1).
        #expect(table.displayedIDs == [5, 3, 2, 4, 1])
        try table.select(3)
        let change = try table.selectRange(to: 4)
        #expect(change.selected.map(\.id) == [2, 4] && change.selected.map(\.position) == [2, 3])
        #expect(table.selection == [2, 3, 4])
        table.tapHeader(1) // by salary: the same rows stay selected, wherever they are now
        #expect(table.selection == [2, 3, 4])
        #expect(table.selectedIDs == table.displayedIDs.filter { [2, 3, 4].contains($0) })
        table.setSearch("zed")
        #expect(table.selectAllMatching().selected.map(\.id) == [1])
        #expect(table.selection == [1, 2, 3, 4])
        #expect(table.selectedIDs == [1] + table.rows.map(\.id).filter { [2, 3, 4].contains($0) })
    }

    @Test("Renderers mark selected rows: a ✓ gutter in text, aria-selected in HTML")
    func rendering() throws {
        var table = DataTable(rows: people, columns: Array(columns().prefix(2)), defaultSort: try SortSpec(parsing: "Name"), pageSize: 3)
        let plain = TextTableRenderer().render(table)
        #expect(!plain.contains("✓") && !HTMLTableRenderer().render(table).contains("aria-selected"))
        table.selectionMode = .multiple
        try table.select(2)
        let text = TextTableRenderer().render(table)
        let lines = text.split(separator: "\n")
        #expect(lines.first { $0.contains("Bob Émile") }?.hasPrefix("✓ │") == true)
        #expect(lines.first { $0.contains("Ed Adams") }?.hasPrefix("  │") == true)
        #expect(text.contains("· 1 selected"))
        // The gutter counts against maxWidth.
        let narrow = TextTableRenderer(maxWidth: 16).render(table)
        #expect(narrow.split(separator: "\n").dropLast().allSatisfy { TerminalWidth.of(String($0)) <= 16 }, "\(narrow)")
        let html = HTMLTableRenderer().render(table)
        #expect(html.contains(#"<table class="data-table" role="grid" aria-multiselectable="true">"#))
        #expect(html.contains(#"<tr aria-selected="true" class="selected"><td>Bob Émile</td>"#))
        #expect(html.contains(#"<tr aria-selected="false"><td>Ed Adams</td>"#))
    }

    @Test("An edit that changes a row's id keeps the row selected under its new id")
    func editChangingID() throws {
        var table = DataTable(rows: people, columns: [DataTableColumn("ID", \.id).editable(\.id) { Int($0) }], pageSize: 10)
        table.selectionMode = .multiple
        try table.select(2)
        try table.edit(2, column: 0, to: "20")
        #expect(table.selection == [20] && table.selectionAnchor == 20)
        #expect(table.displayedIDs.contains(20) && !table.displayedIDs.contains(2))
        try table.selectRange(to: 20)
        #expect(throws: DataTableError.self) { try table.select(2) }
    }
}
