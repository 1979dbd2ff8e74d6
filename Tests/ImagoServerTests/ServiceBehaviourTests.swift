// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import Hummingbird
import ImagoCoders
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import NIOHTTP1
import Synchronization
import Testing

@testable import ImagoServer

@Suite("Service behaviour: validators, negotiation, sharing, animation, operations", .serialized)
struct ServiceBehaviourTests {
    @Test("ETag and If-None-Match: 304 without a body and without decoding; headers on every answer")
    func validators() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
            let path = h.plain("w:50", "/img/photo.jpg")
            let first = try await h.get(path, headers: ["X-Request-ID": "abc-123"])
            #expect(first.status == 200 && first["x-request-id"] == "abc-123")
            #expect(first["cache-control"] == "max-age=31536000, public")
            #expect(first["x-content-type-options"] == "nosniff")
            #expect(first["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
            #expect(first["last-modified"] == "Sun, 22 Nov 2026 08:00:00 GMT")
            #expect(first["vary"] == nil)
            let etag = try #require(first["etag"])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34)
            #expect(h.service.renderCount == 1)

            for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let again = try await h.get(path, headers: ["If-None-Match": header])
                #expect(again.status == 304 && again.body.isEmpty && again["etag"] == etag, "\(header)")
            }
            #expect(h.service.renderCount == 1, "a 304 decodes nothing")
            #expect(h.origin.count("/img/photo.jpg") == 1, "the source came from the cache")
            let changed = try await h.get(path, headers: ["If-None-Match": "\"nope\""])
            #expect(changed.status == 200 && changed.body == first.body)
            // Other options, other tags; a generated request id when none (or junk) is sent.
            let other = try await h.get(h.plain("w:51", "/img/photo.jpg"), headers: ["X-Request-ID": "bad id with spaces"])
            #expect(other["etag"] != etag && other["x-request-id"]?.contains(" ") == false)
            // HEAD: the headers alone.
            let head = try await h.get(path, method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty && head["etag"] == etag)
            // OPTIONS (a CORS preflight): imgproxy's bare 200; not-images are 404.
            let preflight = try await h.get(path, method: .OPTIONS)
            #expect(preflight.status == 200 && preflight["content-type"] == "text/plain")
            for route in ["/favicon.ico", "/.well-known/security.txt"] { #expect(try await h.get(route).status == 404, "\(route)") }
            // An expiring URL is cached no longer than it lives.
            let expiring = try await h.get(h.plain("w:50/exp:\(Int(Date().timeIntervalSince1970) + 600)", "/img/photo.jpg"))
            let age = Int(expiring["cache-control"]?.split(separator: "=")[1].split(separator: ",")[0] ?? "") ?? 0
            #expect((590...600).contains(age) && expiring["cache-control"]?.hasSuffix(", public") == true, "\(expiring.headers)")
        }
        // IMAGO_ALLOW_ORIGIN: imgproxy's CORS headers on every answer, errors and preflights too; no secret for OPTIONS.
        try await ServiceHarness.with({
            $0.http.allowOrigin = "https://app.example"
            $0.http.secret = "s3cret"
        }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 20, height: 10), contentType: "image/jpeg")
            for (method, status) in [(HTTPMethod.OPTIONS, 200), (.GET, 403)] {
                let r = try await h.get(h.plain("w:5", "/img/photo.jpg"), method: method)
                #expect(r.status == status && r["access-control-allow-origin"] == "https://app.example", "\(method)")
                #expect(r["access-control-allow-methods"] == "GET, OPTIONS")
            }
        }
        // IMAGO_HEAD_AS_GET=false: imgproxy's HEAD, a bare 200 for any path, no secret asked, nothing fetched.
        try await ServiceHarness.with({
            $0.http.headAsGet = false
            $0.http.secret = "s3cret"
            $0.http.allowOrigin = "https://app.example"
        }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 20, height: 10), contentType: "image/jpeg")
            for path in [h.plain("w:5", "/img/photo.jpg"), "/not/an/image/url"] {
                let head = try await h.get(path, method: .HEAD)
                #expect(head.status == 200 && head["content-type"] == "text/plain" && head.body.isEmpty && head["etag"] == nil, "\(path)")
                #expect(head["access-control-allow-origin"] == "https://app.example")
            }
            #expect(h.origin.count("/img/photo.jpg") == 0 && h.service.renderCount == 0)
            #expect(try await h.get(h.plain("w:5", "/img/photo.jpg")).status == 403, "GET still asks for the secret")
            #expect(try ServerConfiguration(environment: ["IMAGO_HEAD_AS_GET": "false"]).http.headAsGet == false)
        }
    }

    @Test("Accept: AVIF or WebP only when enabled and named, with Vary: Accept and q-values")
    func negotiation() async throws {
        try await ServiceHarness.with({ $0.output.autoWebP = true }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 100, height: 80), contentType: "image/jpeg")
            let path = h.plain("w:50", "/img/photo.jpg")
            let webp = try await h.get(path, headers: ["Accept": "image/avif,image/webp,image/*;q=0.8"])
            #expect(webp["content-type"] == "image/webp" && webp["vary"] == "Accept")
            let refused = try await h.get(path, headers: ["Accept": "image/webp;q=0, image/*"])
            #expect(refused["content-type"] == "image/jpeg" && refused["vary"] == "Accept")
            let browser = try await h.get(path, headers: ["Accept": "*/*"])
            #expect(browser["content-type"] == "image/jpeg" && browser["etag"] != webp["etag"])
            // A format in the URL wins (the answer still says Vary: Accept, as imgproxy's does).
            let named = try await h.get(h.plain("w:50", "/img/photo.jpg", ext: "png"), headers: ["Accept": "image/webp"])
            #expect(named["content-type"] == "image/png" && named["vary"] == "Accept")
        }
        try await ServiceHarness.with({ $0.output.enforceWebP = true }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 100, height: 80), contentType: "image/jpeg")
            // IMAGO_ENFORCE_WEBP: even over the URL's format, for a client that takes WebP.
            let enforced = try await h.get(h.plain("w:50", "/img/photo.jpg", ext: "png"), headers: ["Accept": "image/webp"])
            #expect(enforced["content-type"] == "image/webp" && enforced["vary"] == "Accept")
            let other = try await h.get(h.plain("w:50", "/img/photo.jpg", ext: "png"), headers: ["Accept": "image/*"])
            #expect(other["content-type"] == "image/png")
        }
        try await ServiceHarness.with { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 100, height: 80), contentType: "image/jpeg")
            let r = try await h.get(h.plain("w:50", "/img/photo.jpg"), headers: ["Accept": "image/webp"])
            #expect(r["content-type"] == "image/jpeg" && r["vary"] == nil, "off by default")
        }
    }

    @Test("a cached source, decoded where it lies in the cache, answers as the same bytes held in memory: body, ETag, headers")
    func cachedFilesAnswerAsBytes() async throws {
        // Noise, so the JPEG and PNG are larger than libjpeg's and libpng's pieces of input.
        let pixels = try Fixtures.noisy(width: 900, height: 700, alpha: true, amplitude: 128, seed: 7)
        let sources: [(String, Data, String)] = [
            (
                "photo.jpg",
                try ImageCoderRegistry.shared.encode(
                    Image(buffer: pixels, orientation: .right), as: .jpeg,
                    options: EncodeOptions(quality: 0.9, orientation: .writeEXIF)), "image/jpeg"
            ),
            ("alpha.png", try ImageCoderRegistry.shared.encode(Image(buffer: pixels), as: .png), "image/png"),
            ("anim.gif", try ServerFixtures.animation(.gif, frames: 4, width: 60, height: 40), "image/gif"),
            ("small.png", try ServerFixtures.png(width: 20, height: 10), "image/png")
        ]
        #expect(sources[0].1.count > 200_000 && sources[1].1.count > 200_000)
        let paths = [
            "rs:fit:300:300", "rs:fill:120:200/g:ce", "w:500/rot:90", "c:300:200/ar:false", "raw:1", "skp:jpg:png:gif", "",
            "w:100/f:webp", "h:150/q:60"
        ]
        func answers(cached: Bool) async throws -> [String: Reply] {
            try await ServiceHarness.with({ if !cached { $0.cache.cacheSize = 0 } }) { h in
                var out: [String: Reply] = [:]
                for (name, data, type) in sources {
                    h.origin.register(name, data: data, contentType: type)
                    for options in paths {
                        out[name + " " + options] = try await h.get(h.plain(options, "/img/" + name))
                    }
                    out[name + " info"] = try await h.get("/info" + h.plain("", "/img/" + name))
                }
                return out
            }
        }
        let fromFiles = try await answers(cached: true), fromMemory = try await answers(cached: false)
        #expect(fromFiles.count == sources.count * (paths.count + 1))
        for (key, a) in fromFiles.sorted(by: { $0.key < $1.key }) {
            let b = try #require(fromMemory[key])
            #expect(a.status == 200, "\(key): \(a.status) \(a.errorFields)")
            guard a.status == 200 else { continue }
            #expect(a.status == b.status && a.body == b.body, "\(key): a different answer from the cached file")
            for header in ["etag", "content-type", "content-length", "last-modified", "content-disposition"] {
                #expect(a[header] == b[header], "\(key): \(header) \(a[header] ?? "-") vs \(b[header] ?? "-")")
            }
        }
    }

    @Test("conversions that leave the pixels alone stream from decoder to encoder, and answer what the whole-image path answers")
    func streamedConversions() async throws {
        let pixels = try Fixtures.noisy(width: 500, height: 375, alpha: true, noisyAlpha: true, amplitude: 8, seed: 11)
        let coders = ImageCoderRegistry.shared
        let exif = ServiceOptionsTests.exif(copyright: "ACME Photo 2026")
        var opaque = Image(buffer: pixels.converted(to: .rgb8))
        opaque.metadata.exif = exif
        let sources: [(String, Data, String)] = [
            ("photo.jpg", try coders.encode(opaque, as: .jpeg, options: EncodeOptions(quality: 0.9)), "image/jpeg"),
            ("gray.png", try coders.encode(Image(buffer: pixels.converted(to: .gray8)), as: .png), "image/png"),
            ("alpha.png", try coders.encode(Image(buffer: pixels), as: .png), "image/png"),
            ("opaque.png", try coders.encode(opaque, as: .png), "image/png")
        ]
        // Damaged sources fail alike on both paths (the streamed one reads them as far as they go).
        let damaged: [(String, Data, String)] = [
            ("cut.jpg", sources[0].1.prefix(sources[0].1.count / 2), "image/jpeg"),
            ("cut.png", sources[3].1.prefix(sources[3].1.count / 2), "image/png")
        ]
        // Streams: format changes and qualities, metadata kept or not. The last three take the whole path.
        let paths = [
            "f:webp", "q:55/f:webp", "sm:false/f:webp", "f:jpg", "q:70/f:jpg", "sm:false/kcr:true/f:jpg", "scp:true/f:webp",
            "w:100/f:webp", "fl:true/f:webp", "mb:2000/f:jpg"
        ]
        func answers(streaming: Bool) async throws -> ([String: Reply], Int) {
            try await ServiceHarness.with({
                $0.cache.streamsConversions = streaming
                $0.urls.allowSecurityOptions = true
            }) { h in
                var out: [String: Reply] = [:]
                for (name, data, type) in sources {
                    h.origin.register(name, data: data, contentType: type)
                    for options in paths { out[name + " " + options] = try await h.get(h.plain(options, "/img/" + name)) }
                }
                for (name, data, type) in damaged {
                    h.origin.register(name, data: data, contentType: type)
                    out[name] = try await h.get(h.plain("f:webp", "/img/" + name))
                }
                return (out, h.service.streamedRenderCount)
            }
        }
        let (streamed, count) = try await answers(streaming: true)
        let (whole, none) = try await answers(streaming: false)
        #expect(none == 0)
        // alpha.png to JPEG is flattened: the whole-image path.
        #expect(count == sources.count * 7 - 3, "streamed \(count)")
        for (name, _, _) in damaged {
            let a = try #require(streamed[name]), b = try #require(whole[name])
            #expect(
                a.status == 422 && b.status == 422 && a.errorFields["error"] == b.errorFields["error"],
                "\(name): \(a.status) \(a.errorFields) streamed, \(b.status) \(b.errorFields) whole")
        }
        for (key, a) in streamed.sorted(by: { $0.key < $1.key }) where !damaged.contains(where: { $0.0 == key }) {
            let b = try #require(whole[key])
            #expect(a.status == 200, "\(key): \(a.status) \(a.errorFields)")
            #expect(a.status == b.status && a.body == b.body, "\(key): streamed \(a.body.count) bytes, whole \(b.body.count)")
            #expect(a["etag"] == b["etag"] && a["content-type"] == b["content-type"], "\(key)")
        }
    }

    @Test("20 identical requests at once: one origin GET and one decode; other sizes share the download")
    func coalescing() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("big.jpg", data: try ServerFixtures.jpeg(width: 2400, height: 1600), contentType: "image/jpeg")
            // A slow origin keeps the download in flight while every request arrives.
            let route = "/slow/big.jpg?chunk=20000&delay=100"
            let path = h.plain("rs:fit:300:300", route)
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<20 { group.addTask { try await h.get(path) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 && $0.body == replies[0].body })
            #expect(h.origin.count("/slow/big.jpg") == 1)
            #expect(h.service.renderCount == 1, "one decode, transform and encode for all 20")

            let sizes = try await withThrowingTaskGroup(of: Reply.self) { group in
                for w in [100, 150, 200, 250] { group.addTask { try await h.get(h.plain("w:\(w)", route)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sizes.allSatisfy { $0.status == 200 })
            #expect(h.origin.count("/slow/big.jpg") == 1, "new sizes of a cached source cost no download")
            #expect(h.service.renderCount == 5)
        }
    }

    @Test("animations stay animated (GIF, WebP, APNG, AVIF out), a still when the format cannot animate")
    func animation() async throws {
        try await ServiceHarness.with { h in
            // imgproxy's preferred formats: an animated WebP with no format asked becomes an animated GIF.
            h.origin.register("anim.webp", data: try ServerFixtures.animation(.webp, frames: 4, width: 80, height: 60))
            let r = try await h.get(h.plain("rs:fit:40:40", "/img/anim.webp"))
            #expect(r["content-type"] == "image/gif")
            #expect(try ImageCoderRegistry.shared.decode(r.body).frameCount == 4)
        }
        try await ServiceHarness.with({ $0.output.keepSourceFormat = true }) { h in
            h.origin.register("anim.gif", data: try ServerFixtures.animation(frames: 3, width: 80, height: 60))
            h.origin.register("anim.webp", data: try ServerFixtures.animation(.webp, frames: 4, width: 80, height: 60))
            for (file, ext, frames, type) in [
                ("anim.gif", nil, 3, "image/gif"), ("anim.gif", "webp", 3, "image/webp"),
                ("anim.gif", "apng", 3, "image/png"), ("anim.webp", nil, 4, "image/webp"),
                ("anim.webp", "gif", 4, "image/gif"), ("anim.gif", "png", 1, "image/png"),
                ("anim.gif", "jpg", 1, "image/jpeg")
            ] as [(String, String?, Int, String)] {
                let r = try await h.get(h.plain("rs:fit:40:40", "/img/\(file)", ext: ext))
                #expect(r.status == 200 && r["content-type"] == type, "\(file) \(ext ?? "")")
                let image = try ImageCoderRegistry.shared.decode(r.body)
                #expect(image.frameCount == frames && image.pixelSize == PixelSize(width: 40, height: 30), "\(file) \(ext ?? ""): \(image.frameCount)")
                // Every frame keeps its own colour, in order (frames are decoded one at a time).
                let colours = try (0..<image.frameCount).map { try Self.centre(of: image.frame(at: $0).buffer) }
                #expect(colours == Array(Self.frameColours.prefix(frames)), "\(file) \(ext ?? "")")
            }
            // Turned and cropped: every frame the same way.
            let turned = try ImageCoderRegistry.shared.decode(try await h.get(h.plain("rot:90/c:20:30/rs:fit:20:0", "/img/anim.webp")).body)
            #expect(turned.frameCount == 4 && turned.pixelSize == PixelSize(width: 20, height: 30))
            #expect(try (0..<4).map { try Self.centre(of: turned.frame(at: $0).buffer) } == Array(Self.frameColours.prefix(4)))
            if AVIFCoder().canEncode(.avif), AVIFCoder().canDecode(.avif) {
                // An AVIF image sequence out, and back in as an animated source.
                let r = try await h.get(h.plain("rs:fit:40:40", "/img/anim.gif", ext: "avif"))
                #expect(r.status == 200 && r["content-type"] == "image/avif")
                #expect(try ImageCoderRegistry.shared.decode(r.body).frameCount == 3)
                h.origin.register("anim.avif", data: r.body, contentType: "image/avif")
                let again = try await h.get(h.plain("", "/img/anim.avif"))
                #expect(again.status == 200 && again["content-type"] == "image/avif")
                #expect(try ImageCoderRegistry.shared.decode(again.body).frameCount == 3)
            }
        }
        try await ServiceHarness.with({ $0.security.maxAnimationPixels = 0.01 }) { h in
            h.origin.register("anim.gif", data: try ServerFixtures.animation(frames: 5, width: 80, height: 60))
            let r = try await h.get(h.plain("", "/img/anim.gif"))
            #expect(r.status == 422 && r.errorFields["message"]?.contains("megapixels") == true)
        }
    }

    /// The colours of ``ServerFixtures/animation(_:frames:width:height:)``'s frames.
    static let frameColours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255]]

    /// The middle pixel's colour, each channel rounded to 0 or 255.
    static func centre(of buffer: PixelBuffer) -> [UInt8] {
        let rgba = buffer.converted(to: .rgba8)
        let o = (rgba.height / 2) * rgba.bytesPerRow + (rgba.width / 2) * 4
        return rgba.bytes[o..<(o + 3)].map { $0 >= 128 ? 255 : 0 }
    }

    @Test("security options: refused in URLs by default, obeyed when allowed")
    func securityOptions() async throws {
        try await ServiceHarness.with({ $0.urls.allowSecurityOptions = true }) { h in
            h.origin.register("photo.png", data: try ServerFixtures.png(width: 200, height: 100))
            h.origin.register("anim.gif", data: try ServerFixtures.animation(frames: 3))
            #expect(try await h.get(h.plain("", "/img/photo.png")).status == 200)
            #expect(try await h.get(h.plain("msr:0.01", "/img/photo.png")).status == 422)
            #expect(try await h.get(h.plain("max_src_file_size:100", "/img/photo.png")).status == 422)
            #expect(try await h.get(h.plain("maf:2", "/img/anim.gif")).status == 422)
            let limited = try await h.get(h.plain("mrd:50/w:100/pd:10", "/img/photo.png"))
            // 120x70 with its padding, scaled to 50 on the longer side: padding too.
            #expect(limited.status == 200)
            #expect(try limited.image().pixelSize == PixelSize(width: 50, height: 29))
            #expect(try await h.get(h.plain("mrd:500/w:100", "/img/photo.png")).status == 200)
        }
    }

    @Test("/info: the header's facts, the source's size and type")
    func info() async throws {
        try await ServiceHarness.with { h in
            let data = try ServerFixtures.animation(frames: 3, width: 40, height: 30)
            h.origin.register("anim.gif", data: data, contentType: "image/gif")
            let r = try await h.get("/info" + h.plain("", "/img/anim.gif"))
            #expect(r.status == 200 && r["content-type"] == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: r.body) as? [String: Any])
            #expect(json["format"] as? String == "gif" && json["width"] as? Int == 40 && json["height"] as? Int == 30)
            #expect(json["frameCount"] as? Int == 3 && json["size"] as? Int == data.count)
            #expect(json["sourceContentType"] as? String == "image/gif" && json["mime_type"] as? String == "image/gif")
            #expect(Set(json.keys).isSuperset(of: ["orientation", "loopCount", "durations", "hasAlpha", "bitDepth", "hasICCProfile", "progressive"]))
            #expect(h.service.renderCount == 0, "/info decodes nothing")
            #expect(try await h.get("/info" + h.plain("", "/img/nothing.gif")).status == 404)
        }
    }

    @Test("/health and /metrics: requests by status, duration, queue, source bytes, cache hits and misses")
    func operations() async throws {
        try await ServiceHarness.with { h in
            let data = try ServerFixtures.png(width: 30, height: 30)
            h.origin.register("a.png", data: data)
            let health = try await h.get("/health")
            #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "ok\n")
            _ = try await h.get(h.plain("w:10", "/img/a.png"))
            _ = try await h.get(h.plain("w:11", "/img/a.png"))
            _ = try await h.get(h.plain("", "/img/missing.png"))
            // A request is counted once its body is written, just after the client has it.
            try await eventually { h.service.metrics.render().contains("imago_http_request_duration_seconds_count 3") }
            let metrics = try await h.get("/metrics")
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(metrics.status == 200 && metrics["content-type"]?.hasPrefix("text/plain") == true)
            for line in [
                "imago_http_requests_total{status=\"200\"} 2", "imago_http_requests_total{status=\"404\"} 1",
                "imago_source_bytes_total \(data.count)", "imago_source_cache_hits_total 1", "imago_source_cache_misses_total 1",
                "imago_http_request_duration_seconds_count 3", "imago_http_requests_in_progress 0", "imago_processing_queue_depth 0",
                "imago_processing_workers_busy 0", "imago_shared_uploads_in_flight 0", "imago_shared_result_hits_total 0",
                "imago_decodes_reused_total \(h.service.manager.reusedDecodeCount)"
            ] {
                #expect(text.contains(line), "\(line)\n\(text)")
            }
        }
    }

    @Test("local:/// sources: inside IMAGO_LOCAL_ROOT only; no .., no symbolic links")
    func localSources() async throws {
        let root = try TestFiles.temporaryDirectory("imago-local-root")
        let outside = try TestFiles.temporaryDirectory("imago-local-outside")
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("pics"), withIntermediateDirectories: true)
        try ServerFixtures.png(width: 30, height: 20).write(to: root.appendingPathComponent("pics/a.png"))
        try ServerFixtures.png(width: 30, height: 20).write(to: outside.appendingPathComponent("secret.png"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("link.png").path,
            withDestinationPath: outside.appendingPathComponent("secret.png").path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("out").path, withDestinationPath: outside.path)
        try await ServiceHarness.with({ $0.sources.localRoot = root.path }) { h in
            let ok = try await h.get("/_/w:15/plain/local:///pics/a.png")
            let okSize = try ok.image().pixelSize
            #expect(ok.status == 200 && okSize == PixelSize(width: 15, height: 10))
            #expect(ok["content-disposition"] == "inline; filename=\"a.png\"")
            for (path, status) in [
                ("local:///pics/../../\(outside.lastPathComponent)/secret.png", 404), ("local:///link.png", 404),
                ("local:///out/secret.png", 404), ("local:///pics/missing.png", 404), ("local:///pics", 404),
                ("local://pics/a.png", 404), ("local:///pics/%2e%2e/pics/a.png", 404)
            ] {
                let r = try await h.get("/_/plain/" + path)
                #expect(r.status == status, "\(path): \(r.status) \(r.errorFields)")
            }
        }
        try await ServiceHarness.with { h in
            let r = try await h.get("/_/plain/local:///pics/a.png")
            #expect(r.status == 404 && r.errorFields["error"] == "source_not_allowed", "no IMAGO_LOCAL_ROOT: refused")
        }
    }

    @Test("embedding: the routes mounted under a prefix in an app's own router")
    func embedding() async throws {
        let origin = try await TestHTTPServer.start()
        defer { Task { await origin.stop() } }
        origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 40))
        let directory = try TestFiles.temporaryDirectory("imago-embed")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration()
        configuration.security.allowLoopbackSources = true
        configuration.cache.cacheDirectory = directory.path
        configuration.urls.keys = "736563726574"
        configuration.urls.salts = "68656c6c6f"
        let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent)
        let router = Router()
        router.get("/") { _, _ in "my app" }
        service.addRoutes(to: router, at: "/images")
        let signer = try URLSigner(keyList: "736563726574", saltList: "68656c6c6f")
        let path = "/w:20/plain/http://127.0.0.1:\(origin.port)/img/a.png"
        let port = Mutex<Int?>(nil)
        let appWithPort = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: ServiceHarness.silent)
        let task = Task { try await appWithPort.runService(gracefulShutdownSignals: []) }
        defer { task.cancel() }
        try await eventually { port.withLock { $0 } != nil }
        let base = "http://127.0.0.1:\(port.withLock { $0 } ?? 0)"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await client.shutdown() } }
        func get(_ p: String) async throws -> (Int, Data) {
            let response = try await client.execute(HTTPClientRequest(url: base + p), timeout: .seconds(120))
            return (Int(response.status.code), Data(try await response.body.collect(upTo: 1 << 24).readableBytesView))
        }
        #expect(try await get("/").0 == 200)
        let image = try await get("/images/" + signer.signature(for: path) + path)
        #expect(image.0 == 200)
        #expect(try ImageCoderRegistry.shared.decode(image.1).pixelSize.width == 20)
        #expect(try await get("/images/_" + path).0 == 403)
        #expect(try await get("/images/health").0 == 200)
        await service.shutdown()
    }
}
