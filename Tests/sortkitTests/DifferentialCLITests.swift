import Foundation
import OrderKeys
import SortKit
import SortKitTestSupport
import Testing

/// Every way of reading a file gives the same sort (#35): random files (seeded) with odd
/// content — quotes, line breaks in fields, CRLF, a BOM, blank cells, non-ASCII and combining
/// marks, numbers, dates, no final line end — sorted from the file, from a pipe, through
/// `/dev/stdin`, with `--max-memory` at 64k, 1M and 16M, with `--top`, `--unique`,
/// `--no-header`; and `--check` agrees with the sorted output.
@Suite("sortkit sort: one order whatever the path (seeded differential)")
struct DifferentialCLITests {
    static func randomCSV(using random: inout SplitMix64) -> (csv: String, columns: [String]) {
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        let columns = ["name", "n", "when", "note"]
        let names = [
            "Émile", "emile", "Zoë", "zoe", "Ada", "ada", "Łódź", "file10", "file2", "", " ", "\"quoted\"", "a,b", "x\ny",
            "e\u{301}", "日本", "Ünïcödé", "BOB", "bob",
        ]
        let numbers = ["-10", "2", "2.5", "", "9007199254740993", "9007199254740992", "0.5", "1e3", "-0", "007"]
        let dates = ["2024-01-01", "1999-12-31", "", "0000-01-01", "2024-02-29"]
        let newline = pick(["\n", "\r\n"])
        var csv = random.next() % 4 == 0 ? "\u{FEFF}" : ""
        csv += columns.joined(separator: ",") + newline
        for _ in 0..<Int(random.next() % 400) {
            let cells = [pick(names), pick(numbers), pick(dates), pick(names) + pick(["", " tail", "\t"])].map { cell in
                cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || cell.hasPrefix(" ")
                    ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
            }
            csv += cells.joined(separator: ",") + newline
        }
        if random.next() % 3 == 0, csv.hasSuffix(newline) { csv.removeLast(newline.count) }
        return (csv, columns)
    }

    /// The records of CSV text, as written (their bytes), the header first.
    static func records(_ output: String) -> [String] {
        (try? CSV.parse(Array(output.utf8)).map { $0.joined(separator: "\u{1F}") }) ?? ["<malformed>"]
    }

    @Test("Files, pipes, budgets, --top, --unique, --no-header and --check agree (seeded)")
    func differential() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let seed = ProcessInfo.processInfo.environment["SORTKIT_SEED"].flatMap(UInt64.init) ?? 35_012
            var random = SplitMix64(seed: seed)
            let specs = [
                "n", "-n", "name", "name:nocase", "-name:fold,n", "when,-name", "name:len,name", "note:binary", "n:num,when:text",
                "name:enum=Ada|BOB,n", "note:empty=null,-n",
            ]
            let shell = InputEdgesTests()
            for round in 0..<16 {
                let (csv, _) = Self.randomCSV(using: &random)
                let spec = specs[Int(random.next() % UInt64(specs.count))]
                let context = "seed \(seed), round \(round), --by '\(spec)'"
                let run = { (arguments: String) in try shell.shell("$SORTKIT sort \(arguments)", files: ["f.csv": csv]) }
                let reference = try run("f.csv --by '\(spec)'")
                #expect(reference.status == 0, "\(context): \(reference.stderr)")
                guard reference.status == 0 else { continue }
                for variant in [
                    "- --by '\(spec)' < f.csv", "/dev/stdin --by '\(spec)' < f.csv", "<(cat f.csv) --by '\(spec)'",
                    "f.csv --by '\(spec)' --max-memory 64k", "f.csv --by '\(spec)' --max-memory 1M", "f.csv --by '\(spec)' --max-memory 16M",
                ] {
                    let other = try run(variant)
                    #expect(other.status == 0 && other.stdout == reference.stdout, "\(context): \(variant): \(other.stderr)")
                }
                // --top N: the first N records of the full sort.
                let all = Self.records(reference.stdout)
                let top = 1 + Int(random.next() % 5)
                for budget in ["", " --max-memory 64k"] {
                    let first = try run("f.csv --by '\(spec)' --top \(top)\(budget)")
                    #expect(Self.records(first.stdout) == Array(all.prefix(top + 1)), "\(context): --top \(top)\(budget)")
                }
                // --unique: the same output whatever the path and budget; with --top, its prefix.
                let unique = try run("f.csv --by '\(spec)' --unique")
                for variant in ["- --by '\(spec)' --unique < f.csv", "f.csv --by '\(spec)' --unique --max-memory 64k"] {
                    #expect(try shell.shell("$SORTKIT sort \(variant)", files: ["f.csv": csv]).stdout == unique.stdout, "\(context): \(variant)")
                }
                let uniqueTop = try run("f.csv --by '\(spec)' --unique --top \(top)")
                #expect(Self.records(uniqueTop.stdout) == Array(Self.records(unique.stdout).prefix(top + 1)), "\(context): --unique --top \(top)")
                // --check: the sorted output is sorted; the same in every path.
                let sorted = try shell.shell(
                    "$SORTKIT sort f.csv --by '\(spec)' > s.csv && $SORTKIT sort s.csv --by '\(spec)' --check && "
                        + "$SORTKIT sort s.csv --by '\(spec)' --check --max-memory 64k && cat s.csv | $SORTKIT sort - --by '\(spec)' --check",
                    files: ["f.csv": csv])
                #expect(sorted.status == 0, "\(context): --check on sorted output: \(sorted.stderr)")
                let check = try run("f.csv --by '\(spec)' --check")
                let checkPiped = try shell.shell("cat f.csv | $SORTKIT sort - --by '\(spec)' --check --max-memory 64k", files: ["f.csv": csv])
                #expect(
                    check.status == checkPiped.status && check.stderr == checkPiped.stderr.replacingOccurrences(of: "<stdin>", with: "f.csv"),
                    "\(context): --check \(check.stderr) vs \(checkPiped.stderr)")
                // --no-header: the header is a record too; the same whatever the path.
                let noHeader = try run("f.csv --no-header --by 2,1")
                let noHeaderPiped = try shell.shell("cat f.csv | $SORTKIT sort - --no-header --by 2,1 --max-memory 64k", files: ["f.csv": csv])
                #expect(noHeader.status == noHeaderPiped.status && noHeader.stdout == noHeaderPiped.stdout, "\(context): --no-header")
                if reference.stdout != noHeader.stdout, noHeader.status == 0 {
                    #expect(Self.records(noHeader.stdout).count == all.count, "\(context): --no-header keeps every record")
                }
            }
        }
    }
}
