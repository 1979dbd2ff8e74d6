// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoLoading
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// The cache of sources follows its origins: `no-store` is not kept, lifetimes are honoured and
/// stale entries revalidated, the current policy applies to cached sources, and a purge forgets.
@Suite("Fresh sources: Cache-Control, revalidation, policy, purge", .serialized)
struct SourceFreshnessTests {
    /// The first image is 40 px wide, its replacement 60 px (and a different size in bytes, so
    /// another ETag): a result's aspect ratio says which one it was made from.
    static let first = Result { try ServerFixtures.png(width: 40, height: 20) }
    static let second = Result { try ServerFixtures.png(width: 60, height: 20) }

    /// The height of `w:10` of the source: 5 for the first image, 3 for the second.
    static func height(_ h: ServiceHarness, _ width: Int) async throws -> Int {
        let r = try await h.get(h.plain("w:\(width)", "/img/a.png"))
        #expect(r.status == 200, "\(r.errorFields)")
        return try r.image().pixelSize.height
    }

    @Test("no-store: never kept, so a replaced image is seen at once")
    func noStore() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "no-store")])
            #expect(try await Self.height(h, 20) == 10)
            h.origin.register("a.png", data: try Self.second.get(), headers: [("Cache-Control", "no-store")])
            #expect(try await Self.height(h, 30) == 10)
            #expect(h.origin.count("/img/a.png") == 2)
        }
    }

    @Test("max-age: fresh within it, then revalidated; a 304 keeps the bytes, a change is taken")
    func maxAge() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "public, max-age=6")])
            #expect(try await Self.height(h, 20) == 10)
            #expect(try await Self.height(h, 21) == 11)
            #expect(h.origin.count("/img/a.png") == 1)
            try await Task.sleep(for: .milliseconds(6300))
            // Stale: one conditional request, answered 304, and the bytes stay.
            #expect(try await Self.height(h, 22) == 11)
            #expect(h.origin.count("/img/a.png") == 2)
            #expect(h.origin.headers("/img/a.png")?["if-none-match"] != nil)
            #expect(h.origin.headers("/img/a.png")?["if-modified-since"] == "Sun, 22 Nov 2026 08:00:00 GMT")
            // Fresh again after the 304.
            #expect(try await Self.height(h, 23) == 12)
            #expect(h.origin.count("/img/a.png") == 2)
            // Replaced at the origin: taken once the entry is stale.
            h.origin.register("a.png", data: try Self.second.get(), headers: [("Cache-Control", "max-age=6")])
            try await Task.sleep(for: .milliseconds(6300))
            #expect(try await Self.height(h, 30) == 10)
            #expect(h.origin.count("/img/a.png") == 3)
        }
    }

    @Test("an origin that says nothing gets IMAGO_SOURCE_TTL; no-cache is revalidated every time; IMAGO_SOURCE_TTL_MAX caps max-age")
    func defaults() async throws {
        try await ServiceHarness.with({ $0.cache.sourceTTL = .seconds(3) }) { h in
            h.origin.register("a.png", data: try Self.first.get())
            #expect(try await Self.height(h, 20) == 10)
            #expect(try await Self.height(h, 21) == 11)
            #expect(h.origin.count("/img/a.png") == 1)
            h.origin.register("a.png", data: try Self.second.get())
            try await Task.sleep(for: .milliseconds(3300))
            #expect(try await Self.height(h, 30) == 10)
            #expect(h.origin.count("/img/a.png") == 2)
        }
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "no-cache")])
            for (width, height) in [(20, 10), (21, 11), (22, 11)] { #expect(try await Self.height(h, width) == height) }
            // One download, then a conditional request (answered 304) for each new size.
            #expect(h.origin.count("/img/a.png") == 3)
        }
        try await ServiceHarness.with({ $0.cache.sourceTTLMax = .seconds(3) }) { h in
            h.origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "max-age=86400")])
            #expect(try await Self.height(h, 20) == 10)
            try await Task.sleep(for: .milliseconds(3300))
            #expect(try await Self.height(h, 21) == 11)
            #expect(h.origin.count("/img/a.png") == 2)
        }
    }

    @Test("a source cached under an older policy is refused by the current one, with no connection")
    func policyOnCachedSources() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "max-age=86400")])
        let directory = try TestFiles.temporaryDirectory("imago-freshness")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = "/_/w:20/plain/http://127.0.0.1:\(origin.port)/img/a.png"
        func run(_ configure: (inout ServerConfiguration) -> Void) async throws -> (Int, String?) {
            var configuration = ServerConfiguration()
            configuration.cache.cacheDirectory = directory.path
            configuration.security.allowLoopbackSources = true
            configure(&configuration)
            let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent, resolver: SystemHostResolver())
            let response: ServiceResponse
            do {
                response = try await service.handle(method: .get, path: path, headers: [:])
            } catch let error as ServiceError {
                await service.shutdown()
                return (error.status.code, error.code)
            }
            await service.shutdown()
            return (response.status.code, nil)
        }
        #expect(try await run { _ in } == (200, nil))
        #expect(origin.count("/img/a.png") == 1)
        // Still cached and fresh: served without the origin.
        #expect(try await run { _ in } == (200, nil))
        #expect(origin.count("/img/a.png") == 1)
        // Loopback no longer allowed: the cached copy is refused too, and nothing connects.
        #expect(try await run { $0.security.allowLoopbackSources = false } == (404, "source_not_allowed"))
        // An allow-list that no longer lists the origin.
        #expect(try await run { $0.security.allowedSources = ["https://cdn.example/"] } == (404, "source_not_allowed"))
        #expect(origin.count("/img/a.png") == 1)
        // Back to the first policy: the entry was kept and is served.
        #expect(try await run { _ in } == (200, nil))
        #expect(origin.count("/img/a.png") == 1)
    }

    @Test("POST /purge with IMAGO_PURGE_SECRET forgets a source; without the setting there is no route")
    func purge() async throws {
        try await ServiceHarness.with({ $0.http.purgeSecret = "p4rge" }) { h in
            h.origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "max-age=86400")])
            #expect(try await Self.height(h, 20) == 10)
            h.origin.register("a.png", data: try Self.second.get(), headers: [("Cache-Control", "max-age=86400")])
            #expect(try await Self.height(h, 21) == 11)
            let query = "/purge?url=" + h.source("/img/a.png").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await h.get(query, method: .POST).status == 403)
            #expect(try await h.get(query, headers: ["Authorization": "Bearer nope"], method: .POST).status == 403)
            let purged = try await h.get(query, headers: ["Authorization": "Bearer p4rge"], method: .POST)
            #expect(purged.status == 200 && String(decoding: purged.body, as: UTF8.self).contains("a.png"))
            #expect(try await Self.height(h, 30) == 10)
            #expect(h.origin.count("/img/a.png") == 2)
            let bad = try await h.get("/purge?url=ftp%3A%2F%2Fx", headers: ["Authorization": "Bearer p4rge"], method: .POST)
            #expect(bad.status == 404 && bad.errorFields["error"] == "invalid_source")
        }
        try await ServiceHarness.with { h in
            let disabled = try await h.get("/purge?url=http%3A%2F%2Fx%2Fa.png", method: .POST)
            #expect(disabled.status == 404)
        }
    }

    @Test("imago-server cache purge URL forgets a source in IMAGO_CACHE_DIR")
    func purgeCommand() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        origin.register("a.png", data: try Self.first.get(), headers: [("Cache-Control", "max-age=86400")])
        let directory = try TestFiles.temporaryDirectory("imago-purge")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.cache.cacheDirectory = directory.path
        configuration.security.allowLoopbackSources = true
        let source = "http://127.0.0.1:\(origin.port)/img/a.png"
        let first = try ImageService(configuration: configuration, logger: ServiceHarness.silent, resolver: SystemHostResolver())
        _ = try await first.handle(method: .get, path: "/_/w:20/plain/\(source)", headers: [:])
        await first.shutdown()
        let (status, out, err) = try await ServerProcessTests.run(
            "imago-server", ["cache", "purge", source], environment: ["IMAGO_CACHE_DIR": directory.path])
        #expect(status == 0 && out.contains("purged"), "\(err)")
        origin.register("a.png", data: try Self.second.get())
        let second = try ImageService(configuration: configuration, logger: ServiceHarness.silent, resolver: SystemHostResolver())
        let response = try await second.handle(method: .get, path: "/_/w:20/plain/\(source)", headers: [:])
        await second.shutdown()
        #expect(response.status.code == 200 && origin.count("/img/a.png") == 2)
        let bad = try await ServerProcessTests.run("imago-server", ["cache", "purge", "ftp://x/a.png"], environment: ["IMAGO_CACHE_DIR": directory.path])
        #expect(bad.0 != 0)
    }
}
