// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// One chunk of a WebP's RIFF container.
struct RIFFChunk {
    var fourcc: String
    var payload: [UInt8]
}

/// The chunks after `RIFF size WEBP`, in file order (payloads padded to an even size).
func webpChunks(_ data: Data) -> [RIFFChunk] {
    let b = [UInt8](data)
    var out: [RIFFChunk] = []
    var o = 12
    while o + 8 <= b.count {
        let size = Int(b[o + 4]) | Int(b[o + 5]) << 8 | Int(b[o + 6]) << 16 | Int(b[o + 7]) << 24
        guard size <= b.count - o - 8 else { break }
        out.append(RIFFChunk(fourcc: String(decoding: b[o..<(o + 4)], as: UTF8.self), payload: Array(b[(o + 8)..<(o + 8 + size)])))
        o += 8 + size + (size & 1)
    }
    return out
}

@Suite("WebP encoder options: bitstreams, chunks, effort, quality, scaled decoding")
struct WebPEncodingOptionsTests {
    let coders = ImageCoderRegistry.makeDefault()

    func webp(_ buffer: PixelBuffer, _ options: EncodeOptions = .default) throws -> Data {
        try coders.encode(Image(buffer: buffer), as: .webp, options: options)
    }

    @Test("the RIFF container names the bitstream: VP8 for lossy, VP8L for lossless, VP8X and ALPH for lossy alpha")
    func bitstreams() throws {
        let opaque = try Fixtures.noisy(width: 40, height: 30)
        let alpha = try Fixtures.gradient(width: 40, height: 30, alpha: true)
        let lossy = try webp(opaque)
        #expect(Array(lossy.prefix(4)) == Array("RIFF".utf8) && Array(lossy[8..<12]) == Array("WEBP".utf8))
        let riffSize = Int(lossy[4]) | Int(lossy[5]) << 8 | Int(lossy[6]) << 16 | Int(lossy[7]) << 24
        #expect(riffSize == lossy.count - 8)
        #expect(webpChunks(lossy).map(\.fourcc) == ["VP8 "])
        #expect(webpChunks(try webp(opaque, EncodeOptions(lossless: true))).map(\.fourcc) == ["VP8L"])
        #expect(webpChunks(try webp(alpha, EncodeOptions(lossless: true))).map(\.fourcc) == ["VP8L"])
        let lossyAlpha = webpChunks(try webp(alpha))
        #expect(lossyAlpha.map(\.fourcc) == ["VP8X", "ALPH", "VP8 "])
        // VP8X: the alpha flag, then the canvas size minus one in 24-bit little-endian fields.
        let header = try #require(lossyAlpha.first).payload
        #expect(header[0] == 0x10 && Array(header[4..<10]) == [39, 0, 0, 29, 0, 0])
        // An RGBA buffer whose pixels are all opaque is written without alpha.
        #expect(webpChunks(try webp(opaque)).map(\.fourcc) == ["VP8 "])
        #expect(try !coders.info(of: lossy).hasAlpha)
    }

    @Test("metadata is muxed in: VP8X flags ICC and EXIF, the ICCP chunk holds the profile byte for byte, EXIF follows the image")
    func metadataChunks() throws {
        var image = Image(buffer: try Fixtures.noisy(width: 24, height: 16), orientation: .left)
        let exif = EXIFFixture.block(orientation: 8)
        image.metadata = ImageMetadata(iccProfile: ICCFixture.sRGBLike, exif: exif)
        for lossless in [false, true] {
            let options = EncodeOptions(lossless: lossless, orientation: .writeEXIF)
            let data = try coders.encode(image, as: .webp, options: options)
            let chunks = webpChunks(data)
            #expect(chunks.map(\.fourcc) == ["VP8X", "ICCP", lossless ? "VP8L" : "VP8 ", "EXIF"])
            #expect(chunks.first?.payload.first == 0x28, "ICC (0x20) and EXIF (0x08), no alpha")
            #expect(chunks[1].payload == [UInt8](ICCFixture.sRGBLike))
            #expect(chunks[3].payload == [UInt8](exif))
            let info = try coders.info(of: data)
            #expect(info.hasICCProfile && info.orientation == .left && !info.hasAlpha)
        }
        // Baked and stripped: no metadata chunk at all, the pixels turned instead.
        let stripped = try coders.encode(image, as: .webp, options: EncodeOptions(keepMetadata: false))
        #expect(webpChunks(stripped).map(\.fourcc) == ["VP8 "])
        #expect(try coders.info(of: stripped).pixelSize == PixelSize(width: 16, height: 24))
    }

    @Test("effort picks libwebp's method and overrides the coder's own; the methods write different files")
    func effort() throws {
        #expect(WebPCoder.method(forEffort: nil) == nil)
        #expect([1, 3, 4, 5, 7, 9].map { WebPCoder.method(forEffort: $0) } == [0, 0, 1, 2, 4, 6])
        let source = try Fixtures.gradient(width: 64, height: 48)
        let image = Image(buffer: source)
        var fastest = EncodeOptions(quality: 0.75)
        fastest.effort = 1
        var slowest = EncodeOptions(quality: 0.75)
        slowest.effort = 9
        let method0 = try WebPCoder(method: 0).encode(image, as: .webp, options: EncodeOptions(quality: 0.75))
        let method6 = try WebPCoder(method: 6).encode(image, as: .webp, options: EncodeOptions(quality: 0.75))
        #expect(method0 != method6)
        #expect(try WebPCoder(method: 6).encode(image, as: .webp, options: fastest) == method0)
        #expect(try WebPCoder(method: 0).encode(image, as: .webp, options: slowest) == method6)
        // Out-of-range methods are clamped to libwebp's 0–6.
        #expect(try WebPCoder(method: 42).encode(image, as: .webp, options: EncodeOptions(quality: 0.75)) == method6)
        for data in [method0, method6] {
            #expect(PixelMetrics.psnr(try coders.decode(data).buffer, source) > 30)
        }
        var outOfRange = EncodeOptions()
        outOfRange.effort = 10
        #expect(throws: ImageCodingError.invalidArgument("effort 10 must be between 1 and 9")) { try webp(source, outOfRange) }
    }

    @Test("lossy: each step up in quality writes more bytes and decodes closer; lossless is exact at any quality")
    func quality() throws {
        let source = try Fixtures.noisy(width: 96, height: 64)
        var lastSize = 0
        var lastPSNR = 0.0
        for quality in [0.1, 0.3, 0.5, 0.7, 0.9, 1.0] {
            let data = try webp(source, EncodeOptions(quality: quality))
            let psnr = PixelMetrics.psnr(try coders.decode(data).buffer, source)
            #expect(data.count > lastSize && psnr > lastPSNR, "quality \(quality): \(data.count) bytes, \(psnr) dB")
            lastSize = data.count
            lastPSNR = psnr
        }
        let alpha = try Fixtures.noisy(width: 50, height: 30, alpha: true, noisyAlpha: true)
        for quality in [0.0, 0.5, 1.0] {
            let data = try webp(alpha, EncodeOptions(quality: quality, lossless: true))
            #expect(try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer == alpha, "quality \(quality)")
        }
    }

    @Test("lossy with alpha: the alpha plane is kept exactly, only the colours are approximated")
    func lossyAlpha() throws {
        let source = try Fixtures.noisy(width: 48, height: 40, alpha: true, noisyAlpha: true, amplitude: 40)
        let data = try webp(source, EncodeOptions(quality: 0.6))
        let back = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer
        let alphas = { (b: PixelBuffer) in stride(from: 3, to: b.bytes.count, by: 4).map { b.bytes[$0] } }
        #expect(alphas(back) == alphas(source))
        #expect(back != source)
        #expect(try coders.info(of: data).hasAlpha)
    }

    @Test("scaled decoding takes the largest of libwebp's 1/2 to 1/8 reductions that still covers the size")
    func scaledDecoding() throws {
        let data = try webp(try Fixtures.gradient(width: 400, height: 300), EncodeOptions(quality: 0.8))
        func size(_ w: Int, _ h: Int, aspect: Bool = true) throws -> PixelSize {
            let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: w, height: h), preserveAspectRatio: aspect)
            return try coders.decode(data, options: options).pixelSize
        }
        #expect(try size(60, 60) == PixelSize(width: 67, height: 50))  // 1/6
        #expect(try size(70, 70) == PixelSize(width: 80, height: 60))  // 1/5
        #expect(try size(90, 90) == PixelSize(width: 100, height: 75))  // 1/4
        #expect(try size(120, 40, aspect: false) == PixelSize(width: 134, height: 100))  // 1/3
        #expect(try size(401, 401) == PixelSize(width: 400, height: 300))
        #expect(try coders.info(of: data).pixelSize == PixelSize(width: 400, height: 300))
        // The incremental decoder scales the same way and ends with the one-shot pixels.
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 70, height: 70))
        let decoder = try #require(coders.makeProgressiveDecoder(for: data, options: options))
        try decoder.update(data, isFinal: true)
        #expect(try decoder.currentImage()?.buffer == coders.decode(data, options: options).buffer)
    }

    @Test("sizes: 16383 pixels a side is WebP's largest, one more is refused with a typed error")
    func largestSide() throws {
        let widest = try PixelBuffer(width: 16383, height: 1, format: .rgb8)
        #expect(try coders.info(of: try webp(widest)).width == 16383)
        let tooWide = try PixelBuffer(width: 16384, height: 1, format: .rgb8)
        #expect(throws: ImageCodingError.self) { try webp(tooWide) }
        #expect(throws: ImageCodingError.self) { try webp(tooWide, EncodeOptions(lossless: true)) }
    }

    @Test("limits apply from the container before decoding, one-shot and incremental")
    func limits() throws {
        let data = try webp(try Fixtures.gradient(width: 64, height: 32, alpha: true))
        let tight = DecodeOptions(limits: DecodingLimits(maxPixels: 2047))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 2048, limit: 2047)) { try coders.decode(data, options: tight) }
        let decoder = try #require(coders.makeProgressiveDecoder(for: data, options: tight))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 2048, limit: 2047)) { try decoder.update(data, isFinal: false) }
        // A thumbnail allocates only the reduced size: within maxPixels, under the declared-size ceiling.
        var shrunk = tight
        shrunk.thumbnailPixelSize = PixelSize(width: 16, height: 16)
        #expect(try coders.decode(data, options: shrunk).pixelSize == PixelSize(width: 16, height: 8))
    }
}
