// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Metadata kept as asked: XMP orientation, ICC profiles byte for byte, encode errors typed")
struct MetadataFidelityTests {
    let coders = ImageCoderRegistry.makeDefault()

    // MARK: XMP orientation

    static func packet(_ orientation: String) -> Data {
        Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" \(orientation)
            </rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    @Test("tiff:Orientation is read as an attribute or an element; anything else is no orientation")
    func xmpParsing() {
        #expect(XMP.orientation(in: Self.packet(#"tiff:Orientation="6"/>"#)) == .right)
        #expect(XMP.orientation(in: Self.packet(#"tiff:Orientation = '3' />"#)) == .down)
        #expect(XMP.orientation(in: Self.packet("><tiff:Orientation>8</tiff:Orientation></rdf:Description>")) == .left)
        #expect(XMP.orientation(in: Self.packet("><tiff:Orientation> 2 </tiff:Orientation></rdf:Description>")) == .upMirrored)
        for bad in [
            #"tiff:Orientation="9"/>"#, #"tiff:Orientation="0"/>"#, #"tiff:Orientation="66"/>"#,
            #"tiff:Orientation="x"/>"#, #"tiff:OrientationX="6"/>"#, "/>", #"tiff:Orientation="#
        ] {
            #expect(XMP.orientation(in: Self.packet(bad)) == nil, "\(bad)")
        }
        #expect(XMP.orientation(in: Data()) == nil)
        // EXIF wins when both are present, as in ImageIO.
        #expect(ImageOrientation(exif: EXIFFixture.block(orientation: 8), xmp: Self.packet(#"tiff:Orientation="6"/>"#)) == .left)
        #expect(ImageOrientation(exif: nil, xmp: Self.packet(#"tiff:Orientation="6"/>"#)) == .right)
        #expect(ImageOrientation(exif: nil, xmp: nil) == .up)
    }

    @Test(
        "Pillow's XMP-only PNGs (attribute and element forms) are shown rotated 180°, as Pillow does",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: ["pillow/png/xmp_tags_orientation.png", "pillow/png/xmp_tags_orientation_exiftool.png"])
    func pillowXMPOrientation(_ path: String) throws {
        let data = try Corpus.data(path)
        #expect(try coders.info(of: data).orientation == .down)
        let image = try coders.decode(data)
        #expect(image.orientation == .down)
        // The streaming path (thumbnails of files) reads it through libpng.
        #expect(try PNGCoder().decodeRows(data, options: .default, into: RowSink()).orientation == .down)
    }

    @Test("a JPEG with orientation only in its XMP packet is shown rotated; EXIF wins when both are present")
    func jpegXMPOrientation() throws {
        let plain = try coders.encode(Image(buffer: try Fixtures.gradient(width: 12, height: 5)), as: .jpeg)
        let xmp = Self.packet(#"tiff:Orientation="6"/>"#)
        let withXMP = Self.insertingAPP1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp), into: plain)
        #expect(try coders.info(of: withXMP).orientation == .right)
        let decoded = try coders.decode(withXMP)
        #expect(decoded.orientation == .right)
        #expect(decoded.applyingOrientation().pixelSize == PixelSize(width: 5, height: 12))

        var leftImage = Image(buffer: try Fixtures.gradient(width: 12, height: 5))
        leftImage.orientation = .left
        let withEXIF = try coders.encode(leftImage, as: .jpeg, options: EncodeOptions(orientation: .writeEXIF))
        let both = Self.insertingAPP1(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp), into: withEXIF)
        #expect(try coders.decode(both).orientation == .left)
    }

    @Test("a WebP with orientation only in its XMP chunk is shown rotated")
    func webpXMPOrientation() throws {
        let lossy = try coders.encode(Image(buffer: try Fixtures.gradient(width: 12, height: 5)), as: .webp)
        let extended = Self.extendedWebP(lossy, width: 12, height: 5, xmp: Self.packet(#"tiff:Orientation="8"/>"#))
        #expect(try coders.info(of: extended).orientation == .left)
        #expect(try coders.decode(extended).orientation == .left)
    }

    /// `jpeg` with an APP1 segment holding `payload` right after SOI.
    static func insertingAPP1(_ payload: [UInt8], into jpeg: Data) -> Data {
        let length = payload.count + 2
        var out = Data(jpeg.prefix(2))
        out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        out += jpeg.dropFirst(2)
        return out
    }

    /// A simple-format WebP (RIFF, WEBP, one VP8 chunk) rewritten as an extended one (VP8X) with
    /// an XMP chunk after the image.
    static func extendedWebP(_ simple: Data, width: Int, height: Int, xmp: Data) -> Data {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        let image = [UInt8](simple.dropFirst(12))
        var xmpChunk = Array("XMP ".utf8) + le32(xmp.count) + [UInt8](xmp)
        if xmp.count % 2 == 1 { xmpChunk.append(0) }
        let vp8x = Array("VP8X".utf8) + le32(10) + [0x04, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        let body = Array("WEBP".utf8) + vp8x + image + xmpChunk
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    // MARK: ICC profiles

    /// The corpus JPEGs with a usable ICC profile (INDEX-jpeg.tsv), a gray JPEG with an RGB one
    /// among them. Left out: `pillow/jpeg/icc-after-SOF.jpg`, whose "profile" is the 7 bytes
    /// `profile`, not an ICC profile, and `jpeg-decoder/reftest/ycck.jpg`, whose CMYK profile no
    /// longer describes the pixels once they are converted to RGB.
    static let iccJPEGs = [
        "image-rs-image/jpg/portrait_2.jpg", "image-rs-image/jpg/progressive/cat.jpg", "jpeg-decoder/reftest/mozilla/jpg-srgb-icc.jpg",
        "libavif/paris_exif_xmp_icc.jpg", "pillow/jpeg/flower2.jpg", "pillow/jpeg/icc_profile_big.jpg",
        "pillow/jpeg/pil_sample_rgb.jpg", "pillow/jpeg/rgb.jpg"
    ]

    @Test(
        "without colour management, the corpus JPEGs' ICC profiles survive PNG, JPEG and WebP byte for byte",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason), arguments: iccJPEGs)
    func iccKeptByteForByte(_ path: String) throws {
        let options = DecodeOptions(colorManagement: false)
        let source = try coders.decode(try Corpus.data(path), options: options)
        let profile = try #require(source.metadata.iccProfile, "\(path) decodes without its profile")
        let space = PNGColorProfile.colorSpace(of: profile)
        for format in [ImageFormat.png, .jpeg, .webp] {
            #expect(space == "RGB " || space == "GRAY")
            let encoded = try coders.encode(source, as: format)
            let back = try coders.decode(encoded, options: options)
            #expect(back.metadata.iccProfile == profile, "\(path) → \(format): the profile changed")
            #expect(back.pixelSize == source.pixelSize)
        }
    }

    @Test("a gray profile writes neutral pixels as a gray PNG; with colour pixels it is left out; an RGB profile on gray pixels writes RGB")
    func pngProfileFitting() throws {
        var gray = [UInt8](ICCFixture.sRGBLike)
        gray.replaceSubrange(16..<20, with: Array("GRAY".utf8))
        let grayProfile = Data(gray)
        let neutral = try Fixtures.gradient(width: 16, height: 8).converted(to: .gray8).converted(to: .rgb8)

        let (fitted, type, kept) = PNGColorProfile.fit(neutral, colorType: 2, icc: grayProfile)
        #expect(fitted.format == .gray8 && type == 0 && kept == grayProfile)
        let colour = try Fixtures.gradient(width: 16, height: 8).converted(to: .rgb8)
        let (same, sameType, dropped) = PNGColorProfile.fit(colour, colorType: 2, icc: grayProfile)
        #expect(same == colour && sameType == 2 && dropped == nil)
        let grayPixels = neutral.converted(to: .gray8)
        let (rgb, rgbType, rgbProfile) = PNGColorProfile.fit(grayPixels, colorType: 0, icc: ICCFixture.sRGBLike)
        #expect(rgb.format == .rgb8 && rgbType == 2 && rgbProfile == ICCFixture.sRGBLike)
        var cmyk = [UInt8](ICCFixture.sRGBLike)
        cmyk.replaceSubrange(16..<20, with: Array("CMYK".utf8))
        #expect(PNGColorProfile.fit(colour, colorType: 2, icc: Data(cmyk)).2 == nil)

        // Through the encoder: the gray profile is written, on a gray PNG, and read back intact.
        var image = Image(buffer: neutral)
        image.metadata.iccProfile = grayProfile
        let png = try coders.encode(image, as: .png)
        let back = try coders.decode(png, options: DecodeOptions(pixelFormat: .gray8, colorManagement: false))
        #expect(back.metadata.iccProfile == grayProfile)
        #expect(back.buffer == neutral.converted(to: .gray8))
    }

    @Test("an encoder's own failure is an encodingFailed error naming the format, not a claim of corrupt data")
    func encodeErrorsAreTyped() {
        let error = ImageCodingError.encodingFailed(.png, "libpng: Invalid IHDR data")
        #expect(error.description == "encoding png failed: libpng: Invalid IHDR data")
        #expect(!error.description.contains("corrupt"))
    }
}

/// Takes streamed rows and keeps nothing.
private final class RowSink: DecodedRowConsuming {
    func begin(size: PixelSize) throws {}
    func consume(row: UnsafeRawBufferPointer, y: Int) throws {}
}
