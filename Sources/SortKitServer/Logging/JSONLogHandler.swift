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
    private let write: @Sendable (String) -> Void

    /// A handler for `label` that passes each line (with its line end) to `write`.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// A handler writing to standard error, one `write(2)` per line (lines of several threads
    /// don't interleave).
    public static func standardError(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> JSONLogHandler {
        JSONLogHandler(label: label, metadataProvider: metadataProvider) { line in
            // One writer at a time (a line over PIPE_BUF could interleave otherwise), and a failed
            // write (a full disk) loses the line instead of stopping the server.
            standardErrorLock.withLock { _ in _ = try? FileHandle.standardError.write(contentsOf: Data(line.utf8)) }
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
        var line = "{\"time\":"
        Self.appendString(Date().formatted(Self.time), to: &line)
        line += ",\"level\":"
        Self.appendString(event.level.rawValue, to: &line)
        line += ",\"label\":"
        Self.appendString(label, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        if let error = event.error {
            line += ",\"error\":"
            Self.appendString(String(describing: error), to: &line)
        }
        for key in fields.keys.sorted() {
            // A metadata key named like a field of every line is written as `meta.KEY`.
            let name = Self.fieldNames[key] ?? key
            line += ","
            Self.appendString(Self.reserved.contains(name) ? "meta." + name : name, to: &line)
            line += ":"
            Self.append(fields[key]!, to: &line)
        }
        line += "}\n"
        write(line)
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    /// The fields every line has; metadata of the same name is written as `meta.NAME`.
    private static let reserved: Set<String> = ["time", "level", "label", "message", "error"]
    /// Metadata keys written under another name: Hummingbird's request id.
    private static let fieldNames = ["hb.request.id": "request_id"]

    private static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &line)
        case .stringConvertible(let value):
            switch value {
            case let number as Int: line += String(number)
            case let number as Int64: line += String(number)
            case let number as UInt: line += String(number)
            case let number as Double where number.isFinite: line += String(number)
            case let flag as Bool: line += flag ? "true" : "false"
            default: appendString(value.description, to: &line)
            }
        case .array(let values):
            line += "["
            for (index, value) in values.enumerated() {
                if index > 0 { line += "," }
                append(value, to: &line)
            }
            line += "]"
        case .dictionary(let values):
            line += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                append(values[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string literal (the API's writer: walked by Unicode scalar, quotes, backslashes
    /// and control characters escaped), so a line is always one line of valid JSON.
    private static func appendString(_ text: String, to line: inout String) {
        JSON.writeString(text, to: &line)
    }
}
