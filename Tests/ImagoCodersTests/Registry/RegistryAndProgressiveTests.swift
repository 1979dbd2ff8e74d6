// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// A decoder that claims PNG and returns a fixed 1×1 image, to test registry order.
struct FakePNGDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .png }
    func info(of data: Data) throws -> ImageInfo { ImageInfo(format: .png, width: 1, height: 1) }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        Image(buffer: try PixelBuffer(width: 1, height: 1, format: .rgba8))
    }
}

@Suite("Registry")
struct RegistryTests {
    @Test("the last added coder is asked first; removing restores the built-in")
    func priority() throws {
        let coders = ImageCoderRegistry.makeDefault()
        let png = try coders.encode(Image(buffer: try Fixtures.gradient(width: 5, height: 5)), as: .png)
        #expect(try coders.decode(png).pixelSize.width == 5)
        coders.add(FakePNGDecoder())
        #expect(try coders.decode(png).pixelSize.width == 1)
        coders.remove(FakePNGDecoder.self)
        #expect(try coders.decode(png).pixelSize.width == 5)
    }

    @Test("can-decode and can-encode are honest per format")
    func honesty() {
        let coders = ImageCoderRegistry.makeDefault()
        // HEIC and AVIF depend on the codecs libheif has at run time: asked of libheif itself.
        let heif = HEIFCoder()
        let heifDecodable = [ImageFormat.heic, .heif, .avif].filter(heif.canDecode)
        let heifEncodable = [ImageFormat.heic, .avif].filter(heif.canEncode)
        // JPEG XL is there when libjxl can be loaded.
        let jxl: [ImageFormat] = JXLCoder().canDecode(.jxl) ? [.jxl] : []
        // SVG and PDF when librsvg and libImagoPDF with poppler can be loaded; neither is ever encoded.
        let vectors = [ImageFormat.svg].filter(SVGCoder().canDecode) + [ImageFormat.pdf].filter(PDFCoder().canDecode)
        #expect(Set(coders.decodableFormats) == Set([.jpeg, .png, .apng, .gif, .webp, .tiff, .bmp, .ico, .cur, .jp2, .icns] + heifDecodable + jxl + vectors))
        #expect(Set(coders.encodableFormats) == Set([.jpeg, .png, .apng, .gif, .webp, .tiff, .bmp, .ico] + heifEncodable + jxl))
        #expect(!coders.canEncode(.svg) && !coders.canEncode(.pdf) && !coders.canEncode(.cur) && !coders.canEncode(.heif))
        let empty = ImageCoderRegistry()
        #expect(empty.decodableFormats.isEmpty)
    }
}

@Suite("Progressive decoding")
struct ProgressiveTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Feeds `data` in `steps` growing prefixes; returns the partial images and the final one.
    func feed(_ data: Data, steps: Int) throws -> (partials: [Image], final: Image?, headerAt: Int?) {
        guard let decoder = coders.makeProgressiveDecoder(for: data.prefix(16)) else { return ([], nil, nil) }
        var partials: [Image] = []
        var headerAt: Int?
        for k in 1...steps {
            let n = data.count * k / steps
            try decoder.update(data.prefix(n), isFinal: k == steps)
            if headerAt == nil, decoder.info != nil { headerAt = n }
            if let image = try decoder.currentImage() {
                if k < steps { partials.append(image) } else { return (partials, image, headerAt) }
            }
        }
        return (partials, nil, headerAt)
    }

    @Test(
        "the final progressive image equals a one-shot decode",
        arguments: [(ImageFormat.jpeg, false), (.jpeg, true), (.png, false), (.png, true), (.webp, false)])
    func finalEqualsOneShot(_ format: ImageFormat, _ progressive: Bool) throws {
        let source = try Fixtures.gradient(width: 160, height: 120, alpha: format != .jpeg)
        let data = try coders.encode(Image(buffer: source), as: format, options: EncodeOptions(progressive: progressive))
        let oneShot = try coders.decode(data)
        let (partials, final, headerAt) = try feed(data, steps: 12)
        #expect(final?.buffer == oneShot.buffer)
        #expect(final?.isIncremental == false)
        #expect(partials.allSatisfy { $0.isIncremental && $0.hasAlpha })
        #expect(!partials.isEmpty, "expected partial images before the end")
        #expect((headerAt ?? .max) < data.count)
    }

    @Test("a progressive JPEG shows whole scans, improving as they arrive")
    func progressiveJPEGScans() throws {
        let source = try Fixtures.gradient(width: 256, height: 192)
        let data = try coders.encode(Image(buffer: source), as: .jpeg, options: EncodeOptions(progressive: true))
        let (partials, final, _) = try feed(data, steps: 20)
        let finalBuffer = try #require(final).buffer
        // A completed scan covers the whole canvas: the bottom-right pixel is opaque.
        let covering = partials.filter { $0.buffer.color(atX: 255, y: 191)?.a == 255 }
        #expect(!covering.isEmpty)
        if let first = covering.first, let last = covering.last {
            #expect(Fixtures.difference(last.buffer, finalBuffer).mean <= Fixtures.difference(first.buffer, finalBuffer).mean)
        }
    }

    @Test("a truncated final update is an error; a growing prefix is not")
    func truncatedFinal() throws {
        let data = try coders.encode(Image(buffer: try Fixtures.gradient(width: 64, height: 64)), as: .png)
        let decoder = try #require(coders.makeProgressiveDecoder(for: data))
        try decoder.update(data.prefix(data.count / 2), isFinal: false)
        #expect(decoder.info?.width == 64)
        #expect(throws: ImageCodingError.self) { try decoder.update(data.prefix(data.count / 2 + 10), isFinal: true) }
    }
}

@Suite("Shrink-on-load")
struct ShrinkOnLoadTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("JPEG picks the largest DCT reduction that still covers the requested size")
    func jpegScaling() throws {
        let data = try coders.encode(Image(buffer: try Fixtures.gradient(width: 800, height: 600)), as: .jpeg)
        func size(_ w: Int, _ h: Int, aspect: Bool = true) throws -> PixelSize {
            try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: w, height: h), preserveAspectRatio: aspect)).pixelSize
        }
        #expect(try size(100, 100) == PixelSize(width: 100, height: 75))  // 1/8
        #expect(try size(101, 101) == PixelSize(width: 200, height: 150))  // 1/4
        #expect(try size(300, 300) == PixelSize(width: 400, height: 300))  // 1/2
        #expect(try size(401, 401) == PixelSize(width: 800, height: 600))  // full
        #expect(try size(100, 200, aspect: false) == PixelSize(width: 400, height: 300))  // covers 200 high
        #expect(try size(100, 150, aspect: false) == PixelSize(width: 200, height: 150))
        #expect(try size(2000, 2000) == PixelSize(width: 800, height: 600))
    }

    @Test("WebP scaled decode covers the requested size")
    func webpScaling() throws {
        let data = try coders.encode(Image(buffer: try Fixtures.gradient(width: 800, height: 600)), as: .webp)
        let image = try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(image.pixelSize.width >= 100 && image.pixelSize.height >= 75)
        #expect(image.pixelSize.width <= 200)
    }
}
