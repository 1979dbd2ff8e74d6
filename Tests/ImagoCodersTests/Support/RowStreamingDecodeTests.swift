// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Keeps every row a decoder hands over, and what it said before the first one.
final class CollectedRows: DecodedRowConsuming {
    private(set) var size: PixelSize?
    private(set) var attributes: StreamedImageAttributes?
    private(set) var bytes: [UInt8] = []
    private(set) var order: [Int] = []
    private(set) var begins = 0

    func begin(size: PixelSize) throws {
        self.size = size
        begins += 1
    }

    func begin(size: PixelSize, attributes: StreamedImageAttributes) throws {
        self.size = size
        self.attributes = attributes
        begins += 1
    }

    func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        order.append(y)
        bytes.append(contentsOf: row.prefix((size?.width ?? 0) * 4))
    }
}

/// Stops the decode at row `row` with its own error.
final class StoppingRows: DecodedRowConsuming {
    struct Stop: Error, Equatable { let row: Int }
    let row: Int
    private(set) var seen = 0

    init(at row: Int) { self.row = row }

    func begin(size: PixelSize) throws {}

    func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        if y == self.row { throw Stop(row: y) }
        seen += 1
    }
}

@Suite("Row-streaming decodes: JPEG and PNG rows as the one-shot decode makes them")
struct RowStreamingDecodeTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("JPEG: baseline and progressive rows, in order, equal the one-shot decode; the header's facts come first")
    func jpegRows() throws {
        let source = try Fixtures.noisy(width: 100, height: 70)
        for progressive in [false, true] {
            let data = try coders.encode(Image(buffer: source), as: .jpeg, options: EncodeOptions(progressive: progressive))
            #expect(JPEGCoder().canStreamRows(of: data))
            let rows = CollectedRows()
            let attributes = try JPEGCoder().decodeRows(data, options: .default, into: rows)
            #expect(rows.bytes == (try coders.decode(data).buffer.bytes), "progressive \(progressive)")
            #expect(rows.order == Array(0..<70) && rows.begins == 1)
            #expect(attributes == rows.attributes)
            #expect(attributes.pixelSize == PixelSize(width: 100, height: 70) && attributes.format == .jpeg)
            #expect(!attributes.hasAlpha && attributes.rowsArePremultiplied)
        }
        #expect(!JPEGCoder().canStreamRows(of: try coders.encode(Image(buffer: source), as: .png)))
    }

    @Test("JPEG: a thumbnail streams the DCT-reduced rows, within a pixel limit the full size breaks")
    func jpegThumbnailRows() throws {
        let baseline = try coders.encode(Image(buffer: try Fixtures.noisy(width: 100, height: 70)), as: .jpeg)
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30))
        let rows = CollectedRows()
        let attributes = try JPEGCoder().decodeRows(baseline, options: options, into: rows)
        // 30 of 100 wide needs 1/2: 1/4 would give 25 columns.
        #expect(attributes.pixelSize == PixelSize(width: 50, height: 35))
        #expect(rows.bytes == (try coders.decode(baseline, options: options).buffer.bytes))

        options.limits = DecodingLimits(maxPixels: 2000)
        #expect(try JPEGCoder().decodeRows(baseline, options: options, into: CollectedRows()).pixelSize.width == 50)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 7000, limit: 2000)) {
            try JPEGCoder().decodeRows(baseline, options: DecodeOptions(limits: DecodingLimits(maxPixels: 2000)), into: CollectedRows())
        }
        // A progressive JPEG holds every coefficient of the full size, so its declared size must fit.
        let progressive = try coders.encode(
            Image(buffer: try Fixtures.noisy(width: 100, height: 70)), as: .jpeg, options: EncodeOptions(progressive: true))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 7000, limit: 2000)) {
            try JPEGCoder().decodeRows(progressive, options: options, into: CollectedRows())
        }
    }

    @Test("JPEG: the stored orientation and EXIF come with the rows, which stay as stored")
    func jpegOrientation() throws {
        let source = Image(buffer: try Fixtures.coordinates(width: 40, height: 24), orientation: .left)
        let data = try coders.encode(source, as: .jpeg, options: EncodeOptions(quality: 1, orientation: .writeEXIF))
        let rows = CollectedRows()
        let attributes = try JPEGCoder().decodeRows(data, options: .default, into: rows)
        #expect(attributes.orientation == .left && attributes.metadata.exif != nil)
        #expect(attributes.pixelSize == PixelSize(width: 40, height: 24))
        #expect(rows.bytes.count == 40 * 24 * 4)
    }

    @Test("JPEG: every cut of the file ends in a truncated error; a consumer's error is rethrown as it was")
    func jpegCuts() throws {
        let data = try coders.encode(Image(buffer: try Fixtures.noisy(width: 64, height: 48)), as: .jpeg)
        var cuts = 0
        for n in stride(from: 200, to: data.count - 1, by: max(1, data.count / 40)) {
            #expect(codingFailure { try JPEGCoder().decodeRows(data.prefix(n), options: .default, into: CollectedRows()) } == "truncated jpeg", "cut at \(n)")
            cuts += 1
        }
        #expect(cuts > 20)
        let stopping = StoppingRows(at: 20)
        #expect(throws: StoppingRows.Stop(row: 20)) { try JPEGCoder().decodeRows(data, options: .default, into: stopping) }
        #expect(stopping.seen == 20)
    }

    @Test("PNG: straight rows on request, premultiplied by default, each equal to the one-shot decode")
    func pngRows() throws {
        let source = try Fixtures.gradient(width: 57, height: 31, alpha: true)
        let data = try coders.encode(Image(buffer: source), as: .png)
        #expect(PNGCoder().canStreamRows(of: data))

        let straight = CollectedRows()
        let straightAttributes = try PNGCoder().decodeRows(data, options: DecodeOptions(pixelFormat: .rgba8), into: straight)
        #expect(!straightAttributes.rowsArePremultiplied && straightAttributes.hasAlpha)
        #expect(straight.bytes == RowEncoderTests.straightWords(source))

        let premultiplied = CollectedRows()
        let attributes = try PNGCoder().decodeRows(data, options: .default, into: premultiplied)
        #expect(attributes.rowsArePremultiplied && attributes.pixelSize == source.size && attributes.format == .png)
        #expect(premultiplied.bytes == (try coders.decode(data).buffer.bytes))
        #expect(premultiplied.order == Array(0..<31) && premultiplied.begins == 1)
    }

    @Test("PNG: a file streamed through the PNG row encoder comes back byte for byte")
    func pngThroughRowEncoder() throws {
        for alpha in [false, true] {
            let data = try coders.encode(Image(buffer: try Fixtures.noisy(width: 70, height: 45, alpha: alpha)), as: .png)
            let encoder = try PNGRowEncoder(options: .default)
            let attributes = try PNGCoder().decodeRows(data, options: DecodeOptions(pixelFormat: .rgba8), into: encoder)
            #expect(attributes.hasAlpha == alpha)
            #expect(try encoder.finish() == data, "alpha \(alpha)")
        }
    }

    @Test("JPEG rows into the BMP row encoder: the JPEG's decoded pixels, exactly")
    func jpegThroughBMP() throws {
        let data = try coders.encode(Image(buffer: try Fixtures.noisy(width: 75, height: 50)), as: .jpeg)
        let encoder = BMPRowEncoder()
        _ = try JPEGCoder().decodeRows(data, options: .default, into: encoder)
        let bmp = try encoder.finish()
        #expect(ImageFormat(sniffing: bmp) == .bmp)
        #expect(try coders.decode(bmp).buffer == coders.decode(data).buffer)
    }

    @Test("PNG: interlaced files, limits, truncation and a consumer's error, each a distinct error")
    func pngErrors() throws {
        let source = Image(buffer: try Fixtures.gradient(width: 48, height: 40, alpha: true))
        let interlaced = try coders.encode(source, as: .png, options: EncodeOptions(progressive: true))
        #expect(!PNGCoder().canStreamRows(of: interlaced))
        #expect(throws: ImageCodingError.unsupportedFeature(.png, "rows of an interlaced PNG cannot be streamed")) {
            try PNGCoder().decodeRows(interlaced, options: .default, into: CollectedRows())
        }
        let data = try coders.encode(source, as: .png)
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: 48 * 40, limit: 100)) {
            try PNGCoder().decodeRows(
                data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 100, maxSourcePixels: 100)), into: CollectedRows())
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 100)) {
            try PNGCoder().decodeRows(data, options: DecodeOptions(limits: DecodingLimits(maxBytes: 100)), into: CollectedRows())
        }
        for n in stride(from: 40, to: data.count - 1, by: max(1, data.count / 30)) {
            let failure = codingFailure { try PNGCoder().decodeRows(data.prefix(n), options: .default, into: CollectedRows()) }
            #expect(failure == "truncated png" || failure == "corrupt png", "cut at \(n): \(failure)")
        }
        #expect(codingFailure { try PNGCoder().decodeRows(data.dropLast(12), options: .default, into: CollectedRows()) } == "truncated png")
        let stopping = StoppingRows(at: 7)
        #expect(throws: StoppingRows.Stop(row: 7)) { try PNGCoder().decodeRows(data, options: .default, into: stopping) }
        #expect(stopping.seen == 7)
    }
}
