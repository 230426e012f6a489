import Foundation

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

    /// Runs `sortkit` with `arguments` in `directory`, feeding `stdin`.
    static func run(_ arguments: [String], stdin: String = "", in directory: URL) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
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
