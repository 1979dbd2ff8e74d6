// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's settings about sources and URLs: the fallback image, the base URL, URL
/// replacements, only-presets mode and the allowed options.
@Suite("Fallback image, base URL, replacements, only presets, allowed options")
struct ServiceSourceSettingsTests {
    @Test("a source that cannot be fetched gets the fallback image, processed, with Fallback-Image: 1 and its status")
    func fallback() async throws {
        let fallback = try ServerFixtures.png(width: 80, height: 40)
        try await ServiceHarness.with({
            $0.sources.fallbackImageData = fallback
            $0.sources.fallbackImageTTL = 60
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 40))
            for route in ["/img/missing.png", "/status/500", "/drop"] {
                let r = try await h.get(h.plain("w:20", route))
                #expect(r.status == 200 && r["fallback-image"] == "1", "\(route): \(r.status)")
                #expect(try r.image().pixelSize == PixelSize(width: 20, height: 10))
                #expect(r["cache-control"] == "max-age=60, public")
            }
            // A source that is there is not touched; neither are bad URLs or bad images.
            let ok = try await h.get(h.plain("w:20", "/img/a.png"))
            #expect(ok.status == 200 && ok["fallback-image"] == nil)
            #expect(try await h.get(h.plain("w:-1", "/img/missing.png")).status == 404)
            // A client revalidating the fallback it holds gets 304, not an empty 200.
            let first = try await h.get(h.plain("w:20", "/img/missing.png"))
            let again = try await h.get(h.plain("w:20", "/img/missing.png"), headers: ["If-None-Match": first["etag"] ?? ""])
            #expect(again.status == 304 && first["last-modified"] == nil)
        }
        try await ServiceHarness.with({
            $0.sources.fallbackImageData = fallback
            $0.sources.fallbackImageHTTPCode = 0
        }) { h in
            let r = try await h.get(h.plain("w:20", "/img/missing.png"))
            #expect(r.status == 404 && r["fallback-image"] == "1")
            #expect(try r.image().pixelSize.width == 20)
            // An error status is not kept for the results' TTL (imgproxy sends no Cache-Control):
            // the source may come back.
            #expect(r["cache-control"] == nil)
        }
    }

    @Test("a body that is not an image gets the fallback image, as imgproxy's download refuses it; a broken image does not")
    func fallbackForNotAnImage() async throws {
        let fallback = try ServerFixtures.png(width: 80, height: 40)
        try await ServiceHarness.with({ $0.sources.fallbackImageData = fallback }) { h in
            // An origin's error page sent as 200, and a text file named as a picture.
            h.origin.register("text.png", data: Data("<html><body>moved</body></html>".utf8), contentType: "text/html")
            for route in ["/status/200", "/img/text.png"] {
                let r = try await h.get(h.plain("w:20", route))
                #expect(r.status == 200 && r["fallback-image"] == "1", "\(route): \(r.status) \(r.errorFields)")
                #expect(try r.image().pixelSize == PixelSize(width: 20, height: 10))
            }
            // /info answers for the fallback too, as it does for a source that cannot be fetched.
            let info = try await h.get("/info" + h.plain("", "/img/text.png"))
            #expect(info.status == 200 && info["fallback-image"] == "1", "\(info.status) \(info.errorFields)")
            // A PNG cut after its signature is an image of a known type that fails: 422, no fallback.
            var broken = try ServerFixtures.png(width: 40, height: 40)
            broken = broken.prefix(20) + Data(repeating: 0x41, count: 64)
            h.origin.register("broken.png", data: broken)
            let r = try await h.get(h.plain("w:20", "/img/broken.png"))
            #expect(r.status == 422 && r["fallback-image"] == nil, "\(r.status)")
            // `raw` sends the body as it is: no render, no fallback.
            let raw = try await h.get(h.plain("raw:1", "/img/text.png"))
            #expect(raw.status == 200 && raw["fallback-image"] == nil && raw.body == Data("<html><body>moved</body></html>".utf8))
        }
        try await ServiceHarness.with({
            $0.sources.fallbackImageData = fallback
            $0.sources.fallbackImageHTTPCode = 0
        }) { h in
            // The failure's own status, as imgproxy's type error gives it.
            let r = try await h.get(h.plain("w:20", "/status/200"))
            #expect(r.status == 422 && r["fallback-image"] == "1")
        }
        // Without a fallback image: the 422 it always was.
        try await ServiceHarness.with({ _ in }) { h in
            let r = try await h.get(h.plain("w:20", "/status/200"))
            #expect(r.status == 422 && r.errorFields["error"] == "unprocessable_image")
        }
    }

    @Test("the fallback's lifetime, a source over the size limit, and the fallback URL outside the allow-list")
    func fallbackLimits() async throws {
        let fallback = try ServerFixtures.png(width: 80, height: 40)
        try await ServiceHarness.with({
            $0.sources.fallbackImageData = fallback
            $0.sources.fallbackImageTTL = 3600
        }) { h in
            // No longer than the URL lives (`exp:`, 600 s away), as imgproxy takes the shorter:
            // what is left of its life between the request and the answer, however slow the machine.
            let expires = Int(Date().timeIntervalSince1970) + 600
            let sent = Int(Date().timeIntervalSince1970)
            let r = try await h.get(h.plain("w:20/exp:\(expires)", "/img/missing.png"))
            let answered = Int(Date().timeIntervalSince1970.rounded(.up))
            let age = ImageService.maxAge(r["cache-control"]) ?? -1
            #expect(r.status == 200 && r["fallback-image"] == "1", "\(r.status)")
            #expect((expires - answered)...(expires - sent) ~= age, "\(r["cache-control"] ?? "none")")
        }
        // A source over IMAGO_MAX_SRC_FILE_SIZE is a download that failed: the fallback answers.
        let tiny = try ServerFixtures.png(width: 8, height: 4)
        try await ServiceHarness.with({
            $0.sources.fallbackImageData = tiny
            $0.security.maxSourceFileSize = tiny.count + 100
        }) { h in
            h.origin.register("big.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300), contentType: "image/jpeg")
            let r = try await h.get(h.plain("", "/img/big.jpg"))
            #expect(r.status == 200 && r["fallback-image"] == "1")
            #expect(try r.image().pixelSize == PixelSize(width: 8, height: 4))
        }
        // The operator's fallback URL is not held to the allow-list of sources (imgproxy fetches
        // it apart); the sources still are.
        let elsewhere = try await TestHTTPServer.start()
        elsewhere.register("fallback.png", data: tiny)
        try await ServiceHarness.with({
            $0.sources.fallbackImageURL = "http://127.0.0.1:\(elsewhere.port)/img/fallback.png"
            $0.security.allowedSources = ["http://127.0.0.1:*/img/a"]
        }) { h in
            let r = try await h.get(h.plain("", "/img/a-missing.png"))
            #expect(r.status == 200 && r["fallback-image"] == "1", "\(r.status) \(r.errorFields)")
            let outside = try await h.get(h.plain("", "/img/b.png"))
            #expect(outside.status == 404 && outside.errorFields["error"] == "source_not_allowed")
        }
        await elsewhere.stop()
        // Checked at start: a path or data that is not an image stops it.
        for (name, value) in [
            ("IMAGO_FALLBACK_IMAGE_PATH", "/nonexistent/x.png"), ("IMAGO_FALLBACK_IMAGE_DATA", "aGVsbG8="),
            ("IMAGO_FALLBACK_IMAGE_URL", "ftp://x/a.png"), ("IMAGO_FALLBACK_IMAGE_HTTP_CODE", "42")
        ] {
            let error = #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: [name: value]) }
            #expect(error?.variable == name)
        }
        let data = try ServerConfiguration(environment: ["IMAGO_FALLBACK_IMAGE_DATA": fallback.base64EncodedString()])
        #expect(data.sources.fallbackImageData == fallback && data.sources.hasFallbackImage)
    }

    @Test("IMAGO_BASE_URL and IMAGO_URL_REPLACEMENTS: sources relative to a base, rewritten in order")
    func baseAndReplacements() async throws {
        var c = ServerConfiguration()
        c.sources.baseURL = "http://images.dev/"
        #expect(c.sources.resolveSource("lorem/ipsum.jpg") == "http://images.dev/lorem/ipsum.jpg")
        #expect(c.sources.resolveSource("http://images.dev/a.jpg") == "http://images.dev/a.jpg")
        c = try ServerConfiguration(environment: ["IMAGO_URL_REPLACEMENTS": "test://*/=test2://images.dev/${1}/dolor/;test2://=http://"])
        #expect(c.sources.resolveSource("test://lorem/ipsum.jpg?param=value") == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        #expect(c.sources.resolveSource("https://other/a.png") == "https://other/a.png")
        #expect(SourceSettings.replacing("a*c", with: "[${1}]", in: "abbbc/x") == "[bbb]/x")
        #expect(SourceSettings.replacing("a*c", with: "x", in: "ab/c") == nil)
        #expect(SourceSettings.replacing("*/*/", with: "${2}-${1}/", in: "ab/cd/ef") == "cd-ab/ef")
        // Go's Regexp.Expand, which imgproxy fills replacements with: $n as ${n}, $0 the whole
        // match, a longest name ($1x is no group: nothing), $$ a dollar, a lone $ kept.
        #expect(SourceSettings.replacing("*/*/", with: "$2-$1/", in: "ab/cd/ef") == "cd-ab/ef")
        #expect(SourceSettings.replacing("a*/", with: "[$0]", in: "abc/x") == "[abc/]x")
        #expect(SourceSettings.replacing("a*/", with: "$1x|${1}x|$$1|$-|$", in: "abc/") == "|bcx|$1|$-|$")
        #expect(SourceSettings.replacing("a*/", with: "${name}${9}", in: "abc/") == "")
        // A long source against a pattern that cannot match costs little.
        let long = String(repeating: "a", count: 60_000)
        #expect(SourceSettings.replacing("*b*c*d", with: "x", in: long) == nil)
        let origin = try await TestHTTPServer.start()
        origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 40))
        var configuration = ServerConfiguration()
        configuration.security.allowLoopbackSources = true
        configuration.cache.cacheSize = 0
        // As ServiceHarness does: imgproxy's 5-s default is shorter than a loaded 2-core
        // machine may take to let the local origin answer (a CI run met 504 so).
        configuration.sources.downloadTimeout = .seconds(60)
        configuration.sources.baseURL = "http://127.0.0.1:\(origin.port)/img/"
        let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent, resolver: SystemHostResolver())
        let response = try await service.handle(method: .get, path: "/_/w:10/plain/a.png", headers: [:])
        #expect(response.status.code == 200 && origin.count("/img/a.png") == 1)
        await service.shutdown()
        await origin.stop()
    }

    @Test("IMAGO_ONLY_PRESETS reads the first segment as presets; IMAGO_ALLOWED_PROCESSING_OPTIONS refuses the others (404)")
    func presetsAndAllowedOptions() async throws {
        try await ServiceHarness.with({
            $0.urls.onlyPresets = true
            $0.urls.presets = ["small": ["rs:fit:10:10"], "sq": ["rs:fill:8:8"]]
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 20))
            let small = try await h.get("/_/small/plain/" + h.source("/img/a.png"))
            #expect(try small.status == 200 && small.image().pixelSize == PixelSize(width: 10, height: 5))
            let both = try await h.get("/_/small:sq/plain/" + h.source("/img/a.png"))
            #expect(try both.image().pixelSize == PixelSize(width: 8, height: 8))
            let unknown = try await h.get("/_/nope/plain/" + h.source("/img/a.png"))
            #expect(unknown.status == 404 && unknown.errorFields["error"] == "invalid_url")
            // Options are not read in this mode: `w:5` is taken for a preset name.
            #expect(try await h.get("/_/w:5/plain/" + h.source("/img/a.png")).status == 404)
        }
        try await ServiceHarness.with({
            $0.urls.allowedProcessingOptions = ["w", "pr"]
            $0.urls.presets = ["q": ["q:50", "h:5"]]
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 20))
            #expect(try await h.get(h.plain("w:10", "/img/a.png")).status == 200)
            #expect(try await h.get(h.plain("w:10/pr:q", "/img/a.png")).status == 200)
            let forbidden = try await h.get(h.plain("width:10", "/img/a.png"))
            #expect(forbidden.status == 404 && forbidden.errorFields["error"] == "forbidden_option")
        }
    }

    @Test("client hints (opt-in): DPR and Width set the defaults, the URL overrides them; answers carry Accept-CH and Vary")
    func clientHints() async throws {
        try await ServiceHarness.with({ $0.urls.enableClientHints = true }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 400, height: 200))
            // 200 device pixels at a DPR of 2: 100 CSS pixels, drawn at 200.
            let hinted = try await h.get(h.plain("", "/img/a.png"), headers: ["Sec-CH-DPR": "2", "Sec-CH-Width": "200"])
            #expect(try hinted.image().pixelSize == PixelSize(width: 200, height: 100))
            #expect(hinted["accept-ch"]?.contains("Sec-CH-DPR") == true && hinted["vary"]?.contains("Sec-CH-Width") == true)
            let url = try await h.get(h.plain("w:50", "/img/a.png"), headers: ["DPR": "2", "Width": "300"])
            #expect(try url.image().pixelSize.width == 100)
            let viewport = try await h.get(h.plain("", "/img/a.png"), headers: ["Viewport-Width": "120"])
            #expect(try viewport.image().pixelSize.width == 120)
            let junk = try await h.get(h.plain("", "/img/a.png"), headers: ["DPR": "lots", "Width": "-4"])
            #expect(try junk.image().pixelSize.width == 400)
        }
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 400, height: 200))
            let off = try await h.get(h.plain("", "/img/a.png"), headers: ["DPR": "2", "Width": "200"])
            #expect(try off.image().pixelSize.width == 400 && off["accept-ch"] == nil)
        }
    }

    @Test("max_animation_frame_resolution stands for the resolution limit for animations kept animated")
    func frameResolution() throws {
        let info = ImageInfo(format: .gif, width: 100, height: 100, frameCount: 3)
        var c = ServerConfiguration()
        c.security.maxSourceResolution = 0.005
        func plan(_ options: String) throws -> RenderPlan {
            try RenderPlan(
                info: info, options: try ProcessingOptions(parsing: options.split(separator: "/").map(String.init), allowSecurityOptions: true),
                accept: nil, settings: c.renderSettings, coders: .shared)
        }
        #expect(throws: ServiceError.self) { try plan("") }
        c.security.maxAnimationFrameResolution = 0.02
        #expect(try plan("").animated)
        // A still made of it is held to the resolution limit.
        #expect(throws: ServiceError.self) { try plan("f:jpg") }
        #expect(throws: ServiceError.self) { try plan("mafr:0.001") }
        #expect(try plan("mafr:0.5").animated)
    }
}
