// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// Every row of the status table, through a real HTTP client against a loopback origin.
@Suite("Service statuses: each failure has its status and a JSON body", .serialized)
struct ServiceStatusTests {
    @Test("404 as imgproxy answers: malformed paths, unknown options (named), bad arguments, bad sources; 403 for security options")
    func badRequests() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            for path in ["/_", "/_/rs:fit:10:10", "/_/rs:fit:10:10/plain/", "/_/%zz/plain/x", "/_/plain/%E0%A4%A"] {
                let r = try await h.get(path)
                #expect(r.status == 404, "\(path)")
                #expect(r["content-type"] == "application/json" && r["cache-control"] == "no-store")
                #expect(r.errorFields["requestId"] == r["x-request-id"] && r.errorFields["message"]?.isEmpty == false)
            }
            let unknown = try await h.get(h.plain("bogus:1", "/img/a.png"))
            #expect(unknown.status == 404 && unknown.errorFields["error"] == "unknown_option")
            #expect(unknown.errorFields["message"]?.contains("bogus") == true)
            for options in ["rs:fit:abc", "w:-5", "q:101", "rt:sideways", "rot:45", "g:up", "bg:zz0000", "pd:1:2:3:4:5", "bg:ff000080", "g:sm:1:1"] {
                let r = try await h.get(h.plain(options, "/img/a.png"))
                #expect(r.status == 404, "\(options): \(r.errorFields)")
            }
            #expect(try await h.get(h.plain("", "/img/a.png", ext: "exe")).status == 404)
            #expect(try await h.get("/_/plain/ftp://127.0.0.1/a.png").status == 404)
            #expect(try await h.get("/_/plain/file:///etc/passwd").status == 404)
            // A security option without IMAGO_ALLOW_SECURITY_OPTIONS.
            #expect(try await h.get(h.plain("msr:1000", "/img/a.png")).status == 403)
            // Without keys, a signature segment that is an option means the client left it out.
            let missing = try await h.get("/rs:fit:10:10/plain/" + h.source("/img/a.png"))
            #expect(missing.status == 403 && missing.errorFields["error"] == "signature_missing")
            // Methods other than GET and HEAD never reach the pipeline.
            #expect(try await h.get(h.plain("", "/img/a.png"), method: .POST).status != 200)
        }
    }

    @Test("403: a bad or missing signature, a wrong bearer secret; the right ones pass; /metrics asks the secret too, /health never")
    func forbidden() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        try await ServiceHarness.with({
            $0.urls.keys = key
            $0.urls.salts = salt
            $0.http.secret = "s3cret"
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            let path = "/rs:fit:10:10/plain/" + h.source("/img/a.png")
            let signer = try URLSigner(keyList: key, saltList: salt)
            let auth = ["Authorization": "Bearer s3cret"]
            #expect(try await h.get("/" + signer.signature(for: path) + path, headers: auth).status == 200)
            for signature in ["_", "insecure", "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", String(signer.signature(for: path).dropLast())] {
                let r = try await h.get("/" + signature + path, headers: auth)
                #expect(r.status == 403 && r.errorFields["error"] == "invalid_signature", "\(signature)")
            }
            // The signature covers the path byte for byte: changing an option breaks it.
            let other = "/rs:fit:11:10/plain/" + h.source("/img/a.png")
            #expect(try await h.get("/" + signer.signature(for: path) + other, headers: auth).status == 403)
            for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "s3cret"]] {
                let r = try await h.get("/" + signer.signature(for: path) + path, headers: headers)
                #expect(r.status == 403 && r.errorFields["error"] == "invalid_secret")
            }
            #expect(h.origin.count("/img/a.png") == 1)
            // What the service counts is behind the secret as its images are; the health check
            // (GET or a load balancer's HEAD) is not.
            for headers in [[:], ["Authorization": "Bearer wrong"]] {
                let r = try await h.get("/metrics", headers: headers)
                #expect(r.status == 403 && r.errorFields["error"] == "invalid_secret")
            }
            let scraped = try await h.get("/metrics", headers: auth)
            #expect(scraped.status == 200 && String(decoding: scraped.body, as: UTF8.self).contains("imago_http_requests_total"))
            #expect(try await h.get("/health").status == 200)
            let head = try await h.get("/health", method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty)
        }
    }

    @Test("404 (imgproxy's status) for sources outside the allow-list (checked on redirects too) and for loopback by default")
    func sourceNotAllowed() async throws {
        try await ServiceHarness.with({ $0.security.allowedSources = ["http://127.0.0.1:*/img/", "http://127.0.0.1:*/away"] }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            #expect(try await h.get(h.plain("", "/img/a.png")).status == 200)
            let outside = try await h.get(h.plain("", "/status/200"))
            #expect(outside.status == 404 && outside.errorFields["error"] == "source_not_allowed")
            // An allowed URL redirecting outside the list: the hop is checked, and refused.
            let hop = try await h.get(h.plain("", "/away?to=" + h.source("/status/200")))
            #expect(hop.status == 404)
            #expect(try await h.get(h.plain("", "/away?to=" + h.source("/img/a.png"))).status == 200)
            #expect(h.origin.count("/status/200") == 0)
        }
        try await ServiceHarness.with({ $0.security.allowLoopbackSources = false }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            let r = try await h.get(h.plain("", "/img/a.png"))
            #expect(r.status == 404 && r.errorFields["error"] == "source_not_allowed")
            // The message names no address.
            #expect(r.errorFields["message"]?.contains("127.0.0.1") == false)
            #expect(h.origin.totalCount == 0)
        }
    }

    @Test("a source's 4xx passes through; 5xx is 502; an unreachable origin 404 and a cut body 422 (imgproxy's); expired URLs 404")
    func sourceStatuses() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            let missing = try await h.get(h.plain("", "/img/nothing.png"))
            #expect(missing.status == 404 && missing.errorFields["error"] == "source_not_found")
            #expect(missing.errorFields["message"] == "the source answered 404")
            for code in [401, 403, 410, 451] { #expect(try await h.get(h.plain("", "/status/\(code)")).status == code) }
            for (route, status) in [
                ("/status/500", 502), ("/status/503", 502), ("/drop", 404), ("/garbage", 404), ("/short/a.png", 422), ("/loop/a", 404)
            ] {
                let r = try await h.get(h.plain("", route))
                #expect(r.status == status, "\(route): \(r.status) \(r.errorFields)")
                #expect(r.errorFields["message"]?.contains("127.0.0.1") == false)
            }
            let expired = try await h.get(h.plain("exp:1000", "/img/a.png"))
            #expect(expired.status == 404 && expired.errorFields["error"] == "expired")
            let future = Int(Date().timeIntervalSince1970) + 3600
            #expect(try await h.get(h.plain("exp:\(future)", "/img/a.png")).status == 200)
        }
    }

    @Test("422: not an image, an unsupported output, sources over the resolution, size and frame limits")
    func unprocessable() async throws {
        try await ServiceHarness.with({
            $0.security.maxSourceResolution = 0.01  // 10 000 pixels
            $0.security.maxSourceFileSize = 50_000
            $0.security.maxAnimationFrames = 4
            $0.security.maxResultDimension = 300
        }) { h in
            h.origin.register("text", data: Data("hello, not an image".utf8), contentType: "image/png")
            h.origin.register("small.png", data: try ServerFixtures.png(width: 50, height: 50))
            h.origin.register("big.png", data: try ServerFixtures.png(width: 200, height: 100))
            h.origin.register("large.bin", data: Data(repeating: 7, count: 60_000))
            h.origin.register("anim.gif", data: try ServerFixtures.animation(frames: 5))
            let text = try await h.get(h.plain("", "/img/text"))
            #expect(text.status == 422 && text.errorFields["message"] == "the source is not an image")
            let big = try await h.get(h.plain("", "/img/big.png"))
            #expect(big.status == 422 && big.errorFields["error"] == "limit_exceeded")
            // Declared too large, and streamed too large without a declared length.
            #expect(try await h.get(h.plain("", "/img/large.bin")).status == 422)
            #expect(try await h.get(h.plain("", "/chunked/large.bin")).status == 422)
            // Five frames over a limit of four, kept animated: refused; a still of it is fine.
            #expect(try await h.get(h.plain("", "/img/anim.gif")).status == 422)
            #expect(try await h.get(h.plain("", "/img/anim.gif", ext: "jpg")).status == 200)
            // A result over IMAGO_MAX_RESULT_DIMENSION is scaled down to fit it, as imgproxy does.
            let grown = try await h.get(h.plain("rs:fit:400:400:1", "/img/small.png"))
            #expect(grown.status == 200, "\(grown.errorFields)")
            #expect(try grown.image().pixelSize == PixelSize(width: 300, height: 300))
            // An output format no encoder here writes.
            #expect(try await h.get(h.plain("", "/img/small.png", ext: "pdf")).status == 422)
            // An icon: one PNG entry, scaled down to 256 a side at most, as imgproxy writes it.
            let icon = try await h.get(h.plain("rs:fit:400:400:1", "/img/small.png", ext: "ico"))
            #expect(icon.status == 200 && icon["content-type"] == "image/x-icon")
            #expect(try ImageCoderRegistry.shared.decode(icon.body).pixelSize == PixelSize(width: 256, height: 256))
            if JXLCoder().canEncode(.jxl) {
                // JPEG XL out, and back in as a source.
                let jxl = try await h.get(h.plain("", "/img/small.png", ext: "jxl"))
                #expect(jxl.status == 200 && jxl["content-type"] == "image/jxl")
                #expect(ImageFormat(sniffing: jxl.body) == .jxl)
                h.origin.register("small.jxl", data: jxl.body, contentType: "image/jxl")
                let back = try await h.get(h.plain("w:8", "/img/small.jxl", ext: "png"))
                #expect(back.status == 200 && ImageFormat(sniffing: back.body) == .png)
            }
            #expect(try await h.get(h.plain("", "/img/small.png")).status == 200)
        }
    }

    @Test("429 with Retry-After once IMAGO_WORKERS + IMAGO_QUEUE_SIZE requests are in progress")
    func queueFull() async throws {
        try await ServiceHarness.with({
            $0.workers = 1
            $0.queueSize = 1
        }) { h in
            let png = try ServerFixtures.png(width: 20, height: 20)
            h.origin.register("a.png", data: png)
            // Two requests held by a slow origin take the one worker's place and the one queue place.
            let route = "/slow/a.png?chunk=\(png.count / 15 + 1)&delay=100"
            let held = [h.plain("w:10", route), h.plain("w:12", route)].map { path in Task { try await h.get(path) } }
            try await eventually { h.service.admitted.count == 2 }
            let refused = try await h.get(h.plain("", "/img/a.png"))
            #expect(refused.status == 429 && refused["retry-after"] == "1" && refused.errorFields["error"] == "queue_full")
            #expect(refused["cache-control"] == "no-store")
            for task in held { #expect(try await task.value.status == 200) }
            #expect(try await h.get(h.plain("", "/img/a.png")).status == 200, "room again once they finished")
            #expect(h.origin.count("/img/a.png") == 1)
        }
    }

    @Test("504 when the source does not answer in time; 503 when the whole request takes too long")
    func timeouts() async throws {
        try await ServiceHarness.with({ $0.sources.downloadTimeout = .milliseconds(500) }) { h in
            let r = try await h.get(h.plain("", "/nohead"))
            #expect(r.status == 504 && r.errorFields["error"] == "source_timeout")
            #expect(r["cache-control"] == "no-store")
        }
        try await ServiceHarness.with({ $0.http.requestTimeout = .milliseconds(500) }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 200, height: 200))
            let r = try await h.get(h.plain("", "/slow/a.png?chunk=100&delay=200"))
            #expect(r.status == 503 && r["retry-after"] == "1")
        }
    }
}
