import Foundation
import SortKit
import SortKitTestSupport
import Testing
@testable import DataTableKit

/// A row that must not be read from other threads: a class with mutable state, not `Sendable`.
private final class Player: Identifiable {
    let id: Int
    var score: Int
    init(id: Int, score: Int) {
        self.id = id
        self.score = score
    }
}

/// The same data as a `Sendable` value.
private struct SendablePerson: Identifiable, Sendable {
    let id: Int
    var score: Int
}

@Suite("DataTable threads")
struct DataTableThreadTests {
    /// Sorts by score, then changes a few scores: a kept ranking is merged with the changed rows.
    private func exercise<Row: Identifiable>(
        _ table: inout DataTable<Row>, rows: [Row], changing change: (Row) -> Row
    ) -> [Row.ID] {
        table.backgroundUpdateThreshold = 0  // what a large table does
        table.prepareSorting()
        table.tapHeader(0)
        var changed = rows
        for position in stride(from: 0, to: changed.count, by: 97) { changed[position] = change(changed[position]) }
        table.setData(changed)
        return table.displayedIDs
    }

    @Test("Rows that aren't Sendable are read on the calling thread, also by setData's ranking update")
    func callingThreadOnly() {
        let recorder = ThreadRecorder()
        let people = (0..<3_000).map { Player(id: $0, score: ($0 &* 7_919) % 1_009) }
        var table = DataTable(rows: people, columns: [
            DataTableColumn("Score", sortedBy: { (person: Player) -> Int in
                recorder.note()
                return person.score
            }, display: { "\($0.score)" }),
        ])
        let here = "\(pthread_self())"
        let shown = exercise(&table, rows: people) { Player(id: $0.id, score: 2_000 - $0.score) }
        #expect(recorder.threads == [here])
        // And the order is right: the table's rows sorted by score, stable by position.
        let expected = table.rows.indices.sorted { (table.rows[$0].score, $0) < (table.rows[$1].score, $1) }
        #expect(shown == expected.map { table.rows[$0].id })
    }

    @Test("Sendable rows let setData update kept orders on another thread (the control for the test above)")
    func sendableRowsInBackground() throws {
        let recorder = ThreadRecorder()
        let people = (0..<3_000).map { SendablePerson(id: $0, score: ($0 &* 7_919) % 1_009) }
        var table = DataTable(rows: people, columns: [
            DataTableColumn("Score", sortedBy: { (person: SendablePerson) -> Int in
                recorder.note()
                return person.score
            }, display: { "\($0.score)" }),
        ])
        #expect(table.readsRowsOnOtherThreads)
        #expect(try DataTable(csv: TextTable(csv: Array("a\n1\n".utf8))).readsRowsOnOtherThreads, "text rows are Sendable")
        let shown = exercise(&table, rows: people) { SendablePerson(id: $0.id, score: 2_000 - $0.score) }
        #expect(recorder.threads.count > 1)
        let expected = table.rows.indices.sorted { (table.rows[$0].score, $0) < (table.rows[$1].score, $1) }
        #expect(shown == expected.map { table.rows[$0].id })
    }
}
