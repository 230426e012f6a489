import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as soon as a request's head arrives, so a
/// client that asks before sending a large body sends it at once. curl asks for every upload
/// over 1 MB (`curl --data-binary @big.csv …/api/tables?name=big`) and otherwise waits a
/// second for the answer; Hummingbird doesn't send one itself. Limits still hold: a body over
/// its route's limit is refused with 413 while it is read.
///
/// Written by hand because neither Hummingbird nor SwiftNIO has such a handler; NIO's HTTP/1
/// pipeline passes informational (1xx) heads through before the response.
final class _ContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data), Self.expectsContinue(request) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }

    /// Whether the request asks for `100 Continue` (the only expectation HTTP defines; any
    /// other is ignored, as RFC 9110 allows).
    static func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .expect].contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
    }
}
