// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCoders
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer
@testable import ImagoServerCLI

@Suite("IMAGO_NETWORK (imgproxy's IMGPROXY_NETWORK): a Unix socket for a proxy beside it, or one IP version")
struct ListenNetworkTests {
    @Test("unix: the service answers on a socket at IMAGO_BIND's path, images included")
    func unixSocket() async throws {
        let origin = try await TestHTTPServer.start()
        origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 30))
        let directory = try TestFiles.temporaryDirectory("imago-unix")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.http.network = .unix
        configuration.http.bind = directory.appendingPathComponent("imago.sock").path
        configuration.cache.cacheDirectory = directory.path
        configuration.security.allowLoopbackSources = true
        // Patient, as the harness is: the whole suite may be running beside it.
        configuration.sources.downloadTimeout = .seconds(60)
        configuration.http.requestTimeout = .seconds(120)
        let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent)
        let listening = Mutex<String?>(nil)
        let server = Task {
            try await ImageServer(service: service, logger: ServiceHarness.silent).run(handleSignals: false) { host, _ in
                listening.withLock { $0 = host }
            }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await poll(.seconds(120), every: .milliseconds(10)) { listening.withLock { $0 } != nil }
            #expect(listening.withLock { $0 } == configuration.http.bind)
            let socket = try #require(configuration.http.bind.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed))
            let health = try await client.execute(HTTPClientRequest(url: "http+unix://\(socket)/health"), timeout: .seconds(180))
            let image = try await client.execute(
                HTTPClientRequest(url: "http+unix://\(socket)/_/w:20/plain/http://127.0.0.1:\(origin.port)/img/a.png"), timeout: .seconds(180))
            let body = Data(try await image.body.collect(upTo: 1 << 20).readableBytesView)
            #expect(health.status == .ok && image.status == .ok, "\(health.status) \(image.status) \(String(decoding: body.prefix(300), as: UTF8.self))")
            let decoded = try? ImageCoderRegistry.shared.decode(body)
            #expect(decoded?.frames[0].buffer.size.width == 20)
            // `imago-server health`'s probe finds it at the same settings.
            let bind = configuration.http.bind
            let probe = try await blocking { try HealthProbe.get(path: "/health", host: bind, port: 0, unix: true, timeout: 60) }
            #expect(probe.status == 200)
        } catch {
            Issue.record("\(error)")
        }
        try await client.shutdown()
        server.cancel()
        _ = await server.result
        await origin.stop()
    }

    @Test("tcp with :port listens on every address: IPv4 and, where the host has it, IPv6 (loopback asked here)")
    func bothVersions() async throws {
        try await ServiceHarness.with({ $0.http.bind = ":0" }) { h in
            let port = try #require(URL(string: h.base)?.port)
            let v4 = try await h.client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(60))
            #expect(v4.status == .ok)
            // `imago-server health` asks a wildcard address on loopback, and says 200.
            let probe = try await blocking { try HealthProbe.get(path: "/health", host: "0.0.0.0", port: port, unix: false, timeout: 60) }
            #expect(probe.status == 200 && String(decoding: probe.body, as: UTF8.self) == "ok\n", "\(probe)")
            guard HTTPSettings.ipv6Available else { return }
            let v6 = try await h.client.execute(HTTPClientRequest(url: "http://[::1]:\(port)/health"), timeout: .seconds(60))
            #expect(v6.status == .ok)
        }
    }

    @Test("imago-server health (imgproxy's imgproxy health): nothing listening is a failure that says where, not a hang")
    func healthOfNothing() async throws {
        let port = try await blocking { () throws -> Int in
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(s) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, length) == 0 ? getsockname(s, $0, &length) : -1 }
            }
            return Int(UInt16(bigEndian: address.sin_port))
        }
        let failure = await #expect(throws: HealthProbe.Failure.self) {
            try await blocking { try HealthProbe.get(path: "/health", host: "127.0.0.1", port: port, unix: false, timeout: 5) }
        }
        #expect(failure?.reason.contains("127.0.0.1:\(port)") == true, "\(String(describing: failure))")
        let missing = await #expect(throws: HealthProbe.Failure.self) {
            try await blocking { try HealthProbe.get(path: "/health", host: "/nonexistent/imago.sock", port: 0, unix: true, timeout: 5) }
        }
        #expect(missing?.reason.contains("/nonexistent/imago.sock") == true)
    }

    @Test("tcp4 and tcp6 take addresses of their version (`:port`: every one); a bad network or path stops the start")
    func versions() throws {
        var http = HTTPSettings()
        http.bind = ":8080"
        // Both versions where the host has IPv6, as Go listens for imgproxy.
        #expect(try http.listenAddress() == (HTTPSettings.ipv6Available ? "::" : "0.0.0.0", 8080, false))
        http.network = .tcp4
        #expect(try http.listenAddress() == ("0.0.0.0", 8080, false))
        http.network = .tcp6
        #expect(try http.listenAddress() == ("::", 8080, false))
        http.bind = "[::1]:9000"
        #expect(try http.listenAddress() == ("::1", 9000, false))
        http.bind = "127.0.0.1:9000"
        #expect(throws: ConfigurationError.self) { try http.listenAddress() }
        http.network = .tcp4
        #expect(try http.listenAddress() == ("127.0.0.1", 9000, false))
        http.bind = "[::1]:9000"
        #expect(throws: ConfigurationError.self) { try http.listenAddress() }
        http.network = .unix
        http.bind = ""
        #expect(throws: ConfigurationError.self) { try http.listenAddress() }
        let unix = try ServerConfiguration(environment: ["IMGPROXY_NETWORK": "unix", "IMGPROXY_BIND": "/run/imago/imago.sock"])
        #expect(unix.http.network == .unix)
        #expect(try unix.http.listenAddress() == ("/run/imago/imago.sock", 0, true))
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_NETWORK": "udp"]) }
    }
}
