import Foundation
import SortKit
import SortKitTestSupport
import Testing

@testable import DataTableKit

/// A row with an id and a score, as each test's row type has it.
private protocol Scored: Identifiable, SendableMetatype where ID == Int {
    var score: Int { get }
    init(id: Int, score: Int)
}

/// A row that must not be read from other threads: a class with mutable state, not `Sendable`.
private final class Player: Scored {
    let id: Int
    var score: Int
    init(id: Int, score: Int) {
        self.id = id
        self.score = score
    }
}

/// The same data as a `Sendable` value.
private struct SendablePerson: Scored, Sendable {
    let id: Int
    var score: Int
}

@Suite("DataTable threads")
struct DataTableThreadTests {
    /// 3,000 rows with scores that repeat.
    private static func rows<Row: Scored>() -> [Row] {
        (0..<3_000).map { Row(id: $0, score: ($0 &* 7_919) % 1_009) }
    }

    /// A score column whose key notes each thread it is read on. (The tables themselves are made
    /// where the row type is concrete: that is where the initializer for Sendable rows is picked.)
    private static func columns<Row: Scored>(_ recorder: ThreadRecorder) -> [DataTableColumn<Row>] {
        [
            DataTableColumn(
                "Score",
                sortedBy: { (row: Row) -> Int in
                    recorder.note()
                    return row.score
                }, display: { "\($0.score)" })
        ]
    }

    /// Sorts by score, then changes a few scores (a kept ranking is merged with the changed
    /// rows); the order shown is the rows sorted by score, stable by position.
    private func exercise<Row: Scored>(_ table: inout DataTable<Row>) {
        table.backgroundUpdateThreshold = 0 // what a large table does
        table.prepareSorting()
        table.tapHeader(0)
        var changed = table.rows
        for position in stride(from: 0, to: changed.count, by: 97) {
            changed[position] = Row(id: changed[position].id, score: 2_000 - changed[position].score)
        }
        table.setData(changed)
        let rows = table.rows
        let expected = rows.indices.sorted { (rows[$0].score, $0) < (rows[$1].score, $1) }
        #expect(table.displayedIDs == expected.map { rows[$0].id })
    }

    @Test("Rows that aren't Sendable are read on the calling thread, also by setData's ranking update")
    func callingThreadOnly() {
        let recorder = ThreadRecorder()
        var table = DataTable(rows: Self.rows() as [Player], columns: Self.columns(recorder))
        let here = "\(pthread_self())"
        exercise(&table)
        #expect(recorder.threads == [here])
    }

    @Test("Sendable rows let setData update kept orders on another thread (the control for the test above)")
    func sendableRowsInBackground() throws {
        let recorder = ThreadRecorder()
        var table = DataTable(rows: Self.rows() as [SendablePerson], columns: Self.columns(recorder))
        #expect(table.readsRowsOnOtherThreads)
        #expect(try DataTable(csv: TextTable(csv: Array("a\n1\n".utf8))).readsRowsOnOtherThreads, "text rows are Sendable")
        exercise(&table)
        #expect(recorder.threads.count > 1)
    }
}
