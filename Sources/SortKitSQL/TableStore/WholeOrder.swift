import Foundation
import SortKit

/// Every scanned row of an order SortKit computes, for its ids in order (a kept order's build,
/// ``_SQLTableStore/keepOrder(of:_:)``): each row's terms are written as one byte string whose
/// `memcmp` order is ``_ComputedSelection``'s order of the terms, into one arena, and the
/// strings are sorted by SortKit's byte-key sort (radix, on every core).
///
/// ``_ComputedSelection`` holding every row would keep an array of values per row: a 1M-row
/// build by `title:locale=sv` peaked at 381 MB that way. Here a row takes its key bytes, an
/// end and an id.
///
/// The encoding, per term, complemented when the term is descending: NULL `00`; an integer
/// `01` and its 8 bytes big-endian with the sign bit flipped; bytes `03`, each byte (`00` as
/// `00 FF`), then `00 00`, so that a proper prefix sorts first. PostgreSQL's terms are bytes
/// and integers; a double or text (which SQL compares otherwise) makes ``sortedIDs()`` `nil`.
///
///     var order = _WholeOrder(descending: [true, false], computing: [:])
///     order.add([.integer(3), .integer(10)])
///     order.add([.integer(5), .integer(11)])
///     order.sortedIDs()   // [11, 10]
struct _WholeOrder: Sendable {
    /// Each term's direction (the id's last).
    let descending: [Bool]
    /// The terms computed from text, by position.
    let computing: [Int: SQLOrdering.ComputedTerm]
    private var keys = _ByteArena()
    private var ids: [Int64] = []
    /// Whether every term could be written.
    private var encodable = true
    /// The key of a cursor's row: only rows after it are kept.
    private var after: [UInt8]?

    /// An order of terms in `descending` directions, those in `computing` computed from their
    /// column's text; with `after` (a cursor's terms, computed, its id last), of the rows after it.
    init(descending: [Bool], computing: [Int: SQLOrdering.ComputedTerm], after: [SQLValue]? = nil) {
        (self.descending, self.computing) = (descending, computing)
        if let after {
            var key: [UInt8] = []
            encodable = Self.encode(after, descending: descending, into: &key)
            self.after = key
        }
    }

    /// Adds a scanned row: its terms, computed ones as their column's text, the id last.
    mutating func add(_ scanned: [SQLValue]) {
        var terms = scanned
        for (index, term) in computing { terms[index] = term.value(of: terms[index].cell) }
        add(terms: terms)
    }

    /// Adds a row's terms, every one as it compares (computed already), the id last; a row not
    /// after the cursor is left out.
    mutating func add(terms: [SQLValue]) {
        let start = keys.bytes.count
        encodable = Self.encode(terms, descending: descending, into: &keys.bytes) && encodable
        if let after, !after.lexicographicallyPrecedes(keys.bytes[start...]) {
            keys.bytes.removeSubrange(start...)
            return
        }
        keys.close()
        ids.append(terms.last?.integer ?? 0)
    }

    /// Appends `terms`' key to `bytes`; `false` if a term was a double or text.
    private static func encode(_ terms: [SQLValue], descending: [Bool], into bytes: inout [UInt8]) -> Bool {
        var encodable = true
        for (index, term) in terms.enumerated() {
            let start = bytes.count
            switch term {
            case .null: bytes.append(0)
            case .integer(let value):
                bytes.append(1)
                withUnsafeBytes(of: (UInt64(bitPattern: value) ^ (1 << 63)).bigEndian) { bytes.append(contentsOf: $0) }
            case .blob(let blob):
                bytes.append(3)
                for byte in blob {
                    bytes.append(byte)
                    if byte == 0 { bytes.append(0xFF) }
                }
                bytes.append(contentsOf: [0, 0])
            case .double, .text: encodable = false
            }
            if index < descending.count, descending[index] {
                for position in start..<bytes.count { bytes[position] = ~bytes[position] }
            }
        }
        return encodable
    }

    /// The rows' ids in order; `nil` if a term was a double or text.
    func sortedIDs() -> [Int64]? {
        guard encodable else { return nil }
        return _sortByteKeys(keys).map { ids[$0] }
    }
}
