import Foundation
import GRDB
import OrderKeys
import Testing

@testable import SortKitSQL

/// A fresh database file in a temporary folder.
func temporaryDatabase() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-sql-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("lists.sqlite").path
}

struct SimulatedCrash: Error {}

@Suite("SQLite ordered lists")
struct SQLiteOrderedListStoreTests {
    @Test("10,000 rows and their moves survive closing and reopening the database")
    func survivesReopen() throws {
        let path = try temporaryDatabase()
        var model = OrderedList<Int64>()
        do {
            let store = try SQLiteOrderedListStore(path: path)
            for id in 1...10_000 as ClosedRange<Int64> {
                try store.append(id, to: "big")
                try model.append(id)
            }
            try store.move(10_000, after: 1, in: "big")
            try model.move(10_000, after: 1)
            try store.move(1, before: nil, in: "big")
            try model.move(1, before: nil)
            try store.move(fromOffsets: [0, 2], toOffset: 5, in: "big")
            try model.move(fromOffsets: [0, 2], toOffset: 5)
        }
        let expected = model.ids
        #expect(Array(expected.prefix(5)) == [2, 4, 5, 10_000, 3])
        let reopened = try SQLiteOrderedListStore(path: path)
        let ids = try reopened.ids(in: "big")
        #expect(ids == expected)
        #expect(ids.count == 10_000 && Set(ids).count == 10_000)
        #expect(try reopened.verify("big").isEmpty)
    }

    @Test("A move writes one row and agrees with the in-memory model")
    func movesMatchModel() throws {
        let store = try SQLiteOrderedListStore(path: try temporaryDatabase())
        var model = OrderedList<Int64>()
        for id in 1...6 as ClosedRange<Int64> {
            try store.append(id, to: "l")
            try model.append(id)
        }
        #expect(try store.move(6, after: 1, in: "l").count == 1)
        try model.move(6, after: 1)
        #expect(try store.move(fromOffsets: [0, 3], toOffset: 6, in: "l").count == 2)
        try model.move(fromOffsets: [0, 3], toOffset: 6)
        try store.move(2, before: 4, in: "l")
        try model.move(2, before: 4)
        #expect(try store.ids(in: "l") == model.ids)
        #expect(try store.move(3, after: 3, in: "l").isEmpty)
    }

    @Test("Unknown ids are clear errors and change nothing; lists are independent")
    func unknownIDs() throws {
        let store = try SQLiteOrderedListStore(path: try temporaryDatabase())
        for id in 1...3 as ClosedRange<Int64> { try store.append(id, to: "a") }
        try store.append(9, to: "b")
        let before = try store.entries(in: "a").map(\.label)
        #expect(throws: OrderKeyError.unknownID(Int64(42))) { try store.move(42, after: 1, in: "a") }
        #expect(throws: OrderKeyError.unknownID(Int64(42))) { try store.move(1, after: 42, in: "a") }
        #expect(throws: OrderKeyError.unknownID(Int64(9))) { try store.insert(5, after: 9, in: "a") }
        #expect(throws: OrderKeyError.duplicateID(Int64(2))) { try store.append(2, to: "a") }
        #expect(try store.entries(in: "a").map(\.label) == before)
        #expect(try store.ids(in: "a") == [1, 2, 3] && store.ids(in: "b") == [9])
    }

    @Test("A crash between the two write phases rolls the whole move back")
    func crashBetweenPhases() throws {
        let store = try SQLiteOrderedListStore(path: try temporaryDatabase())
        for id in 1...5 as ClosedRange<Int64> { try store.append(id, to: "l") }
        let before = try store.entries(in: "l").map(\.label)
        store._betweenPhases.set { throw SimulatedCrash() }
        #expect(throws: SimulatedCrash.self) { try store.move(5, after: 1, in: "l") }
        #expect(throws: SimulatedCrash.self) { try store.append(6, to: "l") }
        store._betweenPhases.set(nil)
        #expect(try store.ids(in: "l") == [1, 2, 3, 4, 5])
        #expect(try store.entries(in: "l").map(\.label) == before)
        #expect(try store.verify("l").isEmpty)
    }

    @Test("Relabels inside the database keep the unique constraint: 2,000 inserts into one gap")
    func relabelsInSQL() throws {
        let store = try SQLiteOrderedListStore(path: try temporaryDatabase())
        try store.append(0, to: "l")
        try store.append(1, to: "l")
        var written = 0
        for id in 2..<2_002 as Range<Int64> { written += try store.insert(id, after: 0, in: "l").count }
        let ids = try store.ids(in: "l")
        #expect(ids.first == 0 && ids[1] == 2_001 && ids.last == 1 && ids.count == 2_002)
        #expect(Double(written) / 2_000 < 13)
    }

    @Test("Two connections inserting 10,000 times into the same gap lose nothing")
    func concurrentWriters() async throws {
        let path = try temporaryDatabase()
        let setup = try SQLiteOrderedListStore(path: path)
        try setup.append(0, to: "l")
        try setup.append(1, to: "l")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    // Each task opens its own connection, as two processes would.
                    let store = try SQLiteOrderedListStore(path: path, busyTimeout: 60)
                    for k in 0..<5_000 {
                        try store.insert(Int64(2 + writer * 5_000 + k), after: 0, in: "l")
                    }
                }
            }
            try await group.waitForAll()
        }
        let ids = try setup.ids(in: "l")
        #expect(ids.count == 10_002 && Set(ids).count == 10_002)
        #expect(ids.first == 0 && ids.last == 1)
        #expect(try setup.verify("l").isEmpty)
    }

    @Test("verify finds labels an outside writer corrupted; repair re-spaces keeping the order")
    func repair() throws {
        let path = try temporaryDatabase()
        let store = try SQLiteOrderedListStore(path: path)
        for id in 1...5 as ClosedRange<Int64> { try store.append(id, to: "l") }
        let outside = try DatabaseQueue(path: path)
        try outside.write { db in
            try db.execute(sql: "UPDATE ordered_item SET pos = -7 WHERE id = 4")
            try db.execute(sql: "UPDATE ordered_item SET pos = ? WHERE id = 2", arguments: [Int64(1) << 62 + 5])
        }
        #expect(try store.verify("l") == ["2 labels outside [0, 2^62) in list 'l'"])
        let order = try store.ids(in: "l")
        #expect(order == [4, 1, 3, 5, 2])
        #expect(try store.repair("l") == 5)
        #expect(try store.verify("l").isEmpty)
        #expect(try store.ids(in: "l") == order)
        try store.move(2, after: 4, in: "l")
        #expect(try store.ids(in: "l") == [4, 2, 1, 3, 5])
    }
}
