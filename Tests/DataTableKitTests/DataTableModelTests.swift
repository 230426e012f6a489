import Observation
import SortKit
import Testing

@testable import DataTableKit

/// Counts the changes an observable model publishes to a view that reads `read`: tracking is
/// registered again after each change, as SwiftUI does when it re-renders.
@MainActor
final class PublishCounter {
    private(set) var count = 0
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            MainActor.assumeIsolated {
                self?.count += 1
                self?.track()
            }
        }
    }
}

@Suite("DataTableModel: an observable table")
@MainActor
struct DataTableModelTests {
    @Test("Each action changes the table as DataTable does and publishes once")
    func publishesOncePerAction() throws {
        var reference = DataTable(rows: people, columns: columns(), pageSize: 2)
        let model = DataTableModel(DataTable(rows: people, columns: columns(), pageSize: 2))
        let counter = PublishCounter { _ = model.table.pageRows }

        reference.tapHeader(1)
        #expect(model.tapHeader(1))
        #expect(counter.count == 1)
        #expect(model.table.displayedIDs == reference.displayedIDs)

        reference.tapHeader(0, additive: true)
        model.tapHeader(0, additive: true)
        #expect(counter.count == 2)
        #expect(model.table.sortSpec == reference.sortSpec)

        reference.setSearch("e")
        model.setSearch("e")
        #expect(counter.count == 3)
        #expect(model.table.displayedIDs == reference.displayedIDs)

        reference.setPage(1)
        model.setPage(1)
        #expect(counter.count == 4)
        #expect(model.table.pageRows.map(\.id) == reference.pageRows.map(\.id))

        var changed = people
        changed[0].salary = 1
        let diff = model.setData(changed)
        #expect(diff.description == reference.setData(changed).description)
        #expect(diff.updated == [1])
        #expect(counter.count == 5)

        model.setSort(try SortSpec(parsing: "-Salary"))
        reference.setSort(try SortSpec(parsing: "-Salary"))
        model.setFilter("y", column: 0)
        reference.setFilter("y", column: 0)
        model.setPageSize(1)
        reference.setPageSize(1)
        #expect(counter.count == 8)
        #expect(model.table.pageRows.map(\.id) == reference.pageRows.map(\.id))

        _ = try model.edit(4, column: 1, to: "5")
        _ = try reference.edit(4, column: 1, to: "5")
        #expect(counter.count == 9)
        #expect(model.table.rows == reference.rows)
        // Bad input: an error, the table unchanged, nothing published.
        #expect(throws: (any Error).self) { try model.edit(4, column: 1, to: "not a number") }
        #expect(throws: (any Error).self) { try model.edit(99, column: 1, to: "5") }
        #expect(model.table.rows == reference.rows)
        #expect(counter.count == 9)
        // Actions that change nothing publish nothing.
        model.setSearch(model.table.searchText)
        model.setPage(model.table.pageIndex)
        model.setPageSize(model.table.pageSize)
        model.setFilter("y", column: 0)
        model.setFilter("", column: 3)
        #expect(counter.count == 9)
    }

    @Test("Selection through the model publishes once per action, and not for a failed or empty one")
    func selectionPublishes() throws {
        let model = DataTableModel(DataTable(rows: people, columns: columns(), pageSize: 2))
        model.selectionMode = .multiple
        let counter = PublishCounter { _ = model.table.selection }
        var events = 0
        model.onSelectionChange { _ in events += 1 }
        try model.select(1)
        try model.selectRange(to: 3)
        try model.toggle(1)
        try model.deselect(3)
        model.selectAllMatching()
        #expect(counter.count == 5 + 1) // the handler set above is a change too
        #expect(events == 5)
        #expect(throws: DataTableError.self) { try model.select(99) }
        model.clearSelection()
        model.clearSelection()
        #expect(counter.count == 7 && model.table.selection.isEmpty)
    }
}
