// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("imago fetch against a loopback server", .serialized)
struct FetchCLITests {
    /// Runs the tool off the cooperative pool, so the in-process server keeps serving.
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> CLI.Result {
        try await CLI.run(arguments, environment: environment)
    }

    @Test("the proxy variables are followed as curl follows them; --proxy overrides them, --no-proxy ignores them")
    func proxies() async throws {
        let origin = try await TestHTTPServer.start(), proxy = try await TestHTTPServer.start()
        let png = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 20, height: 10)), as: .png)
        for server in [origin, proxy] { server.register("a.png", data: png) }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = origin.url("/img/a.png").absoluteString
        func fetch(_ extra: [String], _ environment: [String: String]) async throws -> CLI.Result {
            try await Self.run(["fetch", url, "--cache-dir", dir.appendingPathComponent(UUID().uuidString).path] + extra, environment: environment)
        }
        let viaEnvironment = try await fetch([], ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
        #expect(proxy.count("CONNECT") == 1 && proxy.count("/img/a.png") == 1 && origin.count("/img/a.png") == 0)
        let bypassed = try await fetch([], ["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "127.0.0.1"])
        let ignored = try await fetch(["--no-proxy"], ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        #expect(bypassed.status == 0 && ignored.status == 0 && origin.count("/img/a.png") == 2 && proxy.count("CONNECT") == 1)
        let explicit = try await fetch(["--proxy", "127.0.0.1:\(proxy.port)"], ["http_proxy": ""])
        #expect(explicit.status == 0 && proxy.count("CONNECT") == 2, "\(explicit.stderr)")
        let bad = try await fetch(["--proxy", "https://proxy:443"], [:])
        #expect(bad.status != 0 && bad.stderr.contains("is not a usable proxy"), "\(bad.stderr)")
        await origin.stop()
        await proxy.stop()
    }

    @Test("a URL named twice is downloaded once; the summary says where each came from; cache, offline, refresh, processing")
    func fetch() async throws {
        let server = try await TestHTTPServer.start()
        let png = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 64, height: 48)), as: .png)
        server.register("a.png", data: png)
        server.register("b.png", data: try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 30, height: 20)), as: .png))
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache").path, out = dir.appendingPathComponent("out")
        let a = server.url("/img/a.png").absoluteString, b = server.url("/img/b.png").absoluteString

        let first = try await Self.run(["fetch", a, b, a, server.url("/status/404").absoluteString, "--cache-dir", cache, "--output", out.path])
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stdout.contains("(given 2 times, loaded once)"), "\(first.stdout)")
        #expect(first.stdout.contains("2 of 3 URLs loaded: 2 network, 0 disk, 0 memory, 1 failed"), "\(first.stdout)")
        #expect(first.stderr.contains("unacceptable HTTP status 404"))
        #expect(server.count("/img/a.png") == 1 && server.count("/img/b.png") == 1)
        #expect(try Data(contentsOf: out.appendingPathComponent("a.png")) == png)

        let offline = try await Self.run(["fetch", a, "--cache-dir", cache, "--offline"])
        #expect(offline.status == 0 && offline.stdout.contains("1 of 1 URLs loaded: 0 network, 1 disk"), "\(offline.stdout)")
        let missing = try await Self.run(["fetch", server.url("/img/none.png").absoluteString, "--cache-dir", cache, "--offline"])
        #expect(missing.status == 1 && missing.stderr.contains("not in the cache"))
        #expect(server.count("/img/a.png") == 1 && server.count("/img/none.png") == 0)

        let refreshed = try await Self.run(["fetch", a, "--cache-dir", cache, "--refresh"])
        #expect(refreshed.status == 0 && refreshed.stdout.contains("(not modified)"), "\(refreshed.stdout)")
        #expect(server.count("/img/a.png") == 2)

        let thumb = dir.appendingPathComponent("thumb.webp")
        let processed = try await Self.run(["fetch", a, "--cache-dir", cache, "--thumbnail", "16", "--output", thumb.path])
        #expect(processed.status == 0, "\(processed.stderr)")
        let image = try ImageCoderRegistry.shared.decode(try Data(contentsOf: thumb))
        #expect(image.format == .webp && image.pixelSize == PixelSize(width: 16, height: 12))
        #expect(try await Self.run(["fetch", "--concurrency", "0", a]).status != 0)
        await server.stop()
    }

    @Test("imago itself leaves the network stack to imago-fetch")
    func networkStackStaysOut() throws {
        for (product, expectLinked) in [("imago", false), ("imago-fetch", true)] {
            let binary = TestFiles.builtProduct(product)
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(product) is not built beside the tests")
            let (_, output) = try Subprocess.capture(
                "/bin/sh", ["-c", "nm --defined-only '\(binary.path)' | grep -c '15AsyncHTTPClient' || true"])
            let count = Int(PathName.trimmed(output)) ?? 0
            #expect((count > 0) == expectLinked, "\(product): \(count) AsyncHTTPClient symbols")
        }
    }
}
