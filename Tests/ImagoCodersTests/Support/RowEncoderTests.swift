// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Feeds row encoders as a row-streaming decoder does, and checks what they write against the
/// whole-image encoders: the same bytes where the documentation promises them, the same pixels
/// otherwise, and typed errors for every misuse.
@Suite("Row encoders: JPEG, PNG, WebP and BMP fed one row at a time")
struct RowEncoderTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Hands `words` (rows of `size.width` native ARGB32 words, no padding) to `consumer`, top to
    /// bottom, after `begin(size:attributes:)`.
    static func stream(
        _ words: [UInt8], size: PixelSize, attributes: StreamedImageAttributes, into consumer: some DecodedRowConsuming
    ) throws {
        try consumer.begin(size: size, attributes: attributes)
        let stride = size.width * 4
        try words.withUnsafeBytes { all in
            for y in 0..<size.height {
                try consumer.consume(row: UnsafeRawBufferPointer(rebasing: all[(y * stride)..<((y + 1) * stride)]), y: y)
            }
        }
    }

    /// The attributes a decoder reports for a source of `size`.
    static func attributes(
        _ size: PixelSize, hasAlpha: Bool, premultiplied: Bool = true, orientation: ImageOrientation = .up,
        metadata: ImageMetadata = ImageMetadata()
    ) -> StreamedImageAttributes {
        StreamedImageAttributes(
            pixelSize: size, orientation: orientation, format: .png, metadata: metadata, hasAlpha: hasAlpha,
            rowsArePremultiplied: premultiplied)
    }

    /// Straight (not premultiplied) RGBA as native ARGB32 words: what a PNG decoder asked for
    /// `.rgba8` streams.
    static func straightWords(_ rgba: PixelBuffer) -> [UInt8] {
        let source = rgba.converted(to: .rgba8).bytes
        let o = PixelFormat.argbOffsets
        var words = [UInt8](repeating: 0, count: source.count)
        for i in stride(from: 0, to: source.count, by: 4) {
            words[i + o.r] = source[i]
            words[i + o.g] = source[i + 1]
            words[i + o.b] = source[i + 2]
            words[i + o.a] = source[i + 3]
        }
        return words
    }

    @Test(
        "JPEG: opaque colour and gray rows give the whole-image encoder's very bytes, at any quality and progressive",
        arguments: [EncodeOptions(quality: 0.5), EncodeOptions(quality: 0.95), EncodeOptions(progressive: true)])
    func jpegSameBytes(_ options: EncodeOptions) throws {
        let source = try Fixtures.noisy(width: 61, height: 37)
        let encoder = try JPEGRowEncoder(options: options)
        let words = source.converted(to: .argb32Premultiplied).bytes
        try Self.stream(words, size: source.size, attributes: Self.attributes(source.size, hasAlpha: false), into: encoder)
        #expect(try encoder.finish() == coders.encode(Image(buffer: source), as: .jpeg, options: options))

        let gray = source.converted(to: .gray8)
        let grayEncoder = try JPEGRowEncoder(options: options, gray: true)
        let grayWords = gray.converted(to: .argb32Premultiplied).bytes
        try Self.stream(grayWords, size: gray.size, attributes: Self.attributes(gray.size, hasAlpha: false), into: grayEncoder)
        let grayJPEG = try grayEncoder.finish()
        #expect(grayJPEG == (try coders.encode(Image(buffer: gray), as: .jpeg, options: options)))
        #expect(try coders.info(of: grayJPEG).isGrayscale)
    }

    @Test("JPEG: rows with transparency are flattened over the background colour")
    func jpegFlattens() throws {
        let source = try Fixtures.gradient(width: 48, height: 32, alpha: true)
        let blue = RGBA8(r: 0, g: 0, b: 255)
        let options = EncodeOptions(quality: 1, backgroundColor: blue)
        let encoder = try JPEGRowEncoder(options: options)
        let words = source.converted(to: .argb32Premultiplied).bytes
        try Self.stream(words, size: source.size, attributes: Self.attributes(source.size, hasAlpha: true), into: encoder)
        let decoded = try coders.decode(try encoder.finish(), options: DecodeOptions(pixelFormat: .rgba8)).buffer
        let expected = source.flattened(over: blue)
        let difference = Fixtures.difference(decoded, expected)
        #expect(difference.mean < 1.5 && difference.max <= 12, "\(difference)")
        // The right column is fully transparent: only the background is left.
        let corner = try #require(decoded.color(atX: 47, y: 16))
        #expect(corner.b > 245 && corner.r < 10 && corner.g < 10, "\(corner)")
    }

    @Test("PNG: straight and premultiplied RGBA rows, RGB and gray rows give the whole-image encoder's bytes")
    func pngSameBytes() throws {
        let source = try Fixtures.gradient(width: 45, height: 29, alpha: true)
        let size = source.size
        let straight = try PNGRowEncoder(options: .default)
        try Self.stream(
            Self.straightWords(source), size: size, attributes: Self.attributes(size, hasAlpha: true, premultiplied: false),
            into: straight)
        let fromStraight = try straight.finish()
        #expect(fromStraight == (try coders.encode(Image(buffer: source), as: .png)))
        #expect(try coders.decode(fromStraight, options: DecodeOptions(pixelFormat: .rgba8)).buffer == source)

        let premultiplied = source.converted(to: .argb32Premultiplied)
        let fromWords = try PNGRowEncoder(options: EncodeOptions(compressionLevel: 9))
        try Self.stream(premultiplied.bytes, size: size, attributes: Self.attributes(size, hasAlpha: true), into: fromWords)
        let words = try fromWords.finish()
        #expect(words == (try coders.encode(Image(buffer: premultiplied), as: .png, options: EncodeOptions(compressionLevel: 9))))
        #expect(try coders.decode(words, options: DecodeOptions(pixelFormat: .rgba8)).buffer == premultiplied.converted(to: .rgba8))

        let opaque = try Fixtures.coordinates(width: 45, height: 29)
        let rgb = try PNGRowEncoder(options: .default)
        try Self.stream(
            opaque.converted(to: .argb32Premultiplied).bytes, size: size, attributes: Self.attributes(size, hasAlpha: false), into: rgb)
        #expect(try rgb.finish() == coders.encode(Image(buffer: opaque.converted(to: .rgb8)), as: .png))

        let gray = opaque.converted(to: .gray8)
        let grayEncoder = try PNGRowEncoder(options: .default, gray: true)
        try Self.stream(
            gray.converted(to: .argb32Premultiplied).bytes, size: size, attributes: Self.attributes(size, hasAlpha: false),
            into: grayEncoder)
        let grayPNG = try grayEncoder.finish()
        #expect(grayPNG == (try coders.encode(Image(buffer: gray), as: .png)))
        #expect(try coders.info(of: grayPNG).isGrayscale)
    }

    @Test("WebP: rows give the whole-image encoder's bytes: opaque, straight alpha, premultiplied alpha, any method")
    func webpSameBytes() throws {
        // 50 rows: three full bands of 16 and one of 2.
        let opaque = try Fixtures.noisy(width: 40, height: 50)
        let size = opaque.size
        for method in [0, 4, 6] {
            let encoder = try WebPRowEncoder(options: EncodeOptions(quality: 0.8), method: method)
            let words = opaque.converted(to: .argb32Premultiplied).bytes
            try Self.stream(words, size: size, attributes: Self.attributes(size, hasAlpha: false), into: encoder)
            let whole = try WebPCoder(method: method).encode(Image(buffer: opaque), as: .webp, options: EncodeOptions(quality: 0.8))
            #expect(try encoder.finish() == whole, "method \(method)")
        }
        let alpha = try Fixtures.noisy(width: 40, height: 50, alpha: true)
        let straight = try WebPRowEncoder(options: .default)
        try Self.stream(
            Self.straightWords(alpha), size: size, attributes: Self.attributes(size, hasAlpha: true, premultiplied: false),
            into: straight)
        let fromStraight = try straight.finish()
        #expect(fromStraight == (try coders.encode(Image(buffer: alpha), as: .webp)))
        #expect(try coders.info(of: fromStraight).hasAlpha)

        let premultiplied = alpha.converted(to: .argb32Premultiplied)
        let fromWords = try WebPRowEncoder(options: .default)
        try Self.stream(premultiplied.bytes, size: size, attributes: Self.attributes(size, hasAlpha: true), into: fromWords)
        #expect(try fromWords.finish() == coders.encode(Image(buffer: premultiplied), as: .webp))

        // A source said to have alpha whose pixels are all opaque gets no alpha plane, as the whole encoder writes it.
        let saidAlpha = try WebPRowEncoder(options: .default)
        try Self.stream(
            opaque.converted(to: .argb32Premultiplied).bytes, size: size, attributes: Self.attributes(size, hasAlpha: true),
            into: saidAlpha)
        let noPlane = try saidAlpha.finish()
        #expect(noPlane == (try coders.encode(Image(buffer: opaque.converted(to: .rgb8)), as: .webp)))
        #expect(try !coders.info(of: noPlane).hasAlpha)
    }

    @Test("BMP: opaque rows become the whole-image encoder's file, bottom row first")
    func bmpSameBytes() throws {
        for (width, height) in [(1, 1), (3, 5), (33, 17)] {
            let source = try Fixtures.coordinates(width: width, height: height)
            let encoder = BMPRowEncoder()
            let size = source.size
            try Self.stream(
                source.converted(to: .argb32Premultiplied).bytes, size: size, attributes: Self.attributes(size, hasAlpha: false),
                into: encoder)
            let rows = try encoder.finish()
            #expect(rows == (try coders.encode(Image(buffer: source.converted(to: .rgb8)), as: .bmp)), "\(width)x\(height)")
            #expect(try coders.decode(rows, options: DecodeOptions(pixelFormat: .rgba8)).buffer == source)
        }
    }

    @Test("an orientation that rows cannot bake is written to EXIF, even without metadata; the profile follows keepMetadata")
    func streamedMetadata() throws {
        let source = try Fixtures.gradient(width: 24, height: 16)
        let size = source.size, words = source.converted(to: .argb32Premultiplied).bytes
        let metadata = ImageMetadata(iccProfile: ICCFixture.sRGBLike)
        let turned = Self.attributes(size, hasAlpha: false, orientation: .right, metadata: metadata)
        for keep in [true, false] {
            let options = EncodeOptions(keepMetadata: keep)
            let jpeg = try JPEGRowEncoder(options: options)
            try Self.stream(words, size: size, attributes: turned, into: jpeg)
            let jpegInfo = try coders.info(of: try jpeg.finish())
            #expect(jpegInfo.orientation == .right && jpegInfo.hasICCProfile == keep && jpegInfo.pixelSize == size, "keep \(keep)")

            let png = try PNGRowEncoder(options: options)
            try Self.stream(words, size: size, attributes: turned, into: png)
            let pngInfo = try coders.info(of: try png.finish())
            #expect(pngInfo.orientation == .right && pngInfo.hasICCProfile == keep, "keep \(keep)")

            let webp = try WebPRowEncoder(options: options)
            try Self.stream(words, size: size, attributes: turned, into: webp)
            let webpInfo = try coders.info(of: try webp.finish())
            #expect(webpInfo.orientation == .right && webpInfo.hasICCProfile == keep, "keep \(keep)")
        }
        // Upright rows carry no EXIF at all.
        let upright = try JPEGRowEncoder(options: .default)
        try Self.stream(words, size: size, attributes: Self.attributes(size, hasAlpha: false), into: upright)
        #expect(try coders.decode(try upright.finish(), options: DecodeOptions(colorManagement: false)).metadata.exif == nil)
    }

    @Test("misuse: options the stream cannot honour, a second begin, rows early or out of order, rows missing at the end")
    func misuse() throws {
        let size = PixelSize(width: 8, height: 8)
        let row = [UInt8](repeating: 255, count: 32)
        let attributes = Self.attributes(size, hasAlpha: false)
        #expect(throws: ImageCodingError.invalidArgument("an interlaced PNG needs every row at once and cannot be written as rows stream")) {
            try PNGRowEncoder(options: EncodeOptions(progressive: true))
        }
        #expect(throws: ImageCodingError.invalidArgument("lossless WebP needs every pixel at once and cannot be written as rows stream")) {
            try WebPRowEncoder(options: EncodeOptions(lossless: true))
        }
        #expect(throws: ImageCodingError.invalidArgument("quality 2.0 must be between 0 and 1")) {
            try JPEGRowEncoder(options: EncodeOptions(quality: 2))
        }
        #expect(throws: ImageCodingError.encodingFailed(.webp, "16384x1 is over WebP's largest side, 16383")) {
            try WebPRowEncoder(options: .default).begin(size: PixelSize(width: 16384, height: 1))
        }

        let jpeg = try JPEGRowEncoder(options: .default)
        #expect(throws: ImageCodingError.invalidArgument("row 0 arrived before the JPEG stream began, or short")) {
            try row.withUnsafeBytes { try jpeg.consume(row: $0, y: 0) }
        }
        let bmp = BMPRowEncoder()
        #expect(throws: ImageCodingError.invalidArgument("row 0 arrived before the BMP began, short, or out of range")) {
            try row.withUnsafeBytes { try bmp.consume(row: $0, y: 0) }
        }

        let png = try PNGRowEncoder(options: .default)
        try png.begin(size: size, attributes: attributes)
        #expect(throws: ImageCodingError.invalidArgument("the PNG row encoder was started twice")) {
            try png.begin(size: size, attributes: attributes)
        }
        try jpeg.begin(size: size, attributes: attributes)
        #expect(throws: ImageCodingError.invalidArgument("the JPEG row encoder was started twice")) { try jpeg.begin(size: size) }
        try bmp.begin(size: size)
        #expect(throws: ImageCodingError.invalidArgument("the BMP row encoder was started twice")) { try bmp.begin(size: size) }
        #expect(throws: ImageCodingError.invalidArgument("row 8 arrived before the BMP began, short, or out of range")) {
            try row.withUnsafeBytes { try bmp.consume(row: $0, y: 8) }
        }
        let webp = try WebPRowEncoder(options: .default)
        try webp.begin(size: size, attributes: attributes)
        #expect(throws: ImageCodingError.invalidArgument("row 1 arrived out of order, before the WebP stream began, or short")) {
            try row.withUnsafeBytes { try webp.consume(row: $0, y: 1) }
        }

        for y in 0..<3 {
            try row.withUnsafeBytes { raw in
                try png.consume(row: raw, y: y)
                try jpeg.consume(row: raw, y: y)
                try bmp.consume(row: raw, y: y)
                try webp.consume(row: raw, y: y)
            }
        }
        #expect(throws: ImageCodingError.encodingFailed(.png, "3 of 8 rows were written")) { try png.finish() }
        #expect(throws: ImageCodingError.encodingFailed(.jpeg, "3 of 8 rows were written")) { try jpeg.finish() }
        #expect(throws: ImageCodingError.encodingFailed(.bmp, "3 of 8 rows were written")) { try bmp.finish() }
        #expect(throws: ImageCodingError.encodingFailed(.webp, "the stream ended after 3 of 8 rows")) { try webp.finish() }
    }
}
