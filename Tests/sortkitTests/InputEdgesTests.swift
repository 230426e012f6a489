import Foundation
import SortKitTestSupport
import Testing

/// The sorting contract at the edges of input (#35): how input is read and how options
/// combine — `--no-header` in block mode, pipes, `--unique` with `--top` and with folding
/// collations, symlinked outputs, control characters, long cells, huge sizes, error messages,
/// and a column read several ways. Each test is a case that once went wrong.
@Suite("sortkit at the edges of input")
struct InputEdgesTests {
    /// Runs `script` with bash in a fresh folder holding `files`; `$SORTKIT` is the binary.
    func shell(_ script: String, files: [String: String] = [:]) throws -> CommandRunner.Result {
        let folder = try CommandRunner.folder(with: files)
        // `$SORTKIT` is set by the script: the child inherits the test process's environment.
        let binary = CommandRunner.binary.path.replacingOccurrences(of: "'", with: "'\\''")
        let out = folder.appendingPathComponent(".out"), err = folder.appendingPathComponent(".err")
        let process = try SpawnedProcess(
            executable: "/bin/bash", arguments: ["-c", "export SORTKIT='\(binary)'\n" + script], directory: folder.path, stdout: out.path,
            stderr: err.path)
        let status = process.waitUntilExit()
        return CommandRunner.Result(
            status: status, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    @Test("--no-header in block mode: a first record longer than a read block loses no rows (sort, --top, --check)")
    func noHeaderLongFirstRecord() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let long = String(repeating: "x", count: 300_000)
            var csv = "\(long)\n"
            for row in 0..<30_000 { csv += "\((row * 7_919) % 30_000)\n" }
            let sorted = try shell("$SORTKIT sort nh.csv --no-header --by 1 --max-memory 256k | wc -l", files: ["nh.csv": csv])
            #expect(sorted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "30001", "\(sorted.stderr)")
            let top = try shell("$SORTKIT sort nh.csv --no-header --by 1 --top 3 --max-memory 256k", files: ["nh.csv": csv])
            #expect(top.stdout == "0\n1\n2\n", "\(top.stdout.prefix(100)) \(top.stderr)")
            // Out of order after the first block: --check finds it (the long first record reads as 0).
            var disordered = "0" + String(repeating: " ", count: 300_000) + "\n"
            for row in 0..<3_000 { disordered += "\(row == 2_000 ? 1 : row + 5)\n" }
            let check = try shell("$SORTKIT sort d.csv --no-header --by 1:num --check --max-memory 256k", files: ["d.csv": disordered])
            #expect(check.status == 1 && check.stderr.contains("line 2002"), "\(check.stderr)")
        }
    }

    @Test("A FILE that is a pipe or a FIFO is read once: typed keys, --top, --check, a spilled sort, --debug, view")
    func pipes() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let neg = "n\n-10\n2\n-5\n1.5\n"
            let top = try shell("cat neg.csv | $SORTKIT sort /dev/stdin --by n --top 4", files: ["neg.csv": neg])
            #expect(top.stdout == "n\n-10\n-5\n1.5\n2\n", "\(top.stdout) \(top.stderr)")
            let check = try shell("$SORTKIT sort <(printf 'n\\n-10\\n-5\\n1.5\\n2\\n') --by n --check", files: [:])
            #expect(check.status == 0, "\(check.stderr)")
            var big = "n\n"
            for row in 0..<60_000 { big += "\(-((row * 7_919) % 100_000))\n" }
            let spilled = try shell("cat big.csv | $SORTKIT sort /dev/stdin --by n --max-memory 1M | head -3", files: ["big.csv": big])
            let expected = ["n"] + big.split(separator: "\n").dropFirst().compactMap { Int($0) }.sorted().prefix(2).map(String.init)
            #expect(spilled.stdout.split(separator: "\n").map(String.init) == expected, "\(spilled.stdout) \(spilled.stderr)")
            let debug = try shell("cat neg.csv | $SORTKIT sort /dev/stdin --by n --debug", files: ["neg.csv": neg])
            #expect(debug.status == 0 && debug.stderr.contains("--debug: 4 records"), "\(debug.stderr)")
            let fifo = try shell("mkfifo f.csv; (cat neg.csv > f.csv &); $SORTKIT sort f.csv --by -n", files: ["neg.csv": neg])
            #expect(fifo.stdout == "n\n2\n1.5\n-5\n-10\n", "\(fifo.stdout) \(fifo.stderr)")
            let view = try shell("cat neg.csv | $SORTKIT view /dev/stdin --by n", files: ["neg.csv": neg])
            #expect(view.status == 0 && view.stdout.contains("-10"), "\(view.stdout) \(view.stderr)")
        }
    }

    @Test("--unique --top N is the first N of --unique, each group's first record in input order, past 65,536 records")
    func uniqueTop() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            var csv = "k,n\nb,first-b\n"
            for row in 0..<70_000 { csv += "a,\(row)\n" }
            csv += "c,only-c\nb,second-b\n"
            let result = try shell("$SORTKIT sort u.csv --by k --unique --top 3", files: ["u.csv": csv])
            #expect(result.stdout == "k,n\na,0\nb,first-b\nc,only-c\n", "\(result.stdout) \(result.stderr)")
        }
    }

    @Test("--unique under nocase, fold and natural keeps one record per equivalence class, the first in input order")
    func uniqueFolding() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let names = "n\nBob\nbob\nBOB\nÉclair\neclair\nfile2\nfile02\nann\n"
            let nocase = try shell("$SORTKIT sort n.csv --by n:nocase --unique", files: ["n.csv": names])
            // nocase folds case only: "Éclair" is its own class, after the ASCII letters.
            #expect(nocase.stdout == "n\nann\nBob\neclair\nfile02\nfile2\nÉclair\n", "\(nocase.stdout)")
            let fold = try shell("$SORTKIT sort n.csv --by n:fold --unique", files: ["n.csv": names])
            #expect(fold.stdout == "n\nann\nBob\nÉclair\nfile02\nfile2\n", "\(fold.stdout)")
            let natural = try shell("$SORTKIT sort n.csv --by n --unique", files: ["n.csv": names])
            #expect(natural.stdout == "n\nann\nBob\nÉclair\nfile2\n", "\(natural.stdout)")
            // The same through spilled runs.
            var many = "n\n"
            for row in 0..<20_000 { many += ["Bob", "bob", "BOB", "ann"][row % 4] + "\n" }
            let spilled = try shell("$SORTKIT sort m.csv --by n:nocase --unique --max-memory 64k", files: ["m.csv": many])
            #expect(spilled.stdout == "n\nann\nBob\n", "\(spilled.stdout.prefix(200))")
            let check = try shell("printf 'n\\nbob\\nBob\\n' | $SORTKIT sort - --by n:nocase --unique --check", files: [:])
            #expect(check.status == 1 && check.stderr.contains("line 3"), "\(check.stderr)")
            let debug = try shell("printf 'n\\nb\\na\\na\\n' | $SORTKIT sort - --by n --unique --debug", files: [:])
            #expect(debug.stderr.contains("--debug: 2 records") && !debug.stderr.contains("ties"), "\(debug.stderr)")
        }
    }

    @Test("-o through a symbolic link writes the target and keeps the link; -o /dev/null works")
    func symlinkOutput() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let result = try shell(
                """
                printf 'n\\n2\\n1\\n' > in.csv; printf 'old\\n' > target.csv; chmod 640 target.csv; ln -s target.csv link.csv
                $SORTKIT sort in.csv --by n -o link.csv && test -L link.csv && stat -c '%a' target.csv && cat target.csv
                $SORTKIT sort in.csv --by n -o /dev/null && test -c /dev/null && echo null-ok
                """)
            #expect(result.stdout == "640\nn\n1\n2\nnull-ok\n", "\(result.stdout) \(result.stderr)")
        }
    }

    @Test("sortkit view sends no control character to the terminal; line breaks keep the frame")
    func viewControls() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let csv = "name,note\n\"\u{1B}]0;pwned\u{07}x\",\"line1\r\nline2\"\n\"cr\rX\",\"\u{1B}[2J\u{9B}y\u{202E}z\"\n"
            let result = try shell("$SORTKIT view c.csv", files: ["c.csv": csv])
            #expect(result.status == 0, "\(result.stderr)")
            let controls = result.stdout.unicodeScalars.filter {
                ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) || (0x202A...0x202E).contains($0.value)
            }
            #expect(controls.isEmpty, "\(controls.map { $0.value })")
            let frame = result.stdout.split(separator: "\n").filter { $0.hasPrefix("│") || $0.hasPrefix("┌") || $0.hasPrefix("└") || $0.hasPrefix("├") }
            let widths = Set(frame.map { $0.unicodeScalars.count })
            #expect(widths.count == 1, "\(frame)")
        }
    }

    @Test("A megabyte key cell ending in a space, and a record much longer than a read block, take linear time")
    func longCells() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let cell = String(repeating: "k", count: 8 << 20)
            let csv = "a,b\n\(cell) ,1\nshort,2\n"
            let start = Date()
            let result = try shell("$SORTKIT sort l.csv --by a --max-memory 512k | cut -c 1-5", files: ["l.csv": csv])
            #expect(result.status == 0 && result.stdout == "a,b\nkkkkk\nshort\n", "\(result.stdout) \(result.stderr)")
            // Quadratic, this took minutes (a 16 MB record: 9.9 s with 64 KiB blocks); linear, a second or two.
            #expect(Date().timeIntervalSince(start) < 60)
        }
    }

    @Test("Huge sizes are refused, not a crash: --max-memory 99999999999G, view --page-size Int.max")
    func hugeSizes() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let memory = try shell("$SORTKIT sort b.csv --by n --max-memory 99999999999G", files: ["b.csv": "n\n1\n"])
            #expect(memory.status == 2 && memory.stderr.contains("--max-memory"), "\(memory.status) \(memory.stderr)")
            let view = try shell("$SORTKIT view b.csv --page-size 9223372036854775807 --page 9223372036854775807", files: ["b.csv": "n\n1\n2\n"])
            #expect(view.status == 0 && view.stdout.contains("2"), "\(view.status) \(view.stderr)")
        }
    }

    @Test("Errors name the problem: an empty file, -o into a missing folder, a missing TMPDIR, a date before 1583")
    func errors() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let empty = try shell(": > e.csv; $SORTKIT sort e.csv --by a; echo \"status $?\"", files: [:])
            #expect(empty.stdout.hasSuffix("status 0\n") && !empty.stderr.contains("unknown column"), "\(empty.stdout) \(empty.stderr)")
            let missing = try shell("$SORTKIT sort b.csv --by n -o nowhere/out.csv", files: ["b.csv": "n\n1\n"])
            #expect(
                missing.status == 2 && missing.stderr.contains("nowhere/out.csv") && missing.stderr.contains("doesn't exist")
                    && !missing.stderr.contains(".partial"), "\(missing.stderr)")
            let tmp = try shell("TMPDIR=/nonexistent/sortkit-tmp $SORTKIT sort b.csv --by n; test -e /nonexistent || echo not-made", files: ["b.csv": "n\n1\n"])
            #expect(tmp.status == 0 && tmp.stdout == "not-made\n" || tmp.stderr.contains("TMPDIR"), "\(tmp.stdout) \(tmp.stderr)")
            #expect(!tmp.stderr.contains("NSCocoaError") && !tmp.stderr.contains("Code="), "\(tmp.stderr)")
            let date = try shell("printf 'd\\n0000-01-01\\n1000-03-01\\n' | $SORTKIT sort - --by d --debug", files: [:])
            #expect(date.stderr.contains("0000-01-01") && date.stderr.contains("1000-03-01") && !date.stderr.contains("0000-01-03"), "\(date.stderr)")
        }
    }

    @Test("Numbers compare by exact value: integers beside a 0.5, and integers beyond 64 bits, read whole and in blocks")
    func exactIntegers() async throws {
        try await offPool {
            let csv = "n\n9007199254740993\n0.5\n9007199254740992\n12345678901234567891\n12345678901234567890\n-99999999999999999999\n"
            let expected = "n\n-99999999999999999999\n0.5\n9007199254740992\n9007199254740993\n12345678901234567890\n12345678901234567891\n"
            for memory in ["", " --max-memory 64k", " --top 6"] {
                let result = try shell("$SORTKIT sort n.csv --by n\(memory)", files: ["n.csv": csv])
                #expect(result.stdout == expected, "\(memory): \(result.stdout) \(result.stderr)")
            }
            let descending = try shell("$SORTKIT sort n.csv --by -n:num", files: ["n.csv": csv])
            #expect(descending.stdout.split(separator: "\n").dropFirst().first == "12345678901234567891", "\(descending.stdout)")
        }
    }

    @Test("A column may appear in several keys that read it differently: name:len,name")
    func repeatedColumn() async throws {
        // Child processes are awaited off the concurrency pool: blocking its two threads
        // would stall the asynchronous tests beside these.
        try await offPool {
            let csv = "name\nzed\nbob\nal\namy\nbo\n"
            for arguments in ["--by 'name:len,name'", "--by name:len --by name"] {
                let result = try shell("$SORTKIT sort n.csv \(arguments)", files: ["n.csv": csv])
                #expect(result.stdout == "name\nal\nbo\namy\nbob\nzed\n", "\(arguments): \(result.stdout) \(result.stderr)")
            }
            let view = try shell("$SORTKIT view n.csv --by 'name:len,-name'", files: ["n.csv": csv])
            #expect(view.status == 0, "\(view.stderr)")
            let same = try shell("$SORTKIT sort n.csv --by 'name,-name'", files: ["n.csv": csv])
            #expect(same.status == 2 && same.stderr.contains("named twice"), "\(same.stderr)")
        }
    }
}
