import Foundation
import SortKitTestSupport
import Testing

let booksCSV = """
    title,author,status,price,published
    The Left Hand of Darkness,Ursula K. Le Guin,done,$9.99,1969-03-01
    Émile,Jean-Jacques Rousseau,todo,"$1,234.56",1762-05-01
    Dune,Frank Herbert,reading,$12.50,1965-08-01
    Middlemarch,George Eliot,abandoned,,1871-12-01
    "Hitchhiker's Guide, The",Douglas Adams,done,$7.99,1979-10-12
    Volume 10,Anonymous,todo,$3,
    Volume 2,Anonymous,todo,$3,

    """

@Suite("sortkit sort")
struct SortCommandTests {
    func run(_ arguments: [String], stdin: String = "", files: [String: String] = ["books.csv": booksCSV]) async throws
        -> (CommandRunner.Result, URL)
    {
        let folder = try CommandRunner.folder(with: files)
        return (try await CommandRunner.run(arguments, stdin: stdin, in: folder), folder)
    }

    @Test("--debug explains each adjacent pair on stderr: values, sort keys, the deciding key; stdout is the sort")
    func debug() async throws {
        let csv = "name,price\nEmma,12\nÉmile,9.5\nAl,\nbob,12\n"
        let (result, _) = try await run(["sort", "-", "--by", "-price,name:fold", "--debug"], stdin: csv)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "name,price\nbob,12\nEmma,12\nÉmile,9.5\nAl,\n")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(result.stderr)")
        #expect(lines.first == "sortkit sort: --debug: 4 records by '-price,name:fold'")
        // A float column keeps its integral values exact: 12, not 12.0 (#35).
        #expect(lines[1].hasPrefix("record 4 before record 1: key 1 '-price': 12 ties with 12; key 2 'name:fold': \"bob\" before \"Emma\" (sort keys "))
        #expect(lines[1].hasSuffix(" decides"))
        #expect(lines[3] == "record 2 before record 3: key 1 '-price': 9.5 before null decides")
        let (ties, _) = try await run(["sort", "-", "--by", "price", "--debug", "--top", "2"], stdin: "price\n1\n1\n0\n")
        #expect(ties.stderr.contains("record 3 before record 1: key 1 'price': 0 before 1 decides"))
        #expect(ties.stderr.contains("record 1 before record 2: key 1 'price': 1 ties with 1; every key ties: input order decides") == false)
        // Odd input: a header only, and one record (no pairs to explain); no final line end.
        let (empty, _) = try await run(["sort", "-", "--by", "price", "--debug"], stdin: "price")
        #expect(empty.status == 0 && empty.stderr == "sortkit sort: --debug: 0 records by 'price'\n", "\(empty.stderr)")
        let (one, _) = try await run(["sort", "-", "--by", "name:len", "--debug"], stdin: "name\nÉmile")
        #expect(
            one.status == 0 && one.stdout == "name\nÉmile\n" && one.stderr == "sortkit sort: --debug: 1 records by 'name:len'\n",
            "\(one.stdout.debugDescription) \(one.stderr)")
        let (refused, _) = try await run(["sort", "books.csv", "--by", "title", "--debug", "--check"])
        #expect(refused.status != 0 && refused.stderr.contains("--debug explains a sorted output"))
    }

    @Test("The design's example spec (README, docs/SortSpecs.md): enum order, lenient numbers descending, natural titles")
    func designExample() async throws {
        let (result, _) = try await run(["sort", "books.csv", "--by", "status:enum=todo|reading|done,-price:num,title"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == """
                title,author,status,price,published
                Émile,Jean-Jacques Rousseau,todo,"$1,234.56",1762-05-01
                Volume 2,Anonymous,todo,$3,
                Volume 10,Anonymous,todo,$3,
                Dune,Frank Herbert,reading,$12.50,1965-08-01
                The Left Hand of Darkness,Ursula K. Le Guin,done,$9.99,1969-03-01
                "Hitchhiker's Guide, The",Douglas Adams,done,$7.99,1979-10-12
                Middlemarch,George Eliot,abandoned,,1871-12-01

                """)
    }

    @Test("Standard input, several --by options, dates descending with nulls last")
    func stdinAndSeveralSpecs() async throws {
        let (result, _) = try await run(["sort", "-", "--by", "-published", "--by", "title"], stdin: booksCSV)
        #expect(result.status == 0, "\(result.stderr)")
        let titles = result.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" }
        #expect(titles == ["\"Hitchhiker's Guide", "The Left Hand of Darkness", "Dune", "Middlemarch", "Émile", "Volume 2", "Volume 10"])
    }

    @Test("Numbers inferred: \"10\", \"2\", \"9\" sort as numbers; stable for ties")
    func inferredNumbers() async throws {
        let csv = "name,n\na,10\nb,2\nc,9\nd,2\n"
        let (result, _) = try await run(["sort", "data.csv", "--by", "n"], files: ["data.csv": csv])
        #expect(result.stdout == "name,n\nb,2\nd,2\nc,9\na,10\n")
    }

    @Test("No header: columns are named 1, 2, …; other delimiters")
    func noHeaderAndDelimiters() async throws {
        let (plain, _) = try await run(["sort", "--no-header", "--by", "-2"], stdin: "x,1\ny,3\nz,2\n")
        #expect(plain.stdout == "y,3\nz,2\nx,1\n")
        let (semicolon, _) = try await run(["sort", "--delimiter", ";", "--by", "b"], stdin: "a;b\n1;x,y\n2;a\n")
        #expect(semicolon.stdout == "a;b\n2;a\n1;x,y\n")
        let (tab, _) = try await run(["sort", "--delimiter", "tab", "--by", "-a"], stdin: "a\tb\n1\tx\n2\ty\n")
        #expect(tab.stdout == "a\tb\n2\ty\n1\tx\n")
    }

    @Test("Quoted fields with newlines and quotes survive")
    func quoting() async throws {
        let csv = "k,v\n2,\"line one\nline \"\"two\"\"\"\n1,plain\n"
        let (result, _) = try await run(["sort", "-", "--by", "k"], stdin: csv)
        #expect(result.stdout == "k,v\n1,plain\n2,\"line one\nline \"\"two\"\"\"\n")
    }

    @Test("-o writes the file and nothing to standard output")
    func outputFile() async throws {
        let (result, folder) = try await run(["sort", "books.csv", "--by", "title", "-o", "sorted.csv"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let written = try String(contentsOf: folder.appendingPathComponent("sorted.csv"), encoding: .utf8)
        #expect(written.hasPrefix("title,author,status,price,published\nDune,"))
    }

    @Test(
        "Errors: one line on stderr, exit status 2, no output",
        arguments: [
            (["sort", "books.csv", "--by", "pages"], "unknown column 'pages' (columns: 'title', 'author', 'status', 'price', 'published')"),
            (["sort", "books.csv", "--by", "title:upper"], "unknown modifier 'upper' at position 7"),
            (["sort", "bad.csv", "--by", "a"], "bad.csv: line 3: expected 2 fields (as in the first line), found 3"),
            (["sort", "missing.csv", "--by", "a"], "cannot read 'missing.csv': no such file"),
            (["sort", "books.csv"], "missing --by SPEC"),
            (["sort", "books.csv", "--by", ""], "empty sort spec"),
            (["sort", "books.csv", "--by", "title", "--by", "-title"], "column 'title' is named in more than one --by"),
            (["sort", "books.csv", "--by", "title", "--delimiter", "::"], "--delimiter must be one ASCII character"),
            (["sort", "books.csv", "--by", "title", "--bogus"], "Unknown option '--bogus'"),
            (["sort", "books.csv", "--by", "title", "--max-memory", "lots"], "--max-memory must be a size like 256M, 2G or 1000000"),
            (["sort", "books.csv", "--by", "title", "--top", "0"], "--top must be 1 or more"),
            (["sort", "books.csv", "--by", "title:locale=xx-u-co-foo"], "locale 'xx-u-co-foo': 'xx' has no 'foo' collation"),
            (["sort", "books.csv", "--by", "title:locale=sv:binary"], "modifier 'binary' conflicts with 'locale=sv'"),
            (["sort", "books.csv", "--by", "title:locale=e\u{301}n"], "locale 'e\u{301}n': a tag is letters, digits and '-'"),
        ])
    func errors(arguments: [String], message: String) async throws {
        let (result, _) = try await run(arguments, files: ["books.csv": booksCSV, "bad.csv": "a,b\n1,2\n3,4,5\n"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("A failed sort leaves no output file and keeps an existing one unchanged")
    func noPartialOutput() async throws {
        let (result, folder) = try await run(["sort", "bad.csv", "--by", "a", "-o", "out.csv"], files: ["bad.csv": "a\n\"open\n"])
        #expect(result.status == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.csv").path))
        let (again, folder2) = try await run(["sort", "books.csv", "--by", "nope", "-o", "out.csv"], files: ["books.csv": booksCSV, "out.csv": "keep me\n"])
        #expect(again.status == 2)
        #expect(try String(contentsOf: folder2.appendingPathComponent("out.csv"), encoding: .utf8) == "keep me\n")
    }

    @Test(
        "An empty last field at the end of the input is blank, in memory, in blocks (--top) and with a tiny --max-memory",
        arguments: [
            [String](), ["--top", "3"], ["--max-memory", "64k"], ["--top", "9223372036854775807"],
        ])
    func emptyLastFieldAtEnd(options: [String]) async throws {
        for input in ["name,score\na,9\nc,1\nb,", "name,score\r\na,9\r\nc,1\r\nb,"] {
            let end = input.contains("\r\n") ? "\r\n" : "\n"
            let (result, _) = try await run(["sort", "-", "--by", "score"] + options, stdin: input)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == ["name,score", "c,1", "a,9", "b,", ""].joined(separator: end), "\(options) \(input.debugDescription)")
        }
    }

    @Test("Blank lines: a blank row in a one-column file, an error naming the line in a wider one")
    func blankLines() async throws {
        let (single, _) = try await run(["sort", "-", "--by", "name"], stdin: "name\nBob\n\nAda\n")
        #expect(single.status == 0 && single.stdout == "name\nAda\nBob\n\n", "\(single.stdout.debugDescription)")
        let (wide, _) = try await run(["sort", "-", "--by", "a"], stdin: "a,b\n1,2\n\n3,4\n")
        #expect(wide.status == 2 && wide.stdout.isEmpty)
        #expect(wide.stderr.contains("line 3: blank line; expected 2 fields"), "\(wide.stderr)")
    }

    @Test("-o replaces an existing file by renaming a complete one over it, keeping its permissions; nothing left beside it")
    func outputReplacedAtomically() async throws {
        let folder = try CommandRunner.folder(with: ["books.csv": booksCSV, "out.csv": "old\n", "bad.csv": "a,b\n1,2\n3\n"])
        let out = folder.appendingPathComponent("out.csv")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: out.path)
        let failed = try await CommandRunner.run(["sort", "bad.csv", "--by", "a", "-o", "out.csv"], in: folder)
        #expect(failed.status == 2)
        #expect(try String(contentsOf: out, encoding: .utf8) == "old\n")
        let done = try await CommandRunner.run(["sort", "books.csv", "--by", "title", "-o", "out.csv"], in: folder)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try String(contentsOf: out, encoding: .utf8).hasPrefix("title,author,status,price,published\nDune,"))
        #expect(try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }.isEmpty)
    }

    @Test("Ctrl-C during `-o` leaves the old file, and removes the partial output and the temporary runs")
    func interruptedOutput() async throws {
        let folder = try CommandRunner.folder(with: ["out.csv": "old\n"])
        let scratch = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var interrupted = false
        // A sort that spills runs under a tiny memory budget; a larger file if one ends before the signal.
        for rows in [300_000, 1_200_000] where !interrupted {
            var csv = "id,name\n"
            for row in 0..<rows { csv += "\(row),n\((row &* 7_919) % 100_003)\n" }
            try Data(csv.utf8).write(to: folder.appendingPathComponent("big.csv"))
            // TMPDIR through `env`: the child otherwise inherits the test process's environment.
            let process = try SpawnedProcess(
                executable: "/usr/bin/env",
                arguments: ["TMPDIR=\(scratch.path)", CommandRunner.binary.path, "sort", "big.csv", "--by", "name", "--max-memory", "1M", "-o", "out.csv"],
                directory: folder.path)
            let partial = folder.appendingPathComponent(".out.csv.sortkit-\(process.pid).partial")
            let start = Date()
            // The partial file is opened when the sort starts; the signal comes while it runs.
            while process.isRunning, !FileManager.default.fileExists(atPath: partial.path), Date().timeIntervalSince(start) < 60 {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(50))
            process.send(SIGINT)
            let status = await process.exitStatus()
            if status == 130 {
                interrupted = true
                #expect(try String(contentsOf: folder.appendingPathComponent("out.csv"), encoding: .utf8) == "old\n")
                #expect(!FileManager.default.fileExists(atPath: partial.path), "the partial output is removed")
                #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty, "the temporary runs are removed")
            } else {
                #expect(status == 0, "a sort that ends before the signal succeeds")
                try Data("old\n".utf8).write(to: folder.appendingPathComponent("out.csv"))
            }
        }
        #expect(interrupted, "every sort ended before Ctrl-C could reach it")
    }

    @Test("--check exits 1 naming the first line out of order; --top, --unique and a tiny --max-memory")
    func checkTopUnique() async throws {
        let (unsorted, _) = try await run(["sort", "books.csv", "--by", "title", "--check"])
        #expect(unsorted.status == 1 && unsorted.stdout.isEmpty)
        #expect(unsorted.stderr == "sortkit sort: books.csv: line 3 is out of order\n")
        let (sorted, folder) = try await run(["sort", "books.csv", "--by", "title", "-o", "sorted.csv"])
        #expect(sorted.status == 0)
        let (again, _) = try await run(
            ["sort", "sorted.csv", "--by", "title", "--check"],
            files: ["sorted.csv": try String(contentsOf: folder.appendingPathComponent("sorted.csv"), encoding: .utf8)])
        #expect(again.status == 0 && again.stderr.isEmpty)
        let (top, _) = try await run(["sort", "books.csv", "--by", "-price:num", "--top", "2", "--max-memory", "64k"])
        #expect(
            top.stdout
                == "title,author,status,price,published\nÉmile,Jean-Jacques Rousseau,todo,\"$1,234.56\",1762-05-01\nDune,Frank Herbert,reading,$12.50,1965-08-01\n"
        )
        let (unique, _) = try await run(["sort", "books.csv", "--by", "author", "--unique"])
        #expect(unique.stdout.split(separator: "\n").count == 7) // header + 6 authors (Anonymous twice)
    }
}
