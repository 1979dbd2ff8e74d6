// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How long a connection may wait for a request's head, how long it may idle between requests,
/// and how many may be open: what keeps slow and idle clients from holding the server's file
/// descriptors.
public struct ConnectionLimits: Sendable, Equatable {
    /// Time from a connection's opening to the end of its first request's head
    /// (`IMAGO_READ_REQUEST_TIMEOUT`).
    public var readRequestTimeout: Duration
    /// Time from the end of an answer to the end of the next request's head on the same
    /// connection (`IMAGO_KEEP_ALIVE_TIMEOUT`); zero closes each connection after its answer.
    public var keepAliveTimeout: Duration
    /// Connections open at once; past it the server stops accepting until one closes.
    public var maxConnections: Int

    /// Creates limits.
    public init(readRequestTimeout: Duration, keepAliveTimeout: Duration, maxConnections: Int) {
        self.readRequestTimeout = readRequestTimeout
        self.keepAliveTimeout = keepAliveTimeout
        self.maxConnections = maxConnections
    }

    /// From this many open connections on, each new one closes the connection that has waited
    /// longest for a request head (a slow client, or an idle keep-alive one), as nginx reuses
    /// idle connections when it runs out: clients that send their request at once are served
    /// even while slow ones fill the table.
    var evictionThreshold: Int { max(1, maxConnections - max(1, maxConnections / 16)) }

    /// This process's limit of open files now (`RLIMIT_NOFILE`'s soft value), which bounds the
    /// connections; `nil` when unlimited or unknown. Raising it is the process's decision
    /// (`imago-server` raises it to the hard limit at start, as Go's runtime does for imgproxy).
    static var openFilesLimit: Int? {
        #if canImport(Glibc)
        var limit = rlimit()
        // RLIM_INFINITY is all ones, past Int32.max like any limit too large to count on.
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur <= rlim_t(Int32.max) else { return nil }
        return Int(limit.rlim_cur)
        #else
        return nil
        #endif
    }
}

/// The connections waiting for a request head, oldest first out, shared by every connection's
/// ``ConnectionGuardHandler``.
final class WaitingConnections: Sendable {
    private struct Entry {
        var channel: any Channel
        var since: NIODeadline
    }

    private struct State {
        var open = 0
        var waiting: [ObjectIdentifier: Entry] = [:]
    }

    let limits: ConnectionLimits
    private let state = Mutex(State())

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// A connection opened (waiting for its first head); past the eviction threshold the one
    /// that has waited longest is closed.
    func opened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let victim = state.withLock { s -> (any Channel)? in
            s.open += 1
            s.waiting[id] = Entry(channel: channel, since: .now())
            guard s.open > limits.evictionThreshold else { return nil }
            guard let oldest = s.waiting.filter({ $0.key != id }).min(by: { $0.value.since < $1.value.since }) else { return nil }
            s.waiting.removeValue(forKey: oldest.key)
            return oldest.value.channel
        }
        victim?.close(promise: nil)
    }

    /// The connection waits for a head again (an answer ended), or no longer (`waiting` false).
    func setWaiting(_ channel: any Channel, _ waiting: Bool) {
        let id = ObjectIdentifier(channel)
        state.withLock { s in
            if waiting {
                s.waiting[id] = Entry(channel: channel, since: .now())
            } else {
                s.waiting.removeValue(forKey: id)
            }
        }
    }

    func closed(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { s in
            s.open -= 1
            s.waiting.removeValue(forKey: id)
        }
    }

    /// Open connections (tests read it).
    var openCount: Int { state.withLock { $0.open } }
}

/// Closes a connection whose request head has not arrived in time: within
/// ``ConnectionLimits/readRequestTimeout`` of its opening, or within
/// ``ConnectionLimits/keepAliveTimeout`` of its last answer. Hummingbird's own idle timeout
/// restarts on every request part, so a client trickling a body would keep a connection open
/// forever; here only a complete head stops the clock, and a connection answering a request
/// (the request's own deadline governs it) has none.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let table: WaitingConnections
    private var inFlight = 0
    private var deadline: Scheduled<Void>?
    private var registered = false

    init(table: WaitingConnections) {
        self.table = table
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !registered else { return }
        registered = true
        table.opened(context.channel)
        arm(context, table.limits.readRequestTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }

    private func finish(_ context: ChannelHandlerContext) {
        disarm()
        guard registered else { return }
        registered = false
        table.closed(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inFlight += 1
            disarm()
            table.setWaiting(context.channel, false)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(var head) = part, table.limits.keepAliveTimeout <= .zero {
            // No keep-alive: say so, so a proxy does not reuse the connection.
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        }
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        inFlight = max(0, inFlight - 1)
        guard inFlight == 0, registered else {
            context.write(data, promise: promise)
            return
        }
        if table.limits.keepAliveTimeout <= .zero {
            // Closed once the answer is out: closing at once would cut what is still queued.
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            return
        }
        context.write(data, promise: promise)
        table.setWaiting(context.channel, true)
        arm(context, table.limits.keepAliveTimeout)
    }

    private func arm(_ context: ChannelHandlerContext, _ after: Duration) {
        disarm()
        let loop = context.eventLoop.assumeIsolated()
        // At most a day: long enough for any setting, and no overflow.
        let nanoseconds = min(after.components.seconds, 86_400) * 1_000_000_000 + after.components.attoseconds / 1_000_000_000
        deadline = loop.scheduleTask(in: .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, self.inFlight == 0 else { return }
            self.deadline = nil
            context.close(promise: nil)
        }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
