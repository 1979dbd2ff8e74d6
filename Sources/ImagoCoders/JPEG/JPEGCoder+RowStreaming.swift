// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJPEG
import CLCMS2
import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension JPEGCoder: RowStreamingImageDecoding {
    /// Rows a band holds: libjpeg works in MCU rows of 8 or 16 lines.
    static let bandRows = 16

    /// Every JPEG streams its rows: `true` when `prefix` starts as a JPEG does (SOI, then a marker).
    public func canStreamRows(of prefix: Data) -> Bool { prefix.starts(with: [0xFF, 0xD8, 0xFF]) }

    /// Decodes in bands of 16 rows, each colour-managed as it comes, and hands the rows to
    /// `consumer`: the bitmap is never held whole, nor the input, which libjpeg pulls from
    /// `source` 64 KiB at a time. ``DecodeOptions/thumbnailPixelSize`` is honoured by DCT scaling,
    /// as in ``decode(_:options:)-(Data,_)``, so a thumbnail streams from the reduced rows. A progressive
    /// JPEG still costs libjpeg its whole-image coefficient buffer. CMYK files are decoded whole
    /// and then streamed.
    ///
    /// - Throws: as ``decode(_:options:)-(Data,_)``; the source's read errors; the consumer's errors.
    public func decodeRows(
        from source: any ImageByteSource, options: DecodeOptions,
        into consumer: any DecodedRowConsuming
    ) throws -> StreamedImageAttributes {
        var display = options
        display.pixelFormat = .argb32Premultiplied
        display.page = nil
        let (d, header) = try readHeader(from: source, limits: options.limits)
        return try d.rethrowingReadFailure {
            if header.isCMYK { return try Self.streamWhole(try decodePixels(d, header: header, options: display), to: consumer) }
            let plan = JPEGOutputPlan(header: header, options: display)
            try plan.checkLimits(d)
            plan.configure(d.cinfo)
            _ = try d.check(imago_jpeg_start_decompress(d.handle), during: "before the first scan")
            let width = Int(d.cinfo.pointee.output_width), height = Int(d.cinfo.pointee.output_height)
            let image = plan.image(from: try PixelBuffer(width: 1, height: 1, format: .rgba8), header: header)
            let attributes = StreamedImageAttributes(
                pixelSize: PixelSize(width: width, height: height), orientation: image.orientation,
                format: .jpeg, metadata: image.metadata, hasAlpha: false)
            try consumer.begin(size: attributes.pixelSize, attributes: attributes)
            #if _endian(little)
            let layout = IMAGO_TYPE_BGRA_8
            #else
            let layout = IMAGO_TYPE_ARGB_8
            #endif
            let converter = display.colorManagement ? header.icc.flatMap { ColorManagement.converter(for: $0, layout: layout) } : nil
            let stride = width * 4, threads = CodecThreads.limit(options.maxThreads)
            let band = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * Self.bandRows, alignment: 16)
            defer { band.deallocate() }
            var y = 0
            while y < height {
                var got: UInt32 = 0
                let status = imago_jpeg_read_some_rows(
                    d.handle, band.baseAddress?.assumingMemoryBound(to: UInt8.self), stride,
                    UInt32(Self.bandRows), &got)
                _ = try d.check(status, during: "in the image data")
                guard got > 0 else { throw ImageCodingError.truncated(.jpeg, "the data ends after \(y) of \(height) rows") }
                let rows = Int(got)
                let filled = UnsafeMutableRawBufferPointer(rebasing: band[0..<(rows * stride)])
                // Opaque, so the display format's premultiplication is the identity.
                converter?.convert(
                    filled, width: width, height: rows, bytesPerRow: stride, threads: threads,
                    bandingThreshold: ColorManagement.Converter.streamedBandingThreshold)
                for r in 0..<rows {
                    try consumer.consume(row: UnsafeRawBufferPointer(rebasing: band[(r * stride)..<((r + 1) * stride)]), y: y + r)
                }
                y += rows
            }
            _ = try d.check(imago_jpeg_finish_decompress(d.handle), during: "before the end marker")
            if d.hitEnd { throw ImageCodingError.truncated(.jpeg, "the data ends before the end-of-image marker") }
            return attributes
        }
    }

    /// Hands a decoded image's rows to `consumer`, for files that do not stream.
    private static func streamWhole(_ image: Image, to consumer: any DecodedRowConsuming) throws -> StreamedImageAttributes {
        let buffer = image.buffer.converted(to: .argb32Premultiplied)
        let attributes = StreamedImageAttributes(
            pixelSize: buffer.size, orientation: image.orientation, format: image.format ?? .jpeg,
            metadata: image.metadata, hasAlpha: image.hasAlpha)
        try consumer.begin(size: buffer.size, attributes: attributes)
        try buffer.withUnsafeBytes { all in
            for y in 0..<buffer.height {
                try consumer.consume(row: UnsafeRawBufferPointer(rebasing: all[(y * buffer.bytesPerRow)...].prefix(buffer.width * 4)), y: y)
            }
        }
        return attributes
    }
}
