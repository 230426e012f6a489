import ArgumentParser
import DataTableKit
import Foundation
import SortKit
import SortKitFiles
import Synchronization

struct SortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sort",
        abstract: "Sort a CSV file by columns and write CSV.",
        discussion: """
            SPEC is KEY[,KEY...] with KEY := ['-'|'+'] column [':' modifier]...; '-' means descending.
            Modifiers: num, text, date, binary, nocase, fold, natural (default), nulls-first,
            nulls-last (default), nulls-natural, enum=a|b|c, abs, len, empty=null, random=SEED,
            locale=TAG (a language's order: sv, uk, de-u-co-phonebk, zh, und; with nocase, fold
            or natural for a weaker strength).
            --debug explains the order of adjacent output records on standard error. Columns are typed by their values
            (integer, float, date, bool, string) unless a modifier says otherwise. The sort is stable,
            and every record is written back byte for byte. Files larger than --max-memory are
            sorted in runs spilled to temporary files and merged.

            Examples:
              sortkit sort books.csv --by 'status:enum=todo|reading|done,-price:num,title'
              sortkit sort big.csv --by -price --max-memory 256M -o sorted.csv
              sortkit sort names.csv --by 'name:locale=sv'      (å ä ö after z)
              sortkit sort big.csv --by title --top 10
              sortkit sort sorted.csv --by -price --check
              sortkit sort people.csv --by 'delta:abs,name:fold' --debug
            """
    )

    @Argument(help: "The CSV file to sort, or - for standard input.")
    var file: String = "-"

    @Option(name: .customLong("by"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A sort spec; repeat to add further keys.", valueName: "SPEC"))
    var specs: [String] = []

    @Option(help: ArgumentHelp("The field delimiter: one ASCII character, or 'tab'.", valueName: "C"))
    var delimiter: String = ","

    @Flag(name: .customLong("no-header"), help: "The input has no header row; columns are named 1, 2, ….")
    var noHeader = false

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(
        name: .customLong("max-memory"),
        help: ArgumentHelp(
            "The most memory the sort may use (e.g. 256M, 2G): a bound on the whole process beyond its fixed base (peak RSS within 1.25× of it); larger inputs spill sorted runs to disk. Default: a quarter of RAM, at most 4G.",
            valueName: "SIZE"))
    var maxMemory: String?

    @Flag(help: "Write only the first record (in input order) of each group of equivalent keys: under nocase, fold and natural 'Bob' and 'bob' are one group.")
    var unique = false

    @Flag(help: "Reverse every key's direction.")
    var reverse = false

    @Option(help: ArgumentHelp("Write only the first N records (without sorting everything).", valueName: "N"))
    var top: Int?

    @Flag(help: "Exit 1 if the input is not sorted, naming the first line out of order; write nothing.")
    var check = false

    @Flag(help: "No progress bar (it is shown on a terminal only).")
    var quiet = false

    @Flag(
        help:
            "After sorting, explain on standard error how each pair of adjacent records compares: each key's values, sort keys, and which key decides (reads the input into memory)."
    )
    var debug = false

    func validate() throws {
        if let top, top < 1 { throw ValidationError("--top must be 1 or more, got \(top)") }
        if let maxMemory { _ = try Self.size(maxMemory) }
        if check && (output != nil || top != nil) { throw ValidationError("--check writes nothing; drop -o and --top") }
        if check && debug { throw ValidationError("--debug explains a sorted output; --check writes none") }
    }

    func run() throws {
        try reportingFailures(of: "sortkit sort") {
            do {
                let spec = try combinedSpec(), delimiter = try delimiterByte()
                let budget = try maxMemory.map(Self.size) ?? CSVFileSorter.defaultMaxMemory
                let scratch = try Self.makeScratch()
                var sorter = CSVFileSorter(
                    spec: spec, delimiter: delimiter, hasHeader: !noHeader, unique: unique, reverse: reverse, top: top, maxMemory: budget,
                    temporaryDirectory: scratch)
                defer { try? FileManager.default.removeItem(at: scratch) }
                Self.removeScratchOnInterrupt(
                    scratch, partial: output.map { CSVFileSorter.partialFile(for: CSVFileSorter.resolvingLinks(URL(fileURLWithPath: $0))) })
                let input = try inputFile(spoolingInto: scratch)
                let bar = !quiet && isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
                if let bar { sorter.progress = { progress in bar.show(progress) } }
                do {
                    if check {
                        if let line = try sorter.firstDisorder(in: input) {
                            bar?.finish()
                            printToStandardError("sortkit sort: \(displayName): line \(line) is out of order")
                            throw ExitCode(1)
                        }
                        return
                    }
                    if let output {
                        try sorter.sort(input, to: URL(fileURLWithPath: output))
                    } else {
                        try sorter.sortToStandardOutput(input)
                    }
                    bar?.finish()
                    if debug { try explainOrder(of: input, sorter: sorter) }
                } catch let error as CSVError {
                    bar?.finish()
                    throw CommandFailure("\(displayName): \(error)")
                } catch let error as CSVFileSorter.Failure {
                    bar?.finish()
                    throw CommandFailure(error.description)
                }
            } catch {
                // A sort that fails because Ctrl-C took its scratch folder away waits for the
                // signal handler, which exits 130 (143) once the files are gone.
                Self.waitIfInterrupted()
                throw error
            }
        }
    }

    var displayName: String { file == "-" ? "<stdin>" : file }

    /// `--debug`, as GNU sort's: for each pair of adjacent records in the output, each key's
    /// values and sort keys up to the key that decides their order (or that all tie, so input
    /// order decides), on standard error. Records are numbered from 1 in input order.
    func explainOrder(of input: URL, sorter: CSVFileSorter) throws {
        let spec = sorter.spec
        guard let bytes = _readWholeFile(atPath: input.path) else { throw CommandFailure("cannot read '\(displayName)' again for --debug") }
        let table = try TextTable(csv: bytes, delimiter: try delimiterByte(), hasHeader: !noHeader)
        let columns = try spec.keys.map { try table.columnIndex($0.column) }
        let types = table.columnTypes()
        // A key reads by the column's type only where it reads by type (`sortValue(of:columnType:)`).
        let keyTypes = columns.map { types[$0] }
        // The records the sort wrote, in its order (`--unique` and `--top` applied as it applies them).
        let order = try sorter.writtenOrder(of: table)
        let explainer = SortExplainer(spec, columnTypes: keyTypes)
        // Written in blocks: a write per line would be a system call per pair.
        var block = "sortkit sort: --debug: \(order.count) records by '\(spec)'\n"
        for (first, second) in zip(order, order.dropFirst()) {
            let texts = { (row: Int) in columns.map { table.rows[row][$0] } }
            // Cell values are shown as the terminal may be sent them: no control acts on it.
            block += TerminalWidth.printable("record \(first + 1) before record \(second + 1): \(explainer.explain(texts(first), texts(second)))") + "\n"
            if block.utf8.count >= 1 << 16 {
                FileHandle.standardError.write(Data(block.utf8))
                block = ""
            }
        }
        FileHandle.standardError.write(Data(block.utf8))
    }

    /// Makes this process's run folder (`sortkit-PID-XXXXXX`) in the temporary folder, which
    /// must exist (only the leaf is made); it is removed at exit and on Ctrl-C.
    static func makeScratch() throws -> URL {
        do {
            return try CSVFileSorter.makeUniqueFolder(in: FileManager.default.temporaryDirectory, prefix: "sortkit-\(getpid())-")
        } catch let error as CSVFileSorter.Failure {
            throw CommandFailure(error.description)
        }
    }

    /// Blocks for good once a SIGINT or SIGTERM has been received: its handler is removing
    /// the files and will exit the process.
    static func waitIfInterrupted() {
        guard _interruption.load(ordering: .sequentiallyConsistent) != 0 else { return }
        while true { sleep(60) }
    }

    /// On SIGINT/SIGTERM: remove the temporary runs and the partial output, then exit 130/143.
    ///
    /// The sort goes on while this runs, and may be writing a run into the scratch folder: the
    /// folder is first renamed, so no new run can start in it (a run is created by path), then
    /// removed, again while a run created just before the rename still lands in it.
    static func removeScratchOnInterrupt(_ scratch: URL, partial: URL?) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                _interruption.store(signalNumber, ordering: .sequentiallyConsistent)
                let files = FileManager.default
                let doomed = scratch.deletingLastPathComponent().appendingPathComponent(".\(scratch.lastPathComponent).removing")
                let folder = rename(scratch.path, doomed.path) == 0 ? doomed : scratch
                for _ in 0..<50 where files.fileExists(atPath: folder.path) {
                    try? files.removeItem(at: folder)
                    if files.fileExists(atPath: folder.path) { usleep(5_000) }
                }
                if let partial { try? files.removeItem(at: partial) }
                Foundation.exit(128 + signalNumber)
            }
            source.resume()
            _signalSources.append(source)
        }
    }

    /// `256M`, `2G`, `512k` or plain bytes, at least 64k.
    static func size(_ text: String) throws -> Int {
        try ByteSize.parse(text, option: "--max-memory", minimum: 1 << 16)
    }

    /// The input as a file that can be read more than once: the named file, or — for standard
    /// input (`-`), a pipe, a FIFO, `/dev/stdin` — a copy in the scratch folder (a sort reads
    /// its input twice, and `--debug` once more).
    func inputFile(spoolingInto scratch: URL) throws -> URL {
        let path = file == "-" ? "/dev/stdin" : file
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot read '\(file)': no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("cannot read '\(file)': it is a folder") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw CommandFailure("cannot read '\(file)': permission denied") }
        do {
            return try CSVFileSorter.rereadable(URL(fileURLWithPath: path), spoolingInto: scratch)
        } catch let error as CSVFileSorter.Failure {
            throw CommandFailure(error.description.replacingOccurrences(of: "'/dev/stdin'", with: "standard input"))
        }
    }

    /// The `--by` specs joined into one, most significant first.
    func combinedSpec() throws -> SortSpec {
        guard !specs.isEmpty else { throw CommandFailure("missing --by SPEC (for example --by 'author,-price')") }
        var keys: [SortSpec.Key] = []
        for text in specs {
            let spec = try SortSpec(parsing: text)
            guard !spec.isEmpty else { throw CommandFailure("empty sort spec in --by \"\(text)\"") }
            for key in spec.keys {
                // A column may be read several ways (`--by name:len --by name`); the same reading twice is an error.
                if keys.contains(where: { $0.column == key.column }), (try? SortSpec(keys + [key]).checkingDistinctKeys()) == nil {
                    throw CommandFailure("column '\(key.column)' is named in more than one --by, read the same way (it could never decide)")
                }
                keys.append(key)
            }
        }
        return SortSpec(keys)
    }

    func delimiterByte() throws -> UInt8 {
        if delimiter == "tab" || delimiter == "\\t" { return 0x09 }
        guard delimiter.utf8.count == 1, let byte = delimiter.utf8.first,
            byte != 0x22, byte != 0x0A, byte != 0x0D
        else {
            throw CommandFailure("--delimiter must be one ASCII character other than a quote or a line break, or 'tab' (got \"\(delimiter)\")")
        }
        return byte
    }
}

/// The signal sources must stay alive for the process's life.
nonisolated(unsafe) private var _signalSources: [any DispatchSourceSignal] = []
/// The signal whose handler is cleaning up (0: none), for ``SortCommand/waitIfInterrupted()``.
private let _interruption = Atomic<Int32>(0)

/// A one-line progress bar on standard error: bytes, rows, rate and time left.
final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let start = Date()
    private var last = Date.distantPast
    private var shown = false

    func show(_ progress: CSVFileSorter.Progress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(last) >= 0.2 || progress.bytesRead == progress.totalBytes else { return }
        last = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let fraction = progress.totalBytes > 0 ? Double(progress.bytesRead) / Double(progress.totalBytes) : 1
        let rate = Double(progress.bytesRead) / elapsed / 1e6
        let left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = String(
            format: "\r[%@] %3.0f%% %.0f/%.0f MB, %d rows, %.0f MB/s, %.0f s left ",
            bar, fraction * 100, Double(progress.bytesRead) / 1e6, Double(progress.totalBytes) / 1e6,
            progress.records, rate, left)
        FileHandle.standardError.write(Data(line.utf8))
        shown = true
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

/// Runs a command's body; a bad spec, a malformed CSV or a ``CommandFailure`` becomes one
/// line on standard error, prefixed with `command`, and exit status 2.
func reportingFailures(of command: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CommandFailure {
        printToStandardError("\(command): \(failure.message)")
        throw ExitCode(2)
    } catch let error as SortSpecError {
        printToStandardError("\(command): \(error)")
        throw ExitCode(2)
    } catch let error as CSVError {
        printToStandardError("\(command): \(error)")
        throw ExitCode(2)
    } catch let error as CocoaError {
        // A file the command couldn't read or write: one line, never Foundation's raw dump.
        let path = (error.userInfo[NSFilePathErrorKey] as? String).map { " '\($0)'" } ?? ""
        let reason = (error.underlying as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? error.localizedDescription
        printToStandardError("\(command): cannot use\(path): \(reason)")
        throw ExitCode(2)
    } catch let error as POSIXError {
        printToStandardError("\(command): \(String(cString: strerror(error.code.rawValue)))")
        throw ExitCode(2)
    }
}

/// A failure with a message for the user; the command prints it and exits with status 2.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func printToStandardError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
