// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import NIOCore
import Synchronization

/// Whether the client of one connection is still there, and who to tell when it goes.
///
/// A client that closes its connection (or only its sending side, as Go's `net/http` and
/// imgproxy also read it) will never read the answer, so the service cancels that request's
/// work: a download nobody else shares stops, and a decode still waiting for a worker is
/// dropped without running.
final class ClientConnection: Sendable {
    private struct State {
        var gone = false
        var next = 0
        var observers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// Calls `observer` once when the client goes (at once if it already has); the token
    /// removes it.
    func onGone(_ observer: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { s -> Int? in
            guard !s.gone else { return nil }
            s.next += 1
            s.observers[s.next] = observer
            return s.next
        }
        if token == nil { observer() }
        return token
    }

    /// Forgets an observer (its request finished).
    func remove(_ token: Int?) {
        guard let token else { return }
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    /// The client went: every observer is told, once.
    func markGone() {
        let observers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.gone else { return [] }
            s.gone = true
            defer { s.observers = [:] }
            return Array(s.observers.values)
        }
        for o in observers { o() }
    }

    var isGone: Bool { state.withLock { $0.gone } }
}

/// The open connections of one service, by channel, so that a request (which sees only its
/// channel) finds its ``ClientConnection``.
final class ClientConnections: Sendable {
    private let open = Mutex([ObjectIdentifier: ClientConnection]())

    func register(_ channel: ObjectIdentifier) -> ClientConnection {
        let connection = ClientConnection()
        open.withLock { $0[channel] = connection }
        return connection
    }

    func remove(_ channel: ObjectIdentifier) {
        _ = open.withLock { $0.removeValue(forKey: channel) }
    }

    func connection(_ channel: ObjectIdentifier) -> ClientConnection? {
        open.withLock { $0[channel] }
    }

    var count: Int { open.withLock { $0.count } }
}

/// Sits in each connection's pipeline after the HTTP decoding and marks the connection's
/// client gone on end of input (`inputClosed`: Hummingbird allows half-closed connections) or
/// when the channel closes.
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let connections: ClientConnections
    private var connection: ClientConnection?
    private var channelID: ObjectIdentifier?

    init(connections: ClientConnections) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let id = ObjectIdentifier(context.channel)
        channelID = id
        connection = connections.register(id)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection?.markGone()
        if let channelID { connections.remove(channelID) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent { connection?.markGone() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.markGone()
        if let channelID { connections.remove(channelID) }
        context.fireChannelInactive()
    }
}
