// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("Service paths: imgproxy's URL shapes, taken apart exactly")
struct ServicePathContractTests {
    /// `http://x.test/a.png` in base64url, split after 16 characters as the builder splits it.
    static let splitSource = "aHR0cDovL3gudGVz/dC9hLnBuZw"

    @Test("options end at plain/ or at the first segment without a colon, as imgproxy reads them")
    func optionBoundary() throws {
        let plain = try ServicePath(parsing: "/_/w:1/h:2/plain/http://x.test/a:b/c.png")
        #expect(plain.options == ["w:1", "h:2"] && plain.source == "http://x.test/a:b/c.png")
        let base64 = try ServicePath(parsing: "/_/w:1/rs:fill::2/\(Self.splitSource)")
        #expect(base64.options == ["w:1", "rs:fill::2"] && base64.source == "http://x.test/a.png")
        // An option without arguments has no colon: it starts the source, which then fails to decode.
        #expect(throws: ServiceURLError.self) { try ServicePath(parsing: "/_/raw/plain/http://x.test/a.png") }
        // So does an empty segment between options.
        #expect(throws: ServiceURLError.self) { try ServicePath(parsing: "/_/w:1//plain/http://x.test/a.png") }
        // One empty segment right after the signature is no segment, as imgproxy reads it.
        let leading = try ServicePath(parsing: "/_//w:1/plain/http://x.test/a.png")
        #expect(leading.options == ["w:1"] && leading.source == "http://x.test/a.png")
        // imgproxy's retired basic URL format is named as such.
        #expect(throws: ServiceURLError.self) { try ServicePath(parsing: "/_/fill/300/400/sm/0/aHR0cDovL3gudGVzdC9hLnBuZw") }
    }

    @Test("plain sources are percent-decoded once; one raw @ names the format, two are an error, an empty one names none")
    func plainSources() throws {
        #expect(throws: ServiceURLError.malformedPath("several formats after @")) {
            try ServicePath(parsing: "/_/plain/http://x.test/a@2x.png@webp")
        }
        let retina = try ServicePath(parsing: "/_/plain/http://x.test/a%402x.png@webp")
        #expect(retina.source == "http://x.test/a@2x.png" && retina.extensionName == "webp")
        let bare = try ServicePath(parsing: "/_/plain/http://x.test/a.png@")
        #expect(bare.source == "http://x.test/a.png" && bare.extensionName == nil)
        let unicode = try ServicePath(parsing: "/_/plain/http://x.test/%C3%BC%20%e2%82%ac.jpg")
        #expect(unicode.source == "http://x.test/ü €.jpg" && unicode.extensionName == nil)
        let twice = try ServicePath(parsing: "/_/plain/http://x.test/a%2520b.jpg")
        #expect(twice.source == "http://x.test/a%20b.jpg")
        let plus = try ServicePath(parsing: "/_/plain/http://x.test/a+b.jpg")
        #expect(plus.source == "http://x.test/a+b.jpg")
        let local = try ServicePath(parsing: "/_/plain/local:///images/a.png@png")
        #expect(local.source == "local:///images/a.png" && local.extensionName == "png")
        // The extension is kept as written; formats are matched without case later.
        let upper = try ServicePath(parsing: "/_/plain/http://x.test/a.png@WEBP")
        #expect(upper.extensionName == "WEBP" && ImageFormat(serviceExtension: "WEBP") == .webp)
        // An escaped ? belongs to the source; a raw one starts the query, even after @ext.
        let escaped = try ServicePath(parsing: "/_/plain/http://x.test/a.png%3Fv%3D2")
        #expect(escaped.source == "http://x.test/a.png?v=2")
        let query = try ServicePath(parsing: "/sig/plain/http://x.test/a.png@avif?v=2")
        #expect(query.extensionName == "avif" && query.signedPath == "/plain/http://x.test/a.png@avif")
        // A raw @ inside the URL (user info) reads as an extension holding a slash, which names no
        // format: the service refuses it, as imgproxy does.
        let userInfo = try ServicePath(parsing: "/_/plain/http://user@x.test/a.png")
        #expect(userInfo.extensionName == "x.test/a.png" && ImageFormat(serviceExtension: "x.test/a.png") == nil)
        // Nothing before @ext is no source.
        #expect(throws: ServiceURLError.malformedPath("no source URL")) { try ServicePath(parsing: "/_/plain/@png") }
    }

    @Test("base64url sources may be split at any point; padding is optional; the extension follows the dot")
    func base64Sources() throws {
        let source = "https://cdn.example.com/photos/ü.jpg?w=1&h=2"
        let encoded = Base64URL.encode(Array(source.utf8))
        for cut in 1..<encoded.count {
            let split = String(encoded.prefix(cut)) + "/" + String(encoded.dropFirst(cut))
            let p = try ServicePath(parsing: "/_/rs:fit:10:10/\(split).webp")
            #expect(p.source == source && p.extensionName == "webp" && p.options == ["rs:fit:10:10"], "cut at \(cut)")
            #expect(p.signedPath == "/rs:fit:10:10/\(split).webp")
        }
        var pieces: [String] = []
        var rest = Substring(encoded)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(3)))
            rest = rest.dropFirst(3)
        }
        #expect(try ServicePath(parsing: "/_/" + pieces.joined(separator: "/")).source == source)
        // imgproxy trims trailing padding; so does Imago.
        let padded = try ServicePath(parsing: "/_/aHR0cDovL3gudGVzdC9hLnBuZw==.png?x=1")
        #expect(padded.source == "http://x.test/a.png" && padded.extensionName == "png")
    }

    @Test(
        "base64url sources that are not base64url, or not UTF-8, or empty, are invalid sources",
        arguments: [
            "/_/%%%", "/_/abcde", "/_/aHR0cDovL3gudGVz+C9hLnBuZw", "/_/aHR0cDovL3gudGVz/dC9hLn*uZw.png",
            "/_/_w", "/_/_w.png", "/_/aHR0cDovL3g=udGVzdC9hLnBuZw"
        ])
    func invalidBase64(path: String) {
        #expect(throws: ServiceURLError.invalidSource("the source is neither plain/ nor base64url")) {
            try ServicePath(parsing: path)
        }
    }

    @Test(
        "a base64url source names no source before its extension, or several extensions: malformed",
        arguments: ["/_/.png", "/_/w:1/.webp", "/_/aHR0cDovL3gudGVzdC9hLnBuZw.png.webp"])
    func base64Shapes(path: String) {
        let error = #expect(throws: ServiceURLError.self) { try ServicePath(parsing: path) }
        #expect(error?.caseName == "malformedPath")
    }

    @Test("info paths take the same shapes after /info/, and the signature does not cover /info")
    func infoPaths() throws {
        let base64 = try ServicePath(parsing: "/info/sig/\(Self.splitSource)")
        #expect(base64.isInfo && base64.signature == "sig" && base64.options.isEmpty)
        #expect(base64.source == "http://x.test/a.png" && base64.signedPath == "/\(Self.splitSource)")
        let plain = try ServicePath(parsing: "/info/_/ar:0/plain/http://x.test/a.png")
        #expect(plain.isInfo && plain.options == ["ar:0"] && plain.signedPath == "/ar:0/plain/http://x.test/a.png")
        // Only a whole first segment named info is the prefix.
        let named = try ServicePath(parsing: "/information/plain/http://x.test/a.png")
        #expect(!named.isInfo && named.signature == "information")
        let processing = try ServicePath(parsing: "/insecure/plain/http://x.test/a.png")
        #expect(!processing.isInfo && processing.signature == "insecure" && processing.signedPath == "/plain/http://x.test/a.png")
    }

    @Test("each malformed shape is refused with its own reason")
    func exactErrors() {
        let cases: [(String, ServiceURLError)] = [
            ("", .malformedPath("the path must start with /")),
            ("sig/plain/http://x.test/a.png", .malformedPath("the path must start with /")),
            ("?/sig/plain/http://x.test/a.png", .malformedPath("the path must start with /")),
            ("/", .malformedPath("no source after the signature")),
            ("/sig", .malformedPath("no source after the signature")),
            ("/sig?next=/plain/http://x.test/a.png", .malformedPath("no source after the signature")),
            ("/info/", .malformedPath("no source after the signature")),
            ("/info/sig", .malformedPath("no source after the signature")),
            ("//plain/http://x.test/a.png", .malformedPath("the signature segment is empty")),
            ("/info//plain/http://x.test/a.png", .malformedPath("the signature segment is empty")),
            ("/sig/", .malformedPath("no source after the signature")),
            ("/sig/w:100", .malformedPath("no source URL")),
            ("/sig/w:100/", .malformedPath("no source URL")),
            ("/sig/plain", .invalidSource("the source is neither plain/ nor base64url")),
            ("/sig/w:1/plain/", .malformedPath("no source URL")),
            ("/sig/plain/?x=1", .malformedPath("no source URL")),
            ("/sig/plain/%zz", .invalidSource("broken percent-escape in the plain source")),
            ("/sig/plain/http://x.test/a%2.png", .invalidSource("broken percent-escape in the plain source")),
            ("/sig/plain/http://x.test/%C3%28.png", .invalidSource("broken percent-escape in the plain source"))
        ]
        for (path, expected) in cases {
            #expect(throws: expected, "\(path)") { try ServicePath(parsing: path) }
        }
    }
}
