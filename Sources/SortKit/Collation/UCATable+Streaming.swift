// The collation elements of text whose letters weigh alone, produced one scalar at a time:
// what a comparison reads until it is decided, and a key written without the general path's
// arrays (LocaleCollation's comparePrimaries and appendStreamedSortKey).

extension _UCATable {
    /// How ``streamElements(of:numeric:_:)`` ended.
    enum PrimaryStream {
        /// The body asked to stop.
        case stopped
        /// Every scalar was weighed.
        case ended
        /// A scalar whose weights depend on what follows it, or that needs normalizing: the
        /// text takes the general path from its start.
        case unsure
    }

    /// Feeds `body` the non-zero primaries of the leading scalars of valid UTF-8 text that
    /// weigh alone (see ``streamElements(of:numeric:_:)``). `body` returns `true` to stop.
    @inline(__always)
    func streamLeadingPrimaries(of bytes: UnsafeBufferPointer<UInt8>, numeric: Bool, _ body: (UInt32) -> Bool) -> PrimaryStream {
        streamElements(of: bytes, numeric: numeric) { element in
            let p = UInt32(element >> 32)
            return p != 0 && body(p)
        }
    }

    /// Feeds `body` the collation elements of the leading scalars of valid UTF-8 text, as
    /// long as each scalar weighs alone: a starter that needs no normalizing, not followed by
    /// a non-starter or a Hangul syllable, that begins no contraction with the scalar after it
    /// (the table's pairs) nor one that goes on with a starter (entry flag 0x80),
    /// not a precomposed letter before a scalar that continues a contraction, not a digit
    /// under `numeric`. Those are the elements ``appendElements(of:numeric:to:)`` gives such a
    /// scalar, so a comparison decided on them needn't read the rest. `body` returns `true`
    /// to stop. Tables with contexts or shifted variables aren't streamed (`unsure` at once).
    func streamElements(of bytes: UnsafeBufferPointer<UInt8>, numeric: Bool, _ body: (Element) -> Bool) -> PrimaryStream {
        guard !hasContexts, shiftedBelow == 0 else { return .unsure }
        var scalars = _UTF8Scalars(bytes)
        var current = scalars.next()?.value
        var entry = current.map(slot) ?? 0
        while let value = current {
            if !isPlainStarter(value, entry: entry) { return .unsure }
            if numeric && Self.digitValue(value) != nil { return .unsure }
            let next = scalars.next()?.value
            // A contraction that goes on with a starter may begin here, also in this letter's
            // or the next one's decomposition (Danish "A" + "â" is "Aa" + U+0302):
            // ``appendStarters(of:to:)`` sends such text to NFD. An ASCII letter before an
            // ASCII scalar or the end decomposes to nothing else, so only a pair of the two
            // (checked below) can go on: root's "L·" left every English word in L unsure.
            if entry & 0x80 != 0 && (value >= 0x80 || (next ?? 0) >= 0x80) { return .unsure }
            var nextEntry: UInt32 = 0
            if let next {
                // A non-starter after this scalar may extend a contraction that begins here:
                // the next scalar is checked before this one's elements go out.
                nextEntry = slot(next)
                if !isPlainStarter(next, entry: nextEntry) { return .unsure }
                if entry & 1 != 0 && pairs.contains(UInt64(value) << 32 | UInt64(next)) { return .unsure }
                if value >= 0xC0 && nextEntry & 0x100 != 0 { return .unsure }
            }
            let count = Int(entry >> 1) & 0x3F
            if entry == 0 || count == 0 {
                let (lead, trail) = implicitPrimaries(value)
                if body(UInt64(lead) << 32 | UInt64(implicitLevels.0) << 16 | UInt64(implicitLevels.1)) { return .stopped }
                if body(UInt64(trail) << 32) { return .stopped }
            } else {
                let start = Int(entry >> 9)
                for k in start..<(start + count) where body(pool[k]) {
                    return .stopped
                }
            }
            current = next
            entry = nextEntry
        }
        return scalars.isMalformed ? .unsure : .ended
    }
}
