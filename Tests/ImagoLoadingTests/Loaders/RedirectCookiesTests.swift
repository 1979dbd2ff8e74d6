// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("Cookies on redirects: an origin's cookie challenge passes, a caller's Cookie stays within its domain")
struct RedirectCookiesTests {
    static func url(_ s: String) -> URL { URL(string: s) ?? URL(fileURLWithPath: "/") }

    @Test("Set-Cookie read as RFC 6265 reads it: default path, Path, Domain, Secure, Max-Age; bounded")
    func matching() {
        var jar = RedirectCookies()
        jar.store(
            [
                "a=1", "b=\"two\"; Path=/img; HttpOnly", "c=3; Domain=.example.com; Path=/", "d=4; Secure", "e=5; Domain=other.com",
                "f=6; Domain=com", "bad name=7", "g=8; Max-Age=0", "h=x;y"
            ], from: Self.url("http://www.example.com/img/photo.jpg"))
        // a: host only, path /img (the default: up to the last slash); b: /img, unquoted; c: the
        // domain's, path /, so last (longer paths first); d over https only.
        #expect(jar.header(for: Self.url("http://www.example.com/img/x.jpg")) == "a=1; b=two; h=x; c=3")
        #expect(jar.header(for: Self.url("https://www.example.com/img/x.jpg")) == "a=1; b=two; d=4; h=x; c=3")
        // Another path: only the domain cookie (path /img does not cover /imgs or /).
        #expect(jar.header(for: Self.url("http://www.example.com/imgs/x.jpg")) == "c=3")
        // A name under the domain gets the Domain cookie alone; another domain nothing.
        #expect(jar.header(for: Self.url("http://cdn.example.com/img/x.jpg")) == "c=3")
        #expect(jar.header(for: Self.url("http://example.org/img/x.jpg")) == nil)
        #expect(jar.header(for: Self.url("ftp://www.example.com/img/x.jpg")) == nil)
        // Max-Age=0 removes one kept before.
        jar.store(["c=; Max-Age=0; Domain=example.com; Path=/", "i=9; Path=/img/deep"], from: Self.url("http://www.example.com/img/a"))
        #expect(jar.header(for: Self.url("http://www.example.com/img/deep/x")) == "i=9; a=1; b=two; h=x")
        // An address's cookies are its own, whatever Domain says.
        var address = RedirectCookies()
        address.store(["a=1; Domain=0.1", "b=2"], from: Self.url("http://127.0.0.1/x"))
        #expect(address.header(for: Self.url("http://127.0.0.1/y")) == "b=2")
        // Bounded: 32 kept, a field over 4 KiB not read.
        var many = RedirectCookies()
        many.store((0..<100).map { "n\($0)=v" } + ["big=" + String(repeating: "x", count: 5000)], from: Self.url("http://h.test/"))
        #expect(many.cookies.count == RedirectCookies.maxCookies && !many.cookies.contains { $0.name == "big" })
        #expect(CookieSyntax.defaultPath("") == "/" && CookieSyntax.defaultPath("/a") == "/" && CookieSyntax.defaultPath("/a/b/c") == "/a/b")
        #expect(CookieSyntax.pathMatches("/a/b", "/a") && CookieSyntax.pathMatches("/a/b", "/a/") && !CookieSyntax.pathMatches("/ab", "/a"))
    }

    @Test("paths keep their trailing slash, an IPv6 host is under no domain, and a field of thousands of names is read once each")
    func edges() {
        var jar = RedirectCookies()
        jar.store(["p=1; Path=/img/", "q=2"], from: Self.url("http://h.test/a/b/"))
        // q's default path is /a/b (Foundation's `path` would have given /a); p is sent to /img/ itself.
        #expect(jar.header(for: Self.url("http://h.test/img/")) == "p=1")
        #expect(jar.header(for: Self.url("http://h.test/a/b/x.png")) == "q=2" && jar.header(for: Self.url("http://h.test/a/c.png")) == nil)
        #expect(CookieSyntax.path(of: Self.url("http://h.test")) == "/" && CookieSyntax.path(of: Self.url("http://h.test/x/")) == "/x/")
        #expect(!CookieSyntax.isDomainOrSubdomain("fe80::1%evil.example.com", of: "example.com"))
        #expect(CookieSyntax.isDomainOrSubdomain("::1", of: "::1") && CookieSyntax.isDomainOrSubdomain("a.example.com", of: "example.com"))
        // A jar's reading keeps each name once, in its first place, with its last value.
        let names = (0..<20_000).map { "n\($0)" }
        let pairs = CookieSyntax.read([names.map { $0 + "=1" }.joined(separator: ";") + "; n7=last"], uniqueNames: true)
        #expect(pairs.count == names.count && pairs[7] == CookieSyntax.Pair(name: "n7", value: "last", quoted: false))
        #expect(RedirectCookies.name(of: "s=1; Path=/") == "s" && RedirectCookies.name(of: "novalue; Path=/") == nil)
    }

    @Test("a challenge's cookie replaces the caller's cookie of that name (Go's client does the same)")
    func challengeOverCallersCookie() async throws {
        try await withServer { server in
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts))
            let request = ImageDownloadRequest(url: server.url("/challenge/a.png"), headers: ["Cookie": "challenge=old; s=1"])
            let result = try await downloader.download(request)
            #expect(result.data == LoadingFixtures.png)
            #expect(server.headers("/challenge/a.png")?["cookie"] == "s=1; challenge=passed")
        }
    }

    @Test("a cookie challenge (Set-Cookie and a redirect back to the same URL) is answered; a cookie for another domain is a loop")
    func challenge() async throws {
        try await withServer { server in
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts))
            let result = try await downloader.download(ImageDownloadRequest(url: server.url("/challenge/a.png")))
            #expect(result.data == LoadingFixtures.png)
            #expect(server.count("/challenge/a.png") == 2 && server.headers("/challenge/a.png")?["cookie"] == "challenge=passed")
            // A Domain the host is not under is not kept: the same URL again without it is a loop.
            let refused = await failure {
                _ = try await downloader.download(ImageDownloadRequest(url: server.url("/challenge/a.png?domain=elsewhere.test")))
            }
            guard case .redirectLoop = refused else {
                Issue.record("expected a redirect loop, got \(String(describing: refused))")
                return
            }
        }
    }

    @Test("a caller's Cookie follows a redirect on its host and the names under it, and not to another host")
    func callerCookie() async throws {
        try await withServer { server in
            // Three names for this loopback server, resolved by the test's own table.
            let resolver = TableResolver(["img.test": ["127.0.0.1"], "cdn.img.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]])
            let loader = HTTPDataLoader(sourceGuard: SourceGuard(policy: AddressPolicy(allowsLoopback: true), resolver: resolver))
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
            func fetch(to target: String, cookie: String) async throws {
                let url = try #require(URL(string: "http://img.test:\(server.port)/away?to=\(target)"))
                _ = try await downloader.download(ImageDownloadRequest(url: url, headers: ["Cookie": cookie]))
            }
            try await fetch(to: "/img/a.png", cookie: "s=1")
            #expect(server.headers("/img/a.png")?["cookie"] == "s=1")
            try await fetch(to: "http://cdn.img.test:\(server.port)/img/a.png", cookie: "s=2")
            #expect(server.headers("/img/a.png")?["cookie"] == "s=2")
            try await fetch(to: "http://other.test:\(server.port)/img/a.png", cookie: "s=3")
            #expect(server.count("/img/a.png") == 3 && server.headers("/img/a.png")?["cookie"] == nil)
            #expect(server.headers("/away")?["cookie"] == "s=3")
            // Once a hop has left the domain, the caller's Cookie stays behind, back on it too.
            let back = try #require("http://img.test:\(server.port)/img/a.png".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            try await fetch(to: "http://other.test:\(server.port)/away?to=\(back)", cookie: "s=4")
            #expect(server.count("/img/a.png") == 4 && server.headers("/img/a.png")?["cookie"] == nil)
            try await loader.shutdown()
        }
    }
}

@Suite("URLs the HTTP client cannot send as they are")
struct UnsendableURLTests {
    @Test("a path whose escapes are not UTF-8 is refused, not fetched as / (AsyncHTTPClient writes / for it), redirects included")
    func latin1Path() async throws {
        try await withServer { server in
            server.register("caf%E9.png", data: LoadingFixtures.png)
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts))
            let direct = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/img/caf%E9.png"))) }
            let redirected = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/away?to=/img/caf%E9.png"))) }
            for error in [direct, redirected] {
                guard case .invalidURL = error else {
                    Issue.record("expected an invalid URL, got \(String(describing: error))")
                    continue
                }
            }
            #expect(server.count("/") == 0 && server.count("/img/caf%E9.png") == 0)
            #expect(HTTPDataLoader.sendsItsPath(server.url("/img/caf%C3%A9%20x.png")) && HTTPDataLoader.sendsItsPath(server.url("/")))
        }
    }
}
