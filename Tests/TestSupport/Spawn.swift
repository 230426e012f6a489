import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process of the tests: started, signalled and awaited without Foundation's
/// `Process` on Linux, where the tests start the `sortkit` binary hundreds of times.
///
/// On Linux it is started with `posix_spawn` itself. Foundation's `Process.run()` there crashed
/// in a `memcpy` inside the launch (a bad pointer one byte past a page) in 2 of 11 clean-clone
/// `.ci/run`s, even with one launch at a time in the test process. Its launch reads
/// `ProcessInfo`'s environment, builds C strings of every argument and variable and a close
/// action for every open descriptor; this launch passes a copy of the environment made once (at
/// the first launch) and the descriptors of the files it was handed, and has every other one
/// closed in the child. Input and output are files (or a pipe of its own for errors), so no
/// pipe end leaks into another test's child. Elsewhere it is a `Process`.
///
///     let child = try SpawnedProcess(executable: "/bin/echo", arguments: ["hi"], stdout: outPath)
///     let status = await child.exitStatus()
public final class SpawnedProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    /// The reading end of the child's standard error when started with `errorPipe`.
    public let errorOutput: FileHandle?
    private let exitRecord = ExitRecord()
    #if !canImport(Glibc)
        private let process: _ProcessBox
    #endif

    /// Starts `executable` with `arguments` in `directory`, its standard input read from the
    /// file at `stdin` (or `/dev/null`), its output and errors written to the files at `stdout`
    /// and `stderr` (made or emptied; `/dev/null` for `nil`; the same path: one file, both in
    /// the order written). With `errorPipe`, errors go to a pipe read from ``errorOutput``
    /// instead. Throws a `POSIXError` naming the call that failed: a missing executable fails
    /// here, not in the child.
    public init(
        executable: String, arguments: [String], directory: String? = nil, stdin: String? = nil, stdout: String? = nil,
        stderr: String? = nil, errorPipe: Bool = false
    ) throws {
        guard access(executable, X_OK) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }
        #if canImport(Glibc)
            var pipeEnds: [Int32] = [-1, -1]
            if errorPipe {
                // Close-on-exec (`pipe2` is a GNU extension Glibc's module leaves out): no other
                // child inherits either end; this one gets the writing end as its descriptor 2.
                guard pipe(&pipeEnds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
                for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            }
            defer { if errorPipe { close(pipeEnds[1]) } }
            do {
                pid = try Self.spawn(
                    executable, arguments, directory: directory, files: (stdin, stdout, stderr), errorPipe: errorPipe ? pipeEnds[1] : nil)
            } catch {
                if errorPipe { close(pipeEnds[0]) }
                throw error
            }
            errorOutput = errorPipe ? FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true) : nil
            let pid = pid
            let record = exitRecord
            // waitpid blocks a thread of its own, not one of the concurrency pool's.
            let waiter = Thread {
                var status: Int32 = 0
                var waited: pid_t
                repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
                // As Foundation's `terminationStatus`: the exit code, or the signal that ended it;
                // -1 if the child couldn't be waited for (never a success).
                record.record(waited != pid ? -1 : status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f)
            }
            waiter.name = "test-child-\(pid)"
            waiter.start()
        #else
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
            process.standardInput = stdin.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
            let output = try Self.writing(stdout)
            process.standardOutput = output
            let errors = Pipe()
            process.standardError = errorPipe ? errors : stderr != nil && stderr == stdout ? output : try Self.writing(stderr)
            errorOutput = errorPipe ? errors.fileHandleForReading : nil
            let record = exitRecord
            process.terminationHandler = { record.record($0.terminationStatus) }
            try process.run()
            pid = process.processIdentifier
            self.process = _ProcessBox(process)
        #endif
    }

    /// The exit code (or the number of the signal that ended the child), once it has exited.
    public func exitStatus() async -> Int32 { await exitRecord.wait() }

    /// ``exitStatus()`` for synchronous code (a `defer` that stops a server): blocks the calling
    /// thread until the child has exited.
    @discardableResult
    public func waitUntilExit() -> Int32 { exitRecord.waitBlocking() }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { exitRecord.status == nil }

    /// Sends `signal` (`SIGKILL`, `SIGINT`, …) to the child if it is still running.
    public func send(_ signal: Int32) {
        if isRunning { _ = kill(pid, signal) }
    }

    /// Sends `SIGTERM`.
    public func terminate() { send(SIGTERM) }

    #if canImport(Glibc)
        /// `posix_spawn` with the files (or pipe end) for descriptors 0, 1 and 2, every other
        /// descriptor closed and every signal unblocked and at its default in the child.
        private static func spawn(
            _ executable: String, _ arguments: [String], directory: String?, files: (String?, String?, String?), errorPipe: Int32?
        ) throws -> pid_t {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            let (stdin, stdout, stderr) = files
            let opened: [(Int32, String, Int32)] = [
                (0, stdin ?? "/dev/null", O_RDONLY), (1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC),
                (2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC),
            ]
            for (descriptor, path, flags) in opened {
                if descriptor == 2, let errorPipe {
                    try check(posix_spawn_file_actions_adddup2(&actions, errorPipe, 2))
                } else if descriptor == 2, let stderr, stderr == stdout {
                    // Errors to the output's file: the same open file, one offset (combined output).
                    try check(posix_spawn_file_actions_adddup2(&actions, 1, 2))
                } else {
                    try check(posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644))
                }
            }
            if let directory { try check(addChdir(&actions, directory)) }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            // No signal blocked or ignored in the child, whatever the launching thread has (the
            // concurrency pool's threads block some): a `terminate()` reaches it.
            var signals = sigset_t()
            sigemptyset(&signals)
            posix_spawnattr_setsigmask(&attributes, &signals)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            // Every other descriptor closed in the child (test servers' sockets, SQLite files).
            try check(addClosefrom(&actions, 3))
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var spawned: pid_t = 0
            try check(
                environment.withUnsafeBufferPointer {
                    posix_spawn(&spawned, executable, &actions, &attributes, argv, UnsafeMutablePointer(mutating: $0.baseAddress))
                })
            return spawned
        }

        /// The test process's environment as `NAME=value` C strings, made once at the first
        /// launch: no launch reads `environ` again.
        nonisolated(unsafe) private static let environment: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]

        private static func check(_ result: Int32) throws {
            guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        }

        // glibc (2.29, 2.34) has both; Swift's Glibc module leaves them out (they are GNU
        // extensions), so they are looked up by name, in the process's own symbols.
        private typealias Chdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        private typealias Closefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

        /// `name` among the symbols of the process and the libraries it loaded.
        private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
            dlsym(dlopen(nil, RTLD_NOW), name)
        }

        private static func addChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
            guard let symbol = symbol("posix_spawn_file_actions_addchdir_np") else { return ENOSYS }
            return unsafeBitCast(symbol, to: Chdir.self)(actions, path)
        }

        private static func addClosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ first: Int32) -> Int32 {
            guard let symbol = symbol("posix_spawn_file_actions_addclosefrom_np") else { return ENOSYS }
            return unsafeBitCast(symbol, to: Closefrom.self)(actions, first)
        }
    #else
        /// The file at `path` made or emptied and opened for writing; `/dev/null` for `nil`.
        private static func writing(_ path: String?) throws -> FileHandle {
            guard let path else { return FileHandle.nullDevice }
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
    #endif
}

#if !canImport(Glibc)
    /// The `Process` behind a ``SpawnedProcess`` off Linux, kept alive with it.
    private final class _ProcessBox: @unchecked Sendable {
        let process: Process
        init(_ process: Process) { self.process = process }
    }
#endif

/// A child's exit status, set once by its waiting thread, awaited by any number of tasks and
/// blocked on by any number of threads.
private final class ExitRecord: @unchecked Sendable {
    private let condition = NSCondition()
    private var recorded: Int32?
    private var waiting: [CheckedContinuation<Int32, Never>] = []

    var status: Int32? { condition.withLock { recorded } }

    func record(_ status: Int32) {
        let resumed = condition.withLock {
            recorded = status
            condition.broadcast()
            defer { waiting = [] }
            return waiting
        }
        for continuation in resumed { continuation.resume(returning: status) }
    }

    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = condition.withLock {
                if recorded == nil { waiting.append(continuation) }
                return recorded
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    func waitBlocking() -> Int32 {
        condition.withLock {
            while recorded == nil { condition.wait() }
            return recorded!
        }
    }
}
