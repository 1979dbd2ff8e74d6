// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("Service paths: plain and base64 sources, extensions, info")
struct PathTests {
    @Test("a plain source is percent-decoded; the extension follows the last @; the signed part starts after the signature")
    func plain() throws {
        let p = try ServicePath(parsing: "/sig/rs:fill:300:200/g:sm/plain/http://x.test/a%20b.jpg%3Fv%3D1%40x@webp")
        #expect(p.signature == "sig" && !p.isInfo)
        #expect(p.options == ["rs:fill:300:200", "g:sm"])
        #expect(p.source == "http://x.test/a b.jpg?v=1@x" && p.extensionName == "webp")
        #expect(p.signedPath == "/rs:fill:300:200/g:sm/plain/http://x.test/a%20b.jpg%3Fv%3D1%40x@webp")
        let bare = try ServicePath(parsing: "/_/plain/http://x.test/a.png")
        #expect(bare.options.isEmpty && bare.extensionName == nil && bare.source == "http://x.test/a.png")
    }

    @Test("a base64url source may be split by slashes; the extension follows the last dot")
    func base64() throws {
        let encoded = Base64URL.encode(Array("https://cdn.test/photos/1.jpg".utf8))
        let split = String(encoded.prefix(10)) + "/" + String(encoded.dropFirst(10))
        let p = try ServicePath(parsing: "/insecure/w:100/\(split).png")
        #expect(p.options == ["w:100"] && p.source == "https://cdn.test/photos/1.jpg" && p.extensionName == "png")
        let noExt = try ServicePath(parsing: "/insecure/\(encoded)")
        #expect(noExt.options.isEmpty && noExt.extensionName == nil && noExt.source == "https://cdn.test/photos/1.jpg")
    }

    @Test("info paths; query strings are not part of the path")
    func info() throws {
        let p = try ServicePath(parsing: "/info/sig/plain/http://x.test/a.png?cache=1")
        #expect(p.isInfo && p.signature == "sig" && p.signedPath == "/plain/http://x.test/a.png")
    }

    @Test("malformed paths say what is missing")
    func malformed() {
        for path in [
            "", "nope", "/", "/sig", "/sig/", "/sig/rs:fit:1:1", "/sig/plain/", "//plain/http://x/a.png",
            "/sig/plain/http://x/a@b.png@png", "/sig/%%%", "/sig/plain/%zz"
        ] {
            #expect(throws: ServiceURLError.self, "\(path)") { try ServicePath(parsing: path) }
        }
    }
}
