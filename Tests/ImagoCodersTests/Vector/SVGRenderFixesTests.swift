// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CZlib
import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

/// The rewrites that let librsvg 2.54 draw what resvg and browsers draw (``SVGRenderFixes``):
/// embedded images named by their bytes or embedded again as PNG, embedded SVG drawn at the size
/// it is shown at, and `feDropShadow` as the primitives it stands for. resvg's own references
/// for the corpus's embedded WebP and SVGZ are in `SVGConformanceTests`.
@Suite(
    "SVG render fixes for librsvg 2.54",
    .enabled(if: SVGCoder().canDecode(.svg), "librsvg is not installed (scripts/bootstrap installs it)"))
struct SVGRenderFixesTests {
    static func render(_ svg: String, size: Int = 100, limits: DecodingLimits = .default) throws -> PixelBuffer {
        var options = DecodeOptions(limits: limits)
        options.thumbnailPixelSize = PixelSize(width: size, height: size)
        return try SVGCoder().decode(Data(svg.utf8), options: options).frames[0].buffer
    }

    static func document(imageURL: String, size: Int = 100) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(size)" height="\(size)">\
        <image width="\(size)" height="\(size)" xlink:href="\(imageURL)"/></svg>
        """
    }

    @Test(
        "a data: image whose media type gdk-pixbuf does not know (image/jpg) is drawn as image/jpeg is",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func jpegAlias() throws {
        let jpeg = try Corpus.data("image-rs-image/jpg/progressive/test.jpg").base64EncodedString()
        let named = try Self.render(Self.document(imageURL: "data:image/jpeg;base64," + jpeg))
        for alias in ["image/jpg", "image/pjpeg", "image/png", "application/octet-stream"] {
            let aliased = try Self.render(Self.document(imageURL: "data:\(alias);base64," + jpeg))
            #expect(PixelMetrics.psnrPremultiplied(aliased, named) == .infinity, "\(alias)")
        }
        // And it is the photo, not an empty canvas.
        #expect(named.color(atX: 50, y: 50)?.a == 255)
    }

    @Test(
        "formats gdk-pixbuf cannot read (AVIF, HEIC) are decoded by Imago and drawn",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func otherFormats() throws {
        for path in ["pillow/avif/icc_profile_none.avif", "libheif/tests-data/rainbow-451x461.heic"] {
            let data = try Corpus.data(path)
            guard ImageCoderRegistry.shared.canDecode(try ImageCoderRegistry.shared.detectFormat(of: data)) else { continue }
            let drawn = try Self.render(Self.document(imageURL: "data:image/whatever;base64," + data.base64EncodedString()))
            // As the picture, decoded by Imago and embedded as PNG, is drawn; and not empty.
            let png = try PNGCoder().encode(try ImageCoderRegistry.shared.decode(data), as: .png, options: EncodeOptions())
            let asPNG = try Self.render(Self.document(imageURL: "data:image/png;base64," + png.base64EncodedString()))
            #expect(PixelMetrics.psnrPremultiplied(drawn, asPNG) >= 50, "\(path)")
            #expect(drawn.color(atX: 50, y: 50)?.a == 255, "\(path)")
        }
    }

    @Test(
        "in a sandboxed worker, where the service decodes SVG, the fixes draw what they draw in process",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func inAWorker() async throws {
        let isolation = DecoderIsolation(
            formats: DecoderIsolation.defaultFormats, video: false, workers: 1, executable: DecoderIsolationTests.probe.path,
            timeout: .seconds(20), quarantine: .seconds(600), memoryLimit: 2 << 30)
        let coders = ImageCoderRegistry.makeDefault().isolating(isolation)
        let jpeg = try Corpus.data("image-rs-image/jpg/progressive/test.jpg").base64EncodedString()
        let avif = try Corpus.data("pillow/avif/icc_profile_none.avif").base64EncodedString()
        let documents = [
            try Corpus.data("resvg/tests/structure/image/embedded-webp.svg"),
            try Corpus.data("resvg/tests/structure/image/embedded-svgz.svg"),
            Data(Self.document(imageURL: "data:image/jpg;base64," + jpeg).utf8),
            Data(Self.document(imageURL: "data:image/avif;base64," + avif).utf8)
        ]
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        for (i, svg) in documents.enumerated() {
            let remote = try await blocking { try coders.decode(svg, options: options) }.frames[0].buffer
            let local = try SVGCoder().decode(svg, options: options).frames[0].buffer
            #expect(PixelMetrics.psnrPremultiplied(remote, local) == .infinity, "document \(i)")
            #expect(remote.color(atX: 50, y: 50)?.a == 255, "document \(i) is drawn")
        }
        #expect(coders.isolationStatistics?.crashes == 0)
    }

    @Test("an embedded SVG is drawn at the size it is shown at, not its own size scaled up")
    func embeddedSVG() throws {
        // A 10-unit icon with a hard diagonal edge, shown 200 px wide.
        let icon = """
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0 L10 0 L0 10 Z" fill="#102030"/></svg>
            """
        let embedded = try Self.render(
            Self.document(imageURL: "data:image/svg+xml;base64," + Data(icon.utf8).base64EncodedString(), size: 200), size: 200)
        let direct = try Self.render(icon.replacing("width=\"10\" height=\"10\"", with: "width=\"10\" height=\"10\" viewBox=\"0 0 10 10\""), size: 200)
        let psnr = PixelMetrics.psnrPremultiplied(embedded, direct)
        // A 10-px raster scaled 20 times is about 22 dB from the vector.
        #expect(psnr >= 35, "\(psnr) dB")
        // The same with the document percent-encoded rather than in base64.
        let escaped = icon.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let utf8 = try Self.render(Self.document(imageURL: "data:image/svg+xml;utf8," + escaped, size: 200), size: 200)
        #expect(PixelMetrics.psnrPremultiplied(utf8, embedded) == .infinity)
    }

    @Test("feDropShadow draws what the primitives it stands for draw, and the element is drawn")
    func dropShadow() throws {
        func document(_ filter: String) -> String {
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">\
            <filter id="f" x="-50%" y="-50%" width="200%" height="200%">\(filter)</filter>\
            <rect x="20" y="20" width="40" height="40" fill="#3060c0" filter="url(#f)"/></svg>
            """
        }
        let shadow = try Self.render(document(#"<feDropShadow dx="10" dy="8" stdDeviation="3" flood-color="green" flood-opacity="0.5"/>"#))
        // The chain Filter Effects 1 defines feDropShadow as, written out by hand.
        let chain = try Self.render(
            document(
                #"<feGaussianBlur in="SourceAlpha" stdDeviation="3"/><feOffset dx="10" dy="8" result="o"/>"#
                    + #"<feFlood flood-color="green" flood-opacity="0.5"/><feComposite in2="o" operator="in"/>"#
                    + #"<feMerge><feMergeNode/><feMergeNode in="SourceGraphic"/></feMerge>"#))
        let psnr = PixelMetrics.psnrPremultiplied(shadow, chain)
        #expect(psnr >= 45, "\(psnr) dB")
        #expect(Self.close(shadow.color(atX: 40, y: 40), RGBA8(r: 0x30, g: 0x60, b: 0xC0, a: 255)))
        let below = try #require(shadow.color(atX: 65, y: 62))
        #expect(below.a > 60 && below.g > below.r, "the shadow: \(below)")
        // Defaults (dx = dy = stdDeviation = 2, black) and a named input and result.
        let defaults = try Self.render(document(#"<feDropShadow in="SourceGraphic" result="s"/><feMerge><feMergeNode in="s"/></feMerge>"#))
        #expect(try #require(defaults.color(atX: 61, y: 61)).a > 20)
        #expect(Self.close(defaults.color(atX: 40, y: 40), RGBA8(r: 0x30, g: 0x60, b: 0xC0, a: 255)))
    }

    @Test("a fix that would pass a limit is not made, and the document still renders")
    func limits() throws {
        // An embedded SVG past the pixel limit is drawn smaller; one past the byte limit is left.
        var limits = DecodingLimits.default
        limits.maxPixels = 300 * 300
        let huge = #"<svg xmlns="http://www.w3.org/2000/svg" width="5000" height="5000"><rect width="5000" height="5000" fill="red"/></svg>"#
        let shown = try Self.render(
            Self.document(imageURL: "data:image/svg+xml;base64," + Data(huge.utf8).base64EncodedString(), size: 300), size: 300,
            limits: limits)
        #expect(shown.color(atX: 150, y: 150) == RGBA8(r: 255, g: 0, b: 0, a: 255))
        // Broken payloads: nothing is drawn for them, and nothing fails.
        for url in ["data:image/webp;base64,UklGRiQAAABXRUJQ", "data:image/svg+xml;base64,%%%", "data:,%3Csvg", "data:image/png;base64,"] {
            let drawn = try Self.render(Self.document(imageURL: url))
            #expect(drawn.color(atX: 50, y: 50)?.a == 0, "\(url)")
        }
    }

    @Test("a gzip bomb in an embedded SVGZ stops at the byte limit, unread")
    func gzipBomb() throws {
        let bomb = try #require(Self.gzipped(zeros: 16 << 20))
        #expect(bomb.count < 100_000)
        #expect {
            _ = try Gzip.inflate([UInt8](bomb), maxBytes: 1 << 20, format: .svg)
        } throws: { error in
            guard case .exceedsLimit(.maxBytes, let found, 1 << 20) = error as? ImageCodingError else { return false }
            return found > 1 << 20 && found <= (1 << 20) + (64 << 10)
        }
        #expect(throws: ImageCodingError.self) { _ = try Gzip.inflate([UInt8](bomb.prefix(1000)), maxBytes: 64 << 20, format: .svg) }
        var limits = DecodingLimits.default
        limits.maxBytes = 4 << 20
        let drawn = try Self.render(Self.document(imageURL: "data:image/svg+xml;base64," + bomb.base64EncodedString()), limits: limits)
        #expect(drawn.color(atX: 50, y: 50)?.a == 0)
    }

    /// Whether two colours are within 2 of each other on every channel (cairo's premultiplied
    /// rounding).
    static func close(_ a: RGBA8?, _ b: RGBA8) -> Bool {
        guard let a else { return false }
        return abs(Int(a.r) - Int(b.r)) <= 2 && abs(Int(a.g) - Int(b.g)) <= 2 && abs(Int(a.b) - Int(b.b)) <= 2 && a.a == b.a
    }

    /// `count` zero bytes in a gzip stream, by zlib.
    static func gzipped(zeros count: Int) -> Data? {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](repeating: 0, count: count)
        var output = [UInt8](repeating: 0, count: count / 500 + 4096)
        let status = input.withUnsafeMutableBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        return status == Z_STREAM_END ? Data(output.prefix(Int(stream.total_out))) : nil
    }

    @Test("documents with nothing to fix go to librsvg as they are")
    func untouched() throws {
        let plain = [UInt8](#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>"#.utf8)
        #expect(!SVGRenderFixes.mayNeedFixes(plain))
        #expect(SVGRenderFixes.mayNeedFixes([UInt8](#"<image href="DATA:image/png;base64,AAAA"/>"#.utf8)))
        let onePixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
        let png = #"<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,"# + onePixel + #""/></svg>"#
        // An embedded PNG named image/png needs nothing: not even a read by libxml2.
        #expect(!SVGRenderFixes.mayNeedFixes([UInt8](png.utf8)))
        #expect(SVGRenderFixes.mayNeedFixes([UInt8](png.replacing("image/png", with: "image/jpg").utf8)))
        #expect(SVGRenderFixes.apply(to: [UInt8](png.utf8), scale: 1, limits: .default, started: .now) == nil)
        #expect(SVGRenderFixes.namesItsBytes("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"))
        #expect(!SVGRenderFixes.namesItsBytes("data:image/jpg;base64,/9j/4AAQSkZJRgABAQEASABIAAD"))
    }
}
