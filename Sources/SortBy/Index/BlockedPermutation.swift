/// Row ids in a preset's order, in blocks of at most 2 × `blockSize` ids: inserting or removing
/// shifts one block (about 2 KB), not the whole array — a flat array would move 4 MB per change
/// at a million rows. 4 bytes per row plus one small array header per block.
struct _BlockedPermutation {
    private(set) var blocks: [[UInt32]] = []
    private(set) var count = 0
    static var blockSize: Int { 512 }

    /// All ids in order.
    var ids: [UInt32] { blocks.flatMap { $0 } }

    /// The first position whose id is not "before" the probe: `isBefore(id)` must be true
    /// then false along the order. O(log n) calls of `isBefore`.
    func partitionPoint(_ isBefore: (UInt32) -> Bool) -> Int {
        var low = 0
        var high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(blocks[middle].last!) { low = middle + 1 } else { high = middle }
        }
        var offset = blocks[..<low].reduce(0) { $0 + $1.count }
        guard low < blocks.count else { return offset }
        let block = blocks[low]
        var l = 0
        var h = block.count
        while l < h {
            let m = (l + h) / 2
            if isBefore(block[m]) { l = m + 1 } else { h = m }
        }
        offset += l
        return offset
    }

    /// The block and index within it of a position.
    private func locate(_ position: Int) -> (block: Int, index: Int) {
        var remaining = position
        for (b, block) in blocks.enumerated() {
            if remaining < block.count || b == blocks.count - 1 { return (b, remaining) }
            remaining -= block.count
        }
        return (0, 0)
    }

    mutating func insert(_ id: UInt32, at position: Int) {
        precondition(position >= 0 && position <= count, "position out of range")
        count += 1
        guard !blocks.isEmpty else {
            blocks = [[id]]
            return
        }
        let (b, index) = locate(position)
        blocks[b].insert(id, at: index)
        if blocks[b].count > 2 * Self.blockSize {
            let tail = Array(blocks[b][Self.blockSize...])
            blocks[b].removeSubrange(Self.blockSize...)
            blocks.insert(tail, at: b + 1)
        }
    }

    mutating func remove(at position: Int) {
        precondition(position >= 0 && position < count, "position out of range")
        let (b, index) = locate(position)
        blocks[b].remove(at: index)
        if blocks[b].isEmpty { blocks.remove(at: b) }
        count -= 1
    }

    /// The ids at `range` of positions.
    func ids(in range: Range<Int>) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(range.count)
        var offset = 0
        for block in blocks {
            let blockRange = offset..<offset + block.count
            offset += block.count
            let overlap = blockRange.clamped(to: range)
            if overlap.isEmpty {
                if blockRange.lowerBound >= range.upperBound { break }
                continue
            }
            result.append(contentsOf: block[(overlap.lowerBound - blockRange.lowerBound)..<(overlap.upperBound - blockRange.lowerBound)])
        }
        return result
    }

    /// Builds the permutation from ids already in order.
    init(sorted ids: [UInt32] = []) {
        count = ids.count
        blocks = stride(from: 0, to: ids.count, by: Self.blockSize).map { Array(ids[$0..<Swift.min($0 + Self.blockSize, ids.count)]) }
    }
}
