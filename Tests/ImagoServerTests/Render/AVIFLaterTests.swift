// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Fast now, AVIF later (`IMAGO_AVIF_LATER`): negotiated AVIF not made yet is answered with a
/// fast AVIF (or, with `IMAGO_AVIF_LATER_FIRST=next`, the next format the client takes), briefly
/// cacheable, while the AVIF is made in the background; then that AVIF is the answer.
@Suite("AVIF later: a fast answer now, the smaller AVIF once it is made")
struct AVIFLaterTests {
    static let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    /// Asks `path` until the answer is the AVIF made in the background, with the full lifetime
    /// (or 120 s pass).
    func untilAVIF(_ h: ServiceHarness, _ path: String, accept: String) async throws -> Reply {
        var asked = Duration.zero
        while true {
            let reply = try await h.get(path, headers: ["Accept": accept])
            if reply["content-type"] == "image/avif", reply["cache-control"]?.contains("stale-while-revalidate") == false { return reply }
            // Asking time only, as `poll` counts it: a stall of the test process uses none of it.
            if asked > .seconds(120) { return reply }
            try await Task.sleep(for: .milliseconds(50))
            asked += .milliseconds(50)
        }
    }

    @Test(
        "the first answer is a fast AVIF with a short max-age and stale-while-revalidate; later ones the smaller AVIF with the full lifetime",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func fastThenSmallAVIF() async throws {
        try await ServiceHarness.with({
            $0.output.autoAVIF = true
            $0.output.autoWebP = true
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register(
                "photo.jpg", data: try Corpus.data("exif-orientation/Landscape_1.jpg"), contentType: "image/jpeg")
            let path = h.plain("w:600", "/img/photo.jpg")
            let first = try await h.get(path, headers: ["Accept": Self.chrome])
            #expect(first.status == 200 && first["content-type"] == "image/avif", "\(first.headers)")
            #expect(first["cache-control"] == "max-age=60, stale-while-revalidate=\(h.service.configuration.http.ttl - 60), public")
            #expect(first["vary"] == "Accept")
            #expect(try first.image().pixelSize == PixelSize(width: 600, height: 400))
            let avif = try await untilAVIF(h, path, accept: Self.chrome)
            #expect(avif["content-type"] == "image/avif" && avif["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
            #expect(avif["etag"] != first["etag"], "another representation, another ETag")
            #expect(avif.body.count < first.body.count, "speed 6 is smaller: \(avif.body.count) against \(first.body.count) bytes")
            // A WebP-only client still gets WebP, with the full lifetime.
            let webp = try await h.get(path, headers: ["Accept": "image/webp,*/*"])
            #expect(webp["content-type"] == "image/webp" && webp["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
            // A revalidation of the fast AVIF gets the smaller one; of that, a 304.
            let revalidated = try await h.get(path, headers: ["Accept": Self.chrome, "If-None-Match": first["etag"] ?? ""])
            #expect(revalidated.status == 200 && revalidated["etag"] == avif["etag"])
            let unchanged = try await h.get(path, headers: ["Accept": Self.chrome, "If-None-Match": avif["etag"] ?? ""])
            #expect(unchanged.status == 304)
        }
    }

    @Test("with IMAGO_AVIF_LATER_FIRST=next the first answer is WebP with a short max-age; later ones AVIF with the full lifetime")
    func webpThenAVIF() async throws {
        try await ServiceHarness.with({
            $0.output.autoAVIF = true
            $0.output.autoWebP = true
            $0.output.avifLaterFirst = .next
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 320, height: 240), contentType: "image/jpeg")
            let path = h.plain("w:160", "/img/photo.jpg")
            let first = try await h.get(path, headers: ["Accept": Self.chrome])
            #expect(first.status == 200 && first["content-type"] == "image/webp", "\(first.headers)")
            #expect(first["cache-control"] == "max-age=60, stale-while-revalidate=\(h.service.configuration.http.ttl - 60), public")
            #expect(first["vary"] == "Accept")
            #expect(try first.image().pixelSize == PixelSize(width: 160, height: 120))
            let avif = try await untilAVIF(h, path, accept: Self.chrome)
            #expect(avif["content-type"] == "image/avif" && avif["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
            #expect(avif["etag"] != first["etag"], "another representation, another ETag")
            #expect(try avif.image().pixelSize == PixelSize(width: 160, height: 120))
            // A revalidation of the WebP gets the AVIF now; of the AVIF, a 304.
            let revalidated = try await h.get(path, headers: ["Accept": Self.chrome, "If-None-Match": first["etag"] ?? ""])
            #expect(revalidated.status == 200 && revalidated["content-type"] == "image/avif")
            let unchanged = try await h.get(path, headers: ["Accept": Self.chrome, "If-None-Match": avif["etag"] ?? ""])
            #expect(unchanged.status == 304)
            // A WebP-only client still gets WebP, with the full lifetime.
            let webp = try await h.get(path, headers: ["Accept": "image/webp,*/*"])
            #expect(webp["content-type"] == "image/webp" && webp["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
            #expect(webp["etag"] == first["etag"], "the same WebP, stored")
        }
    }

    @Test("with IMAGO_AVIF_LATER_FIRST=next a client that takes AVIF but not WebP gets the preferred format meanwhile")
    func noWebP() async throws {
        try await ServiceHarness.with({
            $0.output.autoAVIF = true
            $0.output.autoWebP = true
            $0.output.avifLaterFirst = .next
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            let path = h.plain("w:100", "/img/photo.jpg")
            let first = try await h.get(path, headers: ["Accept": "image/avif,image/png;q=0.5"])
            #expect(first["content-type"] == "image/jpeg" && first["cache-control"]?.hasPrefix("max-age=60, ") == true)
            let avif = try await untilAVIF(h, path, accept: "image/avif,image/png;q=0.5")
            #expect(avif["content-type"] == "image/avif")
        }
    }

    @Test("with IMAGO_AVIF_LATER off, or AVIF named in the URL, AVIF is made while the client waits")
    func atOnce() async throws {
        try await ServiceHarness.with({
            $0.output.autoAVIF = true
            $0.output.autoWebP = true
            $0.output.avifLater = false
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            let reply = try await h.get(h.plain("w:100", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            #expect(reply["content-type"] == "image/avif" && reply["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
        }
        try await ServiceHarness.with({ $0.output.autoAVIF = true }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            let named = try await h.get(h.plain("w:100", "/img/photo.jpg", ext: "avif"), headers: ["Accept": Self.chrome])
            #expect(named["content-type"] == "image/avif" && named["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
            #expect(h.service.backgroundEncodes.count == 0)
        }
    }

    @Test("background encodes are bounded and shared: many requests for new AVIFs start at most the limit, one per result")
    func bounded() async throws {
        try await ServiceHarness.with({
            $0.output.autoAVIF = true
            $0.workers = 2
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300), contentType: "image/jpeg")
            var peak = 0
            for width in stride(from: 100, to: 400, by: 50) {
                for _ in 0..<2 {
                    let reply = try await h.get(h.plain("w:\(width)", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
                    #expect(reply.status == 200)
                    peak = max(peak, h.service.backgroundEncodes.count)
                }
            }
            #expect(peak <= 1, "one fewer than the two workers")
            await h.service.backgroundEncodes.finish()
            #expect(h.service.backgroundEncodes.count == 0)
        }
    }
}
