// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJPEG
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A JPEG encoder fed one row at a time by a row-streaming decoder, so a conversion to JPEG
/// holds a row or two rather than the whole bitmap (libvips's streaming, for the commonest
/// transcode).
///
/// Rows arrive as premultiplied ARGB32 (``DecodedRowConsuming``). Opaque rows go to libjpeg as
/// they are (`JCS_EXT_BGRX`); a row with transparency is flattened over
/// ``EncodeOptions/backgroundColor`` first, as ``JPEGCoder/encode(_:as:options:)`` does. With
/// `gray`, rows are written as a gray JPEG. Quality, progressive scans, chroma subsampling and
/// metadata follow ``JPEGCoder/encode(_:as:options:)``; orientation cannot be baked into rows
/// that stream, so it is written to EXIF unless it is `.up`.
public final class JPEGRowEncoder: DecodedRowConsuming {
    private let options: EncodeOptions
    private let gray: Bool
    private let handle: OpaquePointer
    private var scratch: UnsafeMutableRawBufferPointer?
    private var width = 0
    private var started = false

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - options: Quality, progressive, metadata and background, as for `JPEGCoder`.
    ///   - gray: Write a one-channel JPEG (for a gray source, whose rows have R = G = B).
    /// - Throws: `.invalidArgument` for options out of range; `.encodingFailed` when libjpeg
    ///   cannot be set up.
    public init(options: EncodeOptions, gray: Bool = false) throws {
        try options.validate()
        guard let handle = imago_jpeg_row_encoder_create() else {
            throw ImageCodingError.encodingFailed(.jpeg, "libjpeg's compressor could not be created")
        }
        self.options = options
        self.gray = gray
        self.handle = handle
    }

    deinit {
        imago_jpeg_row_encoder_destroy(handle)
        scratch?.deallocate()
    }

    /// Starts the stream without metadata; ``begin(size:attributes:)`` is what decoders call.
    public func begin(size: PixelSize) throws {
        try begin(
            size: size,
            attributes: StreamedImageAttributes(
                pixelSize: size, orientation: .up, format: .jpeg,
                metadata: ImageMetadata(), hasAlpha: false))
    }

    /// Starts the JPEG stream with the source's EXIF and ICC profile when metadata is kept.
    ///
    /// - Throws: `.encodingFailed` with libjpeg's message.
    public func begin(size: PixelSize, attributes: StreamedImageAttributes) throws {
        guard !started else { throw ImageCodingError.invalidArgument("the JPEG row encoder was started twice") }
        started = true
        width = size.width
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, size.width) * 4, alignment: 16)
        let (exif, icc) = try options.streamedMetadata(attributes)
        let quality = Int32(max(1, min(100, (options.quality * 100).rounded())))
        let status = withOptionalBytes(icc) { iccPtr, iccLen in
            withOptionalBytes(exif) { exifPtr, exifLen in
                var params = imago_jpeg_encode_params()
                params.width = UInt32(size.width)
                params.height = UInt32(size.height)
                params.in_color_space = Int32(bitPattern: (gray ? JCS_GRAYSCALE : Self.wordLayout).rawValue)
                params.components = gray ? 1 : 4
                params.quality = quality
                params.progressive = options.progressive ? 1 : 0
                params.optimize_coding = options.optimizesHuffman(pixels: size.width * size.height) ? 1 : 0
                params.quant_table = options.jpegQuantization == .robidoux ? 1 : 0
                params.chroma_subsample = quality < 90 ? 1 : 0
                params.icc = iccPtr
                params.icc_length = UInt32(iccLen)
                params.exif = exifPtr
                params.exif_length = UInt32(exifLen)
                return imago_jpeg_row_encoder_start(handle, &params)
            }
        }
        try check(status)
    }

    /// Encodes row `y`: premultiplied ARGB32, `size.width` pixels.
    ///
    /// - Throws: `.encodingFailed` with libjpeg's message.
    public func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        guard let scratch, let src = row.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let dst = scratch.baseAddress?.assumingMemoryBound(to: UInt8.self), row.count >= width * 4
        else {
            throw ImageCodingError.invalidArgument("row \(y) arrived before the JPEG stream began, or short")
        }
        let o = PixelFormat.argbOffsets
        var rowStart = UnsafePointer(src)
        if gray {
            for x in 0..<width {
                let p = src + x * 4
                let a = UInt32(p[o.a])
                // Premultiplied gray over the background's gray: c + bg × (255 − a) / 255.
                dst[x] = UInt8(min(255, UInt32(p[o.g]) + (UInt32(options.backgroundColor.g) * (255 - a) + 127) / 255))
            }
            rowStart = UnsafePointer(dst)
        } else {
            var opaque = true
            for x in 0..<width where src[x * 4 + o.a] != 255 {
                opaque = false
                break
            }
            if !opaque {
                let bg = options.backgroundColor
                for x in 0..<width {
                    let p = src + x * 4, q = dst + x * 4
                    let a = UInt32(p[o.a])
                    @inline(__always) func over(_ c: UInt8, _ b: UInt8) -> UInt8 {
                        UInt8(min(255, UInt32(c) + (UInt32(b) * (255 - a) + 127) / 255))
                    }
                    q[o.r] = over(p[o.r], bg.r)
                    q[o.g] = over(p[o.g], bg.g)
                    q[o.b] = over(p[o.b], bg.b)
                    q[o.a] = 255
                }
                rowStart = UnsafePointer(dst)
            }
        }
        try check(imago_jpeg_row_encoder_write(handle, rowStart, gray ? width : width * 4, 1))
    }

    /// Native-endian ARGB32 words as libjpeg names their bytes: B, G, R, X on little-endian.
    private static var wordLayout: J_COLOR_SPACE {
        #if _endian(little)
        JCS_EXT_BGRX
        #else
        JCS_EXT_XRGB
        #endif
    }

    /// Finishes the stream and returns the JPEG.
    ///
    /// - Throws: `.encodingFailed` when rows are missing or libjpeg fails.
    public func finish() throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        try check(imago_jpeg_row_encoder_finish(handle, &out, &length))
        guard let out else { throw ImageCodingError.encodingFailed(.jpeg, "libjpeg returned no data") }
        defer { imago_free(out) }
        return Data(bytes: out, count: length)
    }

    private func check(_ status: Int32) throws {
        guard status == Int32(IMAGO_OK) else {
            throw ImageCodingError.encodingFailed(.jpeg, String(cString: imago_jpeg_row_encoder_message(handle)))
        }
    }
}
