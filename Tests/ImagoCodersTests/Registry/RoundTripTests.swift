// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Encode → decode round trips")
struct RoundTripTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("PNG is lossless for opaque, alpha and gray images")
    func png() throws {
        for alpha in [false, true] {
            let source = try Fixtures.gradient(width: 33, height: 21, alpha: alpha)
            let data = try coders.encode(Image(buffer: source), as: .png)
            #expect(ImageFormat(sniffing: data) == .png)
            let decoded = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(decoded.buffer == source)
            #expect(decoded.hasAlpha == alpha)
            let display = try coders.decode(data)
            #expect(display.isDecoded)
            #expect(display.buffer == source.converted(to: .argb32Premultiplied))
        }
        let gray = try Fixtures.gradient(width: 9, height: 9).converted(to: .gray8)
        let decoded = try coders.decode(try coders.encode(Image(buffer: gray), as: .png), options: DecodeOptions(pixelFormat: .gray8))
        #expect(decoded.buffer == gray)
    }

    @Test("JPEG stays close at high quality, and quality changes the size")
    func jpeg() throws {
        let source = try Fixtures.gradient(width: 64, height: 48)
        let q95 = try coders.encode(Image(buffer: source), as: .jpeg, options: EncodeOptions(quality: 0.95))
        let q30 = try coders.encode(Image(buffer: source), as: .jpeg, options: EncodeOptions(quality: 0.3))
        #expect(q30.count < q95.count)
        let decoded = try coders.decode(q95)
        #expect(decoded.format == .jpeg && !decoded.hasAlpha && decoded.pixelSize == source.size)
        let diff = Fixtures.difference(decoded.buffer, source)
        #expect(diff.mean < 1.5, "mean difference \(diff.mean)")
        let progressive = try coders.encode(Image(buffer: source), as: .jpeg, options: EncodeOptions(progressive: true))
        #expect(try coders.info(of: progressive).progressive)
    }

    @Test("opaque 4-byte pixels go to libjpeg as they are: the same file as from RGB", arguments: [PixelFormat.argb32Premultiplied, .rgba8])
    func jpegFromFourBytes(_ format: PixelFormat) throws {
        let source = try Fixtures.coordinates(width: 61, height: 37)
        let rgb = try coders.encode(Image(buffer: source.converted(to: .rgb8)), as: .jpeg, options: EncodeOptions(quality: 0.8))
        let four = try coders.encode(Image(buffer: source.converted(to: format)), as: .jpeg, options: EncodeOptions(quality: 0.8))
        #expect(four == rgb)
    }

    @Test("JPEG flattens alpha against the background colour")
    func jpegFlattens() throws {
        let clear = try PixelBuffer(width: 8, height: 8, format: .rgba8)  // all transparent
        let data = try coders.encode(
            Image(buffer: clear), as: .jpeg,
            options: EncodeOptions(backgroundColor: RGBA8(r: 0, g: 0, b: 255)))
        let c = try coders.decode(data).buffer.color(atX: 4, y: 4)
        #expect(c.map { $0.b > 240 && $0.r < 15 } == true)
    }

    @Test("WebP lossless is exact, lossy is close")
    func webp() throws {
        let source = try Fixtures.gradient(width: 40, height: 30, alpha: true)
        let lossless = try coders.encode(Image(buffer: source), as: .webp, options: EncodeOptions(lossless: true))
        #expect(try coders.decode(lossless, options: DecodeOptions(pixelFormat: .rgba8)).buffer == source)
        let opaque = try Fixtures.gradient(width: 40, height: 30)
        let lossy = try coders.encode(Image(buffer: opaque), as: .webp, options: EncodeOptions(quality: 0.9))
        let info = try coders.info(of: lossy)
        #expect(info.format == .webp && !info.hasAlpha && info.width == 40)
        #expect(Fixtures.difference(try coders.decode(lossy).buffer, opaque).mean < 3)
    }

    @Test("unspecified format: PNG with alpha, JPEG without (SDWebImage's rule)")
    func defaultFormat() throws {
        let withAlpha = Image(buffer: try Fixtures.gradient(width: 4, height: 4, alpha: true))
        let opaque = Image(buffer: try Fixtures.gradient(width: 4, height: 4), hasAlpha: false)
        #expect(ImageFormat(sniffing: try coders.encode(withAlpha)) == .png)
        #expect(ImageFormat(sniffing: try coders.encode(opaque)) == .jpeg)
    }

    @Test("orientation is baked by default, or written as EXIF", arguments: [ImageFormat.jpeg, .png, .webp])
    func orientationHandling(_ format: ImageFormat) throws {
        let source = try Fixtures.coordinates(width: 12, height: 5)
        let image = Image(buffer: source, orientation: .right)
        let baked = try coders.decode(try coders.encode(image, as: format, options: EncodeOptions(quality: 1, lossless: true)))
        #expect(baked.orientation == .up && baked.pixelSize == PixelSize(width: 5, height: 12))
        let kept = try coders.decode(try coders.encode(image, as: format, options: EncodeOptions(lossless: true, orientation: .writeEXIF)))
        #expect(kept.orientation == .right && kept.pixelSize == PixelSize(width: 12, height: 5))
        #expect(try coders.info(of: try coders.encode(image, as: format, options: EncodeOptions(orientation: .writeEXIF))).orientation == .right)
    }

    @Test("ICC profiles and EXIF are kept or stripped by option", arguments: [ImageFormat.jpeg, .png, .webp])
    func metadata(_ format: ImageFormat) throws {
        let exif = EXIFFixture.block(orientation: 1)
        var image = Image(buffer: try Fixtures.gradient(width: 8, height: 8))
        image.metadata = ImageMetadata(iccProfile: ICCFixture.sRGBLike, exif: exif)
        let kept = try coders.encode(image, as: format)
        let info = try coders.info(of: kept)
        #expect(info.hasICCProfile)
        let raw = try coders.decode(kept, options: DecodeOptions(colorManagement: false))
        #expect(raw.metadata.iccProfile == ICCFixture.sRGBLike)
        #expect(raw.metadata.exif != nil)
        let stripped = try coders.encode(image, as: format, options: EncodeOptions(keepMetadata: false))
        #expect(try !coders.info(of: stripped).hasICCProfile)
        #expect(try coders.decode(stripped, options: DecodeOptions(colorManagement: false)).metadata == ImageMetadata())
    }

    @Test("options out of range are rejected")
    func badOptions() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 2, height: 2))
        #expect(throws: ImageCodingError.self) { try coders.encode(image, as: .jpeg, options: EncodeOptions(quality: 1.5)) }
        #expect(throws: ImageCodingError.self) { try coders.encode(image, as: .png, options: EncodeOptions(compressionLevel: 12)) }
        #expect(throws: ImageCodingError.encoderUnavailable(.cur)) { try coders.encode(image, as: .cur) }
        // An icon holds 256 pixels a side at most.
        let big = Image(buffer: try Fixtures.gradient(width: 300, height: 10))
        #expect(throws: ImageCodingError.self) { try coders.encode(big, as: .ico) }
        let icon = try coders.encode(image, as: .ico)
        #expect(try ICOCoder.entries(of: icon).count == 1 && coders.decode(icon).pixelSize == PixelSize(width: 2, height: 2))
    }
}

/// A tiny EXIF block.
enum EXIFFixture {
    static func block(orientation: UInt16) -> Data {
        Data([0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0])
    }
}

/// An ICC profile made by lcms2 would need the C API in tests; instead, the profile bytes of a
/// minimal valid RGB profile are built here: header plus the tags lcms needs for a matrix/TRC profile.
enum ICCFixture {
    /// A matrix/TRC RGB profile with sRGB primaries and gamma 2.2, described as "Imago test RGB".
    static let sRGBLike: Data = {
        var tags: [(String, [UInt8])] = []
        func s15(_ v: Double) -> [UInt8] {
            let i = Int32((v * 65536).rounded())
            return [UInt8(truncatingIfNeeded: i >> 24), UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8), UInt8(truncatingIfNeeded: i)]
        }
        func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z) }
        let curve: [UInt8] = Array("curv".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0x02, 0x33, 0, 0]  // gamma 2.2 (u8Fixed8)
        let desc = "Imago test RGB"
        var descTag: [UInt8] = Array("desc".utf8) + [0, 0, 0, 0]
        let n = UInt32(desc.utf8.count + 1)
        descTag += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(desc.utf8) + [0]
        descTag += [UInt8](repeating: 0, count: 12 + 67)
        tags.append(("desc", descTag))
        tags.append(("wtpt", xyz(0.9642, 1.0, 0.8249)))
        tags.append(("rXYZ", xyz(0.4361, 0.2225, 0.0139)))
        tags.append(("gXYZ", xyz(0.3851, 0.7169, 0.0971)))
        tags.append(("bXYZ", xyz(0.1431, 0.0606, 0.7141)))
        tags.append(("rTRC", curve))
        tags.append(("gTRC", curve))
        tags.append(("bTRC", curve))
        var body: [UInt8] = []
        var table: [UInt8] = []
        let tableSize = 4 + 12 * tags.count
        var offset = 128 + tableSize
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        table += be(tags.count)
        for (sig, data) in tags {
            var padded = data
            while padded.count % 4 != 0 { padded.append(0) }
            table += Array(sig.utf8) + be(offset) + be(data.count)
            body += padded
            offset += padded.count
        }
        var header = be(offset) + Array("lcms".utf8) + [0x02, 0x10, 0, 0] + Array("mntr".utf8) + Array("RGB ".utf8) + Array("XYZ ".utf8)
        header += [UInt8](repeating: 0, count: 12) + Array("acsp".utf8) + [UInt8](repeating: 0, count: 24)
        header += [0, 0, 0, 0] + s15(0.9642) + s15(1.0) + s15(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return Data(header + table + body)
    }()
}

@Suite("Direct JPEG output formats")
struct JPEGDirectFormatTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("RGB and gray written by libjpeg equal the 4-byte decode converted", arguments: [PixelFormat.rgb8, .gray8, .rgba8])
    func direct(_ format: PixelFormat) throws {
        let color = try coders.encode(Image(buffer: try Fixtures.gradient(width: 50, height: 40)), as: .jpeg)
        let gray = try coders.encode(Image(buffer: try Fixtures.gradient(width: 50, height: 40).converted(to: .gray8)), as: .jpeg)
        for data in [color, gray] {
            let direct = try coders.decode(data, options: DecodeOptions(pixelFormat: format))
            #expect(direct.buffer.format == format)
            let viaDisplay = try coders.decode(data).buffer.converted(to: format)
            if format == .gray8, data == color {
                // Colour to gray differs (libjpeg is not asked; the luma conversion is Imago's): compare loosely.
                #expect(Fixtures.difference(direct.buffer, viaDisplay).max <= 1)
            } else {
                #expect(direct.buffer == viaDisplay)
            }
        }
    }

    @Test("progressive decoding into RGB ends equal to the one-shot decode")
    func progressiveRGB() throws {
        let data = try coders.encode(
            Image(buffer: try Fixtures.gradient(width: 96, height: 64)), as: .jpeg,
            options: EncodeOptions(progressive: true))
        let options = DecodeOptions(pixelFormat: .rgb8)
        let decoder = try #require(coders.makeProgressiveDecoder(for: data, options: options))
        try decoder.update(data.prefix(data.count / 2), isFinal: false)
        try decoder.update(data, isFinal: true)
        #expect(try decoder.currentImage()?.buffer == coders.decode(data, options: options).buffer)
    }
}

@Suite("Preferred encoding format")
struct PreferredFormatTests {
    @Test("own format when writable, else PNG with alpha and JPEG without")
    func rule() throws {
        let coders = ImageCoderRegistry.makeDefault()
        var webp = Image(buffer: try Fixtures.gradient(width: 2, height: 2), format: .webp, hasAlpha: false)
        #expect(coders.preferredEncodingFormat(for: webp) == .webp)
        webp.format = .gif
        #expect(coders.preferredEncodingFormat(for: webp) == .gif)
        webp.format = .cur  // no encoder: SDWebImage's rule
        #expect(coders.preferredEncodingFormat(for: webp) == .jpeg)
        webp.hasAlpha = true
        #expect(coders.preferredEncodingFormat(for: webp) == .png)
        // An icon is written as one when it fits in 256 pixels a side.
        webp.format = .ico
        #expect(coders.preferredEncodingFormat(for: webp) == .ico)
        var big = Image(buffer: try Fixtures.gradient(width: 300, height: 2), format: .ico, hasAlpha: true)
        #expect(coders.preferredEncodingFormat(for: big) == .png)
        big.hasAlpha = false
        #expect(coders.preferredEncodingFormat(for: big) == .jpeg)
        webp.format = .apng
        #expect(coders.preferredEncodingFormat(for: webp) == .apng)
    }
}
