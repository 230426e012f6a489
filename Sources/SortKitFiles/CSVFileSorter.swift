import Foundation
import SortKit

/// Sorts a CSV file by a ``SortSpec`` with bounded memory: the order of
/// ``TextTable/sortedRowIndices(by:)`` (typed columns, collations, nulls, stable), with every
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
    /// Keep only the first record of each run of equal keys.
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
    /// replaced file's permissions are kept.
    ///
    /// - Throws: ``CSVError`` for malformed CSV (naming its line), ``SortSpecError`` for a
    ///   spec naming an unknown column, or a file error.
    @discardableResult
    public func sort(_ input: URL, to output: URL) throws -> Summary {
        let folder = temporaryDirectory.appendingPathComponent("sortkit-sort-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let partial = Self.partialFile(for: output)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(at: partial) } }
        let writer = try _BufferedWriter(partial)
        let summary = try sort(input, into: writer, runsIn: folder)
        try writer.close()
        if let permissions = try? FileManager.default.attributesOfItem(atPath: output.path)[.posixPermissions] {
            try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: partial.path)
        }
        guard rename(partial.path, output.path) == 0 else {
            throw Failure("cannot write '\(output.path)': \(String(cString: strerror(errno)))")
        }
        renamed = true
        return summary
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
        let folder = temporaryDirectory.appendingPathComponent("sortkit-sort-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = _BufferedWriter(FileHandle.standardOutput)
        let summary = try sort(input, into: writer, runsIn: folder)
        try writer.close()
        return summary
    }

    /// Checks that `input` is sorted (strictly, with `unique`): `nil` if it is, else the line
    /// of the first record out of order.
    public func firstDisorder(in input: URL) throws -> Int? {
        var reader = try _RecordReader(input, delimiter: delimiter, blockSize: blockSize)
        let header = try reader.header(hasHeader: hasHeader)
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

    // MARK: Internals

    var blockSize: Int { max(1 << 16, min(maxMemory / 8, 16 << 20)) }

    /// The least input a core scans on its own (a smaller file is scanned on one core); a file
    /// 64 times this size is also read by every core.
    var sliceMinimum = 1 << 20

    /// The header's columns, and the key with column types inferred over the whole file
    /// (a first pass over the key columns only) where the spec reads by type.
    func resolvedKey(header: [String], input: URL) throws -> _CSVSortKey {
        let key = try _CSVSortKey(spec, header: header)
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
        let size = (try? FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int) ?? Int.max
        let typeFirst = top != nil || size > maxMemory / 4
        var reader = try _RecordReader(
            input, delimiter: delimiter, blockSize: blockSize, whole: !typeFirst, parallelReadMinimum: Int64(sliceMinimum) * 64)
        let header = try reader.header(hasHeader: hasHeader)
        var key = typeFirst ? try resolvedKey(header: header, input: input) : try _CSVSortKey(spec, header: header)
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
        var records = run.count
        while let range = try reader.nextSpans() {
            records += 1
            run.add(range, from: reader)
            if let top, run.count >= topThreshold {
                run.sortAndKeep(top)
            } else if top == nil, run.memory >= maxMemory / 2 {
                if !key.typesResolved {
                    key = try resolvedKey(header: header, input: input)
                    run.setKey(key)
                }
                runs.append(try run.spill(to: folder.appendingPathComponent("run-\(runs.count)")))
                run.clear()
            }
            if records & 0x3FFF == 0 {
                let read = typeFirst ? reader.size / 2 + reader.consumed / 2 : reader.consumed
                progress?(Progress(bytesRead: read, totalBytes: reader.size, records: records))
            }
        }
        progress?(Progress(bytesRead: reader.size, totalBytes: reader.size, records: records))
        var output = _Output(writer: writer, terminator: terminator, unique: unique, limit: top ?? Int.max)
        if runs.isEmpty {
            run.sort()
            run.write(to: &output)
        } else {
            runs.append(try run.spill(to: folder.appendingPathComponent("run-\(runs.count)")))
            try _merge(runs) { key, record in
                key.withUnsafeBufferPointer { key in record.withUnsafeBufferPointer { output.write(key: key, record: $0) } }
                return !output.isFull
            }
        }
        guard top != nil || unique || output.written == records else {
            throw Failure("wrote \(output.written) records but read \(records); the output is incomplete")
        }
        return Summary(records: records, written: output.written, runs: runs.count)
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
