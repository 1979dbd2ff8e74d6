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

/// imgproxy's integration tests (`integration_test/*.go`, imgproxy v4), one test per Go test
/// function, its subtests as a table. imgproxy's `local:///` test files become synthetic images
/// served by the loopback origin (or written under a temporary `IMAGO_LOCAL_ROOT`); its fake
/// `httptest` origins become `TestHTTPServer`'s `/img/NAME` route. The suite's settings
/// (`servertest.Suite`: loopback sources allowed, security options allowed, 10 MiB sources) are
/// what `ServiceHarness` starts with, or looser.
///
/// Settings mapped: `IMGPROXY_KEY`/`_SALT` → ``ServerConfiguration/keys``/``ServerConfiguration/salts``
/// (hex), `IMGPROXY_ALLOWED_SOURCES` → `allowedSources` (`*` patterns; imgproxy's regexps from
/// the same patterns), `IMGPROXY_ALWAYS_RASTERIZE_SVG` → `alwaysRasterizeSVG`, `IMGPROXY_ENFORCE_WEBP`
/// → `enforceWebP`, `IMGPROXY_MAX_SRC_FILE_SIZE` → `maxSourceFileSize`, `IMGPROXY_PRESETS` →
/// `presets`, `IMGPROXY_QUALITY` → `quality`, `IMGPROXY_SKIP_PROCESSING_FORMATS` →
/// `skipProcessingFormats`.
///
/// Not ported (the Go tests that need them are left out, not written empty):
/// - `IMGPROXY_CACHE_CONTROL_PASSTHROUGH` (`TestCacheControlPassthroughCacheControl`,
///   `TestCacheControlPassthroughExpires`) is ported with the stream handler's cases in
///   `URLSyntaxSettingsTests.cacheControlPassthrough`.
/// - not ported: `IMGPROXY_USE_ETAG=false` (`TestETagDisabled`): Imago always sends its own strong ETag.
/// - not ported: `IMGPROXY_USE_LAST_MODIFIED=false` (`TestLastModifiedDisabled`,
///   `TestModifiedSinceReq{ExactMatch,CompareMoreRecent,CompareTooOld}LastModifiedDisabled`): the
///   source's `Last-Modified` is always sent.
/// - not ported: `IMGPROXY_LAST_MODIFIED_BUSTER` (`TestLastModifiedBuster`) and `IMGPROXY_ETAG_BUSTER`
///   (`EtagBusterTest`, which testify never runs: its name does not start with `Test`): Imago's ETag
///   already changes with its version and the options, and `cachebuster` changes it per URL.
/// - `main_test.go` `TestMain` is the suite's setup (vips init), nothing to assert.
@Suite("imgproxy's integration tests")
struct ImgproxyIntegrationTests {
    /// imgproxy's `Content-Security-Policy` on every answer (server/responsewriter/writer.go:14).
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"
    /// The `Last-Modified` `TestHTTPServer` sends with every `/img/` file.
    static let originLastModified = "Sun, 22 Nov 2026 08:00:00 GMT"
    /// A small clean SVG (nothing for the sanitiser to take out).
    static let svg = Data(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="16" height="8" viewBox="0 0 16 8">
        <rect width="16" height="8" fill="#00f"/><circle cx="8" cy="4" r="3" fill="#f00"/></svg>
        """.utf8)

    /// imgproxy's `Cache-Control` for results, in its order: `max-age=N, public`
    /// (server/responsewriter/writer.go:160).
    static func isImgproxyCacheControl(_ value: String?, maxAge: Int) -> Bool { value == "max-age=\(maxAge), public" }

    /// `IMGPROXY_SKIP_PROCESSING_FORMATS=png`.
    static func skipPNG(_ c: inout ServerConfiguration) { c.output.skipProcessingFormats = [.png] }

    static func test1() throws -> Data { try ServerFixtures.png(width: 40, height: 40) }

    /// Serves `test1.png` through `options` and expects the source's own bytes back.
    static func expectSourceBack(
        _ options: String, ext: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws {
        try await ServiceHarness.with(configure) { h in
            let source = try Self.test1()
            h.origin.register("test1.png", data: source)
            let r = try await h.get(h.plain(options, "/img/test1.png", ext: ext))
            #expect(r.status == 200 && r.body == source, "\(options): \(r.status) \(r.errorFields)")
        }
    }

    // MARK: processing_handler_test.go

    @Test("integration_test/processing_handler_test.go TestSignatureValidationFailure: no or a bad signature is 403, a valid one 200")
    func signatureValidationFailure() async throws {
        let root = try TestFiles.temporaryDirectory("imago-imgproxy-local")
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.test1().write(to: root.appendingPathComponent("test1.png"))
        // The suite's keys are the raw bytes `test-key` and `test-salt`; Imago reads hex. The same
        // URL as imgproxy's, signature and all.
        let key = "746573742d6b6579", salt = "746573742d73616c74", path = "/rs:fill:4:4/plain/local:///test1.png"
        let valid = "My9d3xq_PYpVHsPrCyww0Kh1w5KZeZhIlWhsa4az1TI"
        #expect(try URLSigner(keyList: key, saltList: salt).signature(for: path) == valid)
        try await ServiceHarness.with({
            $0.urls.keys = key
            $0.urls.salts = salt
            $0.sources.localRoot = root.path
        }) { h in
            let rows = [("NoSignature", "unsafe", 403), ("BadSignature", "bad-signature", 403), ("ValidSignature", valid, 200)]
            for (name, signature, status) in rows {
                let r = try await h.get("/" + signature + path)
                #expect(r.status == status, "\(name): \(r.status) \(r.errorFields)")
                if status == 403 { #expect(r.errorFields["error"] == "invalid_signature", "\(name)") }
            }
        }
    }

    @Test("integration_test/processing_handler_test.go TestSourceValidation: allowed sources match as prefixes, * never across a /")
    func sourceValidation() async throws {
        // imgproxy redirects every download to local:///test1.png; here the names resolve to the
        // loopback origin, and the patterns take its port with `:*`. PORT is replaced by it.
        let resolver = TableResolver(["images.dev": ["127.0.0.1"], "a-1.mycdn.dev": ["127.0.0.1"], "a-1.b-2.mycdn.dev": ["127.0.0.1"]])
        let rows: [(name: String, allowed: [String], source: String, status: Int)] = [
            ("match http URL without wildcard", ["local://", "http://images.dev:*/"], "http://images.dev:PORT/img/ipsum.jpg", 200),
            (
                "match http URL with wildcard in hostname single level", ["local://", "http://*.mycdn.dev:*/"],
                "http://a-1.mycdn.dev:PORT/img/ipsum.jpg", 200
            ),
            (
                "match http URL with wildcard in hostname multiple levels", ["local://", "http://*.mycdn.dev:*/"],
                "http://a-1.b-2.mycdn.dev:PORT/img/ipsum.jpg", 200
            ),
            ("no match s3 URL with allowed local and http URLs", ["local://", "http://images.dev:*/"], "s3://images/lorem/ipsum.jpg", 404),
            (
                "no match http URL with wildcard in hostname including slash", ["local://", "http://*.mycdn.dev:*/"],
                "http://other.dev:PORT/.mycdn.dev:PORT/img/ipsum.jpg", 404
            )
        ]
        for row in rows {
            try await ServiceHarness.with({ $0.security.allowedSources = row.allowed }, resolver: resolver) { h in
                h.origin.register("ipsum.jpg", data: try ServerFixtures.jpeg(width: 40, height: 40), contentType: "image/jpeg")
                let r = try await h.get("/_/plain/" + row.source.replacingOccurrences(of: "PORT", with: "\(h.origin.port)"))
                #expect(r.status == row.status, "\(row.name): \(r.status) \(r.errorFields)")
            }
        }
    }

    @Test("integration_test/processing_handler_test.go TestSourceNetworkValidation: a loopback origin only with loopback sources allowed")
    func sourceNetworkValidation() async throws {
        for (allowed, status) in [(true, 200), (false, 404)] {
            try await ServiceHarness.with({ $0.security.allowLoopbackSources = allowed }) { h in
                h.origin.register("test1.png", data: try Self.test1())
                let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png"))
                #expect(r.status == status, "AllowLoopbackSourceAddresses \(allowed): \(r.status) \(r.errorFields)")
                if !allowed { #expect(r.errorFields["error"] == "source_not_allowed") }
            }
        }
    }

    @Test("integration_test/processing_handler_test.go TestSourceFormatNotSupported: a source no loader here reads is 422")
    func sourceFormatNotSupported() async throws {
        try await ServiceHarness.with { h in
            // imgproxy turns its PNG loader off for the test; Imago's coders are the shared
            // registry's (turning one off would reach every other test), so the source is in a
            // format it has no loader for: QOI, 8×8 of one colour.
            let qoi = Data("qoif".utf8) + Data([0, 0, 0, 8, 0, 0, 0, 8, 4, 0, 0xFD, 0xC1, 0, 0, 0, 0, 0, 0, 0, 1])
            h.origin.register("test1.qoi", data: qoi, contentType: "image/qoi")
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.qoi"))
            #expect(r.status == 422 && r.errorFields["error"] == "unprocessable_image", "\(r.status) \(r.errorFields)")
            // A format Imago knows but cannot load where its library is missing.
            if !ImageCoderRegistry.shared.canDecode(.pdf) {
                h.origin.register("test1.pdf", data: TestPDF.make(pages: [(20, 20, 0)]), contentType: "application/pdf")
                #expect(try await h.get(h.plain("rs:fill:4:4", "/img/test1.pdf")).status == 422)
            }
        }
    }

    @Test("integration_test/processing_handler_test.go TestResultingFormatNotSupported: an output no saver here writes is 422")
    func resultingFormatNotSupported() async throws {
        // imgproxy turns its PNG saver off; here the format asked is one no encoder writes (PDF).
        #expect(!ImageCoderRegistry.shared.canEncode(.pdf))
        try await ServiceHarness.with { h in
            h.origin.register("test1.png", data: try Self.test1())
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png", ext: "pdf"))
            #expect(r.status == 422 && r.errorFields["error"] == "unsupported_format", "\(r.status) \(r.errorFields)")
        }
    }

    @Test("integration_test/processing_handler_test.go TestSkipProcessingConfig: a format skipped by the server goes out untouched")
    func skipProcessingConfig() async throws {
        try await Self.expectSourceBack("rs:fill:4:4", configure: Self.skipPNG)
        // The setting, under imgproxy's name: format names as URLs write them; anything else stops the start.
        #expect(try ServerConfiguration(environment: ["IMGPROXY_SKIP_PROCESSING_FORMATS": "png, SVG"]).output.skipProcessingFormats == [.png, .svg])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_SKIP_PROCESSING_FORMATS": "png,bogus"]) }
    }

    @Test("integration_test/processing_handler_test.go TestSkipProcessingPO: skp:png sends a PNG source untouched")
    func skipProcessingPO() async throws {
        try await Self.expectSourceBack("rs:fill:4:4/skp:png")
    }

    @Test("integration_test/processing_handler_test.go TestSkipProcessingSameFormat: skipped when the format asked is the source's")
    func skipProcessingSameFormat() async throws {
        try await Self.expectSourceBack("rs:fill:4:4", ext: "png", configure: Self.skipPNG)
    }

    @Test("integration_test/processing_handler_test.go TestSkipProcessingDifferentFormat: processed when another format is asked")
    func skipProcessingDifferentFormat() async throws {
        try await ServiceHarness.with(Self.skipPNG) { h in
            let source = try Self.test1()
            h.origin.register("test1.png", data: source)
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png", ext: "jpg"))
            #expect(r.status == 200 && r.body != source && r["content-type"] == "image/jpeg", "\(r.status) \(r.errorFields)")
            #expect(try r.image().pixelSize == PixelSize(width: 4, height: 4))
        }
    }

    @Test(
        "integration_test/processing_handler_test.go TestSkipProcessingSVG: an SVG with no format goes out as the sanitised SVG",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func skipProcessingSVG() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.svg"))
            #expect(r.status == 200 && r["content-type"] == "image/svg+xml", "\(r.status) \(r.errorFields)")
            // imgproxy compares with its SVG processor's output; Imago's is SVGSanitizer's.
            let sanitized = try SVGSanitizer.sanitize(Self.svg)
            #expect(r.body == sanitized)
        }
    }

    @Test(
        "integration_test/processing_handler_test.go TestNotSkipProcessingSVGToJPG: an SVG asked as JPEG is drawn",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func notSkipProcessingSVGToJPG() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.svg", ext: "jpg"))
            #expect(r.status == 200 && r.body != Self.svg && r["content-type"] == "image/jpeg", "\(r.status) \(r.errorFields)")
            #expect(try r.image().pixelSize == PixelSize(width: 4, height: 4))
        }
    }

    @Test("integration_test/processing_handler_test.go TestErrorSavingToSVG: a raster source asked as SVG is 422")
    func errorSavingToSVG() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("test1.png", data: try Self.test1())
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png", ext: "svg"))
            #expect(r.status == 422 && r.errorFields["error"] == "unsupported_format", "\(r.status) \(r.errorFields)")
        }
    }

    @Test("integration_test/processing_handler_test.go TestCacheControlPassthroughDisabled: the origin's Cache-Control and Expires stay out")
    func cacheControlPassthroughDisabled() async throws {
        try await ServiceHarness.with { h in
            h.origin.register(
                "test1.png", data: try Self.test1(),
                headers: [("Cache-Control", "max-age=1234, public"), ("Expires", "Fri, 01 Jan 2100 00:00:00 GMT")])
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png"))
            #expect(r.status == 200, "\(r.errorFields)")
            #expect(r["cache-control"] != "max-age=1234, public" && r["expires"] == nil)
            #expect(Self.isImgproxyCacheControl(r["cache-control"], maxAge: h.service.configuration.http.ttl), "\(r["cache-control"] ?? "none")")
            // imgproxy's policy on every answer (server/responsewriter/writer.go:14).
            #expect(r["content-security-policy"] == Self.contentSecurityPolicy, "\(r["content-security-policy"] ?? "none")")
        }
    }

    @Test("integration_test/processing_handler_test.go TestETagDataMatch: a client's If-None-Match, answered with an ETag and 304")
    func eTagDataMatch() async throws {
        // imgproxy passes the client's If-None-Match to the origin and answers the origin's 304
        // with the origin's ETag. Imago differs on purpose (README: sources are cached and follow
        // their origin's freshness; images carry a strong ETag of their own): the origin's ETag
        // names the source, not the result, so it is not a match, and Imago answers
        // If-None-Match itself, from its cache, without asking the origin.
        try await ServiceHarness.with { h in
            let source = try Self.test1()
            h.origin.register("test1.png", data: source)
            let originETag = "\"\(source.count)-test1.png\""
            let first = try await h.get(h.plain("", "/img/test1.png"), headers: ["If-None-Match": originETag])
            let etag = try #require(first["etag"])
            #expect(first.status == 200 && etag != originETag && etag.hasPrefix("\""), "\(first.status) \(etag)")
            #expect(h.origin.headers("/img/test1.png")?["if-none-match"] == nil, "the client's validator is not the origin's business")
            let again = try await h.get(h.plain("", "/img/test1.png"), headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again["etag"] == etag && again.body.isEmpty)
            #expect(h.origin.count("/img/test1.png") == 1)
        }
    }

    @Test("integration_test/processing_handler_test.go TestLastModifiedEnabled: the origin's Last-Modified is passed on")
    func lastModifiedEnabled() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("test1.png", data: try Self.test1())
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png"))
            #expect(r.status == 200 && r["last-modified"] == Self.originLastModified, "\(r["last-modified"] ?? "none")")
        }
    }

    /// The status of `/plain/{origin}/img/test1.png` asked with `If-Modified-Since: date`. imgproxy
    /// passes the header to the origin and answers with the origin's status; Imago answers from
    /// its cache of sources (README: sources are cached), so the origin never sees the client's
    /// header, and the comparison is with the source's `Last-Modified` the result carries.
    static func modifiedSince(_ date: String) async throws -> Int {
        try await ServiceHarness.with { h in
            h.origin.register("test1.png", data: try Self.test1())
            let r = try await h.get(h.plain("", "/img/test1.png"), headers: ["If-Modified-Since": date])
            #expect(h.origin.headers("/img/test1.png")?["if-modified-since"] == nil)
            if r.status == 304 {
                #expect(r.body.isEmpty)
            } else {
                #expect(r["last-modified"] == Self.originLastModified)
            }
            return r.status
        }
    }

    @Test("integration_test/processing_handler_test.go TestModifiedSinceReqExactMatchLastModifiedEnabled: same date is 304")
    func modifiedSinceExactMatch() async throws {
        #expect(try await Self.modifiedSince(Self.originLastModified) == 304)
    }

    @Test("integration_test/processing_handler_test.go TestModifiedSinceReqCompareMoreRecentLastModifiedEnabled: a later date is 304")
    func modifiedSinceMoreRecent() async throws {
        #expect(try await Self.modifiedSince("Mon, 23 Nov 2026 08:00:00 GMT") == 304)
    }

    @Test("integration_test/processing_handler_test.go TestModifiedSinceReqCompareTooOldLastModifiedEnabled: an earlier date is 200")
    func modifiedSinceTooOld() async throws {
        #expect(try await Self.modifiedSince("Tue, 01 Oct 2013 17:31:00 GMT") == 200)
    }

    @Test(
        "integration_test/processing_handler_test.go TestAlwaysRasterizeSvg: an SVG with no format is drawn as PNG",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func alwaysRasterizeSvg() async throws {
        try await ServiceHarness.with({ $0.output.alwaysRasterizeSVG = true }) { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("rs:fill:40:40", "/img/test1.svg"))
            #expect(r.status == 200 && r["content-type"] == "image/png" && ImageFormat(sniffing: r.body) == .png, "\(r.status)")
        }
    }

    @Test(
        "integration_test/processing_handler_test.go TestAlwaysRasterizeSvgWithEnforceWebP: drawn as WebP for a client taking it",
        .enabled(
            if: ImageCoderRegistry.shared.canDecode(.svg) && ImageCoderRegistry.shared.canEncode(.webp),
            "librsvg or libwebp is not installed"))
    func alwaysRasterizeSvgWithEnforceWebP() async throws {
        try await ServiceHarness.with({
            $0.output.alwaysRasterizeSVG = true
            $0.output.enforceWebP = true
        }) { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("", "/img/test1.svg"), headers: ["Accept": "image/webp"])
            #expect(r.status == 200 && r["content-type"] == "image/webp" && ImageFormat(sniffing: r.body) == .webp, "\(r.status)")
        }
    }

    @Test(
        "integration_test/processing_handler_test.go TestAlwaysRasterizeSvgDisabled: without it an SVG stays SVG, WebP enforced or not",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func alwaysRasterizeSvgDisabled() async throws {
        try await ServiceHarness.with({
            $0.output.alwaysRasterizeSVG = false
            $0.output.enforceWebP = true
        }) { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("", "/img/test1.svg"))
            #expect(r.status == 200 && r["content-type"] == "image/svg+xml", "\(r.status) \(r.errorFields)")
        }
    }

    @Test(
        "integration_test/processing_handler_test.go TestAlwaysRasterizeSvgWithFormat: @svg with svg skipped stays SVG",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func alwaysRasterizeSvgWithFormat() async throws {
        try await ServiceHarness.with({
            $0.output.alwaysRasterizeSVG = true
            $0.output.skipProcessingFormats = [.svg]
        }) { h in
            h.origin.register("test1.svg", data: Self.svg, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("", "/img/test1.svg", ext: "svg"))
            #expect(r.status == 200 && r["content-type"] == "image/svg+xml", "\(r.status) \(r.errorFields)")
        }
    }

    @Test("integration_test/processing_handler_test.go TestMaxSrcFileSizeGlobal: a source over IMAGO_MAX_SRC_FILE_SIZE is 422")
    func maxSrcFileSizeGlobal() async throws {
        try await ServiceHarness.with({ $0.security.maxSourceFileSize = 1 }) { h in
            h.origin.register("test1.png", data: try Self.test1())
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/test1.png"))
            #expect(r.status == 422 && r.errorFields["error"] == "source_too_large", "\(r.status) \(r.errorFields)")
        }
    }

    @Test("integration_test/processing_handler_test.go TestRawOption: raw:1 sends the source's bytes")
    func rawOption() async throws {
        try await Self.expectSourceBack("raw:1")
    }

    @Test("integration_test/processing_handler_test.go TestMaxBytes: mb:N keeps a JPEG within N bytes")
    func maxBytes() async throws {
        // A photo-like JPEG (imgproxy's jpg.jpg is a photograph).
        let source = try ImageCoderRegistry.shared.encode(
            Image(buffer: try Fixtures.noisy(width: 200, height: 150)), as: .jpeg, options: EncodeOptions(quality: 0.95))
        let limit = source.count / 2
        try await ServiceHarness.with { h in
            h.origin.register("jpg.jpg", data: source, contentType: "image/jpeg")
            let r = try await h.get(h.plain("mb:\(limit)", "/img/jpg.jpg", ext: "jpg"))
            #expect(r.status == 200 && !r.body.isEmpty && r.body.count <= limit, "\(r.status): \(r.body.count) bytes, limit \(limit)")
            #expect(ImageFormat(sniffing: r.body) == .jpeg)
        }
    }

    @Test("integration_test/processing_handler_test.go TestQualitySettings: q:99 and IMAGO_QUALITY=99 keep the picture, q:1 and fq:jpg:1 do not")
    func qualitySettings() async throws {
        // imgproxy measures a DCT hash distance (about 0 for 99, about 304 for 1); here the mean
        // channel difference from the decoded source.
        let source = try ImageCoderRegistry.shared.encode(
            Image(buffer: try Fixtures.noisy(width: 64, height: 64)), as: .jpeg, options: EncodeOptions(quality: 0.95))
        let original = try ImageCoderRegistry.shared.decode(source).buffer
        try await ServiceHarness.with({ $0.output.quality = 99 }) { h in
            h.origin.register("jpg.jpg", data: source, contentType: "image/jpeg")
            func distance(_ options: String) async throws -> Double {
                let r = try await h.get(h.plain(options, "/img/jpg.jpg", ext: "jpg"))
                #expect(r.status == 200, "\(options): \(r.status) \(r.errorFields)")
                let buffer = try r.image().buffer
                return Fixtures.difference(original, buffer).mean
            }
            let q99 = try await distance("q:99"), configured = try await distance("")
            let q1 = try await distance("q:1"), fq1 = try await distance("fq:jpg:1")
            #expect(q99 < 3 && configured < 3, "q_99 \(q99), no_q \(configured)")
            #expect(q1 > 4 && q1 > 3 * q99 && abs(q1 - fq1) < 0.01, "q_1 \(q1), fq_1 \(fq1)")
        }
    }

    @Test("integration_test/processing_handler_test.go TestPresetUsage: the default preset applies to a URL naming none")
    func presetUsage() async throws {
        try await ServiceHarness.with({ $0.urls.presets = ["default": ["pixelate:10"]] }) { h in
            let source = try Self.test1()
            h.origin.register("geometry.png", data: source)
            let r = try await h.get(h.plain("", "/img/geometry.png"))
            #expect(r.status == 200 && r.body != source, "\(r.status) \(r.errorFields)")
            let b = try r.image().buffer.converted(to: .rgba8)
            func px(_ x: Int, _ y: Int) -> [UInt8] { Array(b.bytes[(y * b.width + x) * 4..<(y * b.width + x) * 4 + 4]) }
            #expect(px(0, 0) == px(9, 9) && px(10, 0) != px(0, 0), "pixelated in blocks of 10")
        }
    }

    // MARK: bmp_overflow_test.go

    /// An uncompressed (BI_RGB) BMP declaring `bitsPerPixel` bits per pixel, rows padded to 4 bytes.
    static func bmp(width: Int32, height: Int32, bitsPerPixel: UInt16) -> Data {
        let row = (Int(width) * Int(bitsPerPixel) + 31) / 32 * 4, pixels = row * Int(height)
        var d = Data("BM".utf8)
        func le<T: FixedWidthInteger>(_ values: T...) {
            for v in values { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        }
        le(UInt32(54 + pixels), 0, 54)  // file header: size, reserved, pixel offset
        le(UInt32(40))  // BITMAPINFOHEADER
        le(width, height)
        le(UInt16(1), bitsPerPixel)
        le(UInt32(0), UInt32(pixels), 2835, 2835, 0, 0)  // BI_RGB, image size, resolution, palette
        d.append(Data(repeating: 0x7F, count: pixels))
        return d
    }

    @Test("integration_test/bmp_overflow_test.go TestBMPUnsupportedBitDepthRejected: a BMP of 40 bits per pixel is refused safely")
    func bmpUnsupportedBitDepthRejected() async throws {
        // imgproxy answers 500; Imago differs on purpose (README: no 500 for bad input, errors of a
        // source are 422). Built as imgproxy's bmp-invalid-bpp.bmp is described: bpp=40, width 512.
        try await ServiceHarness.with { h in
            h.origin.register("bmp-invalid-bpp.bmp", data: Self.bmp(width: 512, height: 2, bitsPerPixel: 40), contentType: "image/bmp")
            let r = try await h.get(h.plain("rs:fill:4:4", "/img/bmp-invalid-bpp.bmp"))
            #expect(r.status == 422, "\(r.status) \(r.errorFields)")
            // Nothing broke: a good BMP is served after it.
            let good = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 8, height: 8)), as: .bmp)
            h.origin.register("good.bmp", data: good, contentType: "image/bmp")
            let ok = try await h.get(h.plain("rs:fill:4:4", "/img/good.bmp"))
            #expect(try ok.status == 200 && ok.image().pixelSize == PixelSize(width: 4, height: 4), "\(ok.status)")
        }
    }

    // MARK: svg_test.go

    /// Clean SVGs in the manner of the svgo test suite's: shapes, paths, gradients, `use`, styles.
    static let suiteDocuments: [String] = [
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect x="2" y="2" width="20" height="12" rx="3" fill="#3a7"/>\
        <circle cx="12" cy="16" r="6" fill="none" stroke="#c33" stroke-width="2"/></svg>
        """,
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="32" height="16" viewBox="0 0 64 32"><defs>\
        <linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#f80"/><stop offset="1" stop-color="#08f"/></linearGradient>\
        </defs><path d="M0 0H64V32H0Z" fill="url(#g)"/><g transform="rotate(10 32 16)" opacity="0.5">\
        <path d="M8 8L56 8L32 28Z" fill="#fff"/></g></svg>
        """,
        """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">\
        <style>.dot{fill:#60c}</style><!-- a comment --><defs><circle id="c" r="3"/></defs>\
        <use href="#c" x="5" y="5" class="dot"/><use xlink:href="#c" x="15" y="15" fill="#c06"/></svg>
        """
    ]

    @Test(
        "integration_test/svg_test.go TestSvgSuite: a sanitised SVG draws the same pixels as its source",
        .enabled(if: ImageCoderRegistry.shared.canDecode(.svg), "librsvg is not installed"))
    func svgSuite() async throws {
        // imgproxy walks the svgo test suite (TEST_SVG_PATH) and compares pixel hashes; here a few
        // synthetic documents, with the suite's settings.
        try await ServiceHarness.with({
            $0.output.sanitizeSVG = true
            $0.security.maxSourceFileSize = 100 * 1024 * 1024
        }) { h in
            for (i, text) in Self.suiteDocuments.enumerated() {
                let source = Data(text.utf8)
                h.origin.register("\(i).svg", data: source, contentType: "image/svg+xml")
                let r = try await h.get(h.plain("", "/img/\(i).svg"))
                #expect(r.status == 200 && r["content-type"] == "image/svg+xml", "\(i): \(r.status) \(r.errorFields)")
                let drawn = try ImageCoderRegistry.shared.decode(source).buffer, sent = try ImageCoderRegistry.shared.decode(r.body).buffer
                #expect(drawn == sent, "SVG \(i): the sanitised document draws other pixels")
            }
        }
    }

    // MARK: matrix_test.go

    @Test("integration_test/matrix_test.go TestMatrix: each source format converts to each target format (no raster to vector)")
    func matrix() async throws {
        let coders = ImageCoderRegistry.shared
        // imgproxy's formats, in its order.
        let formats: [ImageFormat] = [.gif, .jpeg, .heic, .jxl, .svg, .tiff, .webp, .bmp, .ico]
        let side = 16
        let picture = Image(buffer: try Fixtures.gradient(width: side, height: side))
        let vector = Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)"><rect width="\(side)" height="\(side)" fill="#08f"/>\
            <circle cx="8" cy="8" r="5" fill="#f80"/></svg>
            """.utf8)
        try await ServiceHarness.with({ $0.security.maxAnimationFrames = 999 }) { h in
            var sources: [ImageFormat] = []
            for format in formats where coders.canDecode(format) {
                if format == .svg {
                    h.origin.register("source.svg", data: vector, contentType: format.mimeType)
                } else {
                    // A source this build cannot write is skipped, as imgproxy skips what vips cannot load.
                    guard coders.canEncode(format), let data = try? coders.encode(picture, as: format) else { continue }
                    h.origin.register("source.\(format.preferredFileExtension)", data: data, contentType: format.mimeType)
                }
                sources.append(format)
            }
            // The formats every build has.
            #expect(Set<ImageFormat>([.gif, .jpeg, .tiff, .webp, .bmp, .ico]).isSubset(of: sources), "\(sources)")
            for source in sources {
                // A raster source cannot be vectorised; an SVG source asked as SVG goes out as SVG.
                for target in formats where target == .svg ? source.isVector : coders.canEncode(target) {
                    let name = "\(source.rawValue)/\(target.rawValue)"
                    let r = try await h.get(h.plain("", "/img/source.\(source.preferredFileExtension)", ext: target.preferredFileExtension))
                    #expect(r.status == 200, "\(name): \(r.status) \(r.errorFields)")
                    guard r.status == 200 else { continue }
                    #expect(r["content-type"] == target.mimeType, "\(name): \(r["content-type"] ?? "none")")
                    let decoded = try? coders.decode(r.body)
                    #expect(decoded?.pixelSize == PixelSize(width: side, height: side), "\(name): \(String(describing: decoded?.pixelSize))")
                }
            }
        }
    }
}
