import Foundation
import SortKitTestSupport

/// Runs the built `sortkit` binary, as swift-argument-parser's `AssertExecuteCommand` does:
/// the binary sits next to the test bundle in the build folder (or at `SORTKIT_BIN`).
struct CommandRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["SORTKIT_BIN"] { return URL(fileURLWithPath: path) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("sortkit")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return executable.deletingLastPathComponent().appendingPathComponent("sortkit")
    }

    /// Runs `sortkit` with `arguments` in `directory`, feeding `stdin`, and awaits its exit
    /// without holding a thread of the concurrency pool (``SpawnedProcess``): two sync tests
    /// each blocked on a child would stall every async test of the run.
    static func run(_ arguments: [String], stdin: String = "", in directory: URL) async throws -> Result {
        let files = OutputFiles(
            input: directory.appendingPathComponent(".stdin-\(UUID().uuidString)"),
            out: directory.appendingPathComponent(".stdout-\(UUID().uuidString)"),
            err: directory.appendingPathComponent(".stderr-\(UUID().uuidString)"))
        defer { files.remove() }
        try Data(stdin.utf8).write(to: files.input)
        let child = try SpawnedProcess(
            executable: binary.path, arguments: arguments, directory: directory.path, stdin: files.input.path, stdout: files.out.path,
            stderr: files.err.path)
        let status = await child.exitStatus()
        return try files.result(status: status)
    }

    /// The files a run's input comes from and its output goes to (files, not pipes: a full pipe
    /// would block the child).
    struct OutputFiles {
        let input: URL
        let out: URL
        let err: URL

        func result(status: Int32) throws -> Result {
            Result(
                status: status,
                stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
        }

        func remove() {
            for file in [input, out, err] { try? FileManager.default.removeItem(at: file) }
        }
    }

    /// This process's folder for test files, `sortkit-cli-<pid>`; made once, after removing the
    /// folders of earlier test runs whose process is gone.
    static let processFolder: URL = {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("sortkit-cli-") {
            guard let pid = Int32(name.dropFirst("sortkit-cli-".count)), kill(pid, 0) != 0 else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        return temporary.appendingPathComponent("sortkit-cli-\(getpid())")
    }()

    /// A fresh temporary folder holding `files`, inside ``processFolder``.
    static func folder(with files: [String: String]) throws -> URL {
        let folder = processFolder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, contents) in files {
            try Data(contents.utf8).write(to: folder.appendingPathComponent(name))
        }
        return folder
    }
}
