// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Effort follows popularity (`IMAGO_FORMAT_POLICY=efficient`): a result's first answer is a
/// cheap progressive JPEG at the imgproxy answer's visual quality; once the result (or its
/// source) is asked again, a quick AVIF is made on the request for a client that takes AVIF and
/// answered from then on, and the smallest format the client takes at its slowest effort once
/// the result is hot, in the background.
@Suite("Efficient delivery: a cheap JPEG first, the smallest format once asked again")
struct EfficientDeliveryTests {
    static let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
    static let webpOnly = "image/webp,*/*"

    static func efficient(_ c: inout ServerConfiguration) {
        c.output.formatPolicy = .efficient
        c.output.autoWebP = true
    }

    /// Asks `path` until the answer has the full lifetime (the smaller one is made), or 120 s of
    /// asking pass.
    func untilFinal(_ h: ServiceHarness, _ path: String, accept: String) async throws -> Reply {
        var asked = Duration.zero
        while true {
            let reply = try await h.get(path, headers: ["Accept": accept])
            if reply["cache-control"]?.contains("stale-while-revalidate") == false || asked > .seconds(120) { return reply }
            try await Task.sleep(for: .milliseconds(50))
            asked += .milliseconds(50)
        }
    }

    /// Asks `path` until the answer is final, keeping each distinct answer (by ETag, its latest
    /// reply) in the order they came.
    func answers(_ h: ServiceHarness, _ path: String, accept: String) async throws -> [Reply] {
        var seen: [Reply] = []
        var asked = Duration.zero
        while asked < .seconds(120) {
            let reply = try await h.get(path, headers: ["Accept": accept])
            if seen.last?["etag"] == reply["etag"] { seen.removeLast() }
            seen.append(reply)
            if reply["cache-control"]?.contains("stale-while-revalidate") == false { break }
            try await Task.sleep(for: .milliseconds(20))
            asked += .milliseconds(20)
        }
        return seen
    }

    /// The answers' rule: a progressive JPEG first; each next answer smaller than the one
    /// before; every answer but the last provisional, the last final with the full lifetime.
    func checkSequence(_ seen: [Reply], ttl: Int, size: PixelSize) throws {
        let first = try #require(seen.first)
        let progressive = try ImageCoderRegistry.shared.info(of: first.body).progressive
        #expect(first["content-type"] == "image/jpeg" && progressive)
        for (a, b) in zip(seen, seen.dropFirst()) {
            #expect(b.body.count < a.body.count, "\(b["content-type"] ?? "") \(b.body.count) after \(a["content-type"] ?? "") \(a.body.count)")
            #expect(a["cache-control"]?.hasPrefix("max-age=60, stale-while-revalidate=") == true)
        }
        #expect(seen.last?["cache-control"] == "max-age=\(ttl), public")
        for reply in seen { #expect(try reply.image().pixelSize == size) }
    }

    @Test(
        "a WebP client: a progressive JPEG first, briefly cacheable, no quick WebP; once the result is hot, the slow WebP if smaller",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func jpegThenWebP() async throws {
        try await ServiceHarness.with({
            Self.efficient(&$0)
            $0.output.efficientHotAsks = 4
        }) { (h: ServiceHarness) async throws in
            h.origin.register("photo.jpg", data: try Corpus.data("exif-orientation/Landscape_1.jpg"), contentType: "image/jpeg")
            let path = h.plain("w:600", "/img/photo.jpg")
            let ttl = h.service.configuration.http.ttl
            let first = try await h.get(path, headers: ["Accept": Self.webpOnly])
            #expect(first.status == 200 && first["content-type"] == "image/jpeg", "\(first.headers)")
            #expect(first["cache-control"] == "max-age=60, stale-while-revalidate=\(ttl - 60), public")
            #expect(first["vary"] == "Accept")
            // Asked once, and again: nothing more is made until the result is hot.
            #expect(h.service.backgroundEncodes.count == 0)
            let again = try await h.get(path, headers: ["Accept": Self.webpOnly])
            #expect(again["etag"] == first["etag"] && h.service.backgroundEncodes.count == 0)
            let seen = try await answers(h, path, accept: Self.webpOnly)
            #expect(seen.first?["etag"] == first["etag"], "the stored JPEG while a WebP is made in the background")
            try checkSequence(seen, ttl: ttl, size: PixelSize(width: 600, height: 400))
            let final = try #require(seen.last)
            // A revalidation of the JPEG gets the final answer; of that, a 304.
            let revalidated = try await h.get(path, headers: ["Accept": Self.webpOnly, "If-None-Match": first["etag"] ?? ""])
            #expect(revalidated.status == (final["etag"] == first["etag"] ? 304 : 200))
            let unchanged = try await h.get(path, headers: ["Accept": Self.webpOnly, "If-None-Match": final["etag"] ?? ""])
            #expect(unchanged.status == 304)
            // A client that takes neither WebP nor AVIF gets a progressive JPEG at the quality of
            // its imgproxy answer (JPEG at 80), final at once.
            let plain = try await h.get(path, headers: ["Accept": "image/jpeg"])
            #expect(plain["content-type"] == "image/jpeg" && plain["cache-control"] == "max-age=\(ttl), public")
            #expect(try ImageCoderRegistry.shared.info(of: plain.body).progressive)
            #expect(plain.body.count > first.body.count, "quality 80 against the WebP's 79, about JPEG's 66")
        }
    }

    @Test(
        "an AVIF client: the JPEG, then a quick AVIF (speed 9) made when asked again, then the slowest (speed 6) once hot, each only if smaller",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason), arguments: [300, 800])
    func jpegThenAVIF(width: Int) async throws {
        try await ServiceHarness.with({
            Self.efficient(&$0)
            $0.output.efficientHotAsks = 3
        }) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try Corpus.data("exif-orientation/Landscape_1.jpg"), contentType: "image/jpeg")
            let seen = try await answers(h, h.plain("w:\(width)", "/img/photo.jpg"), accept: Self.chrome)
            try checkSequence(seen, ttl: h.service.configuration.http.ttl, size: PixelSize(width: width, height: width * 2 / 3))
            #expect(seen.count >= 2 && seen.last?["content-type"] == "image/avif", "\(seen.map { ($0["content-type"] ?? "", $0.body.count) })")
        }
    }

    @Test(
        "a source asked before: an AVIF client's first answer for a new size is the quick AVIF; a WebP client's stays the JPEG",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func warmSource() async throws {
        try await ServiceHarness.with(Self.efficient) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 1600, height: 1067), contentType: "image/jpeg")
            let cold = try await h.get(h.plain("w:600", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            #expect(cold["content-type"] == "image/jpeg")
            let warm = try await h.get(h.plain("w:640", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            #expect(warm["content-type"] == "image/avif" && warm.body.count < cold.body.count, "\(warm.headers)")
            #expect(try warm.image().pixelSize == PixelSize(width: 640, height: 427))
            // The AVIF was encoded from the JPEG's pixels: one decode and transform for both.
            #expect(h.service.manager.processedHandoffCounts == (1, 0))
            let webp = try await h.get(h.plain("w:620", "/img/photo.jpg"), headers: ["Accept": Self.webpOnly])
            #expect(webp["content-type"] == "image/jpeg", "\(webp.headers)")
        }
    }

    @Test(
        "a quick format that lost more often than it won on a source is not tried at the source's other sizes; once it wins as often, it is",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func losingFamily() async throws {
        try await ServiceHarness.with(Self.efficient) { (h: ServiceHarness) async throws in
            guard ImageCoderRegistry.shared.canEncode(.avif) else { return }
            let photo = try ServerFixtures.jpeg(width: 1600, height: 1067)
            h.origin.register("photo.jpg", data: photo, contentType: "image/jpeg")
            let family = "\(CachedEntry.digest(of: photo)) avif"
            _ = try await h.get(h.plain("w:600", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            h.service.backgroundEncodes.record(family, kept: false)
            #expect(h.service.backgroundEncodes.losing(family))
            // The source was asked before, so this size would get the quick AVIF (``warmSource()``).
            let skipped = try await h.get(h.plain("w:640", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            #expect(skipped["content-type"] == "image/jpeg", "\(skipped.headers)")
            // Still provisional: the hot AVIF may come once the result is hot.
            #expect(skipped["cache-control"]?.contains("stale-while-revalidate") == true)
            #expect(h.service.backgroundEncodes.count == 0)
            h.service.backgroundEncodes.record(family, kept: true)
            #expect(!h.service.backgroundEncodes.losing(family))
            let tried = try await h.get(h.plain("w:680", "/img/photo.jpg"), headers: ["Accept": Self.chrome])
            #expect(tried["content-type"] == "image/avif", "\(tried.headers)")
        }
    }

    @Test("left as imgproxy answers: a format the URL names, a transparent result, and the imgproxy policy")
    func leftAlone() async throws {
        try await ServiceHarness.with(Self.efficient) { (h: ServiceHarness) async throws in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            h.origin.register("alpha.png", data: try ServerFixtures.png(width: 200, height: 100, alpha: true), contentType: "image/png")
            let ttl = h.service.configuration.http.ttl
            let named = try await h.get(h.plain("w:100", "/img/photo.jpg", ext: "webp"), headers: ["Accept": Self.webpOnly])
            #expect(named["content-type"] == "image/webp" && named["cache-control"] == "max-age=\(ttl), public")
            let alpha = try await h.get(h.plain("w:100", "/img/alpha.png"), headers: ["Accept": Self.webpOnly])
            #expect(alpha["content-type"] == "image/webp" && alpha["cache-control"] == "max-age=\(ttl), public")
            #expect(h.service.backgroundEncodes.count == 0)
        }
        try await ServiceHarness.with({ $0.output.autoWebP = true }) { (h: ServiceHarness) async throws in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            let reply = try await h.get(h.plain("w:100", "/img/photo.jpg"), headers: ["Accept": Self.webpOnly])
            #expect(reply["content-type"] == "image/webp" && reply["cache-control"] == "max-age=\(h.service.configuration.http.ttl), public")
        }
    }

    @Test("the first answer's JPEG quality scores as the imgproxy answer would: the visual mapping, inverted")
    func visualQuality() {
        typealias Mapping = OutputSettings.QualityMapping
        for q in stride(from: 40, through: 95, by: 5) {
            let webp = Mapping.visual.quality(q, for: .webp, avifSpeed: 6)
            let avif = Mapping.visual.quality(q, for: .avif, avifSpeed: 8)
            #expect(abs((Mapping.jpegQuality(scoringAs: webp, in: .webp, avifSpeed: 6) ?? 0) - q) <= 1, "webp \(webp)")
            #expect(abs((Mapping.jpegQuality(scoringAs: avif, in: .avif, avifSpeed: 8) ?? 0) - q) <= 1, "avif \(avif)")
        }
        #expect(Mapping.jpegQuality(scoringAs: 79, in: .webp, avifSpeed: 6) == 66)
        #expect(Mapping.jpegQuality(scoringAs: 80, in: .jpeg, avifSpeed: 6) == 80)
        #expect(Mapping.jpegQuality(scoringAs: 80, in: .png, avifSpeed: 6) == nil)
    }

    @Test("the settings: the policy, the later WebP's method, and imgproxy's IMGPROXY_JPEG_PROGRESSIVE with the JPEG tables")
    func settings() throws {
        let defaults = try ServerConfiguration(environment: [:])
        #expect(defaults.output.formatPolicy == .imgproxy && !defaults.output.jpegProgressive)
        #expect(defaults.output.jpegQuantization == .standard && defaults.output.efficientWebPEffort == 6)
        let set = try ServerConfiguration(environment: [
            "IMAGO_FORMAT_POLICY": "efficient", "IMGPROXY_JPEG_PROGRESSIVE": "true", "IMAGO_JPEG_QUANTIZATION": "robidoux",
            "IMAGO_EFFICIENT_WEBP_EFFORT": "4", "IMAGO_EFFICIENT_AVIF_SPEED": "5"
        ])
        #expect(set.output.formatPolicy == .efficient && set.output.jpegProgressive && set.output.jpegQuantization == .robidoux)
        #expect(set.output.efficientWebPEffort == 4 && set.output.efficientAVIFSpeed == 5 && set.output.negotiatesByAccept)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_EFFICIENT_AVIF_SPEED": "1"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_FORMAT_POLICY": "cheap"]) }
    }

    @Test("IMAGO_JPEG_PROGRESSIVE and IMAGO_JPEG_QUANTIZATION shape JPEG answers under the imgproxy policy, and name them in the ETag")
    func jpegSettings() async throws {
        let photo = try ServerFixtures.jpeg(width: 320, height: 240)
        var tags: [String] = []
        for (progressive, table) in [(false, EncodeOptions.JPEGQuantization.standard), (true, .standard), (true, .robidoux)] {
            try await ServiceHarness.with({
                $0.output.jpegProgressive = progressive
                $0.output.jpegQuantization = table
            }) { (h: ServiceHarness) async throws in
                h.origin.register("photo.jpg", data: photo, contentType: "image/jpeg")
                let reply = try await h.get(h.plain("w:160", "/img/photo.jpg"))
                #expect(reply["content-type"] == "image/jpeg")
                #expect(try ImageCoderRegistry.shared.info(of: reply.body).progressive == progressive)
                tags.append(reply["etag"] ?? "")
            }
        }
        #expect(Set(tags).count == 3, "\(tags)")
    }
}
