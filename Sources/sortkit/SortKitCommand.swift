import ArgumentParser

@main
struct SortKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sortkit",
        abstract: "Sort tables the way people expect: typed, natural, stable.",
        subcommands: [ServeCommand.self, SortCommand.self, ViewCommand.self, BackupCommand.self]
    )

    /// Runs the command; every error, usage errors included, exits with status 2 as `sort` does.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
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
