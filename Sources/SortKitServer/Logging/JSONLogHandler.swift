import Foundation
import Logging
import Synchronization

/// A `LogHandler` that writes one JSON object per line — what log shippers (Vector, Fluent Bit,
/// Loki, CloudWatch) read without a parsing rule. `sortkit serve --log-format json` uses it.
///
/// Each line has `time` (ISO 8601, UTC, milliseconds), `level`, `label` and `message`, then the
/// metadata as fields: a request's line carries `request_id`, `method`, `route` (the matched
/// pattern, as `/api/tables/{table}/rows`), `status`, `duration_ms` and `table`. Integer and
/// decimal metadata stay JSON numbers; a message or value with line ends stays on one line.
///
///     LoggingSystem.bootstrap { JSONLogHandler.standardError(label: $0) }
///     Logger(label: "sortkit").info("ready", metadata: ["port": "8080"])
///     // {"time":"2026-11-27T08:00:00.000Z","level":"info","label":"sortkit","message":"ready","port":"8080"}
///
/// Written by hand: none of the logging packages this project can depend on writes JSON lines.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    /// A handler for `label` that passes each line (with its line end) to `write`.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.init(label: label, metadataProvider: metadataProvider, bytes: { write(String(decoding: $0, as: UTF8.self)) })
    }

    /// A handler for `label` that passes each line (with its line end) to `bytes` as UTF-8.
    init(label: String, metadataProvider: Logger.MetadataProvider?, bytes: @escaping @Sendable ([UInt8]) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = bytes
    }

    /// A handler writing to standard error, one `write(2)` per line (lines of several threads
    /// don't interleave).
    public static func standardError(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> JSONLogHandler {
        JSONLogHandler(label: label, metadataProvider: metadataProvider) { (line: [UInt8]) in
            // One writer at a time (a line over PIPE_BUF could interleave otherwise), and a failed
            // write (a full disk) loses the line instead of stopping the server.
            standardErrorLock.withLock { _ in _ = try? FileHandle.standardError.write(contentsOf: line) }
        }
    }

    private static let standardErrorLock = Mutex(())

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let given = event.metadata { fields.merge(given) { _, new in new } }
        var line: [UInt8] = []
        line.reserveCapacity(320)
        line += #"{"time":""#.utf8
        Self.appendTime(to: &line)
        line += #"","level":"#.utf8
        JSON.writeString(event.level.rawValue, to: &line)
        line += #","label":"#.utf8
        JSON.writeString(label, to: &line)
        line += #","message":"#.utf8
        JSON.writeString(event.message.description, to: &line)
        if let error = event.error {
            line += #","error":"#.utf8
            JSON.writeString(String(describing: error), to: &line)
        }
        for key in fields.keys.sorted() {
            // A metadata key named like a field of every line is written as `meta.KEY`.
            let name = Self.fieldNames[key] ?? key
            line.append(UInt8(ascii: ","))
            JSON.writeString(Self.reserved.contains(name) ? "meta." + name : name, to: &line)
            line.append(UInt8(ascii: ":"))
            Self.append(fields[key]!, to: &line)
        }
        line += "}\n".utf8
        write(line)
    }

    /// Now, in UTC to the millisecond: `2026-11-27T08:00:00.123Z`. By hand from the C clock:
    /// Foundation's `ISO8601FormatStyle` took longer than the rest of the line.
    static func appendTime(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1_900, 4)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        line.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        line.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        line.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        line.append(UInt8(ascii: "."))
        digits(now.tv_nsec / 1_000_000, 3)
        line.append(UInt8(ascii: "Z"))
    }

    /// The fields every line has; metadata of the same name is written as `meta.NAME`.
    private static let reserved: Set<String> = ["time", "level", "label", "message", "error"]
    /// Metadata keys written under another name: Hummingbird's request id.
    private static let fieldNames = ["hb.request.id": "request_id"]

    private static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text):
            JSON.writeString(text, to: &line)
        case .stringConvertible(let value):
            switch value {
            case let number as Int: line += String(number).utf8
            case let number as Int64: line += String(number).utf8
            case let number as UInt: line += String(number).utf8
            case let number as Double where number.isFinite: line += String(number).utf8
            case let flag as Bool: line += (flag ? "true" : "false").utf8
            default: JSON.writeString(value.description, to: &line)
            }
        case .array(let values):
            line.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                append(value, to: &line)
            }
            line.append(UInt8(ascii: "]"))
        case .dictionary(let values):
            line.append(UInt8(ascii: "{"))
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                JSON.writeString(key, to: &line)
                line.append(UInt8(ascii: ":"))
                append(values[key]!, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
    }
}
