// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// Adds `X-Seen-Status` with the status the rest answered (or threw): an app's own middleware.
struct StatusWitness<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            response.headers[.known("X-Seen-Status")] = String(response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.known("X-Seen-Status")] = "thrown \(error.status.code)"
            return response
        }
    }
}

/// The service is a thin adapter on the pipeline: each request's source is fetched once, its
/// format told once, its header read once, and each stage's coalescing table asked once.
@Suite("Service on the pipeline: one of each per request", .serialized)
struct ServicePipelineTests {
    /// Answers `path` with a probe bound, and returns the status and what the probe counted.
    func probed(
        _ h: ServiceHarness, _ path: String, headers: HTTPFields = [:]
    )
        async -> (status: Int, etag: String?, serverTiming: String?, probe: PipelineProbe)
    {
        let probe = PipelineProbe()
        let response = await PipelineProbe.$current.withValue(probe) {
            await h.service.respond(method: .get, path: path, headers: headers)
        }
        return (response.status.code, response.headers[.eTag], response.headers[.serverTiming], probe)
    }

    func expectOneOfEach(_ probe: PipelineProbe, stages: [String], none: [String], _ kind: String) {
        #expect(probe.count(ProbeEvent.sniff) == 1, "\(kind): \(probe.all)")
        // The result cache is asked once by a request that reaches the encode stage, never by one
        // answered before it (a 304).
        let asksResults = stages.contains("encode") ? 1 : 0
        #expect(probe.count(ProbeEvent.resultLookup) == asksResults, "\(kind), result cache: \(probe.all)")
        #expect(probe.count(ProbeEvent.headerParse) == 1, "\(kind): \(probe.all)")
        for stage in stages { #expect(probe.count(ProbeEvent.lookup(stage)) == 1, "\(kind), \(stage): \(probe.all)") }
        for stage in none { #expect(probe.count(ProbeEvent.lookup(stage)) == 0, "\(kind), no \(stage): \(probe.all)") }
    }

    @Test("resized (uncached, then cached), a streamed conversion, a 304: one sniff, one header read, one lookup per stage, one result-cache look per miss")
    func oneOfEach() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let resized = await probed(h, h.plain("rs:fit:200:200", "/img/photo.jpg"))
            #expect(resized.status == 200)
            #expect(resized.serverTiming == nil, "Server-Timing only when IMAGO_SERVER_TIMING is on")
            expectOneOfEach(resized.probe, stages: ["download", "fetch", "encode", "process", "decode"], none: [], "resized")

            let cached = await probed(h, h.plain("rs:fit:100:100", "/img/photo.jpg"))
            #expect(cached.status == 200 && h.origin.count("/img/photo.jpg") == 1)
            expectOneOfEach(cached.probe, stages: ["fetch", "encode", "process", "decode"], none: ["download"], "cached")

            let streamed = await probed(h, h.plain("q:70", "/img/photo.jpg", ext: "webp"))
            #expect(streamed.status == 200 && h.service.streamedRenderCount == 1)
            expectOneOfEach(streamed.probe, stages: ["fetch", "encode"], none: ["download", "process", "decode"], "streamed")

            let etag = try #require(cached.etag)
            let notModified = await probed(h, h.plain("rs:fit:100:100", "/img/photo.jpg"), headers: [.ifNoneMatch: etag])
            #expect(notModified.status == 304)
            expectOneOfEach(notModified.probe, stages: ["fetch"], none: ["download", "encode", "process", "decode"], "304")
        }
    }

    @Test(
        "the efficient policy's first answer: the result cache asked once for its own, and once more for the quick AVIF an AVIF client may get; one of each otherwise",
        arguments: [("image/webp,*/*", 1), ("image/avif,image/webp,*/*", 2)])
    func efficientOneOfEach(_ client: (accept: String, lookups: Int)) async throws {
        try await ServiceHarness.with({
            $0.output.formatPolicy = .efficient
            $0.output.autoWebP = true
            $0.output.autoAVIF = true
        }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let first = await probed(h, h.plain("rs:fit:200:200", "/img/photo.jpg"), headers: [.accept: client.accept])
            #expect(first.status == 200)
            #expect(first.probe.count(ProbeEvent.resultLookup) == client.lookups, "\(first.probe.all)")
            #expect(first.probe.count(ProbeEvent.sniff) == 1 && first.probe.count(ProbeEvent.headerParse) == 1, "\(first.probe.all)")
            for stage in ["download", "fetch", "encode", "process", "decode"] {
                #expect(first.probe.count(ProbeEvent.lookup(stage)) == 1, "\(stage): \(first.probe.all)")
            }
        }
    }

    @Test("the ETag is the pipeline's result key: kept by a setting that leaves the bytes alone, changed by one that changes them")
    func etagFromResultKey() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let path = h.plain("rs:fit:200:200", "/img/photo.jpg")
            func etag(_ change: (inout ServerConfiguration) -> Void) async throws -> String? {
                var configuration = h.service.configuration
                change(&configuration)
                let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent)
                let tag = await service.respond(method: .get, path: path, headers: [:]).headers[.eTag]
                await service.shutdown()
                return tag
            }
            let plain = try #require(await h.service.respond(method: .get, path: path, headers: [:]).headers[.eTag])
            #expect(try await etag { $0.http.ttl = 60 } == plain)
            #expect(try await etag { $0.workers = 1 } == plain)
            #expect(try await etag { $0.output.quality = 50 } != plain)
            #expect(try await etag { $0.output.stripMetadata = false } != plain)
            #expect(try await etag { $0.security.maxResultDimension = 100 } != plain)
        }
    }

    @Test("a result asked again is read from the result cache, with no decode, by a new service over the same directory; a purge removes it")
    func resultCache() async throws {
        try await ServiceHarness.with { (h: ServiceHarness) async throws in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let path = h.plain("rs:fit:200:200", "/img/photo.jpg")
            let made = await probed(h, path)
            #expect(made.status == 200)
            expectOneOfEach(made.probe, stages: ["download", "fetch", "encode", "process", "decode"], none: [], "made")
            await h.service.manager.finishPendingStores()
            let first = await h.service.respond(method: .get, path: path, headers: [:])
            // A restarted service over the same directory (the first keeps results 2 s in memory
            // too): the same answer, read from the result cache.
            let restarted = try ImageService(configuration: h.service.configuration, logger: ServiceHarness.silent)
            let probe = PipelineProbe()
            let again = await PipelineProbe.$current.withValue(probe) {
                await restarted.respond(method: .get, path: path, headers: [:])
            }
            #expect(again.status.code == 200 && again.headers[.eTag] == made.etag)
            #expect(try again.bodyData() == first.bodyData())
            #expect(probe.count(ProbeEvent.lookup("encode")) == 1, "\(probe.all)")
            #expect(probe.count(ProbeEvent.lookup("decode")) == 0 && h.origin.count("/img/photo.jpg") == 1, "\(probe.all)")
            // Purged with its source: made again.
            try await restarted.purge(source: h.source("/img/photo.jpg"))
            let remade = PipelineProbe()
            let after = await PipelineProbe.$current.withValue(remade) {
                await restarted.respond(method: .get, path: path, headers: [:])
            }
            #expect(after.status.code == 200 && remade.count(ProbeEvent.lookup("decode")) == 1 && h.origin.count("/img/photo.jpg") == 2)
        }
    }

    @Test("a cached source sent as it is (raw, skp) streams from its file: the same bytes, by the handler and over HTTP")
    func fileBodies() async throws {
        try await ServiceHarness.with { h in
            let source = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 500, height: 400)), as: .png)
            #expect(source.count > 300 << 10)
            h.origin.register("big.png", data: source, contentType: "image/png")
            #expect(try await h.get(h.plain("w:10", "/img/big.png")).status == 200)  // now in the cache
            // The handler hands the file on; respond() and the server stream or collect it.
            let raw = try await h.service.handle(method: .get, path: h.plain("raw:1", "/img/big.png"), headers: [:])
            guard case .file(let file) = raw.body else {
                Issue.record("a cached source is sent from its file")
                return
            }
            let rawBytes = try raw.bodyData()
            #expect(file.size == source.count && rawBytes == source)
            for options in ["raw:1", "skp:png"] {
                let reply = try await h.get(h.plain(options, "/img/big.png"))
                #expect(reply.status == 200 && reply.body == source && reply["content-length"] == String(source.count), "\(options)")
            }
            #expect(h.origin.count("/img/big.png") == 1)
        }
    }

    @Test("an app orders the middleware itself; a ServiceError thrown past them answers with its status and JSON")
    func ownMiddleware() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 40))
        let directory = try TestFiles.temporaryDirectory("imago-own-middleware")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.security.allowLoopbackSources = true
        configuration.cache.cacheDirectory = directory.path
        configuration.http.secret = "s3cret"
        let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent)
        let router = Router()
        // Only some of the service's middleware, in an order of the app's, around a witness of its own;
        // no request-id middleware, so Hummingbird answers the thrown errors itself.
        router.add(middleware: StatusWitness())
            .add(middleware: ServiceAuthorizationMiddleware(secret: configuration.http.secret))
            .add(middleware: ServiceDeadlineMiddleware(limit: .seconds(60)))
        service.addRoutes(to: router, middleware: false)
        let port = Mutex<Int?>(nil)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: ServiceHarness.silent)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { task.cancel() }
        try await eventually { port.withLock { $0 } != nil }
        let base = "http://127.0.0.1:\(port.withLock { $0 } ?? 0)"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await client.shutdown() } }
        func get(_ path: String, secret: String?) async throws -> (status: Int, seen: String?, body: Data) {
            var request = HTTPClientRequest(url: base + path)
            if let secret { request.headers.add(name: "Authorization", value: "Bearer \(secret)") }
            let response = try await client.execute(request, timeout: .seconds(120))
            return (
                Int(response.status.code), response.headers.first(name: "X-Seen-Status"),
                Data(try await response.body.collect(upTo: 1 << 24).readableBytesView)
            )
        }
        let path = "/_/w:20/plain/http://127.0.0.1:\(origin.port)/img/a.png"
        let ok = try await get(path, secret: "s3cret")
        let width = try ImageCoderRegistry.shared.decode(ok.body).pixelSize.width
        #expect(ok.status == 200 && ok.seen == "200" && width == 20)
        let refused = try await get(path, secret: "wrong")
        #expect(refused.status == 403 && refused.seen == "thrown 403")
        let body = try JSONSerialization.jsonObject(with: refused.body) as? [String: String]
        #expect(body?["error"] == "invalid_secret" && body?["requestId"] == "", "no request-id middleware, no id: \(String(describing: body))")
        let missing = try await get("/_/w:20/plain/http://127.0.0.1:\(origin.port)/img/none.png", secret: "s3cret")
        #expect(missing.status == 404 && missing.seen == "thrown 404")
        await service.shutdown()
    }
}
