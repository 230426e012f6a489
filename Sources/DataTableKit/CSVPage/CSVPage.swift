import Foundation
import SortKit

/// One page of a CSV file exactly as a ``DataTable`` of the whole file shows it — the same
/// column types, search, sort, page and column widths — read without building the table.
///
/// `DataTable(csv:)` keeps every cell as a `String` and ranks every column, which a table a
/// user works with needs; a single page of a big file doesn't. `CSVPage` reads the file into
/// one buffer and scans it on every core: a first pass infers each column's type (plain
/// numbers without a parse), a second keeps the records that match the search with their sort
/// keys' text, and the engine's rank window selects the page (SortKit's `indices(ofRanks:sortedBy:)`). A
/// 1M-row, 71 MB file is a page in about 0.2 s using under twice the file's size in memory,
/// where the table takes seconds and ten times the memory.
///
///     let page = try CSVPage(contentsOf: URL(filePath: "books.csv"),
///                            sort: SortSpec(parsing: "-price"), search: "le guin", pageSize: 10)
///     print(TextTableRenderer().render(page))
///     page.filteredCount   // rows matching "le guin"
///
/// The widths options are given up front: a strategy that reads every row (`average`,
/// `hybrid`, `max`) is measured during the scan.
public struct CSVPage: Sendable {
    /// The column names.
    public let columns: [String]
    /// Each column's type, inferred from all its values (`ColumnType.infer(_:)`).
    public let columnTypes: [ColumnType]
    /// The sort, as the table's header state (keys name columns as the header does).
    public let sortState: HeaderSortState
    /// The page shown (from 0; clamped to the last page, as ``DataTable/setPage(_:)`` does).
    public let pageIndex: Int
    /// Rows per page.
    public let pageSize: Int
    /// The page's rows, each with one cell per column.
    public let rows: [[String]]
    /// Rows matching the search.
    public let filteredCount: Int
    /// Rows in the file (the header not counted).
    public let totalCount: Int
    /// Per column, what the width strategy measured of the matching rows.
    let widthStats: [_WidthStats]
    let widthOptions: ColumnWidthOptions

    /// Reads a page of the CSV file at `url`.
    ///
    /// - Parameters:
    ///   - url: The CSV file (UTF-8), read whole on every core.
    ///   - sort: The sort; columns are matched as `TextTable.columnIndex(_:)` does (exactly,
    ///     else the only case-insensitive match).
    ///   - search: Global search text (`SearchQuery`), on each cell's text and typed value.
    ///   - page: The page, from 0.
    ///   - pageSize: Rows per page (at least 1).
    ///   - widths: How column widths are measured (``TextTableRenderer/widths``).
    ///   - delimiter: The field delimiter: an ASCII byte other than a quote or a line end (a
    ///     comma by default; a tab for TSV).
    ///   - hasHeader: Whether the first record names the columns (else they are numbered).
    /// - Throws: `CSVError` for malformed CSV (with its line), `SortSpecError` for an
    ///   unknown sort column, `CocoaError` when the file can't be read.
    public init(
        contentsOf url: URL, sort: SortSpec = SortSpec(), search: String = "", page: Int = 0, pageSize: Int = 50,
        widths: ColumnWidthOptions = ColumnWidthOptions(), delimiter: UInt8 = UInt8(ascii: ","), hasHeader: Bool = true
    ) throws {
        guard let bytes = _readWholeFile(atPath: url.path) else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        try self.init(
            csv: bytes, sort: sort, search: search, page: page, pageSize: pageSize,
            widths: widths, delimiter: delimiter, hasHeader: hasHeader)
    }

    /// Reads a page of CSV text (UTF-8); the same as ``init(contentsOf:sort:search:page:pageSize:widths:delimiter:hasHeader:)``.
    public init(
        csv: [UInt8], sort: SortSpec = SortSpec(), search: String = "", page: Int = 0, pageSize: Int = 50,
        widths: ColumnWidthOptions = ColumnWidthOptions(), delimiter: UInt8 = UInt8(ascii: ","), hasHeader: Bool = true
    ) throws {
        var file = try _CSVFile(csv, delimiter: delimiter, hasHeader: hasHeader)
        columns = file.columns
        self.pageSize = max(1, pageSize)
        widthOptions = widths
        // Sort keys name columns by header, as the table's do; unknown names are errors.
        var keys: [SortSpec.Key] = []
        for var key in sort.keys {
            key.column = file.columns[try file.columnIndex(key.column)]
            keys.append(key)
        }
        sortState = HeaderSortState(SortSpec(keys))
        let keyColumns = sortState.keys.map { key in file.columns.firstIndex(of: key.column)! }

        let types = try file.scan(keyColumns: Array(Set(keyColumns)).sorted())
        columnTypes = types
        totalCount = file.count
        let matched = file.matching(SearchQuery(search), types: types, measureAll: widths.strategy.readsEveryRow)
        let records = matched.records
        filteredCount = records?.count ?? file.count
        pageIndex = min(max(0, page), _pageCount(filteredCount, pageSize: self.pageSize) - 1)

        // The page: the engine's rank window of the matching records (top-k near the start, a
        // sampled pivot pass deeper), holding keys for about the page only.
        let pageRanks = _pageRange(pageIndex, pageSize: self.pageSize, count: filteredCount)
        var order: [Int]
        if sortState.keys.isEmpty {
            order = Array(pageRanks)
        } else {
            // Text keys compare the cells' bytes where they are in the file (no `String` per row:
            // a third of `sortkit view`'s time at 10M rows).
            let (reader, keys, count) = (file, sortState.keys, filteredCount)
            order = reader.bytes.withUnsafeBufferPointer { bytes in
                var sortKeys: [SortKey<Int>] = []
                for key in keys {
                    let column = reader.columns.firstIndex(of: key.column)!
                    let read = key.interpretation == .inferred && key.enumOrder == nil ? types[column] : .string
                    let text = reader.keyTexts(column), utf8 = reader.keyUTF8(column, in: bytes)
                    sortKeys += key._sortKeys(
                        readingText: { (place: Int) in text(records?[place] ?? place) },
                        utf8: { (place: Int) in utf8(records?[place] ?? place) }, columnType: read)
                }
                return (0..<count).indices(ofRanks: pageRanks, sortedBy: sortKeys)
            }
        }
        let record = { (place: Int) in records?[place] ?? place }
        rows = file.fields(ofRecords: order.map(record))

        // Widths: the sampled rows evenly spaced among the matches in data order, as the table samples.
        let sampleSize = widths.strategy.sampleSize
        let sampled =
            sampleSize == 0
            ? []
            : file.fields(
                ofRecords: ColumnWidthStrategy.samplePlaces(count: records?.count ?? file.count, size: sampleSize).map(record))
        let shown = records?.count ?? file.count
        widthStats = file.columns.indices.map { column in
            var stats = matched.widths.isEmpty ? _WidthStats() : matched.widths[column]
            stats.count = shown
            stats.sample = sampled.map { _cellWidth($0[column]) }
            return stats
        }
    }

    /// Each column's width in terminal cells, as ``DataTable/columnWidths(_:)`` gives it for
    /// a table of the whole file on this page (with the strategy given at reading).
    public func columnWidths(_ options: ColumnWidthOptions? = nil) -> [Int] {
        let options = options ?? widthOptions
        return columns.indices.map { column in
            options.clamped(options.strategy.measure(widthStats[column]), header: TerminalWidth.of(columns[column]) + 2)
        }
    }
}

/// A cell's width as a table measures it (clamped as it stores widths).
func _cellWidth(_ text: String) -> Int { Int(UInt16(clamping: TerminalWidth.of(text))) }

/// A file's bytes, read straight into one array: `FileManager`'s `Data` and then an `Array` of
/// it would copy a 70 MB file twice. A file of `parallelFrom` bytes or more is read in one
/// part per core at once (`pread`): reading is a copy into fresh pages, and on one core it was
/// the first 0.7 s of `sortkit view` of a 763 MB file, the other core idle. Files whose size
/// `stat` doesn't tell — pipes, FIFOs, `/dev/stdin`, `/proc` — are read to their end with
/// `read(2)` (Foundation on Linux refuses to read them); a file that grew while read gets its
/// rest too, one that shrank what it still had. `nil` when it can't be read.
/// `sortkit serve FILE.csv` imports and `CSVPage(contentsOf:)` pages what this reads.
///
///     guard let bytes = _readWholeFile(atPath: "big.csv") else { throw cannotRead }
package func _readWholeFile(atPath path: String, parallelFrom: Int = 32 << 20) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else {
        return _readToEnd(descriptor)
    }
    let size = Int(info.st_size)
    let parts = size >= max(1, parallelFrom) ? max(1, min(8, ProcessInfo.processInfo.activeProcessorCount, size)) : 1
    // Part `k` is `bounds[k]..<bounds[k + 1]`; per part, the bytes read, or -1 after a read error.
    let bounds = (0...parts).map { $0 == parts ? size : size / parts * $0 }
    var got = [Int](repeating: 0, count: parts)
    var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
        got.withUnsafeMutableBufferPointer { got in
            nonisolated(unsafe) let (buffer, got) = (buffer, got)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let (start, end) = (bounds[part], bounds[part + 1])
                var offset = start
                while offset < end {
                    // At most 2 GiB a call: Darwin refuses larger reads (Linux reads 2 GiB less 4 KiB).
                    let read = pread(descriptor, buffer.baseAddress! + offset, min(end - offset, Int(Int32.max)), off_t(offset))
                    if read < 0, errno == EINTR { continue }
                    guard read > 0 else {
                        if read < 0 { offset = start - 1 }
                        break
                    }
                    offset += read
                }
                got[part] = offset - start
            }
        }
        // The bytes up to the first part that came up short (the file shrank while read).
        for (part, read) in got.enumerated() {
            guard read >= 0 else { return }
            count += read
            if read < bounds[part + 1] - bounds[part] { break }
        }
    }
    guard !got.contains(where: { $0 < 0 }) else { return nil }
    if bytes.count == size, lseek(descriptor, off_t(size), SEEK_SET) == off_t(size),
        let rest = try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd()
    {
        bytes += rest
    }
    return bytes
}

/// Everything left to read from `descriptor`, with `read(2)` in growing blocks; `nil` on a
/// read error.
package func _readToEnd(_ descriptor: Int32) -> [UInt8]? {
    var bytes: [UInt8] = []
    var block = 1 << 16
    while true {
        let start = bytes.count
        bytes.reserveCapacity(start + block)
        var failed = false
        var ended = false
        bytes.append(
            contentsOf: [UInt8](unsafeUninitializedCapacity: block) { buffer, count in
                while true {
                    let read = Foundation.read(descriptor, buffer.baseAddress!, buffer.count)
                    if read < 0, errno == EINTR { continue }
                    failed = read < 0
                    ended = read == 0
                    count = max(0, read)
                    return
                }
            })
        if failed { return nil }
        if ended { return bytes }
        block = min(block * 2, 64 << 20)
    }
}

/// Pages of `pageSize` for `count` items, at least one; no overflow for any size.
package func _pageCount(_ count: Int, pageSize: Int) -> Int {
    count <= 0 ? 1 : (count - 1) / max(1, pageSize) + 1
}

/// The positions of page `page` (0-based) of `count` items, clamped; no overflow for any size.
package func _pageRange(_ page: Int, pageSize: Int, count: Int) -> Range<Int> {
    let size = max(1, pageSize)
    let (start, overflow) = max(0, page).multipliedReportingOverflow(by: size)
    guard !overflow, start < count else { return count..<count }
    return start..<(size >= count - start ? count : start + size)
}
