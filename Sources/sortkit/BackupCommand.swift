import ArgumentParser
import Foundation
import SortKitSQL

/// `sortkit backup`: a consistent copy of a SQLite database, taken while `sortkit serve` runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database sortkit serve uses, while it serves.",
        discussion: """
            SQLite's VACUUM INTO reads one consistent snapshot (the database is in WAL mode, so a running
            server goes on reading and writing) and writes a compact copy that `sortkit serve --db COPY`
            serves as it is. The database is opened read-only; the copy gets its file permissions. An
            existing OUT is never overwritten. For --postgres, use pg_dump.

            Example: sortkit backup --db sortkit.sqlite backups/sortkit-2026-11-27.sqlite
            """)

    @Option(help: ArgumentHelp("The SQLite database file to copy.", valueName: "PATH"))
    var db: String = "sortkit.sqlite"

    @Argument(help: ArgumentHelp("The new file to write.", valueName: "OUT"))
    var out: String

    func run() async throws {
        let started = ContinuousClock.now
        do {
            try SQLiteTableStore.backup(db, to: out)
        } catch {
            throw ValidationError("\(error)")
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        printToStandardError("sortkit: backed up \(db) to \(out) (\(bytes) bytes in \(started.duration(to: .now)))")
    }
}
