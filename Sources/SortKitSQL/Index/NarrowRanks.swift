import Foundation
import SortKit

/// Per slot, its group in a ranking (``_Ranking/ranks``), in the narrowest unsigned width
/// that holds every group and the null mark: one byte for up to 254 groups (statuses), two
/// for up to 65,534 (prices, dates, page counts), four beyond (titles). A 1M-row table's
/// seven default orders held 28 MB of ranks at four bytes each; most columns need one or two.
///
/// Reads and writes go by ``_Ranking/null`` (`UInt32.max`) for null whatever the width; a
/// write of a group past the width widens the storage (a new group joined by an insert).
///
///     var ranks = _NarrowRanks(count: 3, groups: 2)      // one byte a slot, all null
///     ranks[0] = 1
///     ranks[2] = 300                               // widens to two bytes
///     Array(ranks)                                 // [1, 4294967295, 300]
struct _NarrowRanks: Sendable, RandomAccessCollection, Equatable {
    /// The slots' groups, `width` bytes each, native byte order.
    private(set) var storage: [UInt8]
    /// Bytes a slot: 1, 2 or 4.
    private(set) var width: Int

    /// `count` slots, all null, wide enough for groups `0..<groups`.
    init(count: Int, groups: Int) {
        width = Self.width(groups: groups)
        storage = [UInt8](repeating: 0xFF, count: count * width)
    }

    /// `count` slots wide enough for groups `0..<groups`, slot `i`'s group `value(i)` (each
    /// below `groups`, or ``_Ranking/null``), written through a pointer in one pass.
    init(count: Int, groups: Int, _ value: (Int) -> UInt32) {
        self.init(count: count, width: Self.width(groups: groups), value)
    }

    private init(count: Int, width: Int, _ value: (Int) -> UInt32) {
        self.width = width
        storage = [UInt8](unsafeUninitializedCapacity: count * width) { buffer, initialized in
            let writer = Writer(bytes: UnsafeMutableRawBufferPointer(buffer), width: width)
            for slot in 0..<count { writer[slot] = value(slot) }
            initialized = count * width
        }
    }

    /// The ranks of `values` (``_Ranking/null`` for null).
    init(_ values: [UInt32]) {
        let top = values.lazy.filter { $0 != _Ranking.null }.max().map { Int($0) + 1 } ?? 0
        self.init(count: values.count, groups: top) { values[$0] }
    }

    /// The width that holds groups `0..<groups` and a null mark above them.
    static func width(groups: Int) -> Int { groups < 0xFF ? 1 : groups < 0xFFFF ? 2 : 4 }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count / width }
    /// The bytes the ranks take.
    var byteCount: Int { storage.count }

    subscript(slot: Int) -> UInt32 {
        get { storage.withUnsafeBytes { Reader(bytes: $0, width: width)[slot] } }
        set {
            precondition(slot >= 0 && slot < endIndex, "slot out of range")
            if newValue != _Ranking.null, Self.width(groups: Int(newValue) + 1) > width { widen(to: Self.width(groups: Int(newValue) + 1)) }
            withWriter { $0[slot] = newValue }
        }
    }

    static func == (lhs: _NarrowRanks, rhs: _NarrowRanks) -> Bool { lhs.elementsEqual(rhs) }

    /// The first `count` slots, with null slots added past the end.
    func resized(to count: Int) -> _NarrowRanks {
        var resized = self
        if count < self.count {
            resized.storage.removeLast((self.count - count) * width)
        } else {
            resized.storage.append(contentsOf: repeatElement(0xFF, count: (count - self.count) * width))
        }
        return resized
    }

    /// Every non-null rank mapped through `body` (renumbered groups), each result below
    /// `groups` (or null): widened first if `groups` needs it, then one pass over the slots. A
    /// delete that emptied groups renumbers a title's million ranks after each bulk delete;
    /// finding the highest result first was a second pass, a third of the page after it.
    mutating func renumber(groups: Int, _ body: (UInt32) -> UInt32) {
        if Self.width(groups: groups) > width { widen(to: Self.width(groups: groups)) }
        /// The pass at one width, whose null mark is all ones (so is `UInt32.max` truncated):
        /// the width is decided once, not per slot as ``Writer`` does.
        func pass<Rank: FixedWidthInteger & UnsignedInteger>(_ bytes: UnsafeMutableRawBufferPointer, _: Rank.Type) {
            let size = MemoryLayout<Rank>.size
            for offset in stride(from: 0, to: bytes.count, by: size) {
                let rank = bytes.loadUnaligned(fromByteOffset: offset, as: Rank.self)
                guard rank != Rank.max else { continue }
                let group = body(UInt32(rank))
                assert(group == _Ranking.null || Int(group) < groups, "renumbered past the groups")
                bytes.storeBytes(of: Rank(truncatingIfNeeded: group), toByteOffset: offset, as: Rank.self)
            }
        }
        let width = width
        storage.withUnsafeMutableBytes { bytes in
            switch width {
            case 1: pass(bytes, UInt8.self)
            case 2: pass(bytes, UInt16.self)
            default: pass(bytes, UInt32.self)
            }
        }
    }

    /// Calls `body` with a reader of the ranks (no reference counting or bounds checks per
    /// read), valid only inside it.
    func withReader<Result>(_ body: (Reader) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(Reader(bytes: $0, width: width)) }
    }

    /// The ranks read through a pointer (``withReader(_:)``, ``withReaders(_:_:)``).
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        let width: Int

        @inline(__always)
        subscript(slot: Int) -> UInt32 {
            switch width {
            case 1:
                let value = bytes.load(fromByteOffset: slot, as: UInt8.self)
                return value == 0xFF ? _Ranking.null : UInt32(value)
            case 2:
                let value = bytes.loadUnaligned(fromByteOffset: 2 * slot, as: UInt16.self)
                return value == 0xFFFF ? _Ranking.null : UInt32(value)
            default:
                return bytes.loadUnaligned(fromByteOffset: 4 * slot, as: UInt32.self)
            }
        }
    }

    /// Calls `body` with a writer of the ranks, valid only inside it: for writes in bulk of
    /// groups the width already holds (``_NarrowRanks/width(groups:)``).
    mutating func withWriter<Result>(_ body: (Writer) throws -> Result) rethrows -> Result {
        let width = width
        return try storage.withUnsafeMutableBytes { try body(Writer(bytes: $0, width: width)) }
    }

    /// The ranks written through a pointer (``withWriter(_:)``); a group must fit the width.
    struct Writer {
        let bytes: UnsafeMutableRawBufferPointer
        let width: Int

        @inline(__always)
        subscript(slot: Int) -> UInt32 {
            get { Reader(bytes: UnsafeRawBufferPointer(bytes), width: width)[slot] }
            nonmutating set {
                switch width {
                case 1: bytes.storeBytes(of: UInt8(truncatingIfNeeded: newValue), toByteOffset: slot, as: UInt8.self)
                case 2: bytes.storeBytes(of: UInt16(truncatingIfNeeded: newValue), toByteOffset: 2 * slot, as: UInt16.self)
                default: bytes.storeBytes(of: newValue, toByteOffset: 4 * slot, as: UInt32.self)
                }
            }
        }
    }

    /// Calls `body` with a reader of each of `ranks`, valid only inside it.
    static func withReaders<Result>(_ ranks: [_NarrowRanks], _ body: ([Reader]) throws -> Result) rethrows -> Result {
        try _withBuffers(ranks.map(\.storage)) { buffers in
            try body(zip(buffers, ranks).map { Reader(bytes: UnsafeRawBufferPointer($0.0), width: $0.1.width) })
        }
    }

    private mutating func widen(to newWidth: Int) {
        let values = Array(self)
        self = _NarrowRanks(count: values.count, width: newWidth) { values[$0] }
    }
}
