// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// The pixel limit guards what is allocated: a thumbnail of a source over it is made when the
/// decoder shrinks while loading, within a separate ceiling on the declared size.
@Suite("Shrink-on-load within the limits")
struct ShrinkOnLoadLimitTests {
    /// 1 megapixel decoded at most; sources up to 10 megapixels when decoded smaller.
    static let limits = DecodingLimits(maxPixels: 1_000_000, maxSourcePixels: 10_000_000)
    static let source = PixelSize(width: 3000, height: 2000)

    static func encoded(_ format: ImageFormat, progressive: Bool = false) throws -> Data {
        let image = Image(buffer: try Fixtures.gradient(width: source.width, height: source.height))
        return try ImageCoderRegistry.shared.encode(image, as: format, options: EncodeOptions(progressive: progressive))
    }

    @Test("the default ceilings: 100 MP decoded, 1 000 MP declared; a 280-MP JPEG thumbnail is within them")
    func defaults() throws {
        let d = DecodingLimits.default
        #expect(d.maxPixels == 100_000_000 && d.maxSourcePixels == 1_000_000_000)
        // 20000x14000 at 1/8 is 2500x1750.
        try d.check(width: 20_000, height: 14_000, decoded: PixelSize(width: 2500, height: 1750), format: .jpeg)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 280_000_000, limit: 100_000_000)) {
            try d.check(width: 20_000, height: 14_000, decoded: PixelSize(width: 20_000, height: 14_000), format: .jpeg)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: 4_290_250_000, limit: 1_000_000_000)) {
            try d.check(width: 65_500, height: 65_500, decoded: PixelSize(width: 8188, height: 8188), format: .jpeg)
        }
        #expect(DecodingLimits.unlimited.maxSourcePixels == .max)
    }

    @Test(
        "JPEG, WebP and PNG over maxPixels: refused whole, thumbnailed by shrinking on load",
        arguments: [ImageFormat.jpeg, .webp, .png])
    func thumbnails(_ format: ImageFormat) throws {
        let data = try Self.encoded(format)
        let options = DecodeOptions(limits: Self.limits)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 6_000_000, limit: 1_000_000)) {
            try ImageCoderRegistry.shared.decode(data, options: options)
        }
        let thumbnail = try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 256, height: 256), options: options)
        #expect(thumbnail.pixelSize == PixelSize(width: 256, height: 171))
        // From a file too (PNG rows stream from it).
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("source.\(format.preferredFileExtension)")
        try data.write(to: url)
        let fromFile = try Thumbnailer.thumbnail(of: ImageInput(contentsOf: url), fitting: PixelSize(width: 256, height: 256), options: options)
        #expect(fromFile.pixelSize == thumbnail.pixelSize)
        // A size the decoder cannot reach under the limit is still refused: 1/2 of 3000x2000 is 1.5 MP.
        #expect(throws: ImageCodingError.self) {
            try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 1400, height: 1400), options: options)
        }
        // Over the declared ceiling, nothing is decoded.
        let tight = DecodeOptions(limits: DecodingLimits(maxPixels: 1_000_000, maxSourcePixels: 5_000_000))
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: 6_000_000, limit: 5_000_000)) {
            try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 256, height: 256), options: tight)
        }
    }

    @Test("JPEG and WebP decode at the reduced size the limit applies to")
    func reducedDecode() throws {
        var options = DecodeOptions(limits: Self.limits)
        options.thumbnailPixelSize = PixelSize(width: 300, height: 300)
        let jpeg = try ImageCoderRegistry.shared.decode(try Self.encoded(.jpeg), options: options)
        #expect(jpeg.pixelSize == PixelSize(width: 375, height: 250), "1/8 DCT scaling")
        let webp = try ImageCoderRegistry.shared.decode(try Self.encoded(.webp), options: options)
        #expect(webp.pixelSize.width <= 1000 && webp.pixelSize.width >= 300)
    }

    @Test("a progressive JPEG keeps every coefficient while decoding, so its declared size must fit maxPixels")
    func progressiveJPEG() throws {
        let data = try Self.encoded(.jpeg, progressive: true)
        #expect(try ImageCoderRegistry.shared.info(of: data).progressive)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 6_000_000, limit: 1_000_000)) {
            try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 256, height: 256), options: DecodeOptions(limits: Self.limits))
        }
        // Within the limit it shrinks on load as a baseline one does.
        let roomy = DecodeOptions(limits: DecodingLimits(maxPixels: 6_000_000))
        let thumbnail = try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 256, height: 256), options: roomy)
        #expect(thumbnail.pixelSize == PixelSize(width: 256, height: 171))
    }
}
