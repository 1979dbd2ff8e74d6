// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoServer
import ImagoTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// Slow and idle clients: the request-head deadline, the keep-alive timeout and the connection
/// cap, on raw loopback connections.
@Suite("Slow and idle clients", .serialized)
struct SlowClientTests {
    /// A raw TCP connection to the service: what it received, and when the server closed it.
    final class RawClient: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = Mutex("")
        let channel: Mutex<(any Channel)?> = Mutex(nil)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLock { $0 += String(buffer: buffer) }
        }

        static func connect(port: Int) async throws -> (RawClient, any Channel) {
            let client = RawClient()
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(client) }
                }
                .connect(host: "127.0.0.1", port: port).get()
            return (client, channel)
        }

        /// Seconds until the server closes the connection (at most `limit`), or `nil`.
        static func secondsUntilClosed(_ channel: any Channel, limit: Double = 30) async -> Double? {
            let start = ContinuousClock.now
            while channel.isActive {
                if ContinuousClock.now - start > .seconds(limit) { return nil }
                try? await Task.sleep(for: .milliseconds(20))
            }
            let d = (ContinuousClock.now - start).components
            return Double(d.seconds) + Double(d.attoseconds) / 1e18
        }
    }

    static let request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("a request head that stops half-way, or trickles a byte at a time, is cut at IMAGO_READ_REQUEST_TIMEOUT")
    func headDeadline() async throws {
        try await ServiceHarness.with({ $0.http.readRequestTimeout = .seconds(2) }) { h in
            let port = try #require(URL(string: h.base)?.port)
            // Timed from before the connection opens: the server's clock starts later (at the
            // accept), so a loaded machine's slow connect or write cannot make it look early.
            let opened = ContinuousClock.now
            let (_, half) = try await RawClient.connect(port: port)
            // On a machine loaded enough to hold this task past the deadline the server has
            // closed already, which is right too, as long as the deadline had passed.
            let wrote = (try? await half.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHo"))) != nil
            // The upper bound is timed from the write, after the accept that started the server's
            // clock: a connect held up on a loaded machine (the event loops are every test's)
            // does not count against it. The default deadline (10 s) must not be what cut it.
            let afterWrite = wrote ? try #require(await RawClient.secondsUntilClosed(half), "a half head kept its connection open") : 0
            let elapsed = (ContinuousClock.now - opened).components
            let halfClosed = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            #expect(halfClosed > 1.9 && afterWrite < 9.5, "\(halfClosed) s from the connect, \(afterWrite) s from the write")

            // Activity does not reset the clock: only a complete head does.
            let (_, trickle) = try await RawClient.connect(port: port)
            let writer = Task {
                for byte in "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
                    guard trickle.isActive else { break }
                    try? await trickle.writeAndFlush(ByteBuffer(string: String(byte)))
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let trickleClosed = try #require(await RawClient.secondsUntilClosed(trickle), "a trickled head kept its connection open")
            #expect(trickleClosed < 10, "\(trickleClosed)")
            writer.cancel()

            // A head that arrives in time is answered, whatever came before. On a machine loaded
            // enough to hold this task past the 2-s deadline between the connect and the write,
            // the server has rightly cut the connection: that try does not count.
            var answered: RawClient?
            for _ in 0..<5 where answered == nil {
                let connected = ContinuousClock.now
                let (client, prompt) = try await RawClient.connect(port: port)
                do {
                    try await prompt.writeAndFlush(ByteBuffer(string: Self.request))
                    answered = client
                } catch  where ContinuousClock.now - connected >= .seconds(1.9) {
                    continue
                }
            }
            let client = try #require(answered, "no prompt head got through in five tries")
            try await eventually(.seconds(30)) { client.received.withLock { $0.hasPrefix("HTTP/1.1 200") } }
        }
    }

    @Test("an idle keep-alive connection is closed after IMAGO_KEEP_ALIVE_TIMEOUT; 0 closes after each answer")
    func keepAlive() async throws {
        try await ServiceHarness.with({ $0.http.keepAliveTimeout = .seconds(2) }) { h in
            let port = try #require(URL(string: h.base)?.port)
            // Still open for a second request within the timeout. Timed from before that request
            // is written: the server's idle clock starts later (after its answer), so a loaded
            // machine that notices the answer late cannot make the close look early. A machine
            // loaded enough to hold this task 2 s past the first answer sees the connection
            // rightly closed before the second request: that try does not count.
            var kept: (channel: any Channel, asked: ContinuousClock.Instant)?
            for _ in 0..<5 where kept == nil {
                let (client, channel) = try await RawClient.connect(port: port)
                try await channel.writeAndFlush(ByteBuffer(string: Self.request))
                try await eventually(.seconds(30)) { client.received.withLock { $0.hasPrefix("HTTP/1.1 200") } }
                let asked = ContinuousClock.now
                do {
                    try await channel.writeAndFlush(ByteBuffer(string: Self.request))
                    try await eventually(.seconds(10)) { client.received.withLock { $0.components(separatedBy: "HTTP/1.1 200").count == 3 } }
                    kept = (channel, asked)
                } catch {
                    channel.close(promise: nil)
                }
            }
            let (channel, asked) = try #require(kept, "no second request was answered on its connection in five tries")
            _ = try #require(await RawClient.secondsUntilClosed(channel), "an idle connection stayed open")
            let elapsed = (ContinuousClock.now - asked).components
            let closed = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            #expect(closed > 1.9 && closed < 12, "\(closed)")
        }
        try await ServiceHarness.with({ $0.http.keepAliveTimeout = .zero }) { h in
            let port = try #require(URL(string: h.base)?.port)
            let (client, channel) = try await RawClient.connect(port: port)
            try await channel.writeAndFlush(ByteBuffer(string: Self.request))
            let closed = try #require(await RawClient.secondsUntilClosed(channel, limit: 10), "the connection outlived its answer")
            #expect(closed < 5)
            #expect(client.received.withLock { $0.hasPrefix("HTTP/1.1 200") })
        }
    }

    @Test("with the connection table nearly full, new connections close the ones waiting longest for a head")
    func eviction() async throws {
        try await ServiceHarness.with({ $0.http.maxClients = 32 }) { h in
            #expect(h.service.connectionLimits.maxConnections == 32)
            let port = try #require(URL(string: h.base)?.port)
            var slow: [any Channel] = []
            for _ in 0..<48 {
                let (_, channel) = try await RawClient.connect(port: port)
                try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\n"))
                slow.append(channel)
            }
            // The oldest were closed to make room; a prompt client is answered at once.
            try await eventually(.seconds(30)) { !slow[0].isActive }
            let started = ContinuousClock.now
            let reply = try await h.get("/health")
            #expect(reply.status == 200)
            #expect(ContinuousClock.now - started < .seconds(2))
            let open = slow.filter(\.isActive).count
            #expect(open <= 31, "\(open) slow connections still open")
            for channel in slow { try? await channel.close() }
        }
    }

    @Test(
        "2,000 half request heads against imago-server limited to 1,024 open files: a normal request is answered within 1 s once the deadline has passed"
    )
    func slowlorisAgainstTheExecutable() async throws {
        let child = try ServerProcessTests.Child(
            arguments: ["--bind", "127.0.0.1:0"],
            environment: ["IMAGO_READ_REQUEST_TIMEOUT": "3"], launcher: ["/usr/bin/prlimit", "--nofile=1024:1024"])
        let port = try await child.port()
        defer { child.process.terminate() }
        var slow: [any Channel] = []
        var refused = 0
        for start in stride(from: 0, to: 2000, by: 100) {
            let batch = await withTaskGroup(of: (any Channel)?.self) { group in
                for _ in start..<(start + 100) {
                    group.addTask {
                        guard let (_, channel) = try? await RawClient.connect(port: port) else { return nil }
                        try? await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
                        return channel
                    }
                }
                var opened: [(any Channel)?] = []
                for await c in group { opened.append(c) }
                return opened
            }
            slow += batch.compactMap { $0 }
            refused += batch.count - batch.compactMap { $0 }.count
        }
        let attacked = ContinuousClock.now
        #expect(slow.count + refused == 2000)
        #expect(child.process.isRunning)
        // Past the deadline every half head has been cut, and a client that sends its request
        // at once is answered at once.
        try await Task.sleep(until: attacked + .seconds(3.2))
        let started = ContinuousClock.now
        let (client, prompt) = try await RawClient.connect(port: port)
        try await prompt.writeAndFlush(ByteBuffer(string: Self.request))
        try await eventually(.seconds(30)) { client.received.withLock { $0.hasPrefix("HTTP/1.1 200") } }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "\(took)")
        try await eventually(.seconds(30)) { slow.allSatisfy { !$0.isActive } }
        #expect(child.process.isRunning)
        #expect(!child.output.withLock { $0 }.contains("Too many open files"))
    }
}
