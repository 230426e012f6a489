/// A fixed-width key a radix sort reads one byte at a time, least significant first.
@usableFromInline
package protocol _RadixSortable: BitwiseCopyable {
    /// How many bytes the key has.
    static var byteCount: Int { get }
    /// The key's byte at `position` (0 is the least significant).
    func byte(_ position: Int) -> Int
}

extension _KeyRecord: _RadixSortable {
    @inlinable
    package static var byteCount: Int { 16 }

    /// `lo`'s bytes, then `hi`'s: the 128-bit composite.
    @inlinable @inline(__always)
    package func byte(_ position: Int) -> Int {
        Int(((position < 8 ? lo : hi) >> UInt64((position & 7) * 8)) & 0xFF)
    }
}

extension UInt64: _RadixSortable {
    @inlinable
    package static var byteCount: Int { 8 }

    @inlinable @inline(__always)
    package func byte(_ position: Int) -> Int { Int((self >> UInt64(position * 8)) & 0xFF) }
}

/// Sorts fixed-width keys with a least-significant-digit radix sort, one byte per pass from
/// `firstByte` up. Stable, so keys that start in position order end with equal keys in position
/// order. Byte positions where every key has the same byte are skipped (one pass counts them
/// all), so a 128-bit composite using 40 bits costs 5 passes.
///
/// The engine sorts 24-byte records (a 128-bit composite and a position) or, when a row's keys
/// fit in 32 bits, 64-bit words holding the keys above the position, which moves a third of the
/// memory per pass (the 3-key benchmark's keys take 30 bits). Measured by `sortkit-bench
/// engine`: on 1M rows it replaces a comparison sort of O(n log n) compares with a few linear
/// passes.
///
///     var words: [UInt64] = [3 << 32 | 0, 1 << 32 | 1, 3 << 32 | 2]
///     _radixSort(&words, fromByte: 4)  // [1 << 32 | 1, 3 << 32 | 0, 3 << 32 | 2]
///
/// - Parameter firstByte: Low bytes not to sort on: packed positions, already in order.
@inlinable
package func _radixSort<Key: _RadixSortable>(_ keys: inout [Key], fromByte firstByte: Int = 0) {
    let count = keys.count
    let width = Key.byteCount
    guard count > 1, firstByte < width else { return }
    // Histograms of all byte positions in one pass.
    var histograms = [Int](repeating: 0, count: width * 256)
    keys.withUnsafeBufferPointer { buffer in
        histograms.withUnsafeMutableBufferPointer { h in
            for key in buffer {
                for position in firstByte..<width { h[position * 256 + key.byte(position)] += 1 }
            }
        }
    }
    // Every element is written by the first pass before it is read.
    var scratch = [Key](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    var sourceIsKeys = true
    for position in firstByte..<width {
        let base = position * 256
        // Skip a byte position where all keys agree.
        if histograms[base..<base + 256].contains(count) { continue }
        var offsets = [Int](repeating: 0, count: 256)
        var total = 0
        for digit in 0..<256 {
            offsets[digit] = total
            total += histograms[base + digit]
        }
        func pass(_ source: UnsafeBufferPointer<Key>, _ target: UnsafeMutableBufferPointer<Key>) {
            offsets.withUnsafeMutableBufferPointer { o in
                for key in source {
                    let digit = key.byte(position)
                    target[o[digit]] = key
                    o[digit] += 1
                }
            }
        }
        if sourceIsKeys {
            keys.withUnsafeBufferPointer { source in scratch.withUnsafeMutableBufferPointer { pass(source, $0) } }
        } else {
            scratch.withUnsafeBufferPointer { source in keys.withUnsafeMutableBufferPointer { pass(source, $0) } }
        }
        sourceIsKeys.toggle()
    }
    if !sourceIsKeys { keys = scratch }
}

/// Positions `0..<composites.count` ordered by their composite, ties in position order: the
/// engine's radix sort for callers that pack their own integer keys (a data table's cached
/// column ranks). Beyond 2^32 − 1 positions (`limit`, which tests lower), a comparison sort.
package func _stableOrder(byComposite composites: [UInt64], limit: Int = _maximumRecordCount) -> [Int] {
    guard composites.count <= limit else {
        return composites.indices.sorted { (composites[$0], $0) < (composites[$1], $1) }
    }
    var records = composites.enumerated().map { _KeyRecord(hi: 0, lo: $0.element, index: UInt32($0.offset)) }
    _radixSort(&records)
    return records.map { Int($0.index) }
}
