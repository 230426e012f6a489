/// Row ids in a preset's order, in blocks of at most 2 × `blockSize` ids: inserting or removing
/// shifts one block (about 2 KB), not the whole array — a flat array would move 4 MB per change
/// at a million rows. 4 bytes per row plus one small array header per block. Block sizes are
/// mirrored in a plain `[Int]`, so finding a position never touches the blocks' headers
/// (each touch of a nested array costs reference counting). Each block has a stable number and
/// each id records its block's: an id is found without comparing rows (``place(of:)``), which
/// halves an update's binary searches for 4 more bytes per row.
@usableFromInline
struct _BlockedPermutation {
    @usableFromInline var blocks: [[UInt32]] = []
    @usableFromInline var sizes: [Int] = []
    @usableFromInline var count = 0
    /// Each block's stable number, in block order.
    @usableFromInline var blockNumbers: [UInt32] = []
    /// Per id, the number of the block that holds it.
    @usableFromInline var blockOf: [UInt32] = []
    @usableFromInline var nextBlockNumber: UInt32 = 0
    @inlinable static var blockSize: Int { 512 }

    /// All ids in order.
    @inlinable var ids: [UInt32] { blocks.flatMap { $0 } }

    /// The first place whose id is not "before" the probe, as a block and an index in it:
    /// `isBefore(id)` must be true then false along the order. O(log n) calls of `isBefore`,
    /// fewer where `decide(block)` answers it for a block's last id (`nil`: it can't tell).
    @inlinable func partitionPoint(decide: (Int) -> Bool?, _ isBefore: (UInt32) -> Bool) -> (block: Int, index: Int) {
        var low = 0
        var high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if decide(middle) ?? isBefore(blocks[middle][sizes[middle] - 1]) { low = middle + 1 } else { high = middle }
        }
        guard low < blocks.count else { return (Swift.max(blocks.count - 1, 0), sizes.last ?? 0) }
        var l = 0
        var h = sizes[low]
        while l < h {
            let m = (l + h) / 2
            if isBefore(blocks[low][m]) { l = m + 1 } else { h = m }
        }
        return (low, l)
    }

    /// The id at a place, if there is one.
    @inlinable func id(at place: (block: Int, index: Int)) -> UInt32? {
        place.block < blocks.count && place.index < sizes[place.block] ? blocks[place.block][place.index] : nil
    }

    /// Where `id` is, found through its block's number: a scan of the block numbers and of
    /// one block, no row compared.
    @inlinable func place(of id: UInt32) -> (block: Int, index: Int)? {
        guard Int(id) < blockOf.count, let block = blockNumbers.firstIndex(of: blockOf[Int(id)]),
            let index = blocks[block].firstIndex(of: id)
        else { return nil }
        return (block, index)
    }

    @inlinable mutating func record(_ id: UInt32, inBlock number: UInt32) {
        if Int(id) >= blockOf.count { blockOf += repeatElement(UInt32.max, count: Int(id) + 1 - blockOf.count) }
        blockOf[Int(id)] = number
    }

    @inlinable mutating func insert(_ id: UInt32, at place: (block: Int, index: Int)) {
        count += 1
        guard !blocks.isEmpty else {
            blocks = [[id]]
            sizes = [1]
            blockNumbers = [nextBlockNumber]
            record(id, inBlock: nextBlockNumber)
            nextBlockNumber += 1
            return
        }
        let b = place.block
        blocks[b].insert(id, at: place.index)
        sizes[b] += 1
        record(id, inBlock: blockNumbers[b])
        if sizes[b] > 2 * Self.blockSize {
            let tail = Array(blocks[b][Self.blockSize...])
            blocks[b].removeSubrange(Self.blockSize...)
            blocks.insert(tail, at: b + 1)
            sizes[b] = Self.blockSize
            sizes.insert(tail.count, at: b + 1)
            blockNumbers.insert(nextBlockNumber, at: b + 1)
            for moved in tail { record(moved, inBlock: nextBlockNumber) }
            nextBlockNumber += 1
        }
    }

    @inlinable mutating func remove(at place: (block: Int, index: Int)) {
        let b = place.block
        blocks[b].remove(at: place.index)
        sizes[b] -= 1
        count -= 1
        if sizes[b] == 0 {
            blocks.remove(at: b)
            sizes.remove(at: b)
            blockNumbers.remove(at: b)
        }
    }

    /// The ids at `range` of positions.
    @inlinable func ids(in range: Range<Int>) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(range.count)
        var offset = 0
        for b in sizes.indices {
            let blockRange = offset..<offset + sizes[b]
            offset += sizes[b]
            if blockRange.upperBound <= range.lowerBound { continue }
            if blockRange.lowerBound >= range.upperBound { break }
            let overlap = blockRange.clamped(to: range)
            result.append(contentsOf: blocks[b][(overlap.lowerBound - blockRange.lowerBound)..<(overlap.upperBound - blockRange.lowerBound)])
        }
        return result
    }

    /// Builds the permutation from ids already in order.
    @inlinable init(sorted ids: [UInt32] = []) {
        count = ids.count
        blocks = stride(from: 0, to: ids.count, by: Self.blockSize).map { Array(ids[$0..<Swift.min($0 + Self.blockSize, ids.count)]) }
        sizes = blocks.map(\.count)
        blockNumbers = blocks.indices.map(UInt32.init)
        nextBlockNumber = UInt32(blocks.count)
        blockOf = [UInt32](repeating: UInt32.max, count: Int(ids.max() ?? 0) + 1)
        for (number, block) in blocks.enumerated() {
            for id in block { blockOf[Int(id)] = UInt32(number) }
        }
    }
}
