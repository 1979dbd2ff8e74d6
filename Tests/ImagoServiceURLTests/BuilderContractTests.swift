// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("ServiceURLBuilder: built URLs read back exactly")
struct BuilderContractTests {
    static let key = "736563726574", salt = "68656c6c6f"

    /// Every option away from its default (extend on, so its gravity is written).
    static func everything() -> ProcessingOptions {
        var o = ProcessingOptions()
        o.resizingType = .fillDown
        o.width = 640
        o.height = 480
        o.minWidth = 10
        o.minHeight = 20
        o.zoomX = 1.5
        o.zoomY = 0.75
        o.dpr = 2
        o.enlarge = true
        o.extend = true
        o.extendGravity = .init(.southEast, x: 4, y: 0.25)
        o.gravity = .init(.focusPoint, x: 0.3, y: 0.7)
        o.crop = .init(width: 0.5, height: 200, gravity: .init(.smart))
        o.trim = .init(threshold: 12.5, color: RGBA8(r: 1, g: 2, b: 3), equalHorizontal: true)
        o.padding = .init(top: 1, right: 2, bottom: 3, left: 4)
        o.autoRotate = false
        o.rotate = 90
        o.flipVertical = true
        o.background = RGBA8(r: 10, g: 20, b: 30)
        o.blur = 0.5
        o.sharpen = 1.25
        o.pixelate = 4
        o.quality = 85
        o.formatQuality = [.jpeg: 70, .webp: 60]
        o.maxBytes = 50_000
        o.stripMetadata = false
        o.keepCopyright = true
        o.stripColorProfile = false
        o.cacheBuster = "release-7"
        o.expires = 4_102_444_800
        o.filename = "Grüße: a/b.png"
        o.returnAttachment = true
        o.page = 3
        o.skipProcessing = [.svg, .gif]
        o.maxSourceResolution = 16.5
        o.maxSourceFileSize = 1_000_000
        o.maxAnimationFrames = 50
        o.maxResultDimension = 4096
        o.format = .avif
        return o
    }

    @Test(
        "every option, and an awkward source, survive a signed URL in either encoding",
        arguments: [ServiceURLBuilder.SourceEncoding.base64, .plain])
    func everyOption(encoding: ServiceURLBuilder.SourceEncoding) throws {
        let signer = try URLSigner(keyList: Self.key, saltList: Self.salt)
        let builder = ServiceURLBuilder(base: URL(string: "https://img.example.com")!, signer: signer, sourceEncoding: encoding)
        let options = Self.everything()
        let source = "https://cdn.example.com/a b/ü%20/100%?x=1&y=2#frag@2x.jpg"
        let path = builder.path(for: source, options: options)
        #expect(!path.contains(" ") && !path.contains("?") && !path.contains("#"), "\(path)")
        #expect(path.contains("/plain/") == (encoding == .plain))
        let parsed = try ServicePath(parsing: path)
        #expect(parsed.source == source && parsed.extensionName == nil && !parsed.isInfo)
        #expect(parsed.options == options.canonicalSegments)
        #expect(parsed.signature == signer.signature(for: parsed.signedPath))
        #expect(try ProcessingOptions(parsing: parsed.options, allowSecurityOptions: true) == options)
        // The service without permission refuses the first security option written.
        #expect(throws: ServiceURLError.securityOptionNotAllowed("max_src_resolution")) { try ProcessingOptions(parsing: parsed.options) }
    }

    @Test("with another argument separator (IMAGO_ARGUMENTS_SEPARATOR), every option survives a URL read with it", arguments: [",", "::"])
    func otherSeparator(separator: String) throws {
        let signer = try URLSigner(keyList: Self.key, saltList: Self.salt)
        let base = try #require(URL(string: "https://img.example.com"))
        let builder = ServiceURLBuilder(base: base, signer: signer, sourceEncoding: .plain, argumentSeparator: separator)
        let options = Self.everything()
        let path = builder.path(for: "https://cdn.example.com/a.jpg", options: options)
        #expect(path.contains("/resizing_type" + separator) && (separator.contains(":") || !path.contains("resizing_type:")))
        let parsed = try ServicePath(parsing: path, argumentSeparator: separator)
        #expect(parsed.signature == signer.signature(for: parsed.signedPath))
        #expect(try ProcessingOptions(parsing: parsed.options, allowSecurityOptions: true, argumentSeparator: separator) == options)
        // The same options written with `:` read the same way by a service on `:`.
        let plain = ServiceURLBuilder(base: base, signer: signer, sourceEncoding: .plain)
        #expect(
            try ProcessingOptions(
                parsing: ServicePath(parsing: plain.path(for: "https://cdn.example.com/a.jpg", options: options)).options, allowSecurityOptions: true)
                == options)
    }

    @Test("a signed URL, byte for byte, in both encodings")
    func exactPaths() throws {
        let signer = try URLSigner(keyList: Self.key, saltList: Self.salt)
        var options = ProcessingOptions()
        options.resizingType = .fill
        options.width = 300
        options.height = 200
        options.gravity = .init(.smart)
        let base = URL(string: "https://img.example.com")!
        let plain = ServiceURLBuilder(base: base, signer: signer, sourceEncoding: .plain)
        let plainPath =
            "/ZVYim40YjDo9857mK46xwhIgNWTdoQjoOZ7J0ZKVxtU/resizing_type:fill/width:300/height:200/gravity:sm"
            + "/plain/https://example.com/photo.jpg@webp"
        #expect(plain.path(for: "https://example.com/photo.jpg", options: options, format: .webp) == plainPath)
        #expect(
            plain.url(for: URL(string: "https://example.com/photo.jpg")!, options: options, format: .webp).absoluteString
                == "https://img.example.com" + plainPath)
        let base64 = ServiceURLBuilder(base: base, signer: signer)
        #expect(
            base64.path(for: "https://example.com/photo.jpg", options: options, format: .webp)
                == "/Mmc5quTwZvt0b8xWNvqas2M_pRJzPjaKbCJsjHorg8g/resizing_type:fill/width:300/height:200/gravity:sm"
                + "/aHR0cHM6Ly9leGFt/cGxlLmNvbS9waG90/by5qcGc.webp")
        let short = ServiceURLBuilder(
            base: base, signer: try URLSigner(keyList: Self.key, saltList: Self.salt, signatureSize: 8),
            sourceEncoding: .plain)
        #expect(short.path(for: "https://example.com/photo.jpg", options: options, format: .webp).hasPrefix("/ZVYim40YjDo/resizing_type:"))
    }

    @Test("the format argument becomes the extension and replaces the options' format")
    func formatExtension() throws {
        var options = ProcessingOptions()
        options.width = 10
        options.format = .png
        let base = URL(string: "http://localhost:8080")!
        let b64 = ServiceURLBuilder(base: base)
        let withExtension = try ServicePath(parsing: b64.path(for: "http://x.test/a.png", options: options, format: .webp))
        #expect(withExtension.extensionName == "webp" && withExtension.options == ["width:10"])
        #expect(try ProcessingOptions(parsing: withExtension.options).format == nil)
        let inOptions = try ServicePath(parsing: b64.path(for: "http://x.test/a.png", options: options))
        #expect(inOptions.extensionName == nil && inOptions.options == ["width:10", "format:png"])
        let plain = ServiceURLBuilder(base: base, sourceEncoding: .plain)
        let extensions: [(ImageFormat, String)] = [(.jpeg, "jpg"), (.tiff, "tiff"), (.avif, "avif"), (.gif, "gif")]
        for (format, ext) in extensions {
            let path = plain.path(for: "http://x.test/a.png", options: ProcessingOptions(), format: format)
            #expect(path == "/_/plain/http://x.test/a.png@\(ext)")
            #expect(try ServicePath(parsing: path).extensionName == ext)
        }
    }

    @Test("base64 sources are split into 16-character segments, with no options segment when none differ")
    func splitting() throws {
        let source = "https://cdn.example.com/" + String(repeating: "x", count: 100) + ".jpg"
        let builder = ServiceURLBuilder(base: URL(string: "http://h.test")!)
        #expect(builder.sourceEncoding == .base64 && builder.signer == nil)
        let path = builder.path(for: source, options: ProcessingOptions())
        #expect(path.hasPrefix("/_/"))
        let pieces = path.dropFirst(3).split(separator: "/")
        #expect(pieces.dropLast().allSatisfy { $0.count == 16 } && (1...16).contains(pieces.last?.count ?? 0))
        #expect(pieces.joined() == Base64URL.encode(Array(source.utf8)))
        #expect(try ServicePath(parsing: path).source == source)
    }

    @Test("info URLs: /info/ before the signature, which signs the same path as the image URL")
    func infoURLs() throws {
        let signer = try URLSigner(keyList: Self.key, saltList: Self.salt)
        var options = ProcessingOptions()
        options.page = 1
        for encoding in [ServiceURLBuilder.SourceEncoding.base64, .plain] {
            let builder = ServiceURLBuilder(base: URL(string: "https://img.example.com")!, signer: signer, sourceEncoding: encoding)
            let image = builder.path(for: "https://cdn.example.com/a.pdf", options: options)
            let info = builder.path(for: "https://cdn.example.com/a.pdf", options: options, info: true)
            #expect(info == "/info" + image)
            let parsed = try ServicePath(parsing: info)
            #expect(parsed.isInfo && parsed.options == ["page:1"] && parsed.source == "https://cdn.example.com/a.pdf")
            #expect(signer.verify(parsed.signature, for: parsed.signedPath))
        }
    }

    @Test("the base may have a path and a trailing slash; the service path follows it")
    func baseURLs() {
        var options = ProcessingOptions()
        options.width = 50
        let source = URL(string: "https://cdn.example.com/a.jpg")!
        let bare = ServiceURLBuilder(base: URL(string: "https://img.example.com/images")!)
        let slash = ServiceURLBuilder(base: URL(string: "https://img.example.com/images/")!)
        let path = bare.path(for: "https://cdn.example.com/a.jpg", options: options)
        #expect(bare.url(for: source, options: options).absoluteString == "https://img.example.com/images" + path)
        #expect(slash.url(for: source, options: options) == bare.url(for: source, options: options))
        #expect(
            bare.url(for: source, options: options, format: .png, info: true).absoluteString
                .hasPrefix("https://img.example.com/images/info/_/width:50/"))
    }
}
