import Foundation

/// Decoding the compiled collation data (`LocaleCollationData.swift`, written by
/// `Scripts/generate-collation-data.py`): the root's entries at once, a tailoring's when its
/// table is first made.
extension _UCATable {
    /// The decoded data: the root's entries, and where each tailoring's block starts (a
    /// tailoring is decoded when its table is first made: decoding all 115 of them, CJK's long
    /// lists included, was most of the 80 ms a first locale key took).
    struct Decoded: Sendable {
        var primaryCount = 0
        var fbRank = 0
        var lastVariable = 0
        /// The root's single scalars, in ascending order, and where each one's elements end
        /// in ``rootElements``.
        var singleScalars: [UInt32] = []
        var singleEnds: [Int] = []
        /// The root's contractions, their elements a range of ``rootElements``.
        var contractions: [(scalars: [UInt32], elements: Range<Int>)] = []
        /// The singles' elements, then the contractions': a table's pool starts with them.
        var rootElements: [Element] = []
        var bytes: [UInt8] = []
        /// By tailoring name, the offset of its block in `bytes`.
        var blocks: [String: Int] = [:]

        struct Tailoring: Sendable {
            var flags: UInt8
            var runs: [(from: Int, count: Int, to: Int)]
            var entries: [([UInt32], [Element])]
            /// Prefix contexts: (prefix, text, elements), the text weighing so after the prefix.
            var contexts: [([UInt32], [UInt32], [Element])] = []
        }

        /// The tailoring named `name` (`sv`, `de/phonebook`), decoded from its block.
        func tailoring(named name: String) -> Tailoring? {
            guard let offset = blocks[name] else { return nil }
            var reader = _Reader(bytes: bytes, i: offset)
            return reader.tailoring()
        }
    }

    /// Reads the data's little-endian fields from `i` on.
    struct _Reader {
        let bytes: [UInt8]
        var i: Int

        mutating func u8() -> Int {
            defer { i += 1 }
            return Int(bytes[i])
        }
        mutating func u16() -> Int { u8() | u8() << 8 }
        mutating func u24() -> Int { u8() | u8() << 8 | u8() << 16 }
        mutating func u32() -> Int { u16() | u16() << 16 }
        mutating func element() -> Element {
            let p = UInt64(u24()), s = UInt64(u16()), t = UInt64(u16())
            return p << 32 | s << 16 | t
        }
        mutating func elements() -> [Element] { (0..<u8()).map { _ in element() } }
        /// Appends the next elements to `pool` (no array per entry: the root has 30,000).
        mutating func appendElements(to pool: inout [Element]) {
            for _ in 0..<u8() { pool.append(element()) }
        }
        mutating func scalars() -> [UInt32] { (0..<u8()).map { _ in UInt32(u24()) } }

        /// A tailoring's block: flags, reordered runs, entries (scalars and elements, prefix
        /// contexts, or a long list of single scalars sharing a lead primary).
        mutating func tailoring() -> Decoded.Tailoring {
            let flags = UInt8(u8())
            let runs = (0..<u16()).map { _ in (from: u16(), count: u16(), to: u16()) }
            var entries: [([UInt32], [Element])] = []
            var contexts: [([UInt32], [UInt32], [Element])] = []
            for _ in 0..<u32() {
                if bytes[i] == 255 {
                    i += 1
                    let prefix = scalars()
                    contexts.append((prefix, scalars(), elements()))
                    continue
                }
                guard bytes[i] == 0 else {
                    entries.append((scalars(), elements()))
                    continue
                }
                // A long list: (lead, common, common) (trail, 0, 0) for each scalar.
                i += 1
                let lead = UInt64(u24())
                var tertiary = UInt64(0x02 * 128 + 64)
                if flags & 1 != 0 { tertiary += UInt64(caseLowerOffset) }
                let first = lead << 32 | UInt64(0x20 * 128 + 64) << 16 | tertiary
                for _ in 0..<u32() {
                    let scalar = UInt32(u24())
                    entries.append(([scalar], [first, UInt64(u24()) << 32]))
                }
            }
            return .init(flags: flags, runs: runs, entries: entries, contexts: contexts)
        }

        /// Moves past a tailoring's block without building it.
        mutating func skipTailoring() {
            i += 1
            skip(6, of: u16())
            for _ in 0..<u32() {
                if bytes[i] == 255 {
                    i += 1
                    skip(3, of: u8())
                    skip(3, of: u8())
                    skip(7, of: u8())
                } else if bytes[i] == 0 {
                    i += 4
                    skip(6, of: u32())
                } else {
                    skip(3, of: u8())
                    skip(7, of: u8())
                }
            }
        }

        /// Moves past `count` fields of `size` bytes.
        private mutating func skip(_ size: Int, of count: Int) { i += size * count }
    }

    static let decoded: Decoded = {
        guard let data = Data(base64Encoded: _LocaleCollationData.base64, options: .ignoreUnknownCharacters) else {
            preconditionFailure("LocaleCollationData.swift is not base64")
        }
        // Copied as bytes (`[UInt8](data)` went element by element: 1.7 ms of a first locale key).
        var reader = _Reader(bytes: data.withUnsafeBytes { [UInt8]($0) }, i: 4)
        precondition(reader.bytes.prefix(4).elementsEqual("SKC1".utf8), "LocaleCollationData.swift: unknown layout")
        var result = Decoded()
        result.primaryCount = reader.u32()
        result.fbRank = reader.u32()
        result.lastVariable = reader.u32()
        let singleCount = reader.u32()
        result.singleScalars.reserveCapacity(singleCount)
        result.singleEnds.reserveCapacity(singleCount)
        result.rootElements.reserveCapacity(singleCount * 5 / 4)
        for _ in 0..<singleCount {
            result.singleScalars.append(UInt32(reader.u24()))
            reader.appendElements(to: &result.rootElements)
            result.singleEnds.append(result.rootElements.count)
        }
        result.contractions = (0..<reader.u32()).map { _ in
            let scalars = reader.scalars(), start = result.rootElements.count
            reader.appendElements(to: &result.rootElements)
            return (scalars, start..<result.rootElements.count)
        }
        var names: [(String, Int)] = []
        for _ in 0..<reader.u32() {
            let name = String(decoding: (0..<reader.u8()).map { _ in UInt8(reader.u8()) }, as: UTF8.self)
            names.append((name, reader.u16()))
        }
        var offsets: [Int] = []
        for _ in 0..<reader.u32() {
            offsets.append(reader.i)
            reader.skipTailoring()
        }
        for (name, block) in names { result.blocks[name] = offsets[block] }
        result.bytes = reader.bytes
        return result
    }()
}
