// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// What every encoder promises through ``ImageEncoding``: options checked first with the same
/// words, other formats refused by name, and files that are what they claim to be.
@Suite("The encoders' common contract")
struct EncoderContractTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Every built-in encoder.
    static let encoders: [any ImageEncoding] = [
        JPEGCoder(), PNGCoder(), WebPCoder(), GIFCoder(), TIFFCoder(), BMPCoder(), ICOCoder(), JXLCoder(), AVIFCoder(), HEIFCoder()
    ]

    @Test("every writable format refuses quality, compression level and effort out of range, in the same words")
    func optionsChecked() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 4, height: 4, alpha: true))
        var effort = EncodeOptions()
        effort.effort = 0
        let cases: [(EncodeOptions, String)] = [
            (EncodeOptions(quality: 1.5), "quality 1.5 must be between 0 and 1"),
            (EncodeOptions(quality: -0.1), "quality -0.1 must be between 0 and 1"),
            (EncodeOptions(quality: .nan), "quality nan must be between 0 and 1"),
            (EncodeOptions(compressionLevel: 10), "compression level 10 must be between 0 and 9"),
            (effort, "effort 0 must be between 1 and 9")
        ]
        #expect(coders.encodableFormats.count >= 8)
        for format in coders.encodableFormats {
            for (options, message) in cases {
                #expect(throws: ImageCodingError.invalidArgument(message), "\(format)") {
                    try coders.encode(image, as: format, options: options)
                }
            }
        }
    }

    @Test("each encoder writes only the formats it claims, and refuses every other by name")
    func formatsClaimed() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 4, height: 4))
        for encoder in Self.encoders {
            for format in ImageFormat.allCases where !encoder.canEncode(format) {
                #expect(throws: ImageCodingError.encoderUnavailable(format), "\(type(of: encoder)) as \(format)") {
                    try encoder.encode(image, as: format, options: .default)
                }
            }
        }
        #expect(PNGCoder().canEncode(.png) && PNGCoder().canEncode(.apng) && !PNGCoder().canEncode(.jpeg))
        #expect(ICOCoder().canEncode(.ico) && !ICOCoder().canEncode(.cur))
        #expect(!HEIFCoder().canEncode(.heif), "HEIF is read, never written: HEIC and AVIF are")
        #expect([JPEGCoder().canEncode(.jpeg), WebPCoder().canEncode(.webp), GIFCoder().canEncode(.gif)] == [true, true, true])
        #expect([TIFFCoder().canEncode(.tiff), BMPCoder().canEncode(.bmp)] == [true, true])
    }

    @Test("every format written sniffs as itself, and its header and decode give the size back")
    func filesAreWhatTheyClaim() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 24, height: 16, alpha: true))
        for format in coders.encodableFormats {
            let data = try coders.encode(image, as: format, options: EncodeOptions(quality: 0.8))
            // A still written as APNG has no animation: it is a plain PNG.
            let expected = format == .apng ? ImageFormat.png : format
            #expect(ImageFormat(sniffing: data) == expected, "\(format)")
            let info = try coders.info(of: data)
            #expect(info.format == expected && info.pixelSize == PixelSize(width: 24, height: 16), "\(format): \(info)")
            let decoded = try coders.decode(data)
            #expect(decoded.pixelSize == PixelSize(width: 24, height: 16) && decoded.format == expected, "\(format)")
            #expect(decoded.hasAlpha == (format != .jpeg), "\(format)")
        }
    }

    @Test("orientation is baked by default in every format: the stored size is the upright one")
    func orientationBakedEverywhere() throws {
        let image = Image(buffer: try Fixtures.coordinates(width: 20, height: 12), orientation: .left)
        for format in coders.encodableFormats where format != .ico {
            let data = try coders.encode(image, as: format)
            let info = try coders.info(of: data)
            #expect(info.pixelSize == PixelSize(width: 12, height: 20) && info.orientation == .up, "\(format): \(info)")
            let upright = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(upright.orientedSize == PixelSize(width: 12, height: 20), "\(format)")
        }
        // An icon too (it once wrote frame 0's stored pixels as they lay: sideways).
        let icon = try coders.info(of: try coders.encode(image, as: .ico))
        #expect(icon.pixelSize == PixelSize(width: 12, height: 20))
    }
}
