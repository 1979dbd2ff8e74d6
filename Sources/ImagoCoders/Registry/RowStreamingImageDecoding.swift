// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Receives a decoded image one row at a time, top to bottom, so the whole bitmap is never held
/// (the consumer side of ``RowStreamingImageDecoding``).
public protocol DecodedRowConsuming: AnyObject {
    /// Called once, before any row, with the stored size (before orientation).
    ///
    /// - Throws: any error, which stops decoding and is rethrown by the decoder.
    func begin(size: PixelSize) throws

    /// Called with row `y` (0 first) of `size.width` native-endian ARGB32 pixels in sRGB (when
    /// colour management is on), premultiplied unless the attributes given to
    /// ``begin(size:attributes:)`` say otherwise. The memory is valid only during the call.
    ///
    /// - Throws: any error, which stops decoding and is rethrown by the decoder.
    func consume(row: UnsafeRawBufferPointer, y: Int) throws

    /// Called once, before any row, instead of ``begin(size:)`` by decoders that know the
    /// image's attributes (orientation, metadata, alpha) from its header, so a consumer that
    /// writes them ahead of the pixels (an encoder) can. The default calls ``begin(size:)``.
    ///
    /// - Throws: any error, which stops decoding and is rethrown by the decoder.
    func begin(size: PixelSize, attributes: StreamedImageAttributes) throws
}

extension DecodedRowConsuming {
    /// Calls ``begin(size:)``.
    public func begin(size: PixelSize, attributes: StreamedImageAttributes) throws { try begin(size: size) }
}

/// What a streamed decode knows once every row is out: everything of an `Image`
/// but the pixels.
public struct StreamedImageAttributes: Sendable, Equatable {
    /// The stored size, before orientation.
    public var pixelSize: PixelSize
    /// How the stored pixels must be turned to appear upright.
    public var orientation: ImageOrientation
    /// The source format.
    public var format: ImageFormat
    /// ICC profile (only when it was not applied) and EXIF.
    public var metadata: ImageMetadata
    /// Whether the file has an alpha channel or transparency.
    public var hasAlpha: Bool
    /// Whether the rows' colour is multiplied by alpha, as ``DecodedRowConsuming`` rows are by
    /// default; `false` when the decoder was asked for straight alpha (`DecodeOptions.pixelFormat`
    /// `.rgba8`) and can give it (PNG).
    public var rowsArePremultiplied: Bool

    /// Creates attributes; rows are premultiplied unless `rowsArePremultiplied` says otherwise.
    public init(
        pixelSize: PixelSize, orientation: ImageOrientation, format: ImageFormat, metadata: ImageMetadata, hasAlpha: Bool,
        rowsArePremultiplied: Bool = true
    ) {
        self.pixelSize = pixelSize
        self.orientation = orientation
        self.format = format
        self.metadata = metadata
        self.hasAlpha = hasAlpha
        self.rowsArePremultiplied = rowsArePremultiplied
    }
}

/// A decoder that can hand its rows, as they are finished, to a consumer instead of filling a
/// whole bitmap: the path by which scale-down and thumbnails of formats without shrink-on-load
/// (PNG) keep their peak memory near the output plus a few rows rather than the full source.
public protocol RowStreamingImageDecoding: ImageDecoding {
    /// Whether data starting with `prefix` (the first bytes, at least the header: 64 KiB is
    /// plenty) can be streamed in final rows; `false`, for example, for an interlaced PNG, whose
    /// rows are finished only by the last pass.
    func canStreamRows(of prefix: Data) -> Bool

    /// Decodes the bytes `source` gives, handing every row to `consumer` in order, as ARGB32
    /// words: premultiplied, or straight when ``DecodeOptions/pixelFormat`` is `.rgba8` and the
    /// decoder can (PNG; ``StreamedImageAttributes/rowsArePremultiplied`` tells). The input is
    /// read a piece at a time, so neither it nor the bitmap is ever held whole. A decoder that
    /// shrinks while decoding (JPEG) honours ``DecodeOptions/thumbnailPixelSize``; colour
    /// management and limits apply as in ``ImageDecoding/decode(_:options:)``.
    ///
    /// - Throws: what ``ImageDecoding/decode(_:options:)`` throws, `.unsupportedFeature` when
    ///   ``canStreamRows(of:)`` is `false`, the source's read errors, and any error the consumer throws.
    func decodeRows(
        from source: any ImageByteSource, options: DecodeOptions,
        into consumer: any DecodedRowConsuming
    ) throws -> StreamedImageAttributes
}

extension RowStreamingImageDecoding {
    /// Decodes `data` row by row; see ``decodeRows(from:options:into:)``.
    public func decodeRows(_ data: Data, options: DecodeOptions, into consumer: any DecodedRowConsuming) throws -> StreamedImageAttributes {
        try decodeRows(from: DataByteSource(data), options: options, into: consumer)
    }
}
