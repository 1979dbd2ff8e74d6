// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// One chunk of a PNG file as written: its type and data.
struct PNGFileChunk {
    var type: String
    var body: [UInt8]
}

/// The chunks of a PNG after its signature, in file order.
func pngFileChunks(_ data: Data) -> [PNGFileChunk] {
    let b = [UInt8](data)
    var out: [PNGFileChunk] = []
    var o = 8
    while o + 12 <= b.count {
        let length = Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3])
        guard length <= b.count - o - 12 else { break }
        out.append(PNGFileChunk(type: String(decoding: b[(o + 4)..<(o + 8)], as: UTF8.self), body: Array(b[(o + 8)..<(o + 8 + length)])))
        o += 12 + length
    }
    return out
}

@Suite("PNG encoder options: colour types, zlib levels, interlacing, metadata chunks; incremental limits")
struct PNGEncodingOptionsTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// IHDR's bit depth and colour type of a PNG.
    func depthAndType(_ data: Data) -> [UInt8] { [data[24], data[25]] }

    @Test("the colour type follows the pixels: gray, gray + alpha, RGB, RGBA at 8 bits, alpha only when a pixel uses it")
    func colorTypes() throws {
        let alpha = try Fixtures.gradient(width: 20, height: 10, alpha: true)
        let opaque = try Fixtures.gradient(width: 20, height: 10)
        let cases: [(Image, [UInt8], gray: Bool, alpha: Bool)] = [
            (Image(buffer: opaque.converted(to: .gray8)), [8, 0], true, false),
            (Image(buffer: alpha.converted(to: .grayAlpha8)), [8, 4], true, true),
            (Image(buffer: opaque.converted(to: .grayAlpha8)), [8, 0], true, false),
            (Image(buffer: opaque.converted(to: .rgb8)), [8, 2], false, false),
            (Image(buffer: alpha), [8, 6], false, true),
            (Image(buffer: opaque), [8, 2], false, false),
            (Image(buffer: alpha.converted(to: .argb32Premultiplied)), [8, 6], false, true),
            (Image(buffer: alpha, hasAlpha: false), [8, 2], false, false)
        ]
        for (i, c) in cases.enumerated() {
            let data = try coders.encode(c.0, as: .png)
            #expect(depthAndType(data) == c.1, "case \(i)")
            let info = try coders.info(of: data)
            #expect(info.isGrayscale == c.gray && info.hasAlpha == c.alpha && info.bitDepth == 8, "case \(i)")
        }
        // Alpha dropped by the image's own word keeps the straight colours.
        let dropped = try coders.decode(try coders.encode(Image(buffer: alpha, hasAlpha: false), as: .png), options: DecodeOptions(pixelFormat: .rgb8))
        #expect(dropped.buffer == alpha.converted(to: .rgb8))
    }

    @Test("the compression level reaches zlib: its header's level flags, stored blocks at 0, the same pixels at every level")
    func compressionLevels() throws {
        let source = try Fixtures.noisy(width: 64, height: 48)
        var sizes: [Int] = []
        for level in 0...9 {
            let data = try coders.encode(Image(buffer: source), as: .png, options: EncodeOptions(compressionLevel: level))
            let idat = try #require(pngFileChunks(data).first { $0.type == "IDAT" })
            // FLG's top two bits: 0 for levels 0 and 1, 1 for 2 to 5, 2 for 6, 3 for 7 to 9.
            let expected: UInt8 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
            #expect(idat.body[0] & 0x0F == 8 && idat.body[1] >> 6 == expected, "level \(level)")
            #expect((Int(idat.body[0]) << 8 | Int(idat.body[1])) % 31 == 0)
            #expect(try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer == source, "level \(level)")
            sizes.append(data.count)
        }
        // Stored: every filtered row (a filter byte and 64 RGB pixels) is in the file.
        #expect(sizes[0] > 48 * (1 + 64 * 3))
        #expect(sizes[0] > (sizes.dropFirst().max() ?? .max))
        #expect(throws: ImageCodingError.invalidArgument("compression level -1 must be between 0 and 9")) {
            try coders.encode(Image(buffer: source), as: .png, options: EncodeOptions(compressionLevel: -1))
        }
    }

    @Test("interlacing: Adam7 in IHDR, reported as progressive, the same pixels as the plain file")
    func interlacing() throws {
        let source = Image(buffer: try Fixtures.noisy(width: 37, height: 23, alpha: true))
        let plain = try coders.encode(source, as: .png)
        let interlaced = try coders.encode(source, as: .png, options: EncodeOptions(progressive: true))
        #expect(plain[28] == 0 && interlaced[28] == 1)
        #expect(try !coders.info(of: plain).progressive && coders.info(of: interlaced).progressive)
        let rgba = DecodeOptions(pixelFormat: .rgba8)
        #expect(try coders.decode(interlaced, options: rgba).buffer == source.buffer)
        #expect(try coders.decode(interlaced).buffer == coders.decode(plain).buffer)
    }

    @Test("metadata chunks come before the image data: iCCP named 'icc', then eXIf; none when metadata is dropped")
    func metadataChunks() throws {
        var image = Image(buffer: try Fixtures.gradient(width: 12, height: 8), orientation: .right)
        image.metadata = ImageMetadata(iccProfile: ICCFixture.sRGBLike)
        let data = try coders.encode(image, as: .png, options: EncodeOptions(orientation: .writeEXIF))
        let chunks = pngFileChunks(data)
        #expect(Array(chunks.prefix(4).map(\.type)) == ["IHDR", "iCCP", "eXIf", "IDAT"])
        #expect(chunks.last?.type == "IEND" && chunks.last?.body.isEmpty == true)
        #expect(Array(chunks[1].body.prefix(5)) == Array("icc".utf8) + [0, 0], "keyword, NUL, deflate")
        // The smallest EXIF block that records an orientation: big-endian, one IFD0 entry (0x0112, SHORT, 6).
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        #expect(chunks[2].body == exif)
        #expect(try coders.info(of: data).orientation == .right)
        let raw = try coders.decode(data, options: DecodeOptions(colorManagement: false))
        #expect(raw.metadata.iccProfile == ICCFixture.sRGBLike && raw.orientation == .right)

        let stripped = try coders.encode(image, as: .png, options: EncodeOptions(keepMetadata: false))
        #expect(Set(pngFileChunks(stripped).map(\.type)) == ["IHDR", "IDAT", "IEND"])
        #expect(try coders.info(of: stripped).pixelSize == PixelSize(width: 8, height: 12), "baked")
    }

    @Test("incremental decoders check the header against the limits before allocating: PNG, JPEG and GIF")
    func incrementalLimits() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 48, height: 40, alpha: true))
        let tight = DecodeOptions(limits: DecodingLimits(maxPixels: 100))
        let refusal = ImageCodingError.exceedsLimit(.maxPixels, found: 48 * 40, limit: 100)

        let png = try coders.encode(image, as: .png)
        let pngDecoder = try #require(coders.makeProgressiveDecoder(for: png, options: tight))
        try pngDecoder.update(png.prefix(20), isFinal: false)  // not even IHDR yet: no error, no image
        #expect(try pngDecoder.currentImage() == nil && pngDecoder.info == nil)
        #expect(throws: refusal) { try pngDecoder.update(png.prefix(40), isFinal: false) }

        let jpeg = try coders.encode(image, as: .jpeg)
        let jpegDecoder = try #require(coders.makeProgressiveDecoder(for: jpeg, options: tight))
        #expect(throws: refusal) { try jpegDecoder.update(jpeg, isFinal: false) }

        let gif = try coders.encode(image, as: .gif)
        let gifDecoder = try #require(coders.makeProgressiveDecoder(for: gif, options: tight))
        try gifDecoder.update(gif, isFinal: false)
        #expect(codingFailure { try gifDecoder.currentImage() } == "exceedsLimit maxPixels")

        let small = DecodeOptions(limits: DecodingLimits(maxBytes: 64))
        for data in [png, jpeg, gif] {
            let decoder = try #require(coders.makeProgressiveDecoder(for: data, options: small))
            #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 64)) { try decoder.update(data, isFinal: true) }
        }
        // Formats without an incremental decoder get none.
        for format in [ImageFormat.tiff, .bmp, .ico] {
            #expect(coders.makeProgressiveDecoder(for: try coders.encode(image, as: format)) == nil, "\(format)")
        }
    }
}
