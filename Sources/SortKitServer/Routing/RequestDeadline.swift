import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request doesn't arrive whole within a deadline, counted from
/// when the connection starts waiting for it (opened, or the previous response ended) to the
/// request's last body byte.
///
/// The idle timeout alone doesn't bound this: a client that sends a byte every two seconds is
/// never idle. A route reads its body within ``RequestLimits/bodyTimeout``, but a route that
/// answers early (a 415, a 404) leaves the rest of the body to be drained by the server, which
/// kept such a connection open as long as the bytes trickled in. While a request is being
/// handled (all of it received, its response not ended) the clock is stopped: a long import
/// or a long download isn't cut.
///
/// Written by hand because neither Hummingbird nor SwiftNIO has such a handler (NIO's
/// `IdleStateHandler` restarts at every read).
final class _RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?
    /// Requests whose head arrived and whose response hasn't ended.
    private var pending = 0
    /// Whether a request's head arrived and its end not yet.
    private var receiving = false

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            receiving = true
            pending += 1
            // The clock runs from when the connection started waiting for this request.
            if timer == nil { arm(context) }
        case .body:
            break
        case .end:
            receiving = false
            // Handled now, unless it was answered already: then the next request is awaited.
            if pending > 0 { disarm() } else { arm(context) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            pending = max(0, pending - 1)
            // Waiting for the next request; a body still arriving keeps its running clock.
            if pending == 0, !receiving { arm(context) }
        }
        context.write(data, promise: promise)
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) {
            channel.close(promise: nil)
        }
    }
}
