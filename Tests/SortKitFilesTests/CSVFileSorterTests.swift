import Foundation
import OrderKeys
import SortKit
import Testing

@testable import SortKitFiles

@Suite("Sorting CSV files (bounded memory)")
struct CSVFileSorterTests {
    static let pieces = ["a", "B", "é", "e\u{301}", "10", "2", "-3.5", "2021-03-04", "true", " ", "x,y", "say \"hi\"", "two\nlines", "😀", ""]

    /// A random CSV: records as written (some fields quoted for no reason, CRLF or LF), and
    /// the fields they hold.
    /// `distinct`: text fields end in a random number, so few repeat (keys encoded one per record,
    /// not numbered as distinct values first).
    static func randomFile(rows: Int, crlf: Bool, bom: Bool, distinct: Bool = false, using random: inout SplitMix64) -> (
        bytes: [UInt8], header: String, records: [String], fields: [[String]]
    ) {
        func field() -> String {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return String(Int.random(in: -20...20, using: &random))
            case 1: return ""
            default:
                let text = (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
                return distinct ? text + String(Int.random(in: 0...999_999, using: &random)) : text
            }
        }
        func written(_ text: String) -> String {
            let needs = text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
            return needs || Int.random(in: 0..<5, using: &random) == 0 ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var fields: [[String]] = []
        var records: [String] = []
        for _ in 0..<rows {
            let row = (0..<4).map { _ in field() }
            fields.append(row)
            records.append(row.map(written).joined(separator: ","))
        }
        let header = "s,n,m,t"
        let terminator = crlf ? "\r\n" : "\n"
        let text = ([header] + records).map { $0 + terminator }.joined()
        return ((bom ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8), header, records, fields)
    }

    static func randomSpec(using random: inout SplitMix64) -> SortSpec {
        let texts = [
            "s", "-n", "m:nocase,-s", "t:num", "n:nulls-first,m", "-m:fold:nulls-natural", "s:binary,n", "t:enum=a|2|true,-s", "m:date",
            "-n:abs,s", "t:num:abs:nulls-first", "s:len,-n", "-m:len:nulls-natural", "n:random=7", "s:random=18446744073709551615,m", "t:empty=null:fold",
        ]
        return try! SortSpec(parsing: texts.randomElement(using: &random)!)
    }

    /// Sorts `bytes` as a file; the folder it used is removed afterwards. `leftovers` names what
    /// the sorter left in its temporary folder (nothing, if it cleaned up).
    func sortFile(_ bytes: [UInt8], _ sorter: CSVFileSorter) throws -> (output: [UInt8], summary: CSVFileSorter.Summary, leftovers: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-csv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.csv"), output = folder.appendingPathComponent("out.csv")
        try Data(bytes).write(to: input)
        var sorter = sorter
        sorter.temporaryDirectory = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: sorter.temporaryDirectory, withIntermediateDirectories: true)
        let summary = try sorter.sort(input, to: output)
        let leftovers =
            try FileManager.default.contentsOfDirectory(atPath: sorter.temporaryDirectory.path)
            + FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
        return (Array(try Data(contentsOf: output)), summary, leftovers)
    }

    @Test("A non-ASCII, quote or line-end delimiter is an error that says so, not a split character")
    func badDelimiter() throws {
        for delimiter: UInt8 in [0xA9, 0xC3, 0x22, 0x0A] {
            #expect(throws: CSVFileSorter.Failure.self, "delimiter \(delimiter)") {
                _ = try sortFile(Array("name\ncafé\n".utf8), CSVFileSorter(spec: try SortSpec(parsing: "name"), delimiter: delimiter))
            }
        }
    }

    @Test("Random files and specs: the in-memory order, records byte for byte; spilled runs agree; no temp files left")
    func randomFiles() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 9
        var random = SplitMix64(seed: seed)
        for round in 0..<40 {
            let crlf = Bool.random(using: &random), bom = round % 7 == 0
            // Two rounds big enough that a column's keys are encoded in parts on the cores
            // (from 8,192 records), sorted where they lie.
            let big = round < 2
            let rows = big ? Int.random(in: 8_192...20_000, using: &random) : Int.random(in: 0...400, using: &random)
            let file = Self.randomFile(rows: rows, crlf: crlf, bom: bom, distinct: big, using: &random)
            // The big rounds by text keys: one column's (its keys are the sort keys) and two.
            let spec = big ? try SortSpec(parsing: round == 0 ? "s" : "m:nocase,-s") : Self.randomSpec(using: &random)
            let table = TextTable(columns: ["s", "n", "m", "t"], rows: file.fields)
            let order = try table.sortedRowIndices(by: spec)
            let terminator = crlf ? "\r\n" : "\n"
            let expected = (bom ? [0xEF, 0xBB, 0xBF] : []) + Array(([file.header] + order.map { file.records[$0] }).map { $0 + terminator }.joined().utf8)
            // In memory on one core and in slices, and with spilled runs.
            let budgets = [(CSVFileSorter.defaultMaxMemory, 1 << 20), (CSVFileSorter.defaultMaxMemory, 64), (1 << 16, 1 << 20), (1 << 12, 1 << 20)]
            for (memory, slice) in budgets.prefix(big ? 2 : 4) {
                var sorter = CSVFileSorter(spec: spec, maxMemory: memory)
                sorter.sliceMinimum = slice
                let result = try sortFile(file.bytes, sorter)
                let difference =
                    zip(result.output, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? (result.output.count == expected.count ? nil : min(result.output.count, expected.count))
                #expect(
                    difference == nil,
                    "round \(round), spec \(spec), memory \(memory), slice \(slice): first difference at byte \(difference ?? 0), seed \(seed) (replay with SORTKIT_SEED=\(seed))"
                )
                #expect(result.summary.records == file.records.count && result.summary.written == file.records.count)
                #expect(result.leftovers.isEmpty, "temp files left: \(result.leftovers)")
            }
        }
    }

    @Test("Odd endings: no final line end, an empty last field at the end, blank lines in one-column files; in memory, in blocks and spilled (seeded)")
    func oddEndings() throws {
        let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 11
        var random = SplitMix64(seed: seed)
        let values = ["", "", "9", "10", "-1", "b", "B", "é", "2021-03-04", "x,y", "\"q\"", "two\nlines"]
        for round in 0..<60 {
            let width = Int.random(in: 1...3, using: &random)
            let header = (0..<width).map { "c\($0)" }
            var fields = (0..<Int.random(in: 1...120, using: &random)).map { _ in (0..<width).map { _ in values.randomElement(using: &random)! } }
            // The last record ends with an empty field (a delimiter at the very end of the file).
            if Bool.random(using: &random) { fields[fields.count - 1][width - 1] = "" }
            let crlf = Bool.random(using: &random), finalEnd = Bool.random(using: &random)
            func written(_ text: String) -> String {
                text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
            }
            let records = fields.map { $0.map(written).joined(separator: ",") }
            let end = crlf ? "\r\n" : "\n"
            // A one-column record of an empty field is a blank line; unless it is the last record
            // of a file without a final line end, where there would be nothing to read.
            if width == 1, !finalEnd, records.last == "" { continue }
            let text = ([header.joined(separator: ",")] + records).joined(separator: end) + (finalEnd ? end : "")
            let spec = try SortSpec(parsing: ["c0", "-c0:num", width > 1 ? "c\(width - 1):nocase,c0" : "c0:nulls-first"].randomElement(using: &random)!)
            let order = try TextTable(columns: header, rows: fields).sortedRowIndices(by: spec)
            let expected = Array(([header.joined(separator: ",")] + order.map { records[$0] }).map { $0 + end }.joined().utf8)
            // Whole in memory (on one core, and scanned in 64-byte slices on several), in blocks,
            // spilled, and with --top.
            let cases: [(memory: Int, top: Int?, slice: Int)] = [
                (CSVFileSorter.defaultMaxMemory, nil, 1 << 20), (CSVFileSorter.defaultMaxMemory, nil, 64), (1 << 12, nil, 1 << 20),
                (CSVFileSorter.defaultMaxMemory, 5, 1 << 20), (CSVFileSorter.defaultMaxMemory, 5, 64), (1 << 12, 1_000, 1 << 20),
                (1 << 12, Int.max, 1 << 20),
            ]
            for (memory, top, slice) in cases {
                var sorter = CSVFileSorter(spec: spec, top: top, maxMemory: memory)
                sorter.sliceMinimum = slice
                let result = try sortFile(Array(text.utf8), sorter)
                let wanted =
                    top.map { Array(([header.joined(separator: ",")] + order.prefix($0).map { records[$0] }).map { $0 + end }.joined().utf8) } ?? expected
                #expect(
                    result.output == wanted,
                    "round \(round), \(spec), memory \(memory), top \(top.map(String.init) ?? "-"), slice \(slice), final line end \(finalEnd): \(text.debugDescription), seed \(seed)"
                )
            }
        }
    }

    @Test("A BOM read in blocks smaller than it (1 and 2 bytes) is still a BOM: the header names the column (fuzz-filesort's find)")
    func bomInTinyBlocks() throws {
        let text: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("n\nk\n2\n$0".utf8)
        let spec = try SortSpec(parsing: "n")
        let whole = try sortFile(text, CSVFileSorter(spec: spec)).output
        #expect(whole == [0xEF, 0xBB, 0xBF] + Array("n\n$0\n2\nk\n".utf8), "\(String(decoding: whole, as: UTF8.self).debugDescription)")
        for size in [1, 2, 3, 4] {
            var sorter = CSVFileSorter(spec: spec, maxMemory: 1 << 16)
            sorter.blockSizeForTesting = size
            #expect(try sortFile(text, sorter).output == whole, "blocks of \(size) bytes")
        }
        // A file of a BOM's first byte or two, or the BOM alone, read one byte at a time.
        for bytes in [[0xEF], [0xEF, 0xBB], [0xEF, 0xBB, 0xBF]] as [[UInt8]] {
            var sorter = CSVFileSorter(spec: try SortSpec(parsing: "1"), hasHeader: false)
            sorter.blockSizeForTesting = 1
            var whole = CSVFileSorter(spec: try SortSpec(parsing: "1"), hasHeader: false)
            whole.blockSizeForTesting = nil
            let expected = try? sortFile(bytes, whole).output
            #expect((try? sortFile(bytes, sorter).output) == expected, "\(bytes)")
        }
    }

    @Test("A file many times the memory budget sorts in spilled runs")
    func spilledRuns() throws {
        var random = SplitMix64(seed: 4)
        let file = Self.randomFile(rows: 6_000, crlf: false, bom: false, using: &random)
        let spec = try SortSpec(parsing: "-n,s")
        let result = try sortFile(file.bytes, CSVFileSorter(spec: spec, maxMemory: 1 << 16))
        #expect(result.summary.runs >= 5, "\(result.summary), seed 4 (fixed)")
        let order = try TextTable(columns: ["s", "n", "m", "t"], rows: file.fields).sortedRowIndices(by: spec)
        #expect(result.output == Array((["s,n,m,t"] + order.map { file.records[$0] }).map { $0 + "\n" }.joined().utf8), "seed 4 (fixed)")
    }

    @Test("A file sorted in memory and written in many pieces from every core: the stable order, each record once (seeded)")
    func manyPieces() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SORTKIT_SEED"] ?? "") ?? 43
        var random = SplitMix64(seed: seed)
        // 140,000 records are five pieces of 32,768; the cores write them at their places as
        // the file is free. Repeated numbers check the order stays stable; record lengths vary.
        let rows = (0..<140_000).map { row in (Int(random.next() % 5_000), String(repeating: "x", count: Int(random.next() % 40)) + "\(row)") }
        let records = rows.map { "\($0.0),\($0.1)" }
        let bytes = Array((["n,s"] + records).map { $0 + "\n" }.joined().utf8)
        let order = rows.indices.sorted { (rows[$0].0, $0) < (rows[$1].0, $1) }
        let result = try sortFile(bytes, CSVFileSorter(spec: try SortSpec(parsing: "n")))
        #expect(result.summary.runs == 0, "sorted in memory")
        let expected = Array((["n,s"] + order.map { records[$0] }).map { $0 + "\n" }.joined().utf8)
        let firstDifference = zip(result.output, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(result.output.count == expected.count && firstDifference == nil, "first difference at byte \(firstDifference ?? -1) (seed \(seed))")
    }

    @Test("unique, reverse, top and check")
    func options() throws {
        let csv = Array("k,v\nb,1\na,2\nb,3\nc,4\na,5\n".utf8)
        let spec = try SortSpec(parsing: "k")
        #expect(try sortFile(csv, CSVFileSorter(spec: spec, unique: true)).output == Array("k,v\na,2\nb,1\nc,4\n".utf8))
        #expect(try sortFile(csv, CSVFileSorter(spec: spec, reverse: true)).output == Array("k,v\nc,4\nb,1\nb,3\na,2\na,5\n".utf8))
        for memory in [CSVFileSorter.defaultMaxMemory, 1 << 16] {
            let top = try sortFile(csv, CSVFileSorter(spec: spec, top: 3, maxMemory: memory))
            #expect(top.output == Array("k,v\na,2\na,5\nb,1\n".utf8))
            #expect(top.summary.written == 3 && top.summary.records == 5)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sortkit-check-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(csv).write(to: folder)
        #expect(try CSVFileSorter(spec: spec).firstDisorder(in: folder) == 3) // "a" after "b" on line 3
        try Data("k,v\na,1\na,2\nb,3\n".utf8).write(to: folder)
        #expect(try CSVFileSorter(spec: spec).firstDisorder(in: folder) == nil)
        #expect(try CSVFileSorter(spec: spec, unique: true).firstDisorder(in: folder) == 3)
    }

    @Test("Malformed CSV and unknown columns are errors; no output file is left")
    func errors() throws {
        let cases: [(String, String)] = [
            ("a,b\n1,2\n3,4,5\n", "line 3: expected 2 fields (as in the first line), found 3"),
            ("a,b\n1,\"2\n", "line 2: quoted field never closed (it opens on line 2)"),
            ("a,b\n1,x\"y\n", "line 2: a quote inside an unquoted field (quote the whole field and double the quote)"),
        ]
        for (text, message) in cases {
            let error = #expect(throws: CSVError.self) { try sortFile(Array(text.utf8), CSVFileSorter(spec: SortSpec(parsing: "a"))) }
            #expect(error?.description == message)
            // After 300 good records, in a file scanned in slices: the same problem, on its line.
            let later = "a,b\n" + String(repeating: "1,\"2\n3\"\n", count: 150) + String(repeating: "5,6\n", count: 150) + text.dropFirst(4)
            var sorter = try CSVFileSorter(spec: SortSpec(parsing: "a"))
            sorter.sliceMinimum = 16
            let sliced = #expect(throws: CSVError.self) { try sortFile(Array(later.utf8), sorter) }
            let line = Int(message.dropFirst(5).prefix { $0.isNumber })!
            #expect(sliced?.description == message.replacingOccurrences(of: "line \(line)", with: "line \(line + 450)"))
        }
        #expect(throws: SortSpecError.self) { try sortFile(Array("a\n1\n".utf8), CSVFileSorter(spec: SortSpec(parsing: "zz"))) }
    }
}

@Suite("The output's file system")
struct OutputFileSystemTests {
    @Test("The mount with the longest containing mount point names the type; escaped points, stacked mounts, odd lines")
    func mountTable() {
        let mounts = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda rw
            23 22 0:5 / /tmp rw shared:2 - tmpfs tmpfs rw
            24 22 0:6 / /data\\040sets rw - xfs /dev/vdb rw
            25 22 0:7 / /tmpx rw - nfs4 server:/x rw
            26 23 0:8 / /tmp rw - btrfs /dev/vdc rw
            not a mount line
            27 22 0:9 / /mnt\\134odd rw - vfat /dev/vdd rw

            """
        #expect(_fileSystemType(containing: "/home/me", mounts: mounts) == "ext4")
        #expect(_fileSystemType(containing: "/tmp", mounts: mounts) == "btrfs", "the later of two mounts at one point")
        #expect(_fileSystemType(containing: "/tmp/out", mounts: mounts) == "btrfs")
        #expect(_fileSystemType(containing: "/tmpx/out", mounts: mounts) == "nfs4", "not /tmp's: a mount point is a whole name")
        #expect(_fileSystemType(containing: "/data sets/a", mounts: mounts) == "xfs")
        #expect(_fileSystemType(containing: "/mnt\\odd", mounts: mounts) == "vfat")
        #expect(_fileSystemType(containing: "/x", mounts: "") == nil)
    }
}
