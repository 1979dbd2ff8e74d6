// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import HTTPTypes
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

@Suite("IMAGO_COOKIE_PASSTHROUGH (imgproxy's): a client's cookies reach the source they belong to, and its answer stays its own")
struct CookiePassthroughTests {
    /// Three PNGs told apart by their width: what the origin sends without a `pick` cookie, and
    /// for `pick=red.png` and `pick=blue.png`.
    static func register(_ h: ServiceHarness) throws {
        h.origin.register("plain.png", data: try ServerFixtures.png(width: 30, height: 20))
        h.origin.register("red.png", data: try ServerFixtures.png(width: 40, height: 20))
        h.origin.register("blue.png", data: try ServerFixtures.png(width: 50, height: 20))
    }

    /// The answer's width; -1 when it is not an image.
    static func width(_ r: Reply) -> Int {
        (try? r.image().frames[0].buffer.size.width) ?? -1
    }

    @Test("off by default: no cookie reaches the origin")
    func offByDefault() async throws {
        try await ServiceHarness.with { h in
            try Self.register(h)
            let r = try await h.get(h.plain("", "/bycookie/plain.png"), headers: ["Cookie": "pick=red.png"])
            #expect(r.status == 200 && Self.width(r) == 30)
            #expect(h.origin.headers("/bycookie/plain.png")?["cookie"] == nil)
        }
    }

    @Test("on: each client gets the answer its cookies get, none from another's cache, raw and info too")
    func eachClientItsOwn() async throws {
        try await ServiceHarness.with({ $0.sources.cookiePassthrough = true }) { h in
            try Self.register(h)
            let path = h.plain("", "/bycookie/plain.png")
            // Without cookies first, so that a cached answer would be there to leak.
            let plain = try await h.get(path)
            #expect(plain.status == 200 && Self.width(plain) == 30)
            let red = try await h.get(path, headers: ["Cookie": "pick=red.png; theme=dark"])
            #expect(red.status == 200 && Self.width(red) == 40, "\(red.status)")
            #expect(h.origin.headers("/bycookie/plain.png")?["cookie"] == "pick=red.png; theme=dark")
            let blue = try await h.get(path, headers: ["Cookie": "pick=blue.png"])
            #expect(Self.width(blue) == 50)
            // Again: a client with cookies is asked for again at the origin; one without is not
            // served another's answer.
            let asked = h.origin.count("/bycookie/plain.png")
            let redAgain = try await h.get(path, headers: ["Cookie": "pick=red.png"])
            #expect(Self.width(redAgain) == 40 && h.origin.count("/bycookie/plain.png") == asked + 1)
            let plainAgain = try await h.get(path)
            #expect(Self.width(plainAgain) == 30 && plainAgain["etag"] == plain["etag"] && red["etag"] != plain["etag"])
            let raw = try await h.get(h.plain("raw:1", "/bycookie/plain.png"), headers: ["Cookie": "pick=blue.png"])
            let blueBytes = try ServerFixtures.png(width: 50, height: 20)
            #expect(raw.body == blueBytes)
            let info = try await h.get("/info" + h.plain("", "/bycookie/plain.png"), headers: ["Cookie": "pick=red.png"])
            let json = try #require(try JSONSerialization.jsonObject(with: info.body) as? [String: Any])
            #expect(info.status == 200 && json["width"] as? Int == 40, "\(info.status)")
        }
    }

    @Test("with the efficient policy, a private source gets imgproxy's answer at once: no provisional answer, nothing made for later")
    func efficientPolicy() async throws {
        try await ServiceHarness.with({
            $0.sources.cookiePassthrough = true
            $0.output.formatPolicy = .efficient
            $0.output.autoWebP = true
        }) { h in
            try Self.register(h)
            let ttl = h.service.configuration.http.ttl
            for _ in 0..<3 {
                let r = try await h.get(h.plain("", "/bycookie/plain.png"), headers: ["Cookie": "pick=red.png", "Accept": "image/webp,*/*"])
                #expect(r.status == 200 && r["content-type"] == "image/webp" && Self.width(r) == 40)
                #expect(r["cache-control"] == "max-age=\(ttl), private", "\(r["cache-control"] ?? "")")
            }
            // Without cookies the same URL takes the policy's first answer, briefly cacheable.
            let shared = try await h.get(h.plain("", "/bycookie/plain.png"), headers: ["Accept": "image/webp,*/*"])
            #expect(shared["content-type"] == "image/jpeg" && shared["cache-control"]?.contains("stale-while-revalidate") == true)
        }
    }

    @Test("an answer made with a client's cookies is private, 304s too; IMAGO_COOKIE_ANSWERS_PRIVATE=false: imgproxy's public")
    func privateAnswers() async throws {
        for answersPrivate in [true, false] {
            try await ServiceHarness.with({
                $0.sources.cookiePassthrough = true
                $0.sources.cookieAnswersPrivate = answersPrivate
                $0.http.cacheControlPassthrough = true
            }) { h in
                try Self.register(h)
                let ttl = h.service.configuration.http.ttl
                let r = try await h.get(h.plain("", "/bycookie/plain.png"), headers: ["Cookie": "pick=red.png"])
                #expect(r.status == 200 && Self.width(r) == 40)
                #expect(r["cache-control"] == "max-age=\(ttl), \(answersPrivate ? "private" : "public")", "\(r["cache-control"] ?? "")")
                let etag = try #require(r["etag"])
                let again = try await h.get(h.plain("", "/bycookie/plain.png"), headers: ["Cookie": "pick=red.png", "If-None-Match": etag])
                #expect(again.status == 304 && again["cache-control"] == r["cache-control"])
                // Without cookies the answer is everyone's, as before.
                let shared = try await h.get(h.plain("", "/bycookie/plain.png"))
                #expect(shared["cache-control"] == "max-age=\(ttl), public")
            }
        }
        let off = try ServerConfiguration(environment: ["IMAGO_COOKIE_ANSWERS_PRIVATE": "false"])
        #expect(!off.sources.cookieAnswersPrivate && ServerConfiguration().sources.cookieAnswersPrivate)
    }

    @Test("to the host the client asked (X-Forwarded-Host first) or IMAGO_COOKIE_BASE_URL's host and path; _ALL to every source")
    func scope() async throws {
        let path = { (h: ServiceHarness) in h.plain("", "/bycookie/plain.png") }
        try await ServiceHarness.with({ $0.sources.cookiePassthrough = true }) { h in
            try Self.register(h)
            // The client asked another host: its cookies are not the origin's.
            let other = try await h.get(path(h), headers: ["Cookie": "pick=red.png", "X-Forwarded-Host": "images.example.com"])
            #expect(Self.width(other) == 30 && h.origin.headers("/bycookie/plain.png")?["cookie"] == nil)
            let same = try await h.get(path(h), headers: ["Cookie": "pick=red.png", "X-Forwarded-Host": "127.0.0.1:9"])
            #expect(Self.width(same) == 40)
        }
        try await ServiceHarness.with({
            $0.sources.cookiePassthrough = true
            $0.sources.cookieBaseURL = "http://127.0.0.1/bycookie/"
        }) { h in
            try Self.register(h)
            let r = try await h.get(path(h), headers: ["Cookie": "pick=red.png", "X-Forwarded-Host": "images.example.com"])
            #expect(Self.width(r) == 40)
        }
        try await ServiceHarness.with({
            $0.sources.cookiePassthrough = true
            $0.sources.cookieBaseURL = "http://127.0.0.1/other/page"
        }) { h in
            try Self.register(h)
            let r = try await h.get(path(h), headers: ["Cookie": "pick=red.png"])
            #expect(Self.width(r) == 30)
        }
        try await ServiceHarness.with({
            $0.sources.cookiePassthrough = true
            $0.sources.cookiePassthroughAll = true
        }) { h in
            try Self.register(h)
            let r = try await h.get(path(h), headers: ["Cookie": "pick=blue.png", "X-Forwarded-Host": "images.example.com"])
            #expect(Self.width(r) == 50)
        }
    }

    @Test("cookies read as Go's server reads them and written as its client writes them")
    func reading() throws {
        var settings = SourceSettings()
        settings.cookiePassthrough = true
        let fields: HTTPFields = [.cookie: "a=1; b=\"x y\"; bad name=1; c=2,3; flag; a=3; d=\"q\"; e=\\x", .cookie: "f=6"]
        let cookies = try #require(ClientCookies(headers: fields, authority: "img.test:8080", settings: settings))
        #expect(cookies.host == "img.test" && cookies.path == "/")
        #expect(cookies.header(for: URL(string: "https://img.test/a.jpg")!) == "a=3; b=\"x y\"; c=\"2,3\"; flag=; d=\"q\"; f=6")
        #expect(cookies.header(for: URL(string: "https://cdn.img.test/a.jpg")!) == nil)
        #expect(cookies.header(for: URL(string: "s3://img.test/a.jpg")!) == nil)
        #expect(ClientCookies(headers: [.cookie: "bad name=1"], authority: "img.test", settings: settings) == nil)
        settings.cookiePassthrough = false
        #expect(ClientCookies(headers: fields, authority: "img.test", settings: settings) == nil)
        // The setting refuses a base that is not an http(s) URL with a host.
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_COOKIE_BASE_URL": "img.test/x"]) }
        let base = try ServerConfiguration(environment: ["IMGPROXY_COOKIE_BASE_URL": "https://img.test/x/", "IMGPROXY_COOKIE_PASSTHROUGH": "1"])
        #expect(base.sources.cookieBaseURL == "https://img.test/x/" && base.sources.cookiePassthrough)
        // The base's trailing slash is kept: its cookies belong under /x (RFC 6265's default path), not /.
        settings.cookiePassthrough = true
        settings.cookieBaseURL = "https://img.test/x/"
        let based = try #require(ClientCookies(headers: fields, authority: nil, settings: settings))
        #expect(based.path == "/x" && based.header(for: URL(string: "https://img.test/y.jpg")!) == nil)
        #expect(based.header(for: URL(string: "https://img.test/x/y.jpg")!) != nil)
    }
}
