// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// SVG through librsvg: sizes, rendering at the size asked, the limits, and that nothing
/// outside the document ever loads.
@Suite("SVG", .enabled(if: SVGCoder().canDecode(.svg), "librsvg is not installed (scripts/bootstrap installs it)"))
struct SVGTests {
    static let coder = SVGCoder()

    static func svg(_ body: String, attributes: String = "width=\"40\" height=\"20\"", prolog: String = "") -> Data {
        Data("\(prolog)<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \(attributes)>\(body)</svg>".utf8)
    }

    /// Pixels whose colour is mostly red and opaque.
    static func redPixels(_ buffer: PixelBuffer) -> Int {
        var n = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                if let c = buffer.color(atX: x, y: y), c.a > 200, c.r > 200, c.g < 60, c.b < 60 { n += 1 }
            }
        }
        return n
    }

    /// A 4×4 red PNG.
    static func redPNG() throws -> Data {
        try ImageCoderRegistry.shared.encode(
            Image(
                buffer: try PixelBuffer(
                    width: 4, height: 4, format: .rgba8,
                    bytes: Array(repeating: [255, 0, 0, 255], count: 16).flatMap { $0 })),
            as: .png)
    }

    @Test("the intrinsic size from width and height in CSS units, the viewBox, or 300x150 with neither")
    func intrinsicSize() throws {
        let cases: [(String, PixelSize)] = [
            ("width=\"40\" height=\"20\"", PixelSize(width: 40, height: 20)),
            ("width=\"1in\" height=\"0.5in\"", PixelSize(width: 96, height: 48)),
            ("width=\"72pt\" height=\"25.4mm\"", PixelSize(width: 96, height: 96)),
            ("viewBox=\"0 0 64 32\"", PixelSize(width: 64, height: 32)),
            ("width=\"128\" viewBox=\"0 0 64 32\"", PixelSize(width: 128, height: 64)),
            ("height=\"100%\" width=\"50%\" viewBox=\"10 10 30 60\"", PixelSize(width: 30, height: 60)),
            ("", PixelSize(width: 300, height: 150)),
            // An invalid length is ignored, as browsers ignore it.
            ("width=\"-5\" height=\"10\"", PixelSize(width: 300, height: 10))
        ]
        for (attributes, size) in cases {
            let data = Self.svg("<rect width=\"10\" height=\"10\" fill=\"red\"/>", attributes: attributes)
            let info = try ImageCoderRegistry.shared.info(of: data)
            #expect(info.format == .svg && info.pixelSize == size && info.hasAlpha, "\(attributes)")
            let image = try ImageCoderRegistry.shared.decode(data)
            #expect(image.frames[0].buffer.size == size, "\(attributes)")
        }
    }

    @Test("a thumbnail is drawn as a vector at the thumbnail's size, larger than the intrinsic size if asked")
    func rendersAtRequestedSize() throws {
        // A 16x16 icon: a red disc on transparent.
        let icon = Self.svg("<circle cx=\"8\" cy=\"8\" r=\"7\" fill=\"red\"/>", attributes: "width=\"16\" height=\"16\"")
        let big = try Self.coder.decode(icon, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 512, height: 512)))
        let buffer = big.frames[0].buffer
        #expect(buffer.size == PixelSize(width: 512, height: 512))
        // Drawn as a vector, the disc's edge is about one pixel wide at any size: the pixels
        // that are neither empty nor full red are a thin ring, not the 32-pixel blur of an upscaled raster.
        var partial = 0
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let a = buffer.color(atX: x, y: y)?.a ?? 0
                if a > 10, a < 245 { partial += 1 }
            }
        }
        let circumference = 2 * Double.pi * 7 * 32
        #expect(Double(partial) < circumference * 2.5, "\(partial) edge pixels")
        // The same as drawing at that resolution.
        var dpi = DecodeOptions()
        dpi.renderDPI = 96 * 32
        let same = try Self.coder.decode(icon, options: dpi)
        #expect(PixelMetrics.psnrPremultiplied(same.frames[0].buffer, buffer) == .infinity)
        // Not keeping the aspect ratio stretches the vector to the box.
        let stretched = try Self.coder.decode(
            icon,
            options: DecodeOptions(
                thumbnailPixelSize: PixelSize(width: 64, height: 16),
                preserveAspectRatio: false))
        #expect(stretched.frames[0].buffer.size == PixelSize(width: 64, height: 16))
    }

    @Test("no file outside the document is read: absolute and relative paths, XInclude, CSS imports, external entities")
    func noFileLoads() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("red.png")
        try Self.redPNG().write(to: png)
        let css = dir.appendingPathComponent("red.css")
        try Data("rect { fill: red; }".utf8).write(to: css)
        let attacks = [
            Self.svg("<image width=\"40\" height=\"20\" xlink:href=\"\(png.absoluteString)\"/>"),
            Self.svg("<image width=\"40\" height=\"20\" href=\"\(png.path)\"/>"),
            Self.svg("<image width=\"40\" height=\"20\" xlink:href=\"red.png\"/>"),
            Self.svg("<style>@import url(\"\(css.absoluteString)\");</style><rect width=\"40\" height=\"20\" fill=\"none\"/>"),
            Self.svg("<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"\(png.absoluteString)\" parse=\"xml\"/>"),
            Self.svg(
                "<rect width=\"40\" height=\"20\" fill=\"&x;\"/>",
                prolog: "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"\(css.absoluteString)\">]>")
        ]
        for (i, data) in attacks.enumerated() {
            do {
                let image = try Self.coder.decode(data, options: .default)
                #expect(Self.redPixels(image.frames[0].buffer) == 0, "attack \(i) drew the file's content")
            } catch is ImageCodingError {
                // Refusing the document is as good.
            }
        }
        // The same image inside the document, as a data: URL, is drawn.
        let inline = "data:image/png;base64," + (try Self.redPNG()).base64EncodedString()
        let allowed = try Self.coder.decode(
            Self.svg("<image width=\"40\" height=\"20\" preserveAspectRatio=\"none\" xlink:href=\"\(inline)\"/>"),
            options: .default)
        #expect(Self.redPixels(allowed.frames[0].buffer) > 700)
    }

    @Test("no URL is fetched: images, XInclude, CSS imports and entities pointing at a loopback server")
    func noNetworkLoads() async throws {
        let server = try await TestHTTPServer.start()
        server.register("/red.png", data: try Self.redPNG())
        server.register("/red.css", data: Data("rect { fill: red; }".utf8), contentType: "text/css")
        let png = server.url("/red.png").absoluteString, css = server.url("/red.css").absoluteString
        let attacks = [
            Self.svg("<image width=\"40\" height=\"20\" xlink:href=\"\(png)\"/>"),
            Self.svg("<style>@import url(\"\(css)\");</style><rect width=\"40\" height=\"20\"/>"),
            Self.svg("<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"\(png)\" parse=\"text\"/>"),
            Self.svg(
                "<rect width=\"40\" height=\"20\" fill=\"&x;\"/>",
                prolog: "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"\(css)\">]>"),
            Self.svg("<filter id=\"f\"><feImage xlink:href=\"\(png)\"/></filter><rect width=\"40\" height=\"20\" filter=\"url(#f)\"/>")
        ]
        for data in attacks {
            if let image = try? Self.coder.decode(data, options: .default) {
                #expect(Self.redPixels(image.frames[0].buffer) == 0)
            }
        }
        // Give any stray fetch time to arrive.
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.totalCount == 0, "the server was asked \(server.totalCount) time(s)")
        await server.stop()
    }

    @Test("entity expansion, element count and nesting are bounded before librsvg parses")
    func markupLimits() throws {
        // The billion laughs: ten levels of ten references.
        var dtd = "<!ENTITY l0 \"<g/>\">"
        for i in 1...9 { dtd += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">" }
        let laughs = Self.svg("&l9;", prolog: "<?xml version=\"1.0\"?><!DOCTYPE svg [\(dtd)]>")
        let started = ContinuousClock.now
        #expect {
            _ = try Self.coder.decode(laughs, options: .default)
        } throws: { error in
            guard case ImageCodingError.exceedsLimit(.maxElements, let found, _) = error else { return false }
            return found > 1_000_000
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        // A text bomb (no elements) is bounded by the expanded size.
        var text = "<!ENTITY t0 \"" + String(repeating: "x", count: 1000) + "\">"
        for i in 1...6 { text += "<!ENTITY t\(i) \"" + String(repeating: "&t\(i - 1);", count: 20) + "\">" }
        #expect {
            _ = try Self.coder.decode(Self.svg("<text>&t6;</text>", prolog: "<!DOCTYPE svg [\(text)]>"), options: .default)
        } throws: { error in
            if case ImageCodingError.exceedsLimit(.maxBytes, _, _) = error { return true }
            return false
        }
        // An entity that refers to itself.
        #expect(throws: ImageCodingError.self) {
            _ = try Self.coder.decode(
                Self.svg("&a;", prolog: "<!DOCTYPE svg [<!ENTITY a \"<g>&b;</g>\"><!ENTITY b \"&a;\">]>"),
                options: .default)
        }
        var limits = DecodingLimits.default
        limits.maxElements = 100
        let many = Self.svg(String(repeating: "<rect width=\"1\" height=\"1\"/>", count: 150))
        #expect(throws: ImageCodingError.exceedsLimit(.maxElements, found: 101, limit: 100)) {
            _ = try Self.coder.decode(many, options: DecodeOptions(limits: limits))
        }
        limits = .default
        limits.maxNestingDepth = 50
        let deep = Self.svg(String(repeating: "<g>", count: 60) + String(repeating: "</g>", count: 60))
        #expect(throws: ImageCodingError.exceedsLimit(.maxNestingDepth, found: 51, limit: 50)) {
            _ = try Self.coder.decode(deep, options: DecodeOptions(limits: limits))
        }
        // Within the limits both render.
        _ = try Self.coder.decode(many, options: .default)
        _ = try Self.coder.decode(deep, options: .default)
    }

    @Test("a render past its time limit stops at its next drawing operation")
    func renderTime() throws {
        // 2000 blurred shapes: seconds of work at 1000 px.
        let shapes = (0..<2000).map { "<circle cx=\"\($0 % 100)\" cy=\"\($0 / 20)\" r=\"30\" fill=\"#\(String($0 % 4096, radix: 16))\" filter=\"url(#b)\"/>" }
        let heavy = Self.svg(
            "<filter id=\"b\"><feGaussianBlur stdDeviation=\"8\"/></filter>" + shapes.joined(),
            attributes: "viewBox=\"0 0 100 100\" width=\"1000\" height=\"1000\"")
        var limits = DecodingLimits.default
        limits.maxRenderSeconds = 0.2
        let started = ContinuousClock.now
        #expect {
            _ = try Self.coder.decode(heavy, options: DecodeOptions(limits: limits))
        } throws: { error in
            guard case ImageCodingError.exceedsLimit(.maxRenderTime, let found, let limit) = error else { return false }
            return limit == 200 && found >= 200
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        // An immediate deadline stops even a simple drawing.
        limits.maxRenderSeconds = 1e-9
        #expect(throws: ImageCodingError.self) {
            _ = try Self.coder.decode(
                Self.svg("<rect width=\"40\" height=\"20\" fill=\"red\"/><rect width=\"4\" height=\"2\"/>"),
                options: DecodeOptions(limits: limits))
        }
    }

    @Test("bad documents get typed errors: empty, not XML, zero size, non-UTF-8, truncated, too big")
    func badDocuments() throws {
        let bad: [(String, Data)] = [
            ("not XML", Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect".utf8)),
            ("zero size", Self.svg("", attributes: "width=\"0\" height=\"10\"")),
            ("UTF-16", Data([0xFF, 0xFE] + Array("<svg/>".utf8).flatMap { [$0, 0] })),
            ("Latin-1", Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"2\" height=\"2\"/>".utf8))
        ]
        for (name, data) in bad {
            #expect(throws: ImageCodingError.self, "\(name)") { _ = try Self.coder.decode(data, options: .default) }
        }
        #expect(throws: ImageCodingError.emptyData) { _ = try ImageCoderRegistry.shared.decode(Data()) }
        // Over the pixel limit: refused before anything is allocated.
        var limits = DecodingLimits.default
        limits.maxPixels = 10_000
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 40_000, limit: 10_000)) {
            _ = try Self.coder.decode(Self.svg("", attributes: "width=\"200\" height=\"200\""), options: DecodeOptions(limits: limits))
        }
    }
}
