/// The scalars of UTF-8 bytes (a `String`'s, or a stored cell's), decoded in place; a malformed
/// sequence ends the iteration (``isMalformed``).
struct _UTF8Scalars: Sequence, IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    /// Set when the bytes stop being well-formed UTF-8 (a cell an outside program wrote to
    /// the database): the iteration ends there, and a caller that must not guess gives up.
    private(set) var isMalformed = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func next() -> Unicode.Scalar? {
        guard i < bytes.count, !isMalformed else { return nil }
        let lead = bytes[i]
        if lead < 0x80 {
            i += 1
            return Unicode.Scalar(lead)
        }
        let length = lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 0
        guard length > 0, i + length <= bytes.count, (1..<length).allSatisfy({ bytes[i + $0] & 0xC0 == 0x80 }),
            let scalar = Unicode.Scalar(_decodeUTF8Scalar(bytes, at: i, length: length)),
            scalar.value >= [0, 0, 0x80, 0x800, 0x1_0000][length]
        else {
            isMalformed = true
            return nil
        }
        i += length
        return scalar
    }
}
