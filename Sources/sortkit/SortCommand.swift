import ArgumentParser
import Foundation
import SortKit

struct SortCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sort",
        abstract: "Sort a CSV file by columns and write CSV.",
        discussion: """
            SPEC is KEY[,KEY...] with KEY := ['-'|'+'] column [':' modifier]...; '-' means descending.
            Modifiers: num, text, date, binary, nocase, fold, natural (default), nulls-first,
            nulls-last (default), nulls-natural, enum=a|b|c. Columns are typed by their values
            (integer, float, date, bool, string) unless a modifier says otherwise. The sort is stable.

            Example: sortkit sort books.csv --by 'status:enum=todo|reading|done,-price:num,title'
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

    func run() throws {
        try reportingFailures(of: "sortkit sort") {
            let spec = try combinedSpec()
            let separator = try delimiterByte()
            let input = try readInput()
            let table: TextTable
            do {
                table = try TextTable(csv: input, delimiter: separator, hasHeader: !noHeader)
            } catch let error as CSVError {
                throw CommandFailure("\(file == "-" ? "<stdin>" : file): \(error)")
            }
            let sorted = try table.sorted(by: spec)
            let text = sorted.csv(delimiter: Character(Unicode.Scalar(separator)), includeHeader: !noHeader)
            try writeOutput(Data(text.utf8))
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
                if keys.contains(where: { $0.column == key.column }) {
                    throw CommandFailure("column '\(key.column)' is named in more than one --by")
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

    func readInput() throws -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot read '\(file)': no such file")
        }
        guard !isDirectory.boolValue else { throw CommandFailure("cannot read '\(file)': it is a directory") }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("cannot read '\(file)': permission denied")
        }
        return Array(data)
    }

    /// Writes all of `data`, to a temporary file renamed over the destination, so a failure
    /// never leaves a partial output file.
    func writeOutput(_ data: Data) throws {
        guard let output else {
            FileHandle.standardOutput.write(data)
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandFailure("cannot write '\(output)': \(error.localizedDescription)")
        }
    }
}

/// A failure with a message for the user; the command prints it and exits with status 2.
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
    }
}

struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func printToStandardError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
