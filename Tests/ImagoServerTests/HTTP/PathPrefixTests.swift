// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import HTTPTypes
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_PATH_PREFIX` and `IMGPROXY_HEALTH_CHECK_PATH`: every route under the
/// prefix, the health check at a path of the operator's too.
@Suite("IMAGO_PATH_PREFIX and IMAGO_HEALTH_CHECK_PATH, as imgproxy's")
struct PathPrefixTests {
    @Test("read as imgproxy trims them; a path that is not one stops the start")
    func settings() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_PATH_PREFIX": "/img/", "IMGPROXY_HEALTH_CHECK_PATH": "ping"])
        #expect(c.http.pathPrefix == "/img" && c.http.healthCheckPath == "/ping")
        #expect(try ServerConfiguration(environment: ["IMAGO_PATH_PREFIX": "/"]).http.pathPrefix == "")
        #expect(try ServerConfiguration(environment: ["IMAGO_PATH_PREFIX": "/a/b"]).http.pathPrefix == "/a/b")
        for bad in ["/a b", "/a?b", "/a//b", "/%61", "/a/*"] {
            let error = #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration(environment: ["IMAGO_PATH_PREFIX": bad]) }
            #expect(error?.variable == "IMAGO_PATH_PREFIX")
        }
    }

    @Test("images, /health and the health-check path answer under the prefix, and nothing outside it")
    func routes() async throws {
        try await ServiceHarness.with({
            $0.http.pathPrefix = "/img-proxy"
            $0.http.healthCheckPath = "/ping"
        }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 40))
            let image = try await h.get("/img-proxy" + h.plain("w:20", "/img/a.png"))
            #expect(image.status == 200)
            #expect(try image.image().pixelSize.width == 20)
            #expect(try await h.get(h.plain("w:20", "/img/a.png")).status == 404)
            for path in ["/img-proxy/health", "/img-proxy/ping"] {
                #expect(try await h.get(path).status == 200, "\(path)")
                #expect(try await h.get(path, method: .HEAD).status == 200, "HEAD \(path)")
            }
            #expect(try await h.get("/health").status == 404)
            #expect(h.origin.count("/img/a.png") == 1)
        }
    }
}

@Suite("IMAGO_USER_AGENT, as imgproxy's IMGPROXY_USER_AGENT")
struct UserAgentTests {
    @Test("sources are asked with it; %current_version is this version; a value no header can hold stops the start")
    func userAgent() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_USER_AGENT": "acme-images/%current_version (+https://acme.example)"])
        #expect(c.sources.userAgent == "acme-images/0.1 (+https://acme.example)")
        for bad in ["a\r\nX-Evil: 1", "caf\u{E9}"] {
            let refused = (try? ServerConfiguration(environment: ["IMAGO_USER_AGENT": bad])) == nil
            #expect(refused, "\(bad)")
        }
        try await ServiceHarness.with({ $0.sources.userAgent = "acme-images/2" }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            #expect(try await h.get(h.plain("w:10", "/img/a.png")).status == 200)
            #expect(h.origin.headers("/img/a.png")?["user-agent"] == "acme-images/2")
        }
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 20, height: 20))
            #expect(try await h.get(h.plain("w:10", "/img/a.png")).status == 200)
            #expect(h.origin.headers("/img/a.png")?["user-agent"] == "imago-server/0.1")
        }
    }
}
