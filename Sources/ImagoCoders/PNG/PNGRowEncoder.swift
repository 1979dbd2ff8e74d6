// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CPNG
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A PNG encoder fed one row at a time by a row-streaming decoder, so a conversion to PNG holds
/// a row rather than the whole bitmap.
///
/// The colour type comes from the source as its header describes it: gray or RGB, with alpha
/// when the source has any (``StreamedImageAttributes/hasAlpha``). Rows should arrive with
/// straight alpha (``StreamedImageAttributes/rowsArePremultiplied`` `false`, which a PNG source
/// gives when asked for `PixelFormat.rgba8`), so no level is lost; premultiplied rows are
/// unpremultiplied. The ICC profile follows `PNGCoder`'s rules where they can be decided
/// without the pixels: a gray profile is kept on a gray source and left out on colour, an RGB
/// one on a gray source makes the PNG RGB. Interlacing needs every row at once and is refused.
public final class PNGRowEncoder: DecodedRowConsuming {
    private let options: EncodeOptions
    private let gray: Bool
    private let handle: OpaquePointer
    private var scratch: UnsafeMutableRawBufferPointer?
    private var width = 0
    private var channels = 4
    private var colorIsGray = false
    private var keepsAlpha = true
    private var premultiplied = true

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - options: Compression level and metadata, as for `PNGCoder`.
    ///   - gray: The source is gray (its rows have R = G = B): write a gray PNG.
    /// - Throws: `.invalidArgument` for options out of range or interlacing; `.encodingFailed`
    ///   when libpng cannot be set up.
    public init(options: EncodeOptions, gray: Bool = false) throws {
        try options.validate()
        guard !options.progressive else {
            throw ImageCodingError.invalidArgument("an interlaced PNG needs every row at once and cannot be written as rows stream")
        }
        guard let handle = imago_png_row_encoder_create() else {
            throw ImageCodingError.encodingFailed(.png, "libpng's writer could not be created")
        }
        self.options = options
        self.gray = gray
        self.handle = handle
    }

    deinit {
        imago_png_row_encoder_destroy(handle)
        scratch?.deallocate()
    }

    /// Starts an RGBA stream without metadata; ``begin(size:attributes:)`` is what decoders call.
    public func begin(size: PixelSize) throws {
        try begin(
            size: size,
            attributes: StreamedImageAttributes(
                pixelSize: size, orientation: .up, format: .png,
                metadata: ImageMetadata(), hasAlpha: true))
    }

    /// Writes the header with the source's EXIF and fitting ICC profile when metadata is kept.
    ///
    /// - Throws: `.encodingFailed` with libpng's message.
    public func begin(size: PixelSize, attributes: StreamedImageAttributes) throws {
        guard scratch == nil else { throw ImageCodingError.invalidArgument("the PNG row encoder was started twice") }
        width = size.width
        premultiplied = attributes.rowsArePremultiplied
        keepsAlpha = attributes.hasAlpha
        let (exif, icc) = try options.streamedMetadata(attributes)
        var profile = icc
        colorIsGray = gray
        if let icc {
            switch PNGColorProfile.colorSpace(of: icc) {
            case "GRAY": if !gray { profile = nil }
            case "RGB ": colorIsGray = false
            default: profile = nil
            }
        }
        channels = (colorIsGray ? 1 : 3) + (keepsAlpha ? 1 : 0)
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, size.width) * 4, alignment: 16)
        let colorType =
            colorIsGray
            ? (keepsAlpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY)
            : (keepsAlpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB)
        let status = withOptionalBytes(profile) { iccPtr, iccLen in
            withOptionalBytes(exif) { exifPtr, exifLen in
                var params = imago_png_encode_params()
                params.width = UInt32(size.width)
                params.height = UInt32(size.height)
                params.color_type = colorType
                params.compression_level = Int32(options.compressionLevel)
                params.interlace = 0
                params.icc = iccPtr
                params.icc_length = UInt32(iccLen)
                params.exif = exifPtr
                params.exif_length = UInt32(exifLen)
                return imago_png_row_encoder_start(handle, &params)
            }
        }
        try check(status)
    }

    /// Encodes row `y`: native-endian ARGB32 words, `size.width` of them.
    ///
    /// - Throws: `.encodingFailed` with libpng's message.
    public func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        guard let scratch, let src = row.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let dst = scratch.baseAddress?.assumingMemoryBound(to: UInt8.self), row.count >= width * 4
        else {
            throw ImageCodingError.invalidArgument("row \(y) arrived before the PNG stream began, or short")
        }
        let o = PixelFormat.argbOffsets
        let n = channels
        for x in 0..<width {
            let p = src + x * 4, q = dst + x * n
            let a = p[o.a]
            var r = p[o.r], g = p[o.g], b = p[o.b]
            if premultiplied, a != 255 {
                r = PixelMath.unpremultiply(r, a)
                g = PixelMath.unpremultiply(g, a)
                b = PixelMath.unpremultiply(b, a)
            }
            if colorIsGray {
                q[0] = g
            } else {
                q[0] = r
                q[1] = g
                q[2] = b
            }
            if keepsAlpha { q[n - 1] = a }
        }
        try check(imago_png_row_encoder_write(handle, UnsafePointer(dst), width * n, 1))
    }

    /// Finishes the stream and returns the PNG.
    ///
    /// - Throws: `.encodingFailed` when rows are missing or libpng fails.
    public func finish() throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        try check(imago_png_row_encoder_finish(handle, &out, &length))
        guard let out else { throw ImageCodingError.encodingFailed(.png, "libpng returned no data") }
        defer { imago_free(out) }
        return Data(bytes: out, count: length)
    }

    private func check(_ status: Int32) throws {
        guard status == Int32(IMAGO_OK) else {
            throw ImageCodingError.encodingFailed(.png, String(cString: imago_png_row_encoder_message(handle)))
        }
    }
}
