import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

@testable import SortKitSQL

/// Downloads past memory's bounds: records written to temporary files window by window of the
/// view and handed on in its order (``_RecordsInOrder/Limits``), against the same records held
/// in memory and the order they were asked in.
@Suite("A download's records written to files past memory's bounds")
struct SpilledRecordsTests {
    /// Limits that make a small view spill, in windows of `window` places.
    static func spilling(window: Int, hold: Int, flush: Int) -> _RecordsInOrder.Limits {
        var limits = _RecordsInOrder.Limits()
        (limits.inMemoryRows, limits.windowRows, limits.holdBytes, limits.flushBytes) = (0, window, hold, flush)
        return limits
    }

    @Test("Seeded random views: ids with gaps, rows not read, empty, non-ASCII and megabyte records, 1–5 parts, tiny windows and holds")
    func randomViews() async throws {
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 0x5B111)
        let replay = "seed \(random.seed) (replay with SORTKIT_SEED=\(random.seed))"
        let texts = ["", "a", "é", "e\u{301}", "\"<\u{301}", "日本語", "a,b\nc", "😀", String(repeating: "x", count: 300)]
        for round in 0..<60 {
            let rows = Int.random(in: 0...400, using: &random)
            // Ids with gaps (at most four per row, as a view's ids are placed), in a random order.
            var ids = Array(Int64(1)...Int64(max(1, rows * 2))).shuffled(using: &random).prefix(rows).map { $0 }
            ids.shuffle(using: &random)
            var cells: [Int64: [UInt8]] = [:]
            for id in ids {
                var text = Array(texts.randomElement(using: &random)!.utf8) + Array("\(id)".utf8)
                if round == 7 && cells.isEmpty { text = [UInt8](repeating: UInt8(ascii: "m"), count: 1 << 20) }
                cells[id] = text
            }
            // Some rows of the view aren't read (deleted since its ids were).
            // (The megabyte record, if any, is always read.)
            let gone = Set(ids.filter { Int.random(in: 0..<6, using: &random) == 0 && cells[$0]!.count < 1 << 20 })
            let limits = Self.spilling(
                window: Int.random(in: 1...50, using: &random), hold: Int.random(in: 1...600, using: &random),
                flush: Int.random(in: 1...400, using: &random))
            let context = "round \(round), \(rows) rows, window \(limits.windowRows), hold \(limits.holdBytes), \(replay)"
            let parts = Int.random(in: 1...5, using: &random)
            var handed: [[UInt8]] = []
            for limits in [limits, .standard] {
                var records = try #require(_RecordsInOrder(order: ids, limits: limits), "\(context)")
                #expect(records.spills == (limits.inMemoryRows == 0 && rows > 0), "\(context)")
                for range in records.ids(in: parts) {
                    var part = try #require(records.makePart(of: parts))
                    for id in range where cells[id] != nil && !gone.contains(id) {
                        let fits = records.record(of: id, into: &part) { $0 += cells[id]! }
                        #expect(fits, "\(context)")
                    }
                    let added = records.add(part)
                    #expect(added, "\(context)")
                }
                handed.append(try await records.handedOn(batchRows: Int.random(in: 1...40, using: &random)))
            }
            let expected = ids.filter { !gone.contains($0) }.flatMap { cells[$0]! + [UInt8(0x0A)] }
            // (Compared first: a failure shouldn't print a megabyte of bytes.)
            let (spilledSame, inMemorySame) = (handed[0] == expected, handed[1] == expected)
            #expect(spilledSame, "spilled: \(handed[0].count) bytes, \(expected.count) expected; \(context)")
            #expect(inMemorySame, "in memory: \(context)")
        }
    }

    @Test("A spill file reads back what was written where it was written, and is never named")
    func spillFile() throws {
        let file = try #require(_SpillFile())
        #expect(file.write(Array("hello".utf8), at: 0) && file.write(Array("world".utf8), at: 10))
        var bytes: [UInt8] = []
        #expect(file.read(into: &bytes, count: 5, at: 10) && bytes == Array("world".utf8))
        #expect(file.read(into: &bytes, count: 15, at: 0) && bytes.prefix(5) == ArraySlice("hello".utf8))
        // Past its end: not read.
        #expect(!file.read(into: &bytes, count: 10, at: 12))
        let named = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
        #expect(!named.contains { $0.hasPrefix("sortkit-download-") && $0.count == "sortkit-download-XXXXXX".count })
        // Closed on exec, so a child process never holds it.
        #expect(fcntl(file.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #if os(Linux)
            // Never named on Linux (`O_TMPFILE`): no name to find, even for a moment.
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(file.descriptor)")
            #expect(!link.contains("sortkit-download-") && link.hasSuffix("(deleted)"), "\(link)")
        #endif
        // A folder that doesn't exist: no file, and a download goes by the index instead.
        #expect(_SpillFile(in: URL(fileURLWithPath: "/nonexistent-\(UUID())")) == nil)
    }

    @Test("SQLite: every row by one key, spilled in windows, is the CSV the index walk writes; stale catalogs read in one snapshot")
    func sqliteSpills() async throws {
        let store = try SQLiteTableStore(path: try Backend.sqlite.newLocation(), queryBudget: testQueryBudget, indexLimits: IndexLimits(indexBytes: 1))
        let titles = ["=1+2", "\"q\"\"", "a,b", "l\nb", "é", "", "e\u{301}", "日本", String(repeating: "ж", count: 5_000)]
        let csv =
            "title,price\n"
            + (0..<2_000).map { "\"\(titles[$0 % titles.count].replacingOccurrences(of: "\"", with: "\"\""))\($0 % 13)\",\($0 % 17)" }.joined(
                separator: "\n") + "\n"
        try await store.importCSV(Array(csv.utf8), as: "r", delimiter: UInt8(ascii: ","), presets: [:])
        let export = CSVExport(defusing: [.string, .integer])
        for spec in ["title", "-price:nulls-first", "-title"] {
            let info = try await store.read { try await SQLiteTableStore.info("r", $0) }
            let request = PageRequest(order: .spec(try SortSpec(parsing: spec)), limit: 1_000)
            let ids = try PageQuery(request, info: info, ordering: try SQLiteTableStore.ordering(request.order, info)).ids(after: nil, offset: 0)
            let (inMemory, _) = try await SQLiteTableStore.records(store.database, .query(ids), info, columns: 2, csv: export, parts: 2)
            let expected = try await #require(inMemory).handedOn(batchRows: 1_000)
            for (parts, window) in [(2, 64), (3, 1_000), (1, 7)] {
                let limits = Self.spilling(window: window, hold: 4_096, flush: 1_024)
                let (spilled, read) = try await SQLiteTableStore.records(
                    store.database, .query(ids), info, columns: 2, csv: export, parts: parts, limits: limits)
                let records = try #require(spilled, "\(spec) in \(parts) parts")
                #expect(records.spills && read == parts, "\(spec)")
                let same = try await records.handedOn(batchRows: 97) == expected
                #expect(same, "\(spec) in \(parts) parts, windows of \(window)")
            }
            // Files that can't be made: not read this way (the download walks the index).
            var nowhere = Self.spilling(window: 64, hold: 4_096, flush: 1_024)
            nowhere.folder = URL(fileURLWithPath: "/nonexistent-\(UUID())")
            let (none, _) = try await SQLiteTableStore.records(store.database, .query(ids), info, columns: 2, csv: export, parts: 2, limits: nowhere)
            #expect(none == nil, "\(spec): read with no folder for its files")
            // Records past the bytes memory holds (4 KB here) are read again through files.
            var narrow = _RecordsInOrder.Limits()
            narrow.inMemoryBytes = 4_096
            let (wide, wideParts) = try await SQLiteTableStore.records(store.database, .query(ids), info, columns: 2, csv: export, parts: 2, limits: narrow)
            #expect(wide?.spills == true && wideParts == 2, "\(spec), past memory's bytes")
            let sameWide = try await wide?.handedOn(batchRows: 64) == expected
            #expect(sameWide, "\(spec), past memory's bytes")
            // With the catalog of before a write, each reader finds the table moved on: read in
            // one snapshot, as it is now.
            try await store.update(1, in: "r", set: ["title": "zz\(spec)"])
            let now = try await store.read { try await SQLiteTableStore.info("r", $0) }
            let (fresh, _) = try await SQLiteTableStore.records(store.database, .query(ids), now, columns: 2, csv: export, parts: 2)
            let (stale, parts) = try await SQLiteTableStore.records(
                store.database, .query(ids), info, columns: 2, csv: export, parts: 2, limits: Self.spilling(window: 100, hold: 4_096, flush: 512))
            #expect(parts == 1, "\(spec): stale read in \(parts) parts")
            #expect(try await stale?.handedOn(batchRows: 50) == (try await fresh?.handedOn(batchRows: 50)), "\(spec), stale")
        }
    }
}
