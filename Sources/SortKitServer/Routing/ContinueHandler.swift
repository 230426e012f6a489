import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as soon as the request's response may
/// start, so a client that asks before sending a large body sends it at once. curl asks for
/// every upload over 1 MB (`curl --data-binary @big.csv …/api/tables?name=big`) and otherwise
/// waits a second for the answer; Hummingbird doesn't send one itself. Limits still hold: a
/// body over its route's limit is refused with 413 while it is read.
///
/// On a connection with pipelined requests the `100 Continue` of a later request waits until
/// every earlier response has ended: sent in the middle of one, it would be read as part of it.
/// (HTTP/1.0 clients, which must get no 1xx, don't send `Expect`; the request version isn't
/// visible after the HTTP/1 codec.)
///
/// Written by hand because neither Hummingbird nor SwiftNIO has such a handler; NIO's HTTP/1
/// pipeline passes informational (1xx) heads through before the response.
final class _ContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Per request whose response hasn't ended, in order: whether it still waits for its
    /// `100 Continue`.
    private var unanswered: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            unanswered.append(Self.expectsContinue(request))
            if unanswered.count == 1 { continueFirst(context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        context.write(data, promise: promise)
        // A response ended: the next one may start, with its 100 Continue first.
        if case .end = part, !unanswered.isEmpty {
            unanswered.removeFirst()
            continueFirst(context)
        }
    }

    /// Sends the first waiting request's `100 Continue`, if it asked for one.
    private func continueFirst(_ context: ChannelHandlerContext) {
        guard unanswered.first == true else { return }
        unanswered[0] = false
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    /// Whether the request asks for `100 Continue` (the only expectation HTTP defines; any
    /// other is ignored, as RFC 9110 allows).
    static func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .expect].contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
    }
}
