// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A lossy WebP encoder fed rows by a row-streaming decoder: each band of rows is turned into
/// YUV 4:2:0 (and alpha) by libwebp's own importer as it arrives, so a conversion to WebP holds
/// the picture libwebp encodes from (1.5 bytes a pixel, 2.5 with alpha) and a band, never a
/// bitmap of 4 bytes a pixel beside it.
///
/// The output is the bytes ``WebPCoder/encode(_:as:options:)`` writes for the same pixels:
/// libwebp converts a picture two rows at a time, each pair on its own, so bands of an even
/// number of rows convert exactly as the whole, and alpha is kept only when some pixel is not
/// opaque. Rows should arrive with straight alpha (``StreamedImageAttributes/rowsArePremultiplied``
/// `false`; a PNG gives them when asked for `PixelFormat.rgba8`); premultiplied rows with alpha
/// are unpremultiplied as `PixelBuffer.converted(to:)` does. Lossless WebP needs every pixel at
/// once and is refused; orientation is written to EXIF unless it is `.up`.
public final class WebPRowEncoder: DecodedRowConsuming {
    /// Rows per band: even, so libwebp's row pairs never straddle two bands.
    static let bandRows = 16

    private let options: EncodeOptions
    private let method: Int
    private var picture = WebPPicture()
    private var pictureReady = false
    private var band: UnsafeMutableRawBufferPointer?
    private var bandFilled = 0
    private var width = 0
    private var height = 0
    private var nextRow = 0
    private var hasAlphaPlane = false
    private var sawTransparency = false
    private var premultiplied = true
    private var metadata: (exif: Data?, icc: Data?) = (nil, nil)

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - options: Quality and metadata, as for ``WebPCoder``.
    ///   - method: libwebp's effort, 0 (fast) to 6 (small); default 4, as ``WebPCoder``'s.
    /// - Throws: `.invalidArgument` for options out of range, or lossless, which needs every
    ///   pixel at once.
    public init(options: EncodeOptions, method: Int = 4) throws {
        try options.validate()
        guard !options.lossless else {
            throw ImageCodingError.invalidArgument("lossless WebP needs every pixel at once and cannot be written as rows stream")
        }
        self.options = options
        self.method = method
    }

    deinit {
        if pictureReady { WebPPictureFree(&picture) }
        band?.deallocate()
    }

    /// Starts an opaque stream without metadata; ``begin(size:attributes:)`` is what decoders call.
    public func begin(size: PixelSize) throws {
        try begin(
            size: size,
            attributes: StreamedImageAttributes(
                pixelSize: size, orientation: .up, format: .webp,
                metadata: ImageMetadata(), hasAlpha: false))
    }

    /// Allocates the picture's planes (with an alpha plane when the source has alpha) and keeps
    /// the metadata to write.
    ///
    /// - Throws: `.encodingFailed` when the size is over WebP's 16383 or the planes cannot be
    ///   allocated; `.invalidArgument` when started twice.
    public func begin(size: PixelSize, attributes: StreamedImageAttributes) throws {
        guard !pictureReady else { throw ImageCodingError.invalidArgument("the WebP row encoder was started twice") }
        guard size.width > 0, size.height > 0, size.width <= WEBP_MAX_DIMENSION, size.height <= WEBP_MAX_DIMENSION else {
            throw ImageCodingError.encodingFailed(.webp, "\(size.width)x\(size.height) is over WebP's largest side, \(WEBP_MAX_DIMENSION)")
        }
        guard WebPPictureInitInternal(&picture, WEBP_ENCODER_ABI_VERSION) != 0 else {
            throw ImageCodingError.encoderUnavailable(.webp)
        }
        width = size.width
        height = size.height
        hasAlphaPlane = attributes.hasAlpha
        premultiplied = attributes.rowsArePremultiplied
        picture.use_argb = 0
        picture.width = Int32(width)
        picture.height = Int32(height)
        picture.colorspace = hasAlphaPlane ? WEBP_YUV420A : WEBP_YUV420
        guard WebPPictureAlloc(&picture) != 0 else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp could not allocate the picture (out of memory)")
        }
        pictureReady = true
        band = UnsafeMutableRawBufferPointer.allocate(byteCount: width * 4 * Self.bandRows, alignment: 16)
        metadata = try options.streamedMetadata(attributes)
    }

    /// Takes row `y`: native ARGB32 words, `size.width` of them.
    ///
    /// - Throws: `.invalidArgument` for a row out of order or short; `.encodingFailed` when a
    ///   band cannot be converted.
    public func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        guard let band, y == nextRow, y < height, row.count >= width * 4, let src = row.baseAddress else {
            throw ImageCodingError.invalidArgument("row \(y) arrived out of order, before the WebP stream began, or short")
        }
        let stride = width * 4
        band.baseAddress?.advanced(by: bandFilled * stride).copyMemory(from: src, byteCount: stride)
        bandFilled += 1
        nextRow += 1
        if bandFilled == Self.bandRows || nextRow == height { try flushBand() }
    }

    /// Converts the rows of the band to the picture's planes, through a picture of the band's
    /// size that libwebp imports as it would the whole.
    private func flushBand() throws {
        guard let band, bandFilled > 0 else { return }
        let rows = bandFilled, stride = width * 4, top = nextRow - rows
        bandFilled = 0
        let filled = UnsafeMutableRawBufferPointer(rebasing: band[0..<(rows * stride)])
        let opaque = try straightenBand(filled, rows: rows)
        var piece = WebPPicture()
        guard WebPPictureInitInternal(&piece, WEBP_ENCODER_ABI_VERSION) != 0 else { throw ImageCodingError.encoderUnavailable(.webp) }
        defer { WebPPictureFree(&piece) }
        piece.use_argb = 0
        piece.width = Int32(width)
        piece.height = Int32(rows)
        let base = filled.baseAddress?.assumingMemoryBound(to: UInt8.self)
        // Native ARGB32 words are B, G, R, A in memory on little-endian.
        #if _endian(little)
        let imported = opaque ? WebPPictureImportBGRX(&piece, base, Int32(stride)) : WebPPictureImportBGRA(&piece, base, Int32(stride))
        #else
        let o = PixelFormat.argbOffsets
        let imported: Int32 = try {
            var rgba = [UInt8](repeating: 0, count: rows * stride)
            for i in Swift.stride(from: 0, to: rows * stride, by: 4) {
                rgba[i] = filled[i + o.r]
                rgba[i + 1] = filled[i + o.g]
                rgba[i + 2] = filled[i + o.b]
                rgba[i + 3] = filled[i + o.a]
            }
            return opaque ? WebPPictureImportRGBX(&piece, rgba, Int32(stride)) : WebPPictureImportRGBA(&piece, rgba, Int32(stride))
        }()
        #endif
        try copyPlanes(from: piece, imported: imported, top: top, rows: rows)
    }

    /// Whether the band's rows are opaque (always so without an alpha plane); rows that are not
    /// mark the stream transparent and, when premultiplied, are made straight in place.
    private func straightenBand(_ filled: UnsafeMutableRawBufferPointer, rows: Int) throws -> Bool {
        let o = PixelFormat.argbOffsets
        var opaque = true
        if hasAlphaPlane {
            for i in Swift.stride(from: o.a, to: filled.count, by: 4) where filled[i] != 255 {
                opaque = false
                break
            }
        }
        if !opaque {
            sawTransparency = true
            if premultiplied { try Self.unpremultiply(filled, width: width, rows: rows) }
        }
        return opaque
    }

    /// Copies the band's imported planes (`rows` rows from row `top`; alpha opaque when the band
    /// had none) into the picture's.
    private func copyPlanes(from piece: WebPPicture, imported: Int32, top: Int, rows: Int) throws {
        guard imported != 0, let y = piece.y, let u = piece.u, let v = piece.v, let dy = picture.y, let du = picture.u, let dv = picture.v else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp could not convert the rows (out of memory)")
        }
        for r in 0..<rows {
            (dy + (top + r) * Int(picture.y_stride)).update(from: y + r * Int(piece.y_stride), count: width)
        }
        let uvWidth = (width + 1) / 2, uvTop = top / 2
        for r in 0..<((rows + 1) / 2) {
            (du + (uvTop + r) * Int(picture.uv_stride)).update(from: u + r * Int(piece.uv_stride), count: uvWidth)
            (dv + (uvTop + r) * Int(picture.uv_stride)).update(from: v + r * Int(piece.uv_stride), count: uvWidth)
        }
        if hasAlphaPlane, let da = picture.a {
            for r in 0..<rows {
                let line = da + (top + r) * Int(picture.a_stride)
                if let a = piece.a {
                    line.update(from: a + r * Int(piece.a_stride), count: width)
                } else {
                    line.update(repeating: 255, count: width)
                }
            }
        }
    }

    /// Straight alpha from premultiplied words, exactly as `PixelBuffer.converted(to: .rgba8)`
    /// computes it (then back into native word order).
    private static func unpremultiply(_ rows: UnsafeMutableRawBufferPointer, width: Int, rows count: Int) throws {
        let words = try PixelBuffer(width: width, height: count, format: .argb32Premultiplied, bytes: [UInt8](rows))
        let straight = words.converted(to: .rgba8)
        let o = PixelFormat.argbOffsets
        straight.withUnsafeBytes { s in
            for i in Swift.stride(from: 0, to: width * count * 4, by: 4) {
                rows[i + o.r] = s[i]
                rows[i + o.g] = s[i + 1]
                rows[i + o.b] = s[i + 2]
                rows[i + o.a] = s[i + 3]
            }
        }
    }

    /// Encodes the picture and returns the WebP, with ICC and EXIF when metadata is kept.
    ///
    /// - Throws: `.encodingFailed` when rows are missing or libwebp fails.
    public func finish() throws -> Data {
        guard pictureReady, nextRow == height else {
            throw ImageCodingError.encodingFailed(.webp, "the stream ended after \(nextRow) of \(height) rows")
        }
        if hasAlphaPlane, !sawTransparency {
            // Opaque after all: no alpha plane, as the whole-image encoder writes it.
            picture.colorspace = WEBP_YUV420
            picture.a = nil
            picture.a_stride = 0
        }
        guard var config = WebPCoder.makeConfig(options: options, method: method) else {
            throw ImageCodingError.invalidArgument("libwebp rejected the encoder configuration")
        }
        return try WebPCoder.encode(&picture, config: &config, icc: metadata.icc, exif: metadata.exif)
    }
}
