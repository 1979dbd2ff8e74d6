// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`, `IMGPROXY_PRESETS_SEPARATOR`,
/// `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`, `IMGPROXY_SET_CANONICAL_HEADER` and
/// `IMGPROXY_ENABLE_DEBUG_HEADERS`, through the service: an operator's URLs and headers keep
/// working when they switch.
@Suite("URL syntax, the canonical Link and the debug headers, as imgproxy's settings give them")
struct URLSyntaxSettingsTests {
    @Test("the settings read from imgproxy's names; an empty separator keeps the default, as imgproxy 4 ignores it")
    func settings() throws {
        let c = try ServerConfiguration(environment: [
            "IMGPROXY_ARGUMENTS_SEPARATOR": ",", "IMGPROXY_PRESETS_SEPARATOR": ";",
            "IMGPROXY_PRESETS": "small=rs,fit,20,20/q,50; big=w,300", "IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "true",
            "IMGPROXY_SET_CANONICAL_HEADER": "1"
        ])
        #expect(c.urls.argumentsSeparator == "," && c.urls.presetsSeparator == ";" && c.urls.base64URLIncludesFilename)
        #expect(c.urls.presets["small"] == ["rs,fit,20,20", "q,50"] && c.urls.presets["big"] == ["w,300"])
        #expect(c.http.setCanonicalHeader && c.warnings.isEmpty)
        #expect(try ServerConfiguration(environment: ["IMGPROXY_ARGUMENTS_SEPARATOR": "  "]).urls.argumentsSeparator == ":")
        // A preset written with ':' under ',' stops the start, naming the presets.
        let error = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_ARGUMENTS_SEPARATOR": ",", "IMGPROXY_PRESETS": "small=rs:fit:20:20"])
        }
        #expect(error?.variable == "IMAGO_PRESETS")
    }

    @Test("URLs with ',' between arguments render; presets, /info and the allowed options read the same way")
    func commaURLs() async throws {
        try await ServiceHarness.with({
            $0.urls.argumentsSeparator = ","
            $0.urls.presets = ["small": ["rs,fit,20,20"]]
            $0.urls.allowedProcessingOptions = ["w", "pr", "q"]
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 80, height: 40))
            let sized = try await h.get(h.plain("w,40/q,70", "/img/a.png"))
            #expect(sized.status == 200, "\(sized.errorFields)")
            #expect(try sized.image().pixelSize == PixelSize(width: 40, height: 20))
            let preset = try await h.get(h.plain("pr,small", "/img/a.png"))
            #expect(try preset.image().pixelSize == PixelSize(width: 20, height: 10))
            // Options with ':' are no options here: the source starts there, and is no source.
            #expect(try await h.get(h.plain("w:40", "/img/a.png")).status == 404)
            // The allowed options are named by what comes before the separator.
            let forbidden = try await h.get(h.plain("h,10", "/img/a.png"))
            #expect(forbidden.status == 404 && forbidden.errorFields["error"] == "forbidden_option")
            let info = try await h.get("/info" + h.plain("s,1/d,1", "/img/a.png"))
            #expect(info.status == 200, "\(info.errorFields)")
        }
    }

    @Test("a base64url source with a file name after it: the name is dropped, the format is the source's extension")
    func base64Filename() async throws {
        try await ServiceHarness.with({ $0.urls.base64URLIncludesFilename = true }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 80, height: 40))
            let encoded = Data(h.source("/img/a.png").utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let named = try await h.get("/_/w:40/\(encoded).webp/a-nice-name.jpg")
            #expect(named.status == 200 && named["content-type"] == "image/webp", "\(named.status) \(named.errorFields)")
            #expect(try named.image().pixelSize == PixelSize(width: 40, height: 20))
        }
    }

    @Test("IMAGO_SET_CANONICAL_HEADER: Link to the http(s) source on images, raw and fallback answers; not on 304, errors, or other sources")
    func canonical() async throws {
        let directory = try TestFiles.temporaryDirectory("imago-canonical")
        try ServerFixtures.png(width: 20, height: 20).write(to: directory.appendingPathComponent("l.png"))
        try await ServiceHarness.with({
            $0.http.setCanonicalHeader = true
            $0.sources.fallbackImageData = try? ServerFixtures.png(width: 8, height: 8)
            $0.sources.localRoot = directory.path
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 80, height: 40))
            let link = "<\(h.source("/img/a.png"))>; rel=\"canonical\""
            let image = try await h.get(h.plain("w:40", "/img/a.png"))
            #expect(image.status == 200 && image["link"] == link, "\(image["link"] ?? "none")")
            let raw = try await h.get(h.plain("raw:1", "/img/a.png"))
            #expect(raw["link"] == link)
            let again = try await h.get(h.plain("w:40", "/img/a.png"), headers: ["If-None-Match": image["etag"] ?? ""])
            #expect(again.status == 304 && again["link"] == nil)
            // The fallback answers for the source asked for, which the link still names.
            let missing = try await h.get(h.plain("w:40", "/img/missing.png"))
            #expect(missing["fallback-image"] == "1" && missing["link"] == "<\(h.source("/img/missing.png"))>; rel=\"canonical\"")
            let local = try await h.get("/_/w:10/plain/local:///l.png")
            #expect(local.status == 200 && local["link"] == nil, "\(local.status) \(local.errorFields)")
            let refused = try await h.get(h.plain("w:-1", "/img/a.png"))
            #expect(refused.status == 404 && refused["link"] == nil)
        }
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 80, height: 40))
            #expect(try await h.get(h.plain("w:40", "/img/a.png"))["link"] == nil)
        }
        // The scheme test is imgproxy's, case and all; what a header cannot carry is escaped.
        #expect(ServiceHeaders.canonicalLink(to: "https://x.test/a b<>é.png") == "<https://x.test/a%20b%3C%3E%C3%A9.png>; rel=\"canonical\"")
        #expect(ServiceHeaders.canonicalLink(to: "HTTP://x.test/a.png") == nil && ServiceHeaders.canonicalLink(to: "s3://b/a.png") == nil)
    }

    @Test("IMAGO_ENABLE_DEBUG_HEADERS: the source as shown and the result's size on renders, stored results, SVG and the fallback; not on 304 or raw")
    func debugHeaders() async throws {
        let fallback = try ServerFixtures.png(width: 8, height: 8)
        let turned = try ServerFixtures.jpeg(width: 60, height: 40, orientation: .right)
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="30" height="10"><rect width="30" height="10"/></svg>"#.utf8)
        try await ServiceHarness.with({
            $0.http.enableDebugHeaders = true
            $0.sources.fallbackImageData = fallback
        }) { h in
            h.origin.register("turned.jpg", data: turned, contentType: "image/jpeg")
            h.origin.register("a.svg", data: svg, contentType: "image/svg+xml")
            func sizes(_ r: Reply) -> [String?] {
                ["x-origin-width", "x-origin-height", "x-origin-content-length", "x-result-width", "x-result-height"].map { r[$0] }
            }
            // Shown 40×60 (EXIF 6 turns it), fitted to 20 wide; rendered, then from the results.
            let first = try await h.get(h.plain("w:20", "/img/turned.jpg"))
            let stored = try await h.get(h.plain("w:20", "/img/turned.jpg"))
            for r in [first, stored] { #expect(sizes(r) == ["40", "60", "\(turned.count)", "20", "30"], "\(sizes(r))") }
            let again = try await h.get(h.plain("w:20", "/img/turned.jpg"), headers: ["If-None-Match": first["etag"] ?? ""])
            #expect(again.status == 304 && sizes(again).allSatisfy { $0 == nil })
            let raw = try await h.get(h.plain("raw:1", "/img/turned.jpg"))
            #expect(raw.status == 200 && sizes(raw).allSatisfy { $0 == nil })
            let passed = try await h.get(h.plain("", "/img/a.svg"))
            #expect(passed["content-type"]?.hasPrefix("image/svg") == true && sizes(passed) == ["30", "10", "\(svg.count)", "30", "10"])
            // The fallback is the origin of its answer.
            let missing = try await h.get(h.plain("w:20", "/img/missing.png"))
            #expect(missing["fallback-image"] == "1" && sizes(missing) == ["8", "8", "\(fallback.count)", "8", "8"], "\(sizes(missing))")
            let refused = try await h.get(h.plain("w:-1", "/img/turned.jpg"))
            #expect(refused.status == 404 && refused["x-origin-width"] == nil)
        }
        try await ServiceHarness.with { h in
            h.origin.register("turned.jpg", data: turned, contentType: "image/jpeg")
            let plain = try await h.get(h.plain("w:20", "/img/turned.jpg"))
            #expect(plain.status == 200 && plain["x-result-width"] == nil && plain["x-origin-width"] == nil)
        }
    }

    @Test("IMAGO_CACHE_CONTROL_PASSTHROUGH: the origin's Cache-Control as sent, else its Expires as max-age; exp wins (TestHandlerCacheControl)")
    func cacheControlPassthrough() async throws {
        let png = try ServerFixtures.png(width: 40, height: 20)
        let expiresAt = Int(Date().timeIntervalSince1970) + 1239
        let inAnHour = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(expiresAt)))
        try await ServiceHarness.with({
            $0.http.cacheControlPassthrough = true
            $0.http.ttl = 4242
        }) { h in
            h.origin.register("cc.png", data: png, headers: [("Cache-Control", "max-age=1234, public"), ("Expires", inAnHour)])
            h.origin.register("expires.png", data: png, headers: [("Expires", inAnHour)])
            h.origin.register("past.png", data: png, headers: [("Expires", HTTPDate.format(Date().addingTimeInterval(-3600)))])
            h.origin.register("none.png", data: png)
            // Rendered, then from the source cache and the results: the origin's words each time.
            for _ in 0..<2 {
                let cc = try await h.get(h.plain("w:20", "/img/cc.png"))
                #expect(cc.status == 200 && cc["cache-control"] == "max-age=1234, public" && cc["expires"] == nil)
            }
            let raw = try await h.get(h.plain("raw:1", "/img/cc.png"))
            #expect(raw["cache-control"] == "max-age=1234, public")
            // What is left of the origin's Expires when answered, however slow the machine.
            let before = Int(Date().timeIntervalSince1970)
            let expires = try await h.get(h.plain("w:20", "/img/expires.png"))
            let after = Int(Date().timeIntervalSince1970.rounded(.up))
            let age = ImageService.maxAge(expires["cache-control"]) ?? -1
            #expect((expiresAt - after)...(expiresAt - before) ~= age, "\(expires["cache-control"] ?? "none")")
            #expect(expires["cache-control"]?.hasSuffix(", public") == true)
            // An Expires already past, or nothing said: IMAGO_TTL, as imgproxy 4 falls through.
            #expect(try await h.get(h.plain("w:20", "/img/past.png"))["cache-control"] == "max-age=4242, public")
            #expect(try await h.get(h.plain("w:20", "/img/none.png"))["cache-control"] == "max-age=4242, public")
            // The URL's expires wins over the origin (ProcessingOptionsOverridesOrigin).
            let exp = Int(Date().timeIntervalSince1970) + 600
            let sent = Int(Date().timeIntervalSince1970)
            let bounded = try await h.get(h.plain("w:20/exp:\(exp)", "/img/cc.png"))
            let answered = Int(Date().timeIntervalSince1970.rounded(.up))
            #expect((exp - answered)...(exp - sent) ~= (ImageService.maxAge(bounded["cache-control"]) ?? -1))
        }
        try await ServiceHarness.with({ $0.http.ttl = 4242 }) { h in
            h.origin.register("cc.png", data: png, headers: [("Cache-Control", "max-age=1234, public")])
            let off = try await h.get(h.plain("w:20", "/img/cc.png"))
            #expect(off["cache-control"] == "max-age=4242, public")
        }
    }
}
