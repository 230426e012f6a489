#if canImport(Glibc)
    import Foundation
    import Glibc

    /// A child process started with `posix_spawn` itself, for the tests that run the `sortkit`
    /// binary hundreds of times (on Linux; elsewhere they use `Process`).
    ///
    /// Not Foundation's `Process`: on Linux its `run()` crashed in a `memcpy` inside the launch
    /// (a bad pointer one byte past a page) in 2 of 11 clean-clone `.ci/run`s, both from
    /// `CommandRunner`, even with one launch at a time (``Process/launchAlone()``). Its launch
    /// reads `ProcessInfo`'s environment, builds C strings of every argument and variable and a
    /// close action for every open descriptor; this launch passes a copy of the environment made
    /// once (at the first launch) and the descriptors of the files it was handed, and has every
    /// other one closed in the child. Input and output are files, so no pipe end leaks into
    /// another test's child.
    ///
    ///     let child = try SpawnedProcess(executable: "/bin/echo", arguments: ["hi"], stdout: outPath)
    ///     let status = await child.exitStatus()
    public final class SpawnedProcess: Sendable {
        /// The child's process id.
        public let pid: pid_t
        private let exitRecord = ExitRecord()

        /// Starts `executable` with `arguments` in `directory`, its standard input read from the
        /// file at `stdin` (or `/dev/null`), its output and errors written to the files at `stdout`
        /// and `stderr` (made or emptied; `/dev/null` for `nil`; the same path: one file, both in
        /// the order written). Throws a `POSIXError` naming the
        /// call that failed: a missing executable fails here, not in the child.
        public init(
            executable: String, arguments: [String], directory: String? = nil, stdin: String? = nil, stdout: String? = nil,
            stderr: String? = nil
        ) throws {
            guard access(executable, X_OK) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            let files: [(Int32, String, Int32)] = [
                (0, stdin ?? "/dev/null", O_RDONLY), (1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC),
                (2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC),
            ]
            for (descriptor, path, flags) in files {
                // Errors to the output's file: the same open file, one offset (combined output).
                if descriptor == 2, let stderr, stderr == stdout {
                    try Self.check(posix_spawn_file_actions_adddup2(&actions, 1, 2))
                    continue
                }
                try Self.check(posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644))
            }
            if let directory { try Self.check(Self.addChdir(&actions, directory)) }
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
            let flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
            // Every other descriptor closed in the child (test servers' sockets, SQLite files).
            try Self.check(Self.addClosefrom(&actions, 3))
            posix_spawnattr_setflags(&attributes, Int16(flags))
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var spawned: pid_t = 0
            try Self.check(
                Self.environment.withUnsafeBufferPointer {
                    posix_spawn(&spawned, executable, &actions, &attributes, argv, UnsafeMutablePointer(mutating: $0.baseAddress))
                })
            let pid = spawned
            self.pid = pid
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
        }

        /// The exit code (or the number of the signal that ended the child), once it has exited.
        public func exitStatus() async -> Int32 { await exitRecord.wait() }

        /// Whether the child has not exited yet.
        public var isRunning: Bool { exitRecord.status == nil }

        /// Sends `SIGTERM`.
        public func terminate() { kill(pid, SIGTERM) }

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
    }

    /// A child's exit status, set once by its waiting thread, awaited by any number of tasks.
    private final class ExitRecord: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: Int32?
        private var waiting: [CheckedContinuation<Int32, Never>] = []

        var status: Int32? { lock.withLock { recorded } }

        func record(_ status: Int32) {
            let resumed = lock.withLock {
                recorded = status
                defer { waiting = [] }
                return waiting
            }
            for continuation in resumed { continuation.resume(returning: status) }
        }

        func wait() async -> Int32 {
            await withCheckedContinuation { continuation in
                let status = lock.withLock {
                    if recorded == nil { waiting.append(continuation) }
                    return recorded
                }
                if let status { continuation.resume(returning: status) }
            }
        }
    }
#endif
