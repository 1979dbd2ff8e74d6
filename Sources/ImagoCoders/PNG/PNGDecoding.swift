// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CLCMS2
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One libpng push decoder writing into caller-owned memory; shared by one-shot and
/// progressive decoding so both produce the same pixels.
final class PNGPushDecoder {
    let handle: OpaquePointer
    let ihdr: PNGChunks.IHDR
    let options: DecodeOptions
    /// Whether libpng writes B,G,R,A (display order on little-endian) rather than R,G,B,A.
    let bgra: Bool

    /// Creates a decoder for `ihdr` writing 4-byte pixels with rows `stride` apart.
    init(ihdr: PNGChunks.IHDR, options: DecodeOptions, output: UnsafeMutableRawPointer?, stride: Int) throws {
        self.ihdr = ihdr
        self.options = options
        bgra = options.pixelFormat == .argb32Premultiplied && PixelFormat.argbOffsets.b == 0
        guard
            let h = imago_png_decoder_create(
                output?.assumingMemoryBound(to: UInt8.self), stride, bgra ? 1 : 0,
                options.colorManagement ? 1 : 0,
                UInt32(clamping: ihdr.width), UInt32(clamping: ihdr.height))
        else {
            throw ImageCodingError.corrupt(.png, "could not create a libpng decoder (out of memory)")
        }
        handle = h
        // Premultiply rows inside libpng's row callback, cache-hot. The glue switches this off
        // for interlaced images and when an ICC profile will be applied to the straight pixels.
        if options.pixelFormat == .argb32Premultiplied {
            imago_png_decoder_premultiply_rows(h, 1)
        }
    }

    var rowsPremultiplied: Bool { imago_png_decoder_premultiplied_rows(handle) != 0 }

    deinit { imago_png_decoder_destroy(handle) }

    var isFinished: Bool { imago_png_finished(handle) != 0 }

    /// Feeds bytes not fed before.
    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let status = imago_png_feed(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        if status == Int32(IMAGO_ERROR) {
            let message = String(cString: imago_png_decoder_message(handle))
            throw ImageCodingError.corrupt(.png, message)
        }
    }

    /// The decompressed iCCP profile, once libpng has read it. (EXIF comes from
    /// ``PNGChunks``, which reads eXIf wherever it stands, before or after IDAT.)
    func iccProfile() -> Data? { header().icc }

    /// What libpng has read of the colour and metadata chunks so far (after the end: all of them,
    /// eXIf included wherever it stood).
    func header() -> (icc: Data?, exif: Data?, xmp: Data?, hasTRNS: Bool) {
        var h = imago_png_header()
        guard imago_png_get_header(handle, &h) == Int32(IMAGO_OK) else { return (nil, nil, nil, false) }
        return (
            h.icc.map { Data(bytes: $0, count: Int(h.icc_length)) },
            h.exif.map { Data(bytes: $0, count: Int(h.exif_length)) },
            h.xmp.map { Data(bytes: $0, count: min(h.xmp_length, XMP.scanLimit)) }, h.has_trns != 0
        )
    }

    /// The XMP packet read for its orientation, from the decoder's own copy.
    var xmp: Data? { header().xmp }

    /// The iCCP profile of a PNG, read by libpng from the chunks before image data (no pixels decoded).
    static func iccProfile(in data: Data) -> Data? {
        guard let ihdr = try? PNGChunks.readIHDR(data),
            let decoder = try? PNGPushDecoder(ihdr: ihdr, options: DecodeOptions(colorManagement: false), output: nil, stride: 0)
        else { return nil }
        let end = data.withUnsafeBytes { PNGChunks.offsetOfFirstIDAT(in: $0) }.map { min(data.count, $0 + 8) } ?? data.count
        try? data.prefix(end).withUnsafeBytes { try decoder.feed($0) }
        return decoder.iccProfile()
    }

    /// Rows written so far (the highest row touched in any pass).
    var rowsWritten: Int {
        var pass: Int32 = 0, inPass: UInt32 = 0, highest: UInt32 = 0
        imago_png_progress(handle, &pass, &inPass, &highest)
        return Int(highest)
    }

    /// Straight 4-byte pixels from libpng to the caller's format: ICC to sRGB, premultiply.
    ///
    /// Takes the buffer `inout` and works in place, so no copy of the pixels is made.
    func finish(
        _ buffer: inout PixelBuffer, icc: Data?, exif: Data?, xmp: Data? = nil, hasAlpha: Bool, format: ImageFormat,
        incremental: Bool
    ) -> Image {
        let convertedICC = options.colorManagement && icc != nil
        if convertedICC, let icc {
            let w = buffer.width, h = buffer.height, stride = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { p in
                _ = ColorManagement.convertToSRGB(
                    p, width: w, height: h, bytesPerRow: stride, profile: icc,
                    layout: bgra ? IMAGO_TYPE_BGRA_8 : IMAGO_TYPE_RGBA_8, threads: CodecThreads.limit(options.maxThreads))
            }
        }
        if options.pixelFormat == .argb32Premultiplied {
            if hasAlpha, !rowsPremultiplied || convertedICC {
                let w = buffer.width, h = buffer.height, stride = buffer.bytesPerRow
                buffer.withUnsafeMutableBytes { PixelBuffer.premultiplyARGB32InPlace($0, width: w, height: h, bytesPerRow: stride) }
            }
        } else {
            buffer = buffer.converted(to: options.pixelFormat)
        }
        return Image(
            buffer: buffer, orientation: ImageOrientation(exif: exif, xmp: xmp), scale: options.scale,
            format: format, metadata: ImageMetadata(iccProfile: convertedICC ? nil : icc, exif: exif),
            hasAlpha: hasAlpha, isIncremental: incremental)
    }

    /// The format libpng writes into: display byte order, or straight RGBA.
    var rawFormat: PixelFormat { bgra ? .argb32Premultiplied : .rgba8 }
}
