import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary file a download past memory's bounds writes its records to
/// (``_RecordsInOrder``): made in a folder (``_RecordsInOrder/Limits/folder``: `TMPDIR`, or
/// the SQLite database's) without a name (Linux's `O_TMPFILE`; elsewhere named and unlinked at
/// once), so it goes with its descriptor however the download ends (finished, cancelled, the
/// process killed), and never passed to a child process (`O_CLOEXEC`). Written by one reader,
/// read after every reader is done.
///
/// Written by hand: Foundation's `FileHandle` has no positioned reads on Linux, and a file that
/// is never named needs `open(2)` or `mkstemp` and `unlink` anyway.
///
///     let file = try #require(_SpillFile())
///     file.write([1, 2, 3], at: 0)                 // true
///     var bytes: [UInt8] = []
///     file.read(into: &bytes, count: 3, at: 0)     // true: [1, 2, 3]
final class _SpillFile: Sendable {
    /// The open file (closed on exec).
    let descriptor: Int32

    /// A new, nameless file in `folder`; `nil` if none can be made there.
    init?(in folder: URL = FileManager.default.temporaryDirectory) {
        #if os(Linux)
            // Never named, and closed on exec from the start: no moment in which a crash leaves
            // the file behind or a fork inherits it.
            // `O_TMPFILE` is `__O_TMPFILE | O_DIRECTORY`, which Glibc's Swift module leaves out
            // (it needs `_GNU_SOURCE`); `__O_TMPFILE` is 0o20000000 on x86-64 and ARM64.
            let unnamed = open(folder.path, 0o20_000_000 | O_DIRECTORY | O_RDWR | O_CLOEXEC, 0o600)
            if unnamed >= 0 {
                descriptor = unnamed
                return
            }
        #endif
        // Where the file system has no unnamed files: named, and unlinked at once. (`mkostemp`
        // with `O_CLOEXEC` isn't in Glibc's Swift module; the flag follows a moment later.)
        var path = Array(folder.appendingPathComponent("sortkit-download-XXXXXX").path.utf8CString)
        let descriptor = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = path.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Writes `bytes` at `offset`; `false` if they can't all be written (a full disk).
    func write(_ bytes: [UInt8], at offset: Int) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let wrote = pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else { return false }
                done += wrote
            }
            return true
        }
    }

    /// Reads `count` bytes at `offset` into `bytes` (replacing what it held); `false` if they
    /// can't all be read.
    func read(into bytes: inout [UInt8], count: Int, at offset: Int) -> Bool {
        if bytes.count != count { bytes = [UInt8](repeating: 0, count: count) }
        return bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < count {
                let read = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if read < 0 && errno == EINTR { continue }
                guard read > 0 else { return false }
                done += read
            }
            return true
        }
    }
}
