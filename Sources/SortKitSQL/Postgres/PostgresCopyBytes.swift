import Foundation
import NIOCore

/// Bytes appended at a raw pointer, what `COPY` streams. An import's rows make a dozen small
/// writes each (a length, a cell, …); through `ByteBuffer`'s checked writes they cost about
/// 0.5 s of CPU at 1M rows, time the `COPY` waited for on a 2-core machine. Not copyable in
/// effect: ``free()`` once.
struct _CopyBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    /// Empties the bytes, keeping the room they had grown to.
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

    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes copied into a buffer PostgresNIO writes.
    var byteBuffer: ByteBuffer { withBytes { ByteBuffer(bytes: $0) } }
}

/// Per core, the ``_CopyBytes`` its chunks of an import's groups are encoded into, kept from
/// group to group: a fresh 3 MB block per chunk was faulted in and zeroed each time, since
/// glibc gives a freed block at its heap's top back to the system. Groups are encoded one at
/// a time (``_PostgresSession/copyBinary(into:columns:groups:freeze:_:)`` asks for the next once it
/// has the last), so each block has one user at a time: the core that encodes that chunk.
final class _CopyScratch: @unchecked Sendable {
    private let blocks: UnsafeMutablePointer<_CopyBytes>
    private let count: Int

    init(count: Int, capacity: Int) {
        self.count = count
        blocks = .allocate(capacity: count)
        blocks.initialize(from: (0..<count).map { _ in _CopyBytes(capacity: capacity) }, count: count)
    }

    deinit {
        for index in 0..<count { blocks[index].free() }
        blocks.deinitialize(count: count)
        blocks.deallocate()
    }

    /// Calls `body` with block `index`, emptied.
    func with<Result>(_ index: Int, _ body: (inout _CopyBytes) -> Result) -> Result {
        blocks[index].removeAll()
        return body(&blocks[index])
    }
}
