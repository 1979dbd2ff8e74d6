// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoServer
import ImagoTestSupport
import Synchronization
import Testing

/// A poison image fails one request, not the server: under load, a source whose decoder
/// crashes, loops or allocates without end gets the decoder's 422 within its deadline; no
/// ordinary request fails; the same bytes again are refused from the quarantine; the workers are
/// all back. The workers are `ImagoDecoderWorkerProbe`, whose PNG decoder faults on data marked
/// `imago-fault:KIND`.
@Suite struct ServiceIsolationTests {
    static let probe = TestFiles.builtProduct("ImagoDecoderWorkerProbe")

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    /// Ordinary requests on `connections` connections until `stop` is set: their statuses.
    static func load(_ h: ServiceHarness, connections: Int, stop: Flag) async -> [Int] {
        await withTaskGroup(of: [Int].self) { group in
            for c in 0..<connections {
                group.addTask {
                    var statuses: [Int] = []
                    var n = 0
                    while !stop.isSet {
                        n += 1
                        // New widths: renders, not answers from the result cache; PNG decodes in
                        // the workers, JPEG in the server.
                        let source = c % 2 == 0 ? "a.png" : "b.jpg"
                        let status = (try? await h.get(h.plain("rs:fit:\(40 + (c * 97 + n) % 150):0", "/img/\(source)", ext: "webp")).status) ?? -1
                        statuses.append(status)
                    }
                    return statuses
                }
            }
            var all: [Int] = []
            for await s in group { all += s }
            return all
        }
    }

    @Test(arguments: ["segv", "abort", "loop", "alloc"])
    func poisonCostsOneRequest(kind: String) async throws {
        try await ServiceHarness.with({ c in
            c.isolation.formats = [.png]
            c.isolation.executable = Self.probe.path
            c.isolation.timeout = .seconds(4)
            c.workers = 2
            // The poisoned request must get the decoder's 422 before its deadline's 503.
            c.http.requestTimeout = .seconds(90)
        }) { h in
            let png = try ServerFixtures.png(width: 300, height: 200)
            h.origin.register("a.png", data: png)
            h.origin.register("b.jpg", data: try ServerFixtures.jpeg(width: 300, height: 200), contentType: "image/jpeg")
            let bad = png + Data("imago-fault:\(kind)".utf8)
            h.origin.register("bad.png", data: bad)
            h.origin.register("bad-again.png", data: bad)
            let stop = Flag()
            async let ordinary = Self.load(h, connections: 8, stop: stop)
            try await Task.sleep(for: .seconds(1))
            let poisoned = try await h.get(h.plain("rs:fit:100:0", "/img/bad.png"))
            // The same bytes at another URL: the quarantine answers, no worker is asked.
            let again = try await h.get(h.plain("rs:fit:100:0", "/img/bad-again.png"))
            // And the same URL again, in another size: the quarantine too.
            let sameURL = try await h.get(h.plain("rs:fit:120:0", "/img/bad.png"))
            try await Task.sleep(for: .seconds(2))
            stop.set()
            let statuses = await ordinary

            #expect(poisoned.status == 422, "\(String(decoding: poisoned.body, as: UTF8.self))")
            #expect(String(decoding: poisoned.body, as: UTF8.self).contains("decoder failed"))
            #expect(again.status == 422)
            #expect(String(decoding: again.body, as: UTF8.self).contains("quarantined"))
            #expect(sameURL.status == 422 && String(decoding: sameURL.body, as: UTF8.self).contains("quarantined"))
            #expect(statuses.count >= 8)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
            let stats = try #require(h.service.manager.configuration.coders.isolationStatistics)
            #expect(stats.crashes + stats.kills == 1)
            #expect(stats.quarantineHits == 2)
            #expect(stats.liveWorkers == 2)
            // /metrics counts it as it happened: a crash (the loop: a kill), its replacement, the
            // source in quarantine, two requests refused from it, the pool at full size.
            let metrics = String(decoding: try await h.get("/metrics").body, as: UTF8.self)
            let (crashes, kills) = kind == "loop" ? (0, 1) : (1, 0)
            for line in [
                "imago_decoder_crashes_total \(crashes)", "imago_decoder_kills_total \(kills)", "imago_decoder_quarantine_hits_total 2",
                "imago_decoder_quarantined_sources 1", "imago_decoder_workers 2"
            ] {
                #expect(metrics.contains(line), "\(line)")
            }
            #expect(metrics.contains("imago_decoder_replacements_total"), "no replacements counted")
            #expect(stats.replacements >= 1)
        }
    }

    @Test("the workers' address space follows the service's resolution limit: 4 GiB, or 24 bytes a pixel of the largest frame")
    func workersMemoryFollowsLimits() async throws {
        for (megapixels, expected) in [(50, 4 << 30), (400, 400_000_000 * 24)] {
            try await ServiceHarness.with({ c in
                c.isolation.formats = [.png]
                c.isolation.executable = Self.probe.path
                c.security.maxSourceResolution = Double(megapixels)
            }) { h in
                #expect(h.service.manager.configuration.decoderIsolation?.memoryLimit == expected, "\(megapixels) MP")
            }
        }
    }

    @Test("IMAGO_ISOLATED_FORMATS is read by the library's one reader: formats, video, none; a bad name is refused, named")
    func isolatedFormatsSetting() throws {
        let some = try ServerConfiguration(environment: ["IMAGO_ISOLATED_FORMATS": "PDF, tif,video"])
        #expect(some.isolation.formats == [.pdf, .tiff] && some.isolation.video)
        let none = try ServerConfiguration(environment: ["IMAGO_ISOLATED_FORMATS": "none"])
        #expect(none.isolation.formats.isEmpty && !none.isolation.video)
        let unset = try ServerConfiguration(environment: [:])
        #expect(unset.isolation.formats == DecoderIsolation.defaultFormats && unset.isolation.video)
        let error = #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_ISOLATED_FORMATS": "png,bmpx"]) }
        #expect(error?.variable == "IMAGO_ISOLATED_FORMATS" && error?.reason == "'bmpx' is not an image format, video or none")
    }
}
