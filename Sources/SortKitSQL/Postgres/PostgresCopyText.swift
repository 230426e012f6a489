import Foundation
import NIOCore
import SortKit

/// PostgreSQL's `COPY` text format: tab-separated, `\N` for NULL, backslash escapes, bytea
/// as `\\x` hex. (PostgresNIO streams the bytes; the encoding of values is ours.)
enum _CopyText {
    static func append(_ row: [SQLValue], to bytes: inout _CopyBytes) {
        for (index, value) in row.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "\t")) }
            append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    static func append(_ value: SQLValue, to bytes: inout _CopyBytes) {
        switch value {
        case .null: bytes.append(UInt8(ascii: "\\"), UInt8(ascii: "N"))
        case .integer(let integer): bytes.append(integer)
        case .double(let double):
            var text = double.isNaN ? "NaN" : double.isInfinite ? (double < 0 ? "-Infinity" : "Infinity") : "\(double)"
            text.withUTF8 { bytes.append($0) }
        case .text(var text): text.withUTF8 { escape($0, to: &bytes) }
        case .blob(let blob):
            bytes.append(UInt8(ascii: "\\"), UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "x"))
            bytes.appendHex(blob)
        }
    }

    /// `text` with its backslashes, tabs, newlines and carriage returns escaped. Every other
    /// byte is itself: the bytes of a multi-byte scalar are all ≥ 0x80.
    static func escape(_ text: UnsafeBufferPointer<UInt8>, to bytes: inout _CopyBytes) {
        var start = 0
        var index = 0
        while index < text.count {
            // Eight bytes at a time while none is a backslash or below 0x0E (tab, line feed and
            // carriage return are): most cells have neither.
            if index + 8 <= text.count, let base = text.baseAddress {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                let backslash = word ^ (ones &* 0x5C)
                if (word &- ones &* 0x0E) & ~word & highs == 0, (backslash &- ones) & ~backslash & highs == 0 {
                    index += 8
                    continue
                }
            }
            defer { index += 1 }
            let escaped: UInt8
            switch text[index] {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            bytes.append(UnsafeBufferPointer(rebasing: text[start..<index]))
            bytes.append(UInt8(ascii: "\\"), escaped)
            start = index + 1
        }
        bytes.append(UnsafeBufferPointer(rebasing: text[start...]))
    }
}

/// Bytes appended at a raw pointer. An import's rows make a dozen small writes each (a cell, a
/// tab, …); through `ByteBuffer`'s checked writes they cost about 0.5 s of CPU at 1M rows,
/// time the `COPY` waited for on a 2-core machine. Not copyable in effect: ``free()`` once.
struct _CopyBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    /// Empties the buffer, keeping its memory.
    mutating func removeAll() { count = 0 }

    @inline(__always) private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let larger = max(capacity * 2, count + more)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always) mutating func append(_ first: UInt8, _ second: UInt8) {
        reserve(2)
        base[count] = first
        base[count + 1] = second
        count += 2
    }

    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// An integer in decimal.
    mutating func append(_ integer: Int64) {
        reserve(20)
        var magnitude = integer.magnitude
        if integer < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        for place in stride(from: count + digits - 1, through: count, by: -1) {
            base[place] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
        count += digits
    }

    /// Each byte as two lowercase hex digits.
    mutating func appendHex(_ blob: [UInt8]) {
        reserve(blob.count * 2)
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
        for byte in blob {
            base[count] = table[Int(byte >> 4)]
            base[count + 1] = table[Int(byte & 15)]
            count += 2
        }
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes copied into a buffer PostgresNIO writes.
    var byteBuffer: ByteBuffer { withBytes { ByteBuffer(bytes: $0) } }
}
