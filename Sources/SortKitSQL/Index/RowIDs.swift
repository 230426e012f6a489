/// The ids of an index's slots, ascending: `first, first + 1, …` as two numbers while they
/// follow on (an import numbers its rows 1…n, and appended rows take the next ids), an array
/// of them once a gap appears. 8 bytes a row less for a table whose ids have no gaps: 8 MB of
/// a 1M-row table's index.
///
///     var ids = _RowIDs([1, 2, 3])   // kept as 1 and a count of 3
///     ids.append(4)                  // still a run
///     ids.append(9)                  // now an array: [1, 2, 3, 4, 9]
///     ids[4]                         // 9
struct _RowIDs: RandomAccessCollection, Sendable {
    private enum Storage {
        case run(first: Int64, count: Int)
        case list([Int64])
    }
    private var storage: Storage

    /// `ids`, ascending; kept as a run when each is one more than the one before.
    init(_ ids: [Int64]) {
        precondition(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "row ids must ascend")
        if let first = ids.first, zip(ids, ids.dropFirst()).allSatisfy({ $0 + 1 == $1 }) {
            storage = .run(first: first, count: ids.count)
        } else {
            storage = ids.isEmpty ? .run(first: 1, count: 0) : .list(ids)
        }
    }

    /// The ids `first…` of `count` rows.
    init(first: Int64, count: Int) {
        precondition(count >= 0 && (count == 0 || !first.addingReportingOverflow(Int64(count - 1)).overflow), "ids \(first) and \(count) more")
        storage = .run(first: first, count: count)
    }

    var startIndex: Int { 0 }
    var endIndex: Int {
        switch storage {
        case .run(_, let count): count
        case .list(let ids): ids.count
        }
    }

    subscript(slot: Int) -> Int64 {
        switch storage {
        case .run(let first, let count):
            precondition(slot >= 0 && slot < count, "slot out of range")
            return first + Int64(slot)
        case .list(let ids): return ids[slot]
        }
    }

    /// Whether the ids are kept as a run (two numbers), for tests and byte counts.
    var isRun: Bool {
        if case .run = storage { return true }
        return false
    }

    /// The bytes the ids take beyond the value itself.
    var byteCount: Int {
        switch storage {
        case .run: 0
        case .list(let ids): ids.capacity * MemoryLayout<Int64>.stride
        }
    }

    /// Adds the id of a new last slot (greater than the last one's).
    mutating func append(_ id: Int64) {
        precondition(isEmpty || id > self[count - 1], "row id \(id) isn't past the last one")
        switch storage {
        case .run(_, 0):
            storage = .run(first: id, count: 1)
        case .run(let first, let count) where first.addingReportingOverflow(Int64(count)) == (id, false):
            storage = .run(first: first, count: count + 1)
        case .run(let first, let count):
            var ids: [Int64] = []
            ids.reserveCapacity(count + count / 8 + 1)
            ids.append(contentsOf: first...(first + Int64(count - 1)))
            ids.append(id)
            storage = .list(ids)
        case .list(var ids):
            storage = .run(first: 0, count: 0) // the one reference left: appended in place
            ids.append(id)
            storage = .list(ids)
        }
    }

    /// Where a list's ids are kept, `nil` for a run (for tests: appends keep the storage).
    var storageAddress: UnsafeRawPointer? {
        guard case .list(let ids) = storage else { return nil }
        return ids.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// The slot of `id`, if one holds it.
    func slot(of id: Int64) -> Int? {
        switch storage {
        case .run(let first, let count):
            let (offset, overflow) = id.subtractingReportingOverflow(first)
            guard id >= first, !overflow, offset < Int64(count) else { return nil }
            return Int(offset)
        case .list(let ids):
            var low = 0, high = ids.count
            while low < high {
                let middle = (low + high) / 2
                if ids[middle] < id { low = middle + 1 } else { high = middle }
            }
            return low < ids.count && ids[low] == id ? low : nil
        }
    }
}
