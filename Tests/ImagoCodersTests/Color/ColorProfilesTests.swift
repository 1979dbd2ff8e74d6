// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// The built-in profiles, conversions out of sRGB, and a wide-gamut image written with its profile
/// and read back through every format that embeds one.
@Suite("Colour profiles: built-in sRGB and Display P3, conversions, embedding round trips")
struct ColorProfilesTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// sRGB colours and what they are in Display P3 (sRGB's curve, D65, the DCI-P3 primaries),
    /// computed from the primaries' matrices.
    static let colors: [(srgb: RGBA8, p3: RGBA8)] = [
        (RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 234, g: 51, b: 35)),
        (RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 117, g: 251, b: 76)),
        (RGBA8(r: 0, g: 0, b: 255), RGBA8(r: 0, g: 0, b: 245)),
        (RGBA8(r: 255, g: 255, b: 255), RGBA8(r: 255, g: 255, b: 255)),
        (RGBA8(r: 128, g: 128, b: 128), RGBA8(r: 128, g: 128, b: 128)),
        (RGBA8(r: 200, g: 100, b: 50), RGBA8(r: 187, g: 105, b: 62))
    ]

    /// One 16x16 patch of each colour, side by side, with the given alphas.
    static func patches(_ colors: [RGBA8]) throws -> PixelBuffer {
        let width = 16 * colors.count
        var bytes = [UInt8](repeating: 0, count: width * 16 * 4)
        for y in 0..<16 {
            for x in 0..<width {
                let c = colors[x / 16], o = (y * width + x) * 4
                bytes[o] = c.r
                bytes[o + 1] = c.g
                bytes[o + 2] = c.b
                bytes[o + 3] = c.a
            }
        }
        return try PixelBuffer(width: width, height: 16, format: .rgba8, bytes: bytes)
    }

    /// Whether every channel of `a` is within `tolerance` of `b`.
    static func close(_ a: RGBA8?, _ b: RGBA8, _ tolerance: Int) -> Bool {
        guard let a else { return false }
        return abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && a.a == b.a
    }

    @Test("the built-in profiles are version 4 RGB display profiles lcms2 reads; the service's names find them")
    func builtIn() throws {
        for profile in [ColorProfiles.sRGB, ColorProfiles.displayP3] {
            let header = [UInt8](profile)
            #expect(header.count > 128)
            let size = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            #expect(size == header.count)
            #expect(header[8] == 4, "version 4")
            #expect(Array(header[12..<16]) == Array("mntr".utf8) && Array(header[16..<20]) == Array("RGB ".utf8))
            #expect(Array(header[36..<40]) == Array("acsp".utf8))
            #expect(ColorProfiles.isRGB(profile))
        }
        #expect(ColorProfiles.sRGB != ColorProfiles.displayP3)
        #expect(["srgb", "sRGB", "SRGB"].allSatisfy { ColorProfiles.named($0) == ColorProfiles.sRGB })
        #expect(["display-p3", "DisplayP3", "p3", "P3"].allSatisfy { ColorProfiles.named($0) == ColorProfiles.displayP3 })
        #expect(ColorProfiles.named("adobe-rgb") == nil && ColorProfiles.named("") == nil)
        #expect(ColorProfiles.isRGB(ICCFixture.sRGBLike))
        #expect(!ColorProfiles.isRGB(Data("not a profile".utf8)) && !ColorProfiles.isRGB(Data()))
    }

    @Test("sRGB into Display P3: primaries move inward as the matrices say, white and gray stay, alpha is kept")
    func intoDisplayP3() throws {
        let alphas: [UInt8] = [255, 128, 7, 255, 0, 200]
        let source = try Self.patches(zip(Self.colors, alphas).map { RGBA8(r: $0.srgb.r, g: $0.srgb.g, b: $0.srgb.b, a: $1) })
        let wide = try ColorProfiles.convert(source, fromSRGBTo: ColorProfiles.displayP3)
        #expect(wide.format == .rgba8 && wide.size == source.size)
        for (i, pair) in Self.colors.enumerated() {
            let expected = RGBA8(r: pair.p3.r, g: pair.p3.g, b: pair.p3.b, a: alphas[i])
            #expect(Self.close(wide.color(atX: i * 16 + 8, y: 8), expected, 2), "\(pair.srgb) -> \(String(describing: wide.color(atX: i * 16 + 8, y: 8)))")
        }
    }

    @Test("to Display P3 and back is within a few levels; equal profiles leave pixels as they are; bad targets are refused")
    func roundTrips() throws {
        let source = try Fixtures.noisy(width: 48, height: 32, alpha: true)
        let wide = try ColorProfiles.convert(source, fromSRGBTo: ColorProfiles.displayP3)
        let back = try ColorProfiles.convert(wide, from: ColorProfiles.displayP3, to: ColorProfiles.sRGB)
        let difference = Fixtures.difference(back, source)
        // Near zero sRGB's curve is steep: a channel a level off in P3 can come back a few levels off.
        #expect(difference.max <= 8 && difference.mean < 0.5, "\(difference)")
        #expect(wide != source)

        #expect(try ColorProfiles.convert(wide, from: ColorProfiles.displayP3, to: ColorProfiles.displayP3) == wide)
        let premultiplied = source.converted(to: .argb32Premultiplied)
        #expect(try ColorProfiles.convert(premultiplied, from: ColorProfiles.sRGB, to: ColorProfiles.sRGB) == premultiplied.converted(to: .rgba8))
        #expect(Fixtures.difference(try ColorProfiles.convert(source, fromSRGBTo: ColorProfiles.sRGB), source).max <= 1)
        // A source profile that is not RGB is taken to sRGB first, as a decoder would: here, as it is.
        #expect(Fixtures.difference(try ColorProfiles.convert(source, from: Data("junk".utf8), to: ColorProfiles.sRGB), source).max <= 1)

        let refusal = ImageCodingError.invalidArgument("the colour profile is not an RGB profile lcms2 can read")
        #expect(throws: refusal) { try ColorProfiles.convert(source, fromSRGBTo: Data("not a profile".utf8)) }
        #expect(throws: refusal) { try ColorProfiles.convert(source, fromSRGBTo: Data()) }
    }

    /// A Display P3 image of the sRGB colours, with its profile.
    static func wideImage() throws -> (image: Image, srgb: PixelBuffer) {
        let srgb = try Self.patches(Self.colors.map(\.srgb))
        var image = Image(buffer: try ColorProfiles.convert(srgb, fromSRGBTo: ColorProfiles.displayP3))
        image.metadata = ImageMetadata(iccProfile: ColorProfiles.displayP3)
        return (image, srgb)
    }

    /// Writes the wide image as `format` and checks the colours come back as sRGB, and (with
    /// `exact`) the stored pixels and profile come back unconverted without colour management.
    func expectEmbedded(_ format: ImageFormat, _ options: EncodeOptions, tolerance: Int, exact: Bool) throws {
        let (image, srgb) = try Self.wideImage()
        let data = try coders.encode(image, as: format, options: options)
        let shown = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        for (i, pair) in Self.colors.enumerated() {
            let got = shown.buffer.color(atX: i * 16 + 8, y: 8)
            #expect(Self.close(got, pair.srgb, tolerance), "\(format) \(pair.srgb): \(String(describing: got))")
        }
        #expect(Fixtures.difference(shown.buffer, srgb).mean < Double(tolerance), "\(format)")
        guard exact else { return }
        #expect(shown.metadata.iccProfile == nil, "\(format): a converted image needs no profile")
        let raw = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
        #expect(raw.metadata.iccProfile == ColorProfiles.displayP3, "\(format)")
        #expect(raw.buffer == image.buffer, "\(format)")
    }

    @Test(
        "a Display P3 image written with its profile shows its sRGB colours again; unmanaged, its stored pixels and profile",
        arguments: [
            (ImageFormat.png, EncodeOptions.default), (.tiff, .default), (.webp, EncodeOptions(lossless: true))
        ])
    func embedded(_ format: ImageFormat, _ options: EncodeOptions) throws {
        try expectEmbedded(format, options, tolerance: 4, exact: true)
    }

    @Test("JPEG at quality 1 keeps the profile byte for byte and the colours within a few levels")
    func embeddedJPEG() throws {
        try expectEmbedded(.jpeg, EncodeOptions(quality: 1), tolerance: 6, exact: false)
        let (image, _) = try Self.wideImage()
        let raw = try coders.decode(try coders.encode(image, as: .jpeg), options: DecodeOptions(colorManagement: false))
        #expect(raw.metadata.iccProfile == ColorProfiles.displayP3)
    }

    @Test("JPEG XL, lossless, shows the sRGB colours again", .enabled(if: JXLCoder().canEncode(.jxl), "libjxl is not installed"))
    func embeddedJXL() throws {
        try expectEmbedded(.jxl, EncodeOptions(lossless: true), tolerance: 4, exact: false)
    }

    @Test("AVIF, lossless, keeps the profile and shows the sRGB colours again", .enabled(if: AVIFCoder().canEncode(.avif), "no AV1 encoder"))
    func embeddedAVIF() throws {
        try expectEmbedded(.avif, EncodeOptions(lossless: true), tolerance: 4, exact: true)
    }
}
