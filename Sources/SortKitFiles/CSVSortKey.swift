import Foundation
import SortKit

/// A sort spec compiled for one CSV file: which columns it reads and how each record's fields
/// become one memcmp-ordered byte key, so that comparing two records is one `memcmp` and a
/// spilled run stores its keys next to its records.
///
/// The key is the same order as `TextTable.sortedRowIndices(by:)` gives (the stable sort
/// then ties on input order): per spec key, an `enum=` rank and then the value, each encoded
/// as a null marker (below or above every value, per the null policy), or `0x01` followed by
/// ``SortValue/sortKey(collation:)`` with `0x00` escaped as `00 FF` and ended by `00 00` —
/// prefix-free, so concatenating components keeps their order — and every byte inverted for
/// a descending key.
struct _CSVSortKey: Sendable {
    struct Component: Sendable {
        /// The position of the key's column among the scanned fields.
        var field: Int
        var key: SortSpec.Key
        var type: ColumnType
        /// Whether this component is the key's `enum=` rank (the value follows as its own
        /// component).
        var isRank: Bool

        /// How a plain text value is encoded: the field's text, blank as null, nothing else
        /// done to it. Its key is the collation's key of the field's bytes, built without a
        /// `String` or a `SortValue` (``_CSVSortKey/encode(_:utf8:plain:to:)``).
        struct PlainText {
            let descending: Bool
            /// A blank field's byte: nulls at the high end of the value order, by SortKit's one
            /// null rule, inverted with the rest of a descending key.
            let null: UInt8
        }

        /// The builder of this component's collation keys that ``_CSVSortKey/encode(_:utf8:plain:pieces:to:)``
        /// takes for plain text values (one per thread), or `nil` when they aren't plain text.
        /// The builder keeps at most half of `textBytes` (the text it will encode, at least
        /// 64 KB) of words and keys: what ``_Run/peakBytes(count:recordBytes:valueBytes:fields:components:)``
        /// allows beside the encodings.
        /// With `primariesOnly`, a locale collation's builder writes each key's primary level
        /// alone (``_SortKeyPieces/primariesOnly``).
        func plainKeys(grouping: Bool, textBytes: Int, primariesOnly: Bool = false) -> _SortKeyPieces? {
            plainText(grouping: grouping) == nil
                ? nil : _SortKeyPieces(key.collation, byteLimit: max(64 << 10, textBytes / 2), primariesOnly: primariesOnly)
        }

        /// ``PlainText`` for this component's values, or `nil` when they aren't plain text
        /// (a rank, a transform, a number or date column, a key for grouping).
        func plainText(grouping: Bool) -> PlainText? {
            guard !isRank, !grouping, key.transform == nil, key.enumOrder == nil,
                key.interpretation == .text || (key.interpretation == .inferred && type == .string)
            else { return nil }
            let descending = key.direction == .descending
            let nullsHigh = key.nulls.nullsFirst(key.direction) == descending
            return PlainText(descending: descending, null: nullsHigh != descending ? 0xFF : 0x00)
        }
    }

    let components: [Component]
    /// The file columns the key reads, in scanned-field order.
    let columns: [Int]
    /// Whether ``withTypes(_:)`` gave the inferred fields their types.
    let typesResolved: Bool
    /// Whether strings are encoded without their collation's tie-break
    /// (``SortValue/equivalenceKey(collation:)``): records whose keys are equivalent then have
    /// equal keys, which is how `unique` groups them ("Bob", "bob" and "BOB" under `nocase`).
    var grouping = false

    /// Compiles `spec` for a file with `header`; types are filled in by ``withTypes(_:)``.
    ///
    /// - Throws: `SortSpecError` for a column the file doesn't have.
    init(_ spec: SortSpec, header: [String]) throws {
        let table = TextTable(columns: header, rows: [])
        var columns: [Int] = []
        var components: [Component] = []
        for key in spec.keys {
            let column = try table.columnIndex(key.column)
            let field =
                columns.firstIndex(of: column)
                ?? {
                    columns.append(column); return columns.count - 1
                }()
            if key.enumOrder != nil { components.append(Component(field: field, key: key, type: .string, isRank: true)) }
            components.append(Component(field: field, key: key, type: .string, isRank: false))
        }
        self.columns = columns
        self.components = components
        typesResolved = false
    }

    private init(components: [Component], columns: [Int], grouping: Bool) {
        self.components = components
        self.columns = columns
        self.grouping = grouping
        typesResolved = true
    }

    /// The fields whose column type must be inferred from the whole file first.
    var inferredFields: [Int] {
        components.filter { $0.key.interpretation == .inferred && $0.key.enumOrder == nil }.map(\.field)
    }

    /// The key with inferred column types (`types[field]`) for keys that read by type.
    func withTypes(_ types: [Int: ColumnType]) -> _CSVSortKey {
        _CSVSortKey(
            components: components.map { component in
                var component = component
                if let type = types[component.field], component.key.interpretation == .inferred, component.key.enumOrder == nil {
                    component.type = type
                }
                return component
            }, columns: columns, grouping: grouping)
    }

    /// Encoded components by field text, one dictionary per component: columns repeat values
    /// (authors, statuses), and a collation key costs far more than a lookup.
    typealias Cache = [[String: [UInt8]]]

    /// An empty cache for ``append(_:to:cache:)``.
    var emptyCache: Cache { Array(repeating: [:], count: components.count) }

    /// The key bytes of one record's scanned fields, appended to `bytes`.
    func append(_ fields: [String], to bytes: inout [UInt8], cache: inout Cache) {
        for (number, component) in components.enumerated() {
            let text = fields[component.field]
            if let encoded = cache[number][text] {
                bytes.append(contentsOf: encoded)
                continue
            }
            let start = bytes.count
            encode(component, text, to: &bytes)
            if cache[number].count < 65_536 { cache[number][text] = Array(bytes[start...]) }
        }
    }

    /// Appends the encoding of one value (a field's UTF-8 bytes) for `component`: a plain
    /// text value straight from the bytes with `plain` (``Component/plainText(grouping:)``,
    /// read once per column) and `pieces` (its collation's keys, one builder per thread:
    /// ``Component/plainKeys(grouping:)``), others, and malformed UTF-8 (which the `String` path repairs
    /// before deciding what is blank), through ``encode(_:_:to:)``. `validUTF8`: the caller
    /// knows the field is valid UTF-8 (a field of a record the scanner checked, split at ASCII
    /// bytes), so it isn't checked again.
    func encode(
        _ component: Component, utf8 field: UnsafeBufferPointer<UInt8>, validUTF8: Bool = false, plain: Component.PlainText?,
        pieces: inout _SortKeyPieces?, to bytes: inout [UInt8]
    ) {
        guard let plain, pieces != nil, validUTF8 || _isASCII(field) || _isValidUTF8(field) else {
            encode(component, String(decoding: field, as: UTF8.self), to: &bytes)
            return
        }
        guard !_isBlank(field) else {
            bytes.append(plain.null)
            return
        }
        let start = bytes.count
        bytes.append(0x01)
        SortValue._appendStringSortKey(ofValidUTF8: field, pieces: &pieces!, to: &bytes)
        Self.closeValue(&bytes, from: start, descending: plain.descending)
    }

    /// Ends a value's encoding begun at `start` (0x01, then its key): the key's zeros escaped,
    /// `00 00`, and every byte inverted for a descending key.
    static func closeValue(_ bytes: inout [UInt8], from start: Int, descending: Bool) {
        escapeZeros(&bytes, from: start + 1)
        bytes.append(0)
        bytes.append(0)
        if descending {
            for index in start..<bytes.count { bytes[index] = ~bytes[index] }
        }
    }

    /// Escapes each 0x00 from `start` on as `00 FF`, in place: the zeros found with `memchr`
    /// (a key has one or two), then the stretches between them moved back to front.
    static func escapeZeros(_ bytes: inout [UInt8], from start: Int) {
        let end = bytes.count
        guard start < end else { return }
        // The zeros' positions, found with one pass of `memchr`, in room for every byte (on the
        // stack for a key of ordinary length): a key per record allocated nothing else here.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: end - start) { zeros in
            var count = 0
            bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                var at = start
                while at < end, let hit = memchr(base + at, 0, end - at) {
                    zeros[count] = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    at = zeros[count] + 1
                    count += 1
                }
            }
            guard count > 0 else { return }
            bytes.append(contentsOf: repeatElement(0, count: count))
            bytes.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                // Each stretch after a zero moves right by the number of zeros up to it.
                var stretchEnd = end
                for k in stride(from: count - 1, through: 0, by: -1) {
                    let zero = zeros[k], shift = k + 1
                    (base + zero + 1 + shift).update(from: base + zero + 1, count: stretchEnd - zero - 1)
                    base[zero + shift] = 0xFF
                    base[zero + k] = 0
                    stretchEnd = zero
                }
            }
        }
    }

    /// Appends the encoding of one value (a field's text) for `component`.
    func encode(_ component: Component, _ text: String, to bytes: inout [UInt8]) {
        let key = component.key
        var value = key.sortValue(of: text, columnType: component.type)
        if component.isRank { value = key.enumRank(of: value) ?? .null }
        let start = bytes.count
        let descending = key.direction == .descending
        // Nulls at the high end of the value order, by SortKit's one null rule.
        let nullsHigh = key.nulls.nullsFirst(key.direction) == descending
        let collation = component.isRank ? .default : key.collation
        if let valueKey = grouping ? value.equivalenceKey(collation: collation) : value.sortKey(collation: collation) {
            bytes.append(0x01)
            bytes.append(contentsOf: valueKey)
            Self.closeValue(&bytes, from: start, descending: descending)
        } else {
            bytes.append(nullsHigh != descending ? 0xFF : 0x00)
        }
    }
}
