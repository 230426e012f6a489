import Foundation
import SortKit
import Synchronization

#if canImport(Glibc)
    import Glibc
    private let _readFile = Glibc.read
    private let _writeFile = Glibc.write
    private let _writeAt = Glibc.pwrite
    private let _readAt = Glibc.pread
#elseif canImport(Darwin)
    import Darwin
    private let _readFile = Darwin.read
    private let _writeFile = Darwin.write
    private let _writeAt = Darwin.pwrite
    private let _readAt = Darwin.pread
#endif

/// Reads a CSV file block by block and hands out its records (valid until the next call), or
/// reads it whole (`whole`), so that records stay where they are in ``buffer``.
struct _RecordReader {
    let handle: FileHandle
    let blockSize: Int
    let whole: Bool
    let size: Int64
    var scanner: _CSVRecordScanner
    private(set) var buffer: [UInt8] = []
    private(set) var position = 0
    private var atEnd = false
    /// Input bytes consumed so far.
    private(set) var offset: Int64 = 0
    private(set) var hasBOM = false
    /// The header record's bytes, as written.
    private(set) var headerBytes: [UInt8]?

    /// From this size on, a whole file is read by every core at once.
    let parallelReadMinimum: Int64

    init(_ url: URL, delimiter: UInt8, blockSize: Int, whole: Bool = false, parallelReadMinimum: Int64 = 64 << 20) throws {
        guard CSV.isValidDelimiter(delimiter) else {
            throw CSVFileSorter.Failure("the delimiter must be an ASCII character other than a quote or a line break")
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw CSVFileSorter.Failure("cannot read '\(url.path)'")
        }
        self.handle = handle
        self.blockSize = blockSize
        self.whole = whole
        self.parallelReadMinimum = parallelReadMinimum
        // The size of what was opened (through a symlink: its target's), not of the path.
        var info = stat()
        size = fstat(handle.fileDescriptor, &info) == 0 ? Int64(info.st_size) : 0
        scanner = _CSVRecordScanner(delimiter: delimiter, wanted: [])
    }

    /// Reads the header (or, without one, names the columns 1, 2, … from the first record).
    mutating func header(hasHeader: Bool) throws -> [String] {
        // Blocks smaller than the BOM's three bytes are read until it can be told.
        repeat { try fill() } while buffer.count < 3 && !atEnd
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            hasBOM = true
            position = 3
        }
        if hasHeader {
            scanner.wanted = nil
            guard let record = try next() else { return [] }
            headerBytes = Array(buffer[record.bytes])
            return record.fields
        }
        // Without a header the first record's width names the columns 1, 2, …; it is found in
        // place and then read again as a record. (Not through a copy of the reader: the copy
        // would share the file descriptor, and the blocks it read would be lost to this one.)
        let line = scanner.line
        guard let first = try next(), let count = scanner.fieldCount else { return [] }
        position = first.bytes.lowerBound
        scanner.line = line
        return (1...count).map(String.init)
    }

    /// The next record; its `bytes` index ``buffer``.
    mutating func next() throws -> _CSVRecordScanner.Record? {
        while true {
            let final = atEnd
            let record = try buffer.withUnsafeBufferPointer { bytes in
                try scanner.next(bytes, at: &position, final: final)
            }
            if let record { return record }
            if atEnd { return nil }
            try fill()
        }
    }

    /// Finds the next record: its range in ``buffer``, and the wanted fields in
    /// `scanner.spans`; `nil` at the end.
    mutating func nextSpans() throws -> Range<Int>? {
        while true {
            let final = atEnd
            let found = try buffer.withUnsafeBufferPointer { bytes in
                try scanner.scan(bytes, at: &position, final: final)
            }
            if let (range, _) = found { return range }
            if atEnd { return nil }
            try fill()
        }
    }

    /// Moves past every record of a `whole` reader (another scanner read them).
    mutating func skipToEnd() { position = buffer.count }

    /// Input bytes read up to the current record.
    var consumed: Int64 { offset + Int64(position) }

    /// Drops consumed bytes and reads the next block (or, for a `whole` reader, everything).
    private mutating func fill() throws {
        guard !atEnd else { return }
        if position > 0 {
            offset += Int64(position)
            buffer.removeSubrange(0..<position)
            position = 0
        }
        if whole, buffer.isEmpty, offset == 0, size >= parallelReadMinimum {
            buffer = try readInParallel(Int(size))
            offset = 0
        }
        repeat {
            // A record longer than a block: at least as much again as is pending, so that the
            // scans that restart at its start add up to twice its length, not its square.
            let want = whole ? max(blockSize, Int(size) + 1 - buffer.count) : max(blockSize, buffer.count - position)
            var failure: Int32 = 0
            let block = [UInt8](unsafeUninitializedCapacity: want) { block, count in
                let read = _readFile(handle.fileDescriptor, block.baseAddress!, want)
                count = max(0, read)
                if read < 0 { failure = errno }
            }
            guard failure == 0 else { throw CSVFileSorter.Failure("cannot read the input: \(String(cString: strerror(failure)))") }
            if block.isEmpty { atEnd = true } else if buffer.isEmpty { buffer = block } else { buffer.append(contentsOf: block) }
        } while whole && !atEnd
    }
}

extension _RecordReader {
    /// The file's first `count` bytes, each core reading (`pread`) one slice of them into its
    /// place. Reading a file whole copies it from the page cache into fresh pages, which the
    /// kernel zeroes first: on one core that was a serial ~10% of sorting a 687 MB file. The
    /// descriptor is left at `count`, where reading goes on.
    fileprivate func readInParallel(_ count: Int) throws -> [UInt8] {
        let descriptor = handle.fileDescriptor
        let parts = Swift.max(1, Swift.min(ProcessInfo.processInfo.activeProcessorCount, 8))
        let failures = _Shared(Mutex<[String]>([]))
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = _UncheckedBox(buffer.baseAddress!)
            _concurrentPerform(
                iterations: parts,
                _UncheckedBox { part in
                    var at = count * part / parts
                    let end = count * (part + 1) / parts
                    while at < end {
                        let read = _readAt(descriptor, base.value + at, end - at, off_t(at))
                        if read > 0 {
                            at += read
                            continue
                        }
                        let problem = read == 0 ? "the input file got shorter while it was read" : String(cString: strerror(errno))
                        failures.value.withLock { $0.append(problem) }
                        return
                    }
                })
            initialized = count
        }
        if let failure = failures.value.withLock({ $0.first }) {
            throw CSVFileSorter.Failure("cannot read the input: \(failure)")
        }
        guard lseek(descriptor, off_t(count), SEEK_SET) == off_t(count) else {
            throw CSVFileSorter.Failure("cannot read the input: \(String(cString: strerror(errno)))")
        }
        return bytes
    }
}

/// Reads a spilled run back, one entry at a time.
private struct _RunReader {
    let handle: FileHandle
    let chunk: Int
    var buffer: [UInt8] = []
    var position = 0
    var key: ArraySlice<UInt8> = []
    var record: ArraySlice<UInt8> = []

    init(_ url: URL, chunk: Int) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw CSVFileSorter.Failure("cannot read the run '\(url.path)'") }
        self.handle = handle
        self.chunk = chunk
    }

    /// Loads the next entry; `false` at the end.
    mutating func next() throws -> Bool {
        guard try ensure(8) else { return false }
        let keyCount = Int(UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) }))
        let recordCount = Int(UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self) }))
        guard try ensure(8 + keyCount + recordCount) else { throw CSVFileSorter.Failure("a spilled run is truncated") }
        key = buffer[(position + 8)..<(position + 8 + keyCount)]
        record = buffer[(position + 8 + keyCount)..<(position + 8 + keyCount + recordCount)]
        position += 8 + keyCount + recordCount
        return true
    }

    /// Makes `count` bytes available from `position`; `false` at a clean end of file. Reads
    /// with `read(2)` straight into the buffer, which holds one chunk (or the entry, if
    /// larger): the merge's memory is its runs' chunks.
    private mutating func ensure(_ count: Int) throws -> Bool {
        while buffer.count - position < count {
            if position > 0 {
                buffer.removeSubrange(0..<position)
                key = []
                record = []
                position = 0
            }
            let want = max(chunk, count) - buffer.count
            var failure: Int32 = 0
            let block = [UInt8](unsafeUninitializedCapacity: want) { block, initialized in
                var read = 0
                repeat { read = _readFile(handle.fileDescriptor, block.baseAddress!, want) } while read < 0 && errno == EINTR
                if read < 0 { failure = errno }
                initialized = max(0, read)
            }
            guard failure == 0 else { throw CSVFileSorter.Failure("cannot read a spilled run: \(String(cString: strerror(failure)))") }
            if block.isEmpty { return false }
            if buffer.isEmpty { buffer = block } else { buffer.append(contentsOf: block) }
        }
        return true
    }
}

/// One entry of a spilled run: key length, record length (UInt32, little endian), key, record.
func _writeRunEntry<Key: Collection<UInt8>, Record: Collection<UInt8>>(key: Key, record: Record, to writer: _BufferedWriter) {
    withUnsafeBytes(of: UInt32(key.count).littleEndian) { writer.write($0) }
    withUnsafeBytes(of: UInt32(record.count).littleEndian) { writer.write($0) }
    writer.write(key)
    writer.write(record)
}

/// Merges sorted runs (k-way, a binary heap of run positions), reading each `chunk` bytes at
/// a time; equal keys come from the earlier run first, which keeps the sort stable. `body`
/// returns `false` to stop.
func _merge(_ runs: [URL], chunk: Int = 1 << 20, _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Bool) throws {
    var readers: [_RunReader] = []
    for run in runs {
        var reader = try _RunReader(run, chunk: chunk)
        if try reader.next() { readers.append(reader) }
    }
    func precedes(_ a: Int, _ b: Int) -> Bool {
        let order = _compareBytes(readers[a].key, readers[b].key)
        return order != .orderedSame ? order == .orderedAscending : a < b
    }
    var heap = Array(readers.indices)
    func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && precedes(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
    for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    while let top = heap.first {
        guard body(readers[top].key, readers[top].record) else { return }
        if try readers[top].next() {
            siftDown(0)
        } else {
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            if !heap.isEmpty { siftDown(0) }
        }
    }
}

/// Buffered writes to a file handle (1 MB at a time).
final class _BufferedWriter: @unchecked Sendable {
    private let handle: FileHandle
    /// Whether the writer made the file (a regular file: positioned writes are possible).
    private let closes: Bool
    /// Whether ``close()`` closes the descriptor.
    private var closesDescriptor = false
    /// The file's path, when this writer made it.
    private let path: String?
    private var buffer: [UInt8] = []
    private var failure: String?
    /// Failures of direct writes, from any thread.
    private let failures = Mutex<[String]>([])

    /// Creates (or empties) the file at `url` and writes to it: `open(2)` with `O_CREAT` and
    /// `O_TRUNC`, so a new file gets the usual permissions (0666 less the umask) and a device
    /// such as `/dev/null` is written, never replaced. `truncating` is for an existing
    /// non-regular file (no positioned writes: it may be a FIFO).
    init(_ url: URL, truncating existing: Bool = false) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw CSVFileSorter.Failure("cannot write '\(url.path)': \(String(cString: strerror(errno)))") }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        path = url.path
        closes = !existing
        closesDescriptor = true
        buffer.reserveCapacity(1 << 20)
    }

    init(_ handle: FileHandle) {
        self.handle = handle
        path = nil
        closes = false
        buffer.reserveCapacity(1 << 20)
    }

    func write<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    /// Writes `bytes` after what is buffered; a large array goes to the file without a copy.
    func write(_ bytes: [UInt8]) {
        guard bytes.count >= 1 << 16 else { return write(bytes[...]) }
        flush()
        bytes.withUnsafeBytes { writeAll($0) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// For writes at given places (``write(_:at:)``, from any thread): flushes, and returns
    /// the file position, or `nil` when the output is not a file this writer made (a pipe).
    func positionForDirectWrites() -> Int? {
        guard closes else { return nil }
        flush()
        let position = lseek(handle.fileDescriptor, 0, SEEK_CUR)
        return position < 0 ? nil : Int(position)
    }

    /// Writes `bytes` at `offset` of the file (`pwrite(2)`); safe from several threads at
    /// once for places that don't overlap.
    func write(_ bytes: [UInt8], at offset: Int) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { _writeAt(handle.fileDescriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if written < 0 {
                if errno == EINTR { continue }
                failures.withLock { $0.append(String(cString: strerror(errno))) }
                return
            }
            done += written
        }
    }

    /// Allocates the file's blocks from the current position up to `end` before direct writes
    /// fill them (`posix_fallocate(3)`), on ext4 and XFS. Written with no blocks allocated,
    /// the file is renamed over an existing output only after the file system has allocated
    /// and queued every delayed block (ext4's `auto_da_alloc`): a 72 MB file's `rename(2)`
    /// took 36 ms, 14 ms when allocated first, and the writes themselves 16 → 11 ms. Best
    /// effort: elsewhere (or if it fails) the writes allocate as they go.
    func allocate(upTo end: Int) {
        #if os(Linux)
            // ext4 and XFS implement fallocate(2); elsewhere glibc may emulate it, a write a block.
            guard let path, let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
                let type = _fileSystemType(containing: URL(fileURLWithPath: path).deletingLastPathComponent().resolvingSymlinksInPath().path, mounts: table),
                ["ext4", "xfs"].contains(type)
            else { return }
            let descriptor = handle.fileDescriptor
            let start = lseek(descriptor, 0, SEEK_CUR)
            guard start >= 0, off_t(end) > start else { return }
            _ = posix_fallocate(descriptor, start, off_t(end) - start)
        #endif
    }

    /// Continues sequential writes at `end`, after direct writes.
    func endDirectWrites(at end: Int) {
        lseek(handle.fileDescriptor, off_t(end), SEEK_SET)
    }

    /// Writes with `write(2)` until every byte is out; a failure is kept for ``close()``.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var done = 0
        while done < bytes.count, failure == nil {
            let written = _writeFile(handle.fileDescriptor, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
            } else {
                done += written
            }
        }
    }

    func close() throws {
        flush()
        if closesDescriptor { try handle.close() }
        if let failure = failure ?? failures.withLock(\.first) { throw CSVFileSorter.Failure("cannot write the output: \(failure)") }
    }
}

/// A noncopyable value shared by reference with escaping closures (a `Mutex` with the
/// iterations of ``_concurrentPerform(iterations:_:)``).
private final class _Shared<Value: ~Copyable>: Sendable where Value: Sendable {
    let value: Value
    init(_ value: consuming Value) { self.value = value }
}

/// The type of the file system that holds `directory` (an absolute path without symbolic
/// links): the mount in `mounts` (`/proc/self/mountinfo`'s lines) whose mount point is the
/// longest that contains it, the last of equal ones (a mount over another). `nil` if none does.
func _fileSystemType(containing directory: String, mounts: String) -> String? {
    var best: (length: Int, type: String)? = nil
    for line in mounts.split(separator: "\n") {
        // ID, parent, device, root, mount point, options, optional fields, "-", type, source, options.
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count > 6, let dash = fields[6...].firstIndex(of: "-"), dash + 1 < fields.count else { continue }
        // A mount point's space, tab, line end and backslash are written in octal.
        var point = String(fields[4])
        for (code, character) in [("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")] {
            point = point.replacingOccurrences(of: code, with: character)
        }
        let holds = point == "/" || directory == point || directory.hasPrefix(point + "/")
        if holds, point.count >= best?.length ?? 0 { best = (point.count, String(fields[dash + 1])) }
    }
    return best?.type
}
