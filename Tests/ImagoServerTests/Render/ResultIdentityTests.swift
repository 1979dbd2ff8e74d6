// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// One result for one output: a `dpr` that comes to the same pixels as larger sizes is named
/// as those sizes, so `dpr:2` at width W and width 2W share one result, and nothing that makes
/// other pixels shares a name.
@Suite("Result identity: dpr folded into the sizes")
struct ResultIdentityTests {
    static func transformer(_ path: String, source: PixelSize) throws -> ServiceTransformer {
        let options = try ProcessingOptions(parsing: path.split(separator: "/").map(String.init), allowSecurityOptions: true)
        return ServiceTransformer(
            options: options, autoRotate: true, sourceSize: source, flattenColor: nil, maxResultDimension: options.maxResultDimension)
    }

    @Test("dpr:2 at width W is width 2W: one key, the same pixels")
    func widthTwice() throws {
        let source = try Fixtures.noisy(width: 640, height: 480)
        let dpr = try Self.transformer("rs:fit:200:0/dpr:2", source: source.size)
        let wide = try Self.transformer("rs:fit:400:0", source: source.size)
        #expect(dpr.dprFolded() != nil && dpr.key == wide.key)
        #expect(try dpr.transform(source).bytes == wide.transform(source).bytes)
        // Another width, or the same width at another dpr, is another result.
        #expect(try Self.transformer("rs:fit:200:0/dpr:3", source: source.size).key != wide.key)
        #expect(try Self.transformer("rs:fit:201:0/dpr:2", source: source.size).key != wide.key)
        // Rounded corners read the dpr: never folded.
        #expect(try Self.transformer("rs:fit:200:0/dpr:2/rc:10", source: source.size).dprFolded() == nil)
    }

    @Test("a source smaller than the box: fill at dpr 2 keeps the box's shape, 2W x 2H does not, so they stay apart")
    func smallSourceStaysApart() throws {
        let source = try Fixtures.noisy(width: 150, height: 300)
        let dpr = try Self.transformer("rs:fill:100:100/dpr:2", source: source.size)
        let doubled = try Self.transformer("rs:fill:200:200", source: source.size)
        #expect(dpr.dprFolded() == nil && dpr.key != doubled.key)
        #expect(try dpr.transform(source).size != doubled.transform(source).size)
    }

    /// Options of every kind that meets the dpr, from a seeded generator.
    static func randomPath(_ g: inout SplitMix) -> String {
        func pick<T>(_ xs: [T]) -> T { xs[Int(g.next() % UInt64(xs.count))] }
        var parts = [
            "rs:\(pick(["fit", "fill", "fill-down", "force", "auto"])):\(pick([0, 40, 75, 120, 200])):\(pick([0, 30, 90, 150])):"
                + "\(pick([0, 1])):\(pick([0, 1]))",
            "g:\(pick(["ce", "no", "so:0:0", "nowe:4:3", "ea:0.1:0", "sowe:2:7"]))", "dpr:\(pick(["1.5", "2", "3", "0.5"]))"
        ]
        if g.next() % 4 == 0 { parts.append("mw:\(pick([50, 130, 260]))") }
        if g.next() % 4 == 0 { parts.append("mh:\(pick([40, 110]))") }
        if g.next() % 4 == 0 { parts.append("pd:\(pick(["4", "3:5", "1:2:3:4"]))") }
        if g.next() % 4 == 0 { parts.append("c:\(pick(["60:40", "0.5:0.5:ce", "90:0:no"]))") }
        if g.next() % 5 == 0 { parts.append("exar:1:\(pick(["ce", "so"]))") }
        if g.next() % 5 == 0 { parts.append("z:\(pick(["1.5", "0.7"]))") }
        if g.next() % 6 == 0 { parts.append("mrd:\(pick([90, 160]))") }
        return parts.joined(separator: "/")
    }

    @Test("400 random option sets: whenever a dpr is folded, the folded options make the same bytes, whole and shrunk on load")
    func foldingNeverChangesPixels() async throws {
        var g = SplitMix(seed: 49)
        var folded = 0, keptApart = 0, naiveWouldDiffer = 0
        let sources = try [(97, 61), (300, 200), (61, 150), (320, 240)].map { try Fixtures.noisy(width: $0.0, height: $0.1, seed: UInt32($0.0)) }
        for i in 0..<400 {
            let source = sources[i % sources.count]
            let path = Self.randomPath(&g)
            let t = try Self.transformer(path, source: source.size)
            guard let options = t.dprFolded() else {
                keptApart += 1
                // What folding blindly would have named the same, and how often that is wrong.
                let naive = try Self.transformer(Self.naivelyFolded(path), source: source.size)
                if let a = try? t.transform(source), let b = try? naive.transform(source), a.bytes != b.bytes { naiveWouldDiffer += 1 }
                continue
            }
            folded += 1
            let twin = ServiceTransformer(
                options: options, autoRotate: true, sourceSize: source.size, flattenColor: nil,
                maxResultDimension: options.maxResultDimension)
            #expect(t.key == twin.key, "\(path)")
            #expect(try t.transform(source).bytes == twin.transform(source).bytes, "\(path) on \(source.size)")
            // As a decoder that shrank the source by 2 on load hands it over.
            let half = try Resampler.resize(source, to: PixelSize(width: (source.width + 1) / 2, height: (source.height + 1) / 2))
            #expect(try t.transform(half).bytes == twin.transform(half).bytes, "\(path) on a half of \(source.size)")
            await Task.yield()
        }
        #expect(folded >= 150, "folded \(folded), kept apart \(keptApart)")
        #expect(naiveWouldDiffer >= 50, "the guard matters: \(naiveWouldDiffer) of \(keptApart) would have differed")
    }

    @Test("through the service: dpr:2 at width 400 is read from width 800's result, with its ETag and bytes; dpr:3 is made")
    func oneResultThroughTheService() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 1600, height: 1000), contentType: "image/jpeg")
            let wide = try await h.get(h.plain("w:800", "/img/photo.jpg"))
            #expect(wide.status == 200)
            await h.service.manager.finishPendingStores()
            func asked(_ options: String) async -> (ServiceResponse, decodes: Int) {
                let probe = PipelineProbe()
                let answer = await PipelineProbe.$current.withValue(probe) {
                    await h.service.respond(method: .get, path: h.plain(options, "/img/photo.jpg"), headers: [:])
                }
                return (answer, probe.count(ProbeEvent.lookup("decode")))
            }
            let (dense, decodes) = await asked("w:400/dpr:2")
            #expect(dense.status.code == 200 && decodes == 0)
            #expect(dense.headers[.eTag] == wide["etag"])
            #expect(try dense.bodyData() == wide.body)
            let (other, made) = await asked("w:400/dpr:3")
            #expect(other.status.code == 200 && made == 1 && other.headers[.eTag] != wide["etag"])
        }
    }

    /// `path` with its dpr multiplied into `rs`'s width and height and dropped, blindly.
    static func naivelyFolded(_ path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        guard let d = parts.first(where: { $0.hasPrefix("dpr:") }).flatMap({ Double($0.dropFirst(4)) }) else { return path }
        return parts.compactMap { part -> String? in
            if part.hasPrefix("dpr:") { return nil }
            guard part.hasPrefix("rs:") else { return part }
            var f = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            for i in [2, 3] { f[i] = String(ServiceGeometry.scale(Int(f[i]) ?? 0, d)) }
            return f.joined(separator: ":")
        }.joined(separator: "/")
    }
}
