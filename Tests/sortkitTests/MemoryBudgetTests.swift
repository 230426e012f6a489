import Foundation
import SortKitTestSupport
import Testing

/// `--max-memory` bounds the process (#35): peak RSS within 1.25× the budget plus the fixed
/// base (the runtime, the binary, the read and write buffers: the peak of sorting a tiny file
/// the same way), on narrow files (many records a megabyte: the per-record cost dominates)
/// and wide ones, read whole or in spilled runs. Measured with GNU time (Debian's `time`).
@Suite("--max-memory bounds the process")
struct MemoryBudgetTests {
    static let time = "/usr/bin/time"

    /// Peak RSS in KB and the output of `sortkit` with `arguments` in `folder`.
    static func peak(_ arguments: [String], in folder: URL) throws -> (kilobytes: Int, output: String, status: Int32) {
        let report = folder.appendingPathComponent(".time-\(UUID().uuidString)")
        let out = folder.appendingPathComponent(".out-\(UUID().uuidString)")
        let process = try SpawnedProcess(
            executable: time, arguments: ["-f", "%M", "-o", report.path, CommandRunner.binary.path] + arguments, directory: folder.path,
            stdout: out.path)
        let status = process.waitUntilExit()
        let kilobytes = Int(try String(contentsOf: report, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? "") ?? .max
        return (kilobytes, try String(contentsOf: out, encoding: .utf8), status)
    }

    @Test(
        "Narrow and wide files at 16M, 64M and 256M: peak RSS ≤ 1.25 × budget + base, output complete and sorted",
        .needs(.gnuTime, for: "the --max-memory test"))
    func budgets() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            // Narrow: 1.2M records of one integer (13 bytes each, 15 MB). Wide: 300,000 records of
            // five fields (about 80 bytes each, 24 MB), sorted by two text keys.
            var narrow = "n\n"
            narrow.reserveCapacity(16 << 20)
            for row in 0..<1_200_000 { narrow += "\((row &* 2_654_435_761) % 1_000_000_007)\n" }
            var wide = "title,author,status,price,note\n"
            for row in 0..<300_000 {
                let author = ["Le Guin", "Herbert", "Émile Zola", "Tolstoy", "Woolf"][row % 5]
                wide += "Title \((row &* 48_271) % 99_991),\(author) \(row % 997),\(["todo", "done"][row % 2]),\(row % 5_000).\(row % 100),note \(row)\n"
            }
            let folder = try CommandRunner.folder(with: ["narrow.csv": narrow, "wide.csv": wide, "tiny.csv": "n\n1\n"])
            // The runtime's fixed base: the largest of three tiny sorts (one sample was 28 MB
            // where the others were 31-32 MB, which left a sound 16M run 0.6 MB over).
            let base = try (0..<3).map { _ in try Self.peak(["sort", "tiny.csv", "--by", "n", "--max-memory", "16M"], in: folder).kilobytes }.max()!
            for (file, spec, rows) in [("narrow.csv", "n", 1_200_000), ("wide.csv", "author,title", 300_000)] {
                for budget in [16, 64, 256] {
                    let run = try Self.peak(["sort", file, "--by", spec, "--max-memory", "\(budget)M"], in: folder)
                    let limit = budget * 1_024 * 5 / 4 + base
                    #expect(run.status == 0, "\(file) \(budget)M")
                    #expect(
                        run.kilobytes <= limit,
                        "\(file) at --max-memory \(budget)M: peak \(run.kilobytes / 1_024) MB, limit \(limit / 1_024) MB (base \(base / 1_024) MB)")
                    let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
                    #expect(lines.count == rows + 2, "\(file) \(budget)M: \(lines.count) lines")
                    if file == "narrow.csv" {
                        let numbers = lines.dropFirst().dropLast().compactMap { Int($0) }
                        #expect(numbers.count == rows && zip(numbers, numbers.dropFirst()).allSatisfy { $0 <= $1 }, "\(file) \(budget)M: not sorted")
                    }
                }
            }
        }
    }
}
