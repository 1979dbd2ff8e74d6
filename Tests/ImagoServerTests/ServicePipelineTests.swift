import Foundation
import HTTPTypes
import ImagoCore
@testable import ImagoServer
import ImagoTestSupport
import Testing

/// The service is a thin adapter on the pipeline: each request's source is fetched once, its
/// format told once, its header read once, and each stage's coalescing table asked once.
@Suite("Service on the pipeline: one of each per request", .serialized)
struct ServicePipelineTests {
    /// Answers `path` with a probe bound, and returns the status and what the probe counted.
    func probed(_ h: ServiceHarness, _ path: String, headers: HTTPFields = [:]) async -> (status: Int, etag: String?, probe: PipelineProbe) {
        let probe = PipelineProbe()
        let response = await PipelineProbe.$current.withValue(probe) {
            await h.service.respond(method: .get, path: path, headers: headers)
        }
        return (response.status.code, response.headers[.eTag], probe)
    }

    func expectOneOfEach(_ probe: PipelineProbe, stages: [String], none: [String], _ kind: String) {
        #expect(probe.count(ProbeEvent.sniff) == 1, "\(kind): \(probe.all)")
        #expect(probe.count(ProbeEvent.headerParse) == 1, "\(kind): \(probe.all)")
        for stage in stages { #expect(probe.count(ProbeEvent.lookup(stage)) == 1, "\(kind), \(stage): \(probe.all)") }
        for stage in none { #expect(probe.count(ProbeEvent.lookup(stage)) == 0, "\(kind), no \(stage): \(probe.all)") }
    }

    @Test("resized (uncached, then cached), a streamed conversion, a 304: one sniff, one header read, one lookup per stage")
    func oneOfEach() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), contentType: "image/jpeg")
            let resized = await probed(h, h.plain("rs:fit:200:200", "/img/photo.jpg"))
            #expect(resized.status == 200)
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
}
