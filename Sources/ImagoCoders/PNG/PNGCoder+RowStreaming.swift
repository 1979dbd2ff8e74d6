// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CLCMS2
import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension PNGCoder: RowStreamingImageDecoding {
    /// `true` for a non-interlaced PNG on a little-endian machine: rows of an Adam7 image are
    /// finished only by its last pass, so those are decoded whole.
    public func canStreamRows(of prefix: Data) -> Bool {
        guard PixelFormat.argbOffsets.b == 0, let ihdr = try? PNGChunks.readIHDR(prefix) else { return false }
        return !ihdr.interlaced
    }

    /// Streams rows through libpng's row callback into one reused row buffer, reading the input
    /// 256 KiB at a time: the memory held is one row, libpng's own two rows and one piece of
    /// input, whatever the image size. Colour management (iCCP to sRGB, gAMA) is applied per row;
    /// each row is premultiplied before the consumer sees it. Metadata (ICC, eXIf wherever it
    /// stands, tRNS) comes from libpng as it reads.
    ///
    /// - Throws: as ``decode(_:options:)-(Data,_)``; `.unsupportedFeature` for an interlaced PNG; the
    ///   source's and the consumer's own errors unchanged.
    public func decodeRows(
        from source: any ImageByteSource, options: DecodeOptions,
        into consumer: any DecodedRowConsuming
    ) throws -> StreamedImageAttributes {
        let head = try source.read(maxLength: 1 << 16)
        let ihdr = try PNGChunks.readIHDR(head)
        try checkRowStreaming(head, ihdr: ihdr, limits: options.limits)
        var streamOptions = options
        streamOptions.pixelFormat = .argb32Premultiplied
        let row = UnsafeMutableRawBufferPointer.allocate(byteCount: ihdr.width * 4, alignment: 16)
        defer { row.deallocate() }
        let decoder = try PNGPushDecoder(ihdr: ihdr, options: streamOptions, output: row.baseAddress, stride: 0)
        // Straight rows on request: no premultiplication anywhere, so a PNG-to-PNG stream loses nothing.
        let straight = options.pixelFormat == .rgba8
        if straight { imago_png_decoder_premultiply_rows(decoder.handle, 0) }
        let format = options.sourceFormat ?? ImageFormat(sniffing: head) ?? .png
        // libpng keeps no eXIf it meets twice, and some writers repeat it after the pixels: the
        // chunk walker over the first bytes reads it as the whole-image decoder does.
        let early = try? PNGChunks(head)
        let colorManagement = options.colorManagement
        // The consumer begins at the first row, when libpng has read every chunk before the
        // pixels (iCCP, eXIf, tRNS), so it can be told the image's attributes.
        let bridge = PNGRowBridge(
            consumer: consumer, decoder: decoder, width: ihdr.width,
            colorManagement: colorManagement, premultiplies: !straight
        ) { header in
            Self.streamedAttributes(header, early: early, ihdr: ihdr, format: format, colorManagement: colorManagement, straight: straight)
        }
        if options.rowHelperThread {
            bridge.handoff = try RowHandoff(bytesPerRow: ihdr.width * 4) { [bridge] band, firstY, rows in
                for i in 0..<rows { try bridge.finish(band + i * ihdr.width * 4, y: firstY + i) }
            }
        }
        defer { bridge.handoff?.stop() }
        try withExtendedLifetime(bridge) {
            try feed(decoder, through: bridge, from: source, head: head, limits: options.limits)
        }
        try bridge.handoff?.close()
        guard decoder.isFinished else {
            throw ImageCodingError.truncated(.png, "the data ends before the IEND chunk (\(decoder.rowsWritten) of \(ihdr.height) rows)")
        }
        return Self.streamedAttributes(
            decoder.header(), early: early, ihdr: ihdr, format: format, colorManagement: colorManagement, straight: straight)
    }

    /// Refuses an interlaced PNG, and a declared size beyond the larger of the two pixel limits.
    private func checkRowStreaming(_ head: Data, ihdr: PNGChunks.IHDR, limits: DecodingLimits) throws {
        guard canStreamRows(of: head) else {
            throw ImageCodingError.unsupportedFeature(.png, "rows of an interlaced PNG cannot be streamed")
        }
        // Only a row is allocated here; the consumer (a resampler) checks what it allocates
        // against `maxPixels`. The declared size bounds the work.
        let declared = ihdr.width.multipliedReportingOverflow(by: ihdr.height)
        let ceiling = max(limits.maxSourcePixels, limits.maxPixels)
        if declared.overflow || declared.partialValue > ceiling {
            throw ImageCodingError.exceedsLimit(
                .maxSourcePixels, found: declared.overflow ? Int.max : declared.partialValue,
                limit: ceiling)
        }
    }

    /// The stream's attributes from libpng's header (metadata it has read so far), with the eXIf
    /// and XMP of the early chunk walk when libpng has none.
    private static func streamedAttributes(
        _ header: (icc: Data?, exif: Data?, xmp: Data?, hasTRNS: Bool), early: PNGChunks?, ihdr: PNGChunks.IHDR,
        format: ImageFormat, colorManagement: Bool, straight: Bool
    ) -> StreamedImageAttributes {
        StreamedImageAttributes(
            pixelSize: PixelSize(width: ihdr.width, height: ihdr.height),
            orientation: ImageOrientation(
                exif: header.exif ?? early?.exif,
                xmp: header.xmp ?? early?.xmp),
            format: format,
            metadata: ImageMetadata(
                iccProfile: colorManagement && header.icc != nil ? nil : header.icc,
                exif: header.exif ?? early?.exif),
            hasAlpha: ihdr.hasAlphaChannel || header.hasTRNS, rowsArePremultiplied: !straight)
    }

    /// Hands `bridge` to libpng as its row sink, then feeds `decoder` the head and the rest of
    /// `source`, checking the input size as it grows; the consumer's error wins over libpng's.
    private func feed(
        _ decoder: PNGPushDecoder, through bridge: PNGRowBridge, from source: any ImageByteSource, head: Data, limits: DecodingLimits
    ) throws {
        imago_png_decoder_set_row_sink(
            decoder.handle,
            { context, row, y in
                guard let context, let row else { return 1 }
                return Unmanaged<PNGRowBridge>.fromOpaque(context).takeUnretainedValue().take(row, y: Int(y))
            }, Unmanaged.passUnretained(bridge).toOpaque())
        // After the head, the file goes through one buffer: a fresh 256 KiB piece per read
        // would leave the service's heap holding freed pieces (below its mmap threshold).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        var total = head.count
        do {
            try limits.check(inputBytes: total)
            try head.withUnsafeBytes { try decoder.feed($0) }
            while !head.isEmpty, !decoder.isFinished {
                let count = try source.read(into: buffer)
                guard count > 0 else { break }
                total += count
                try limits.check(inputBytes: total)
                try decoder.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        } catch {
            throw bridge.failure ?? error  // the consumer's error, not libpng's report of the stop
        }
    }
}

/// Carries rows from libpng's callback to a consumer: ICC conversion and premultiplication when
/// libpng could not premultiply (a profile must see straight pixels), and the consumer's error.
private final class PNGRowBridge {
    let consumer: any DecodedRowConsuming
    let decoder: PNGPushDecoder
    let width: Int
    let colorManagement: Bool
    let premultiplies: Bool
    let attributes: ((icc: Data?, exif: Data?, xmp: Data?, hasTRNS: Bool)) -> StreamedImageAttributes
    var converter: ColorManagement.Converter?
    /// Whether libpng premultiplied the rows itself (read once, at the first row).
    var rowsPremultiplied = false
    /// The helper thread that finishes the rows, when the decode has one.
    var handoff: RowHandoff?
    var prepared = false
    var failure: (any Error)?

    init(
        consumer: any DecodedRowConsuming, decoder: PNGPushDecoder, width: Int, colorManagement: Bool, premultiplies: Bool,
        attributes: @escaping ((icc: Data?, exif: Data?, xmp: Data?, hasTRNS: Bool)) -> StreamedImageAttributes
    ) {
        self.consumer = consumer
        self.decoder = decoder
        self.width = width
        self.colorManagement = colorManagement
        self.premultiplies = premultiplies
        self.attributes = attributes
    }

    /// Returns 0 to go on, 1 to stop (the error is kept in ``failure``).
    func take(_ pointer: UnsafePointer<UInt8>, y: Int) -> Int32 {
        if !prepared {
            prepared = true
            if colorManagement, let icc = decoder.iccProfile() {
                converter = ColorManagement.converter(for: icc, layout: IMAGO_TYPE_BGRA_8)
            }
            rowsPremultiplied = decoder.rowsPremultiplied
            let header = decoder.header()
            do {
                try consumer.begin(size: attributes(header).pixelSize, attributes: attributes(header))
            } catch {
                failure = error
                return 1
            }
        }
        do {
            if let handoff {
                try handoff.append(pointer, y: y)
            } else {
                // The row is our own buffer (handed to libpng as its output), so writing to it is allowed.
                try finish(UnsafeMutableRawPointer(mutating: pointer), y: y)
            }
            return 0
        } catch {
            failure = error
            return 1
        }
    }

    /// Converts and premultiplies row `y` in place where libpng did not, and hands it to the
    /// consumer: on libpng's thread, or on the handoff's helper thread when there is one.
    func finish(_ pointer: UnsafeMutableRawPointer, y: Int) throws {
        let row = UnsafeMutableRawBufferPointer(start: pointer, count: width * 4)
        if !rowsPremultiplied {
            converter?.convert(row, width: width, height: 1, bytesPerRow: width * 4, threads: 1)  // one row: no bands
            if premultiplies { PixelBuffer.premultiplyARGB32InPlace(row, width: width, height: 1, bytesPerRow: width * 4) }
        }
        try consumer.consume(row: UnsafeRawBufferPointer(row), y: y)
    }
}
