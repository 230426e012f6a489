import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SortKit
import SortKitSQL

/// An error with the HTTP status and message a client sees as `{"error": "..."}`.
struct APIError: Error {
    var status: HTTPResponse.Status
    var message: String

    static func badRequest(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }

    /// Whether the error is a bug or a failure the client can't act on: its details go to the
    /// log, never to the client.
    var isInternal = false
    /// Whether the request was refused for running over the query budget (counted in /metrics).
    var isBudgetRefusal = false

    /// The status and message for any error the handlers throw. Messages of store and parser
    /// errors name the client's mistake; anything else is internal (500, no details).
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as TableStoreError:
            switch error.kind {
            case .notFound: self.init(status: .notFound, message: error.description)
            case .invalid: self.init(status: .badRequest, message: error.description)
            case .conflict: self.init(status: .conflict, message: error.description)
            case .timedOut:
                self.init(status: .serviceUnavailable, message: error.description)
                isBudgetRefusal = !Task.isCancelled
            case .unavailable: self.init(status: .serviceUnavailable, message: error.description)
            case .internal: self.init(status: .internalServerError, message: error.description, isInternal: true)
            }
        case let error as SortSpecError: self.init(status: .badRequest, message: error.description)
        case let error as CSVError: self.init(status: .badRequest, message: error.description)
        default:
            // A database library's error (a busy SQLite file, a lost connection) is the store
            // error it stands for; anything else is a bug.
            if let mapped = TableStoreError.classifying(error) {
                self.init(mapped)
            } else {
                self.init(status: .internalServerError, message: String(describing: error), isInternal: true)
            }
        }
    }

    init(status: HTTPResponse.Status, message: String, isInternal: Bool = false) {
        self.status = status
        self.message = message
        self.isInternal = isInternal
    }

    /// `{"error": …}` for this error. An internal error's details, and a 503's, are logged
    /// under a request id, which the client gets (an internal one gets nothing else).
    func response(logger: Logger) -> Response {
        guard isInternal || status == .serviceUnavailable else { return Reply.error(status, message) }
        // Hummingbird's per-request id, which its log lines for the request carry too.
        let id = logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? String(UInt64.random(in: 0...UInt64.max), radix: 16)
        logger.error("request \(id): \(status.code) \(message)")
        let shown = isInternal ? "internal error; the server's log has the details under request id \(id)" : message
        return Reply.json(.object([("error", .string(shown)), ("request", .string(id))]), status: status).response
    }
}

/// A reply body and its type.
enum Reply {
    case json(JSON, status: HTTPResponse.Status = .ok)
    case html(String, status: HTTPResponse.Status = .ok)
    case empty

    /// `{"error": message}` with `status`.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Reply.json(.object([("error", .string(message))]), status: status).response
    }

    var response: Response {
        switch self {
        case .json(let json, let status):
            Response(
                status: status, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: json.bytes)))
        case .html(let html, let status):
            Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: html)))
        case .empty:
            Response(status: .noContent)
        }
    }
}
