import ArgumentParser

/// A size given on the command line: `256M`, `2G`, `512k` or plain bytes.
enum ByteSize {
    /// The bytes `text` names, at least `minimum`; the error names `option`.
    ///
    ///     try ByteSize.parse("256M", option: "--max-memory")   // 268435456
    ///     try ByteSize.parse("99999999999G", option: "--max-memory")   // throws: too large
    static func parse(_ text: String, option: String, minimum: Int = 1) throws -> Int {
        let units: [Character: Int] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30, "t": 1 << 40, "T": 1 << 40]
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value > 0 else {
            throw ValidationError("\(option) must be a size like 256M, 2G or 1000000, got '\(text.prefix(40))'")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: unit)
        guard !overflow else { throw ValidationError("\(option) \(text.prefix(40)) is more bytes than this machine can count") }
        guard bytes >= minimum else { throw ValidationError("\(option) must be at least \(minimum) bytes, got '\(text.prefix(40))'") }
        return bytes
    }
}
