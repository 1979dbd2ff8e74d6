// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// One marker segment of a JPEG: the marker's second byte and its body (length bytes excluded).
struct JPEGSegment {
    var marker: UInt8
    var body: [UInt8]
}

/// The marker segments of a JPEG in file order, entropy-coded data skipped (a 0xFF in it is
/// followed by a stuffed 0 or is a restart marker), up to and including EOI.
func jpegSegments(_ data: Data) -> [JPEGSegment] {
    let b = [UInt8](data)
    var out: [JPEGSegment] = []
    var i = 2
    while i + 1 < b.count, b[i] == 0xFF {
        let marker = b[i + 1]
        if marker == 0xD9 {
            out.append(JPEGSegment(marker: marker, body: []))
            break
        }
        guard i + 4 <= b.count else { break }
        let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
        guard length >= 2, i + 2 + length <= b.count else { break }
        out.append(JPEGSegment(marker: marker, body: Array(b[(i + 4)..<(i + 2 + length)])))
        i += 2 + length
        if marker == 0xDA {
            while i + 1 < b.count, !(b[i] == 0xFF && b[i + 1] != 0 && !(0xD0...0xD7).contains(b[i + 1])) { i += 1 }
        }
    }
    return out
}

@Suite("JPEG encoder options: quality, chroma, scans, Huffman tables, markers")
struct JPEGEncodingOptionsTests {
    let coders = ImageCoderRegistry.makeDefault()

    func jpeg(_ buffer: PixelBuffer, _ options: EncodeOptions) throws -> Data {
        try coders.encode(Image(buffer: buffer), as: .jpeg, options: options)
    }

    /// The frame header: precision, height, width, then id, sampling (h << 4 | v) and table per component.
    func frame(_ data: Data) throws -> JPEGSegment {
        try #require(jpegSegments(data).first { $0.marker == 0xC0 || $0.marker == 0xC2 })
    }

    @Test("each step up in quality writes more bytes and decodes closer to the source")
    func qualityOrdersSizes() throws {
        let source = try Fixtures.noisy(width: 96, height: 64)
        var lastSize = 0
        var lastPSNR = 0.0
        for quality in [0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 1.0] {
            let data = try jpeg(source, EncodeOptions(quality: quality))
            let psnr = PixelMetrics.psnr(try coders.decode(data).buffer, source)
            #expect(data.count > lastSize, "quality \(quality): \(data.count) bytes after \(lastSize)")
            #expect(psnr > lastPSNR, "quality \(quality): \(psnr) dB after \(lastPSNR)")
            lastSize = data.count
            lastPSNR = psnr
        }
        // Quality is libjpeg's 1–100 scale, rounded and never below 1.
        let one = try jpeg(source, EncodeOptions(quality: 0.01))
        #expect(try jpeg(source, EncodeOptions(quality: 0)) == one)
        #expect(try jpeg(source, EncodeOptions(quality: 0.004)) == one)
        #expect(try jpeg(source, EncodeOptions(quality: 0.904)) == jpeg(source, EncodeOptions(quality: 0.9)))
        #expect(try jpeg(source, EncodeOptions(quality: 0.994)) != jpeg(source, EncodeOptions(quality: 0.996)))
    }

    @Test("quantization tables: libjpeg's standard ones at quality 0.5, all ones at quality 1")
    func quantizationTables() throws {
        let source = try Fixtures.gradient(width: 32, height: 32)
        let tables = { (quality: Double) throws -> [[UInt8]] in
            jpegSegments(try self.jpeg(source, EncodeOptions(quality: quality))).filter { $0.marker == 0xDB }.map(\.body)
        }
        let standard = try tables(0.5)
        #expect(standard.count == 2 && standard.allSatisfy { $0.count == 65 })
        // Table 0 (luminance) starts with 16, table 1 (chrominance) with 17: Annex K's tables unscaled.
        #expect(standard.map { Array($0.prefix(2)) } == [[0, 16], [1, 17]])
        let finest = try tables(1)
        #expect(finest.count == 2 && finest.allSatisfy { $0.dropFirst().allSatisfy { $0 == 1 } })
    }

    @Test("chroma is halved both ways below quality 0.9 and kept whole from there; gray has one component")
    func chromaSubsampling() throws {
        let source = try Fixtures.noisy(width: 48, height: 32)
        let low = try frame(try jpeg(source, EncodeOptions(quality: 0.89)))
        #expect(low.body[5] == 3 && [low.body[7], low.body[10], low.body[13]] == [0x22, 0x11, 0x11])
        let high = try frame(try jpeg(source, EncodeOptions(quality: 0.9)))
        #expect(high.body[5] == 3 && [high.body[7], high.body[10], high.body[13]] == [0x11, 0x11, 0x11])
        // Height then width, big-endian.
        #expect(Array(high.body[1..<5]) == [0, 32, 0, 48])
        let gray = try frame(try jpeg(source.converted(to: .gray8), EncodeOptions(quality: 0.5)))
        #expect(gray.body[5] == 1 && gray.body.count == 9)
    }

    @Test("progressive writes SOF2 and libjpeg's scan script (10 scans for colour, 6 for gray); baseline one SOF0 scan")
    func scans() throws {
        let source = try Fixtures.noisy(width: 64, height: 48)
        func scanCount(_ data: Data) -> Int { jpegSegments(data).filter { $0.marker == 0xDA }.count }
        let baseline = try jpeg(source, .default)
        #expect(try frame(baseline).marker == 0xC0 && scanCount(baseline) == 1)
        #expect(try !coders.info(of: baseline).progressive)
        let progressive = try jpeg(source, EncodeOptions(progressive: true))
        #expect(try frame(progressive).marker == 0xC2 && scanCount(progressive) == 10)
        #expect(try coders.info(of: progressive).progressive)
        let gray = try jpeg(source.converted(to: .gray8), EncodeOptions(progressive: true))
        #expect(scanCount(gray) == 6)
        #expect(jpegSegments(progressive).last?.marker == 0xD9)
        // The same coefficients, whichever order they are sent in.
        #expect(try coders.decode(progressive).buffer == coders.decode(baseline).buffer)
    }

    @Test("maxScans refuses a progressive file with more scans as hostile, one-shot and progressive alike")
    func maxScans() throws {
        let source = try Fixtures.noisy(width: 64, height: 48)
        let progressive = try jpeg(source, EncodeOptions(progressive: true))
        let reference = try coders.decode(progressive)
        #expect(try JPEGCoder(maxScans: 10).decode(progressive, options: .default) == reference)
        #expect(throws: ImageCodingError.corrupt(.jpeg, "too many scans (more than 9): refused as hostile")) {
            try JPEGCoder(maxScans: 9).decode(progressive, options: .default)
        }
        let incremental = try #require(JPEGCoder(maxScans: 3).makeProgressiveDecoder(options: .default))
        #expect(throws: ImageCodingError.self) { try incremental.update(progressive, isFinal: true) }
        // A baseline file has one scan, whatever the limit.
        let baseline = try jpeg(source, .default)
        #expect(try JPEGCoder(maxScans: 1).decode(baseline, options: .default) == coders.decode(baseline))
    }

    @Test("optimized Huffman tables: smaller files, the very same pixels; the standard tables are Annex K's")
    func huffmanTables() throws {
        let source = try Fixtures.noisy(width: 80, height: 60)
        var optimized = EncodeOptions(quality: 0.8)
        optimized.optimizesHuffmanTables = true
        var standard = optimized
        standard.optimizesHuffmanTables = false
        let small = try jpeg(source, optimized), large = try jpeg(source, standard)
        #expect(small.count < large.count)
        #expect(try coders.decode(small).buffer == coders.decode(large).buffer)
        // Up to 4 megapixels the default is to optimize.
        #expect(try jpeg(source, EncodeOptions(quality: 0.8)) == small)
        #expect(EncodeOptions.optimizedHuffmanPixelLimit == 4_000_000)
        let dcLuminance: [UInt8] = [0x00, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + (0...11).map { UInt8($0) }
        let tables = jpegSegments(large).filter { $0.marker == 0xC4 }.map(\.body)
        #expect(tables.count == 4 && tables.first == dcLuminance)
        #expect(jpegSegments(small).filter { $0.marker == 0xC4 }.map(\.body).first != dcLuminance)
    }

    @Test("past 4 megapixels the standard tables are the default")
    func largeImagesUseStandardTables() throws {
        let big = try PixelBuffer(width: 2001, height: 2000, format: .rgb8)
        var standard = EncodeOptions(quality: 0.5)
        standard.optimizesHuffmanTables = false
        let byDefault = try jpeg(big, EncodeOptions(quality: 0.5))
        #expect(byDefault == (try jpeg(big, standard)))
    }

    @Test("EXIF then the ICC profile follow JFIF, ahead of the tables; a profile over 64 KB is split and comes back whole")
    func markers() throws {
        var icc = ICCFixture.sRGBLike + Data(count: 150_000 - ICCFixture.sRGBLike.count)
        let total = UInt32(icc.count)
        icc.replaceSubrange(0..<4, with: [UInt8(total >> 24), UInt8(total >> 16 & 0xFF), UInt8(total >> 8 & 0xFF), UInt8(total & 0xFF)])
        var image = Image(buffer: try Fixtures.gradient(width: 40, height: 30), orientation: .left)
        image.metadata = ImageMetadata(iccProfile: icc)
        let data = try coders.encode(image, as: .jpeg, options: EncodeOptions(orientation: .writeEXIF))
        let segments = jpegSegments(data)
        // 65,519 bytes of profile fit in one APP2 after its 14-byte header: 150,000 bytes need three.
        let app2 = segments.filter { $0.marker == 0xE2 }
        #expect(Array(segments.prefix(5).map(\.marker)) == [0xE0, 0xE1, 0xE2, 0xE2, 0xE2])
        #expect(app2.map { Array($0.body.prefix(12)) }.allSatisfy { $0 == Array("ICC_PROFILE".utf8) + [0] })
        #expect(app2.map { [$0.body[12], $0.body[13]] } == [[1, 3], [2, 3], [3, 3]])
        #expect(Array(segments[1].body.prefix(6)) == Array("Exif".utf8) + [0, 0])
        let raw = try coders.decode(data, options: DecodeOptions(colorManagement: false))
        #expect(raw.metadata.iccProfile == icc)
        #expect(raw.orientation == .left && raw.pixelSize == PixelSize(width: 40, height: 30))
        #expect(try coders.info(of: data).hasICCProfile)
    }

    @Test("gray with alpha is flattened over the background into a one-component JPEG")
    func grayAlphaFlattened() throws {
        var bytes: [UInt8] = []
        for _ in 0..<16 { for x in 0..<32 { bytes += [0, x < 16 ? 0 : 255] } }
        let pixels = try PixelBuffer(width: 32, height: 16, format: .grayAlpha8, bytes: bytes)
        let data = try jpeg(pixels, EncodeOptions(quality: 1))
        #expect(try frame(data).body[5] == 1)
        let decoded = try coders.decode(data, options: DecodeOptions(pixelFormat: .gray8)).buffer
        #expect(decoded.format == .gray8)
        #expect(decoded.color(atX: 4, y: 8).map { $0.r >= 250 } == true, "transparent black over white is white")
        #expect(decoded.color(atX: 27, y: 8).map { $0.r <= 5 } == true, "opaque black stays black")
    }

    @Test(
        "Robidoux's tables: luma and chroma alike, scaled by the quality and clamped to 255; the row encoder writes them too; a photo is smaller",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func robidouxTables() throws {
        var options = EncodeOptions(quality: 0.5)
        options.jpegQuantization = .robidoux
        let photo = try coders.decode(Corpus.data("exif-orientation/Landscape_1.jpg")).buffer
        let data = try jpeg(photo, options)
        // One DQT segment per table: precision and slot, then 64 steps in zigzag order.
        let tables = jpegSegments(data).filter { $0.marker == 0xDB }.flatMap { segment in
            stride(from: 0, to: segment.body.count, by: 65).map { Array(segment.body[($0 + 1)..<($0 + 65)]) }
        }
        #expect(tables.count == 2 && tables[0] == tables[1])
        // At quality 50 the table as it is: 16 at the first two zigzag places, 255 for 418 at the last.
        #expect(tables.first?.prefix(3) == [16, 16, 16] && tables.first?.last == 255, "\(tables.first ?? [])")
        #expect(try coders.decode(data).pixelSize == photo.size)
        let standard = try jpeg(photo, EncodeOptions(quality: 0.5))
        #expect(data.count < standard.count, "\(data.count) against \(standard.count) bytes at one quality number")
        // The row encoder (a conversion that changes no pixel) writes the same tables.
        let argb = photo.converted(to: .argb32Premultiplied)
        let rows = try JPEGRowEncoder(options: options)
        try rows.begin(size: argb.size)
        try argb.withUnsafeBytes { bytes in
            for y in 0..<argb.height {
                try rows.consume(row: UnsafeRawBufferPointer(rebasing: bytes[(y * argb.bytesPerRow)..<(y * argb.bytesPerRow + argb.width * 4)]), y: y)
            }
        }
        let streamed = try rows.finish()
        #expect(jpegSegments(streamed).filter { $0.marker == 0xDB }.map(\.body) == jpegSegments(data).filter { $0.marker == 0xDB }.map(\.body))
    }
}
