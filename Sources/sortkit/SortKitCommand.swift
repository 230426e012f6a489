import ArgumentParser

@main
struct SortKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sortkit",
        abstract: "Sort tables the way people expect: typed, natural, stable.",
        subcommands: [SortCommand.self]
    )

    /// Runs the command; every error, usage errors included, exits with status 2 as `sort` does.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .failure && error is ExitCode {
                exit(withError: error)
            }
            let message = fullMessage(for: error)
            if !message.isEmpty { printToStandardError("sortkit: " + message) }
            exit(withError: ExitCode(2))
        }
    }
}
