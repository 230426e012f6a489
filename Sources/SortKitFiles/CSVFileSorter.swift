import Foundation
import SortKit

/// Sorts a CSV file by a `SortSpec` with bounded memory: the order of
/// `TextTable.sortedRowIndices(by:)` (typed columns, collations, nulls, stable), with every
/// record written back byte for byte. A file larger than `maxMemory` is sorted in runs that
/// fit, spilled to temporary files and merged; the runs' folder is removed afterwards, also on
/// failure.
///
///     let sorter = try CSVFileSorter(spec: SortSpec(parsing: "-price,title"), maxMemory: 256 << 20)
///     let summary = try sorter.sort(URL(fileURLWithPath: "big.csv"), to: URL(fileURLWithPath: "sorted.csv"))
///     summary.records   // rows written (the header not counted)
public struct CSVFileSorter: Sendable {
    /// What a sort did.
    public struct Summary: Sendable, Hashable {
        /// Records read (the header not counted).
        public var records: Int
        /// Records written (fewer than read with `unique` or `top`).
        public var written: Int
        /// Runs spilled to disk (0: sorted in memory).
        public var runs: Int
    }

    /// A file that can't be read or written, or a run that went wrong on disk.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong, naming the file.
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// How far a sort is, for a progress display.
    public struct Progress: Sendable {
        /// Input bytes read so far and in all (reading happens twice for a spilled sort that
        /// infers column types: the first pass counts as the first half).
        public var bytesRead: Int64
        public var totalBytes: Int64
        /// Records read so far.
        public var records: Int
    }

    public var spec: SortSpec
    public var delimiter: UInt8
    public var hasHeader: Bool
    /// Keep only the first record (in input order) of each group of equivalent keys: under a
    /// folding collation "Bob", "bob" and "BOB" are one group, as `sort -f -u` has it. The
    /// groups are then in the order of their keys without the collations' tie-breaks.
    public var unique: Bool
    /// Write only the first `top` records (no full sort: memory is bounded by `top`).
    public var top: Int?
    /// The memory budget for records and keys; larger inputs spill sorted runs.
    public var maxMemory: Int
    /// Where the runs' folder is made.
    public var temporaryDirectory: URL
    /// Called now and then while reading.
    public var progress: (@Sendable (Progress) -> Void)?

    /// A sorter; `reverse` flips every key's direction.
    public init(
        spec: SortSpec, delimiter: UInt8 = UInt8(ascii: ","), hasHeader: Bool = true, unique: Bool = false, reverse: Bool = false,
        top: Int? = nil, maxMemory: Int = CSVFileSorter.defaultMaxMemory, temporaryDirectory: URL = FileManager.default.temporaryDirectory,
        progress: (@Sendable (Progress) -> Void)? = nil
    ) {
        self.spec = reverse ? SortSpec(spec.keys.map(\.reversed)) : spec
        self.delimiter = delimiter
        self.hasHeader = hasHeader
        self.unique = unique
        self.top = top
        self.maxMemory = maxMemory
        self.temporaryDirectory = temporaryDirectory
        self.progress = progress
    }

    /// A quarter of physical memory, at most 4 GiB.
    public static var defaultMaxMemory: Int {
        Int(min(ProcessInfo.processInfo.physicalMemory / 4, 4 << 30))
    }

    /// Sorts `input` into `output`. The output is written to ``partialFile(for:)`` beside it and
    /// renamed over it once complete (`rename(2)`, atomic), so a failure — bad input, a full
    /// disk, an interrupt — leaves an existing `output` as it was and no partial file. A
    /// replaced file's permissions are kept. An `output` that is a symbolic link is followed:
    /// its target is replaced and the link stays; an output that isn't a regular file
    /// (`/dev/null`, a FIFO) is written directly.
    ///
    /// - Throws: `CSVError` for malformed CSV (naming its line), `SortSpecError` for a
    ///   spec naming an unknown column, or a file error naming the file.
    @discardableResult
    public func sort(_ input: URL, to output: URL) throws -> Summary {
        let target = Self.resolvingLinks(output)
        try Self.checkWritable(target, named: output)
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.rereadable(input, spoolingInto: folder)
        var info = stat()
        if stat(target.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            let writer = try _BufferedWriter(target, truncating: true)
            let summary = try sort(input, into: writer, runsIn: folder)
            try writer.close()
            return summary
        }
        let partial = Self.partialFile(for: target)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(at: partial) } }
        let writer = try _BufferedWriter(partial)
        let summary = try sort(input, into: writer, runsIn: folder)
        try writer.close()
        if stat(target.path, &info) == 0 { chmod(partial.path, info.st_mode & 0o7777) }
        guard rename(partial.path, target.path) == 0 else {
            throw Failure("cannot write '\(output.path)': \(String(cString: strerror(errno)))")
        }
        renamed = true
        return summary
    }

    /// `url` with symbolic links at its end followed to the file they name (which may not
    /// exist yet), at most 40 of them.
    public static func resolvingLinks(_ url: URL) -> URL {
        var path = url.path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else { break }
            path = destination.hasPrefix("/") ? destination : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        return URL(fileURLWithPath: path)
    }

    /// Throws, naming `name`, when `target`'s folder doesn't exist or `target` is a folder.
    static func checkWritable(_ target: URL, named name: URL) throws {
        let folder = target.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw Failure("cannot write '\(name.path)': the folder '\(folder)' doesn't exist")
        }
        if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder), isFolder.boolValue {
            throw Failure("cannot write '\(name.path)': it is a folder")
        }
    }

    /// Where ``sort(_:to:)`` writes the output before renaming it: a hidden file beside
    /// `output` named for this process (`.sorted.csv.sortkit-4242.partial`), so that the
    /// rename stays on one file system and an interrupted sort can remove it.
    public static func partialFile(for output: URL) -> URL {
        output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).sortkit-\(getpid()).partial")
    }

    /// Sorts `input` to standard output.
    @discardableResult
    public func sortToStandardOutput(_ input: URL) throws -> Summary {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.rereadable(input, spoolingInto: folder)
        let writer = _BufferedWriter(FileHandle.standardOutput)
        let summary = try sort(input, into: writer, runsIn: folder)
        try writer.close()
        return summary
    }

    /// Checks that `input` is sorted (strictly, with `unique`): `nil` if it is, else the line
    /// of the first record out of order.
    public func firstDisorder(in input: URL) throws -> Int? {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.rereadable(input, spoolingInto: folder)
        var reader = try _RecordReader(input, delimiter: delimiter, blockSize: blockSize)
        let header = try reader.header(hasHeader: hasHeader)
        // An empty file is sorted.
        if header.isEmpty, reader.headerBytes == nil { return nil }
        let key = try resolvedKey(header: header, input: input)
        reader.scanner.wanted = key.columns
        var previous: [UInt8]? = nil
        var current: [UInt8] = []
        var cache = key.emptyCache
        while let record = try reader.next() {
            current.removeAll(keepingCapacity: true)
            key.append(record.fields, to: &current, cache: &cache)
            // The memcmp order the sort itself uses (`_compareBytes`).
            if let previous {
                let order = _compareBytes(previous, current)
                if order == .orderedDescending || unique && order == .orderedSame { return record.line }
            }
            previous = current
        }
        return nil
    }

    /// The records a sort of `table` (the input, read whole) writes, as row indices in the
    /// order written: the same keys the sort encodes (`unique`'s grouping, inferred types),
    /// ties in input order, then `unique` and `top` applied as the sort applies them. What
    /// `sortkit sort --debug` explains.
    package func writtenOrder(of table: TextTable) throws -> [Int] {
        // Without `unique` the sort's order is the in-memory order (the engine's, fast).
        guard unique else {
            let order = try table.sortedRowIndices(by: spec)
            return top.map { Array(order.prefix($0)) } ?? order
        }
        var key = try compiledKey(header: table.columns)
        let types = table.columnTypes()
        key = key.withTypes(Dictionary(uniqueKeysWithValues: key.columns.enumerated().map { ($0.offset, types[$0.element]) }))
        var cache = key.emptyCache
        let keys = table.rows.map { row -> [UInt8] in
            var bytes: [UInt8] = []
            key.append(key.columns.map { $0 < row.count ? row[$0] : "" }, to: &bytes, cache: &cache)
            return bytes
        }
        var order = table.rows.indices.sorted { a, b in
            let order = _compareBytes(keys[a], keys[b])
            return order == .orderedSame ? a < b : order == .orderedAscending
        }
        if unique {
            order = order.indices.filter { $0 == 0 || keys[order[$0 - 1]] != keys[order[$0]] }.map { order[$0] }
        }
        if let top { order = Array(order.prefix(top)) }
        return order
    }

    // MARK: Internals

    /// A new folder for runs (and a spooled input) in ``temporaryDirectory``.
    func makeScratchFolder() throws -> URL {
        try Self.makeUniqueFolder(in: temporaryDirectory, prefix: "sortkit-sort-")
    }

    /// A new folder in `parent`, which must exist (only the folder itself is made: a missing
    /// `TMPDIR` is named, not created), named `prefix` and six random characters by
    /// `mkdtemp(3)`, which picks a name no folder has and makes it in one step (mode 0700). A
    /// name of its own (a process id, a `UUID`) collided under load with a folder a killed
    /// process had left: "File exists". The error names mkdir's reason.
    package static func makeUniqueFolder(in parent: URL, prefix: String) throws -> URL {
        var template = Array(parent.appendingPathComponent(prefix + "XXXXXX").path.utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw folderFailure(parent, errno)
        }
        return URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    /// The error for a folder that can't be made in `parent`, from mkdir's or mkdtemp's errno.
    static func folderFailure(_ parent: URL, _ code: Int32) -> Failure {
        let reason =
            switch code {
            case ENOENT: "it doesn't exist"
            case ENOTDIR: "it isn't a folder"
            case EACCES, EPERM, EROFS: "it can't be written"
            default: String(cString: strerror(code))
            }
        return Failure("cannot make a temporary folder in '\(parent.path)': \(reason) (set TMPDIR to a writable folder)")
    }

    /// `input` if it can be read more than once (a regular file, or a link to one); a pipe, a
    /// FIFO or a device (`/dev/stdin`, `<(…)`) is copied to `folder` first and the copy
    /// returned. A sort reads its input twice — once to type the key columns, once to sort —
    /// and a second open of a pipe sees only what the first left.
    package static func rereadable(_ input: URL, spoolingInto folder: URL) throws -> URL {
        let descriptor = open(input.path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure("cannot read '\(input.path)': \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure("cannot read '\(input.path)': \(String(cString: strerror(errno)))") }
        if (info.st_mode & S_IFMT) == S_IFREG { return input }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw Failure("cannot read '\(input.path)': it is a folder") }
        let copy = folder.appendingPathComponent("input.csv")
        let writer = try _BufferedWriter(copy)
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Failure("cannot read '\(input.path)': \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            writer.write(block[..<count])
        }
        try writer.close()
        return copy
    }

    var blockSize: Int { blockSizeForTesting ?? max(1 << 16, min(maxMemory / 16, 16 << 20)) }

    /// A read block size for tests and fuzzing (down to 1 byte), so that every way a record
    /// can straddle blocks is read.
    package var blockSizeForTesting: Int?

    /// The least input a core scans on its own (a smaller file is scanned on one core); a file
    /// 64 times this size is also read by every core.
    var sliceMinimum = 1 << 20

    /// Whether sorting `input` read whole stays within ``maxMemory``: its records and key
    /// values are estimated from its first megabyte (10% added) and priced by the run's cost
    /// model (``_Run/peakBytes(count:recordBytes:valueBytes:fields:components:)``), plus the
    /// buffers every sort has.
    func fitsWhole(_ input: URL, size: Int) throws -> Bool {
        guard size < Int.max / 64 else { return false }
        // Far below the budget whatever its records: no sample needed.
        if size * 64 + fixedBuffers <= maxMemory { return true }
        guard size <= maxMemory else { return false }
        var reader = try _RecordReader(input, delimiter: delimiter, blockSize: 1 << 20)
        let header = try reader.header(hasHeader: hasHeader)
        guard !header.isEmpty, let key = try? compiledKey(header: header) else { return true }
        reader.scanner.wanted = key.columns
        var records = 0, valueBytes = 0
        let start = reader.consumed
        while reader.consumed - start < 1 << 20, try reader.nextSpans() != nil {
            records += 1
            valueBytes += reader.scanner.spans.reduce(0) { $0 + $1.range.count }
        }
        let sampled = max(1, Int(reader.consumed - start))
        let count = records * size / sampled * 11 / 10 + 1
        let values = valueBytes * (size / sampled + 1) * 11 / 10
        let peak = _Run.peakBytes(count: count, recordBytes: size, valueBytes: values, fields: key.columns.count, components: key.components.count)
        return peak + fixedBuffers <= maxMemory
    }

    /// The memory every sort holds besides its run: the read blocks (a record longer than a
    /// block grows the buffer) and the output's 1 MB buffer.
    var fixedBuffers: Int { 2 * blockSize + (1 << 20) }

    /// What a run may take (at its peak, sorting) before it spills: the budget less the fixed
    /// buffers, and never under half the budget (a budget of a few blocks spills runs of half
    /// of it, not of one record).
    var runBudget: Int { max(maxMemory - fixedBuffers, maxMemory / 2) }

    /// How much of each spilled run a merge reads at a time.
    var mergeChunk: Int { max(1 << 16, min(1 << 20, maxMemory / 32)) }

    /// The spec compiled for `header`, grouping equivalent strings when `unique`.
    func compiledKey(header: [String]) throws -> _CSVSortKey {
        var key = try _CSVSortKey(spec, header: header)
        key.grouping = unique
        return key
    }

    /// The header's columns, and the key with column types inferred over the whole file
    /// (a first pass over the key columns only) where the spec reads by type.
    func resolvedKey(header: [String], input: URL) throws -> _CSVSortKey {
        let key = try compiledKey(header: header)
        let inferred = Set(key.inferredFields)
        guard !inferred.isEmpty else { return key }
        var reader = try _RecordReader(input, delimiter: delimiter, blockSize: blockSize)
        _ = try reader.header(hasHeader: hasHeader)
        reader.scanner.wanted = key.columns
        var inference = Array(repeating: _TypeInference(), count: key.columns.count)
        var count = 0
        while let record = try reader.next() {
            for field in inferred { inference[field].add(record.fields[field]) }
            count += 1
            if count & 0xFFFF == 0 { progress?(Progress(bytesRead: reader.consumed / 2, totalBytes: reader.size, records: 0)) }
        }
        return key.withTypes(Dictionary(uniqueKeysWithValues: inferred.map { ($0, inference[$0].type) }))
    }

    func sort(_ input: URL, into writer: _BufferedWriter, runsIn folder: URL) throws -> Summary {
        // A file well within the budget is read whole, its records sorted where they are, and
        // its column types inferred from the run itself (one pass). A file that may spill, or a
        // `top` sort that drops records as it goes, is read in blocks, after a first pass over
        // its key columns that types them over the whole file.
        var info = stat()
        let size = stat(input.path, &info) == 0 ? Int(info.st_size) : Int.max
        let typeFirst = try top != nil || !fitsWhole(input, size: size)
        var reader = try _RecordReader(
            input, delimiter: delimiter, blockSize: blockSize, whole: !typeFirst, parallelReadMinimum: Int64(sliceMinimum) * 64)
        let header = try reader.header(hasHeader: hasHeader)
        // An empty file (or a BOM alone) has no columns and no records: sorted as it is.
        if header.isEmpty, reader.headerBytes == nil, try reader.nextSpans() == nil {
            if reader.hasBOM { writer.write([0xEF, 0xBB, 0xBF]) }
            return Summary(records: 0, written: 0, runs: 0)
        }
        var key = typeFirst ? try resolvedKey(header: header, input: input) : try compiledKey(header: header)
        reader.scanner.wanted = key.columns
        let terminator = reader.scanner.terminator ?? [0x0A]
        if reader.hasBOM { writer.write([0xEF, 0xBB, 0xBF]) }
        if let headerBytes = reader.headerBytes {
            writer.write(headerBytes)
            writer.write(terminator)
        }
        var run = _Run(key: key)
        // A `top` run is cut back to its best `top` records when it holds twice as many.
        let (doubled, overflow) = (top ?? 0).multipliedReportingOverflow(by: 2)
        let topThreshold = overflow ? Int.max : max(doubled, 65_536)
        if !typeFirst {
            run.borrow(reader.buffer)
            if run.addAll(from: reader, minimumSlice: sliceMinimum) { reader.skipToEnd() }
        }
        var runs: [URL] = []
        var spilled = 0
        var records = run.count
        while let range = try reader.nextSpans() {
            records += 1
            run.add(range, from: reader)
            if let top, run.count >= topThreshold || (run.count > top && run.memory >= runBudget) {
                run.sortAndKeep(top, unique: unique)
            } else if top == nil, run.memory >= runBudget {
                if !key.typesResolved {
                    key = try resolvedKey(header: header, input: input)
                    run.setKey(key)
                }
                runs.append(try run.spill(to: folder.appendingPathComponent("run-\(runs.count)")))
                run.clear()
                _returnFreedMemoryToSystem()
            }
            if records & 0x3FFF == 0 {
                let read = typeFirst ? reader.size / 2 + reader.consumed / 2 : reader.consumed
                progress?(Progress(bytesRead: read, totalBytes: reader.size, records: records))
            }
        }
        progress?(Progress(bytesRead: reader.size, totalBytes: reader.size, records: records))
        var output = _Output(writer: writer, terminator: terminator, unique: unique, limit: top ?? Int.max)
        if runs.isEmpty {
            run.sort(primariesFirst: !unique)
            run.write(to: &output)
        } else {
            runs.append(try run.spill(to: folder.appendingPathComponent("run-\(runs.count)")))
            // Each run being merged holds a read buffer: more runs than the budget has buffers
            // for are merged in passes (neighbours together, so ties keep input order).
            spilled = runs.count
            let chunk = mergeChunk
            let fanIn = max(2, min(64, max(0, maxMemory - fixedBuffers) / (2 * chunk)))
            var pass = 0
            while runs.count > fanIn {
                pass += 1
                var merged: [URL] = []
                for (number, start) in stride(from: 0, to: runs.count, by: fanIn).enumerated() {
                    let group = Array(runs[start..<min(runs.count, start + fanIn)])
                    let url = folder.appendingPathComponent("pass-\(pass)-\(number)")
                    let writer = try _BufferedWriter(url)
                    try _merge(group, chunk: chunk) { key, record in
                        _writeRunEntry(key: key, record: record, to: writer)
                        return true
                    }
                    try writer.close()
                    for run in group { try? FileManager.default.removeItem(at: run) }
                    merged.append(url)
                }
                runs = merged
            }
            try _merge(runs, chunk: chunk) { key, record in
                key.withUnsafeBufferPointer { key in record.withUnsafeBufferPointer { output.write(key: key, record: $0) } }
                return !output.isFull
            }
        }
        guard top != nil || unique || output.written == records else {
            throw Failure("wrote \(output.written) records but read \(records); the output is incomplete")
        }
        return Summary(records: records, written: output.written, runs: spilled)
    }
}

/// Writes records in order, dropping repeated keys with `unique` and stopping at `limit`.
struct _Output {
    let writer: _BufferedWriter
    let terminator: [UInt8]
    let unique: Bool
    let limit: Int
    var written = 0
    var previous: [UInt8] = []

    var isFull: Bool { written >= limit }

    mutating func write(key: UnsafeBufferPointer<UInt8>, record: UnsafeBufferPointer<UInt8>) {
        if unique {
            if written > 0 && previous.elementsEqual(key) { return }
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: key)
        }
        writer.write(UnsafeRawBufferPointer(record))
        writer.write(terminator)
        written += 1
    }
}
