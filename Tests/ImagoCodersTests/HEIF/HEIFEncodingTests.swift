// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// HEIC written by libheif (x265) with Imago's options, read back by libheif.
@Suite(
    "HEIC encoder options: quality, profile, orientation, alpha, thumbnails, limits",
    .enabled(if: HEIFCoder().canEncode(.heic), "libheif has no HEVC encoder here"))
struct HEIFEncodingTests {
    let coders = ImageCoderRegistry.makeDefault()

    static func source(alpha: Bool = false) throws -> PixelBuffer { try JXLTests.pattern(width: 96, height: 64, alpha: alpha) }

    @Test("each step up in quality writes more bytes and decodes closer to the source")
    func quality() throws {
        let source = try Self.source()
        var lastSize = 0
        var lastPSNR = 0.0
        for quality in [0.3, 0.6, 0.9] {
            let data = try coders.encode(Image(buffer: source), as: .heic, options: EncodeOptions(quality: quality))
            #expect(ImageFormat(sniffing: data) == .heic)
            let psnr = PixelMetrics.psnr(try coders.decode(data).buffer, source)
            #expect(data.count > lastSize && psnr > lastPSNR, "quality \(quality): \(data.count) bytes, \(psnr) dB")
            lastSize = data.count
            lastPSNR = psnr
        }
        #expect(lastPSNR > 30)
    }

    @Test("the ICC profile is stored as given and read back unconverted on request; none when metadata is dropped")
    func profile() throws {
        var image = Image(buffer: try Self.source())
        image.metadata = ImageMetadata(iccProfile: ColorProfiles.displayP3)
        let data = try coders.encode(image, as: .heic)
        #expect(try coders.info(of: data).hasICCProfile)
        #expect(try coders.decode(data, options: DecodeOptions(colorManagement: false)).metadata.iccProfile == ColorProfiles.displayP3)
        #expect(try coders.decode(data).metadata.iccProfile == nil)
        let stripped = try coders.encode(image, as: .heic, options: EncodeOptions(keepMetadata: false))
        #expect(try !coders.info(of: stripped).hasICCProfile)
    }

    @Test("the orientation is baked into the pixels even when EXIF orientation is asked for")
    func orientation() throws {
        let source = try Self.source()
        let image = Image(buffer: source, orientation: .right)
        let data = try coders.encode(image, as: .heic, options: EncodeOptions(quality: 0.9, orientation: .writeEXIF))
        let decoded = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(decoded.orientation == .up && decoded.pixelSize == PixelSize(width: 64, height: 96))
        #expect(PixelMetrics.psnr(decoded.buffer, source.applyingOrientation(.right)) > 30)
    }

    @Test("alpha is stored only when a pixel uses it")
    func alpha() throws {
        let opaque = try coders.encode(Image(buffer: try Self.source(), hasAlpha: true), as: .heic)
        #expect(try !coders.info(of: opaque).hasAlpha)
        let transparent = try coders.encode(Image(buffer: try Self.source(alpha: true)), as: .heic)
        #expect(try coders.info(of: transparent).hasAlpha)
        #expect(try coders.decode(transparent).hasAlpha)
    }

    @Test("a thumbnail is embedded only when it is smaller than the image")
    func thumbnails() throws {
        let image = Image(buffer: try Self.source())
        let none = try coders.encode(image, as: .heic, options: EncodeOptions(embeddedThumbnailSize: 96))
        #expect(try HEIFCoder().info(of: none).embeddedThumbnailSize == nil)
        let half = try coders.encode(image, as: .heic, options: EncodeOptions(embeddedThumbnailSize: 48))
        let thumbnail = try #require(try HEIFCoder().info(of: half).embeddedThumbnailSize)
        #expect(thumbnail.width == 48 && (31...32).contains(thumbnail.height), "\(thumbnail)")
        #expect(try coders.info(of: half).pixelSize == PixelSize(width: 96, height: 64))
    }

    @Test("limits apply from the header before decoding; damage gives typed errors")
    func limits() throws {
        let data = try coders.encode(Image(buffer: try Self.source()), as: .heic)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 96 * 64, limit: 96 * 64 - 1)) {
            try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 96 * 64 - 1)))
        }
        for n in stride(from: 0, to: data.count, by: max(1, data.count / 40)) {
            let failure = codingFailure { try coders.decode(data.prefix(n)) }
            #expect(!failure.hasPrefix("untyped"), "cut at \(n): \(failure)")
            if n < data.count / 2 { #expect(failure != "no error", "cut at \(n) of \(data.count)") }
        }
    }
}
