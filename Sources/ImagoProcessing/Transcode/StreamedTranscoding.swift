// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Conversions that flow from decoder to encoder in rows, as libvips runs them: a PNG or JPEG
/// converted to JPEG or PNG holds a band of rows, never the whole bitmap, so its memory does not
/// grow with the image's height; converted to lossy WebP it holds the YUV picture libwebp
/// encodes from (1.5 bytes a pixel), never a 4-byte bitmap beside it; converted to BMP (opaque
/// and upright) its rows go straight into the file, as `djpeg -bmp` writes.
///
/// A conversion streams when the source's decoder streams rows (a JPEG, a non-interlaced PNG),
/// the source is a still, the output is JPEG, non-interlaced PNG or lossy WebP, and no
/// orientation has to be baked into the pixels (the source is upright, or the options write
/// orientation to EXIF). Otherwise ``transcode(_:to:options:decodeOptions:coders:metadata:)``
/// returns `nil` and the caller decodes whole. PNG and WebP output get straight-alpha rows, so
/// no visible pixel changes (WebP's bytes are the whole-image encoder's); JPEG output flattens
/// premultiplied rows over the background colour.
public enum StreamedTranscoding {
    /// Converts `input` to `format` row by row, reading a file a piece at a time, or returns
    /// `nil` when this conversion cannot stream (see the type's description), for the caller to
    /// decode whole.
    ///
    /// - Parameters:
    ///   - input: The source: bytes or a file.
    ///   - format: The output format.
    ///   - options: Encoding options, as for `ImageCoderRegistry.encode(_:as:options:)`. Default `.default`.
    ///   - decodeOptions: Colour management and limits. Default `.default`.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    ///   - metadata: Rewrites the source's metadata before it is written (a service stripping
    ///     it, say); default `nil` writes it as `options.keepMetadata` says.
    /// - Throws: `ImageCodingError` from the header, decoding or encoding; the file's read errors.
    public static func transcode(
        _ input: ImageInput, to format: ImageFormat, options: EncodeOptions = .default,
        decodeOptions: DecodeOptions = .default, coders: ImageCoderRegistry = .shared,
        metadata: (@Sendable (ImageMetadata) -> ImageMetadata)? = nil
    ) throws -> Data? {
        guard canEncodeRows(format, options, coders) else { return nil }
        let info = try input.info(coders: coders)
        guard streams(info, to: format, options: options, coders: coders),
            let decoder = try DecodePlanner.streamingDecoder(for: input, info: info, coders: coders)
        else { return nil }
        return try transcode(
            info: info, decoder: decoder, source: input.makeByteSource(), to: format, options: options,
            decodeOptions: decodeOptions, coders: coders, metadata: metadata)
    }

    /// Whether a conversion of a still with this header to `format` streams (see the type's
    /// description); the decoder must also stream this input's rows.
    public static func streams(
        _ info: ImageInfo, to format: ImageFormat, options: EncodeOptions = .default,
        coders: ImageCoderRegistry = .shared
    ) -> Bool {
        guard canEncodeRows(format, options, coders), info.frameCount == 1 else { return false }
        // BMP carries no EXIF to record a turn in, and only its opaque rows stream.
        if format == .bmp { return info.orientation == .up && !info.hasAlpha }
        return info.orientation == .up || options.orientation == .writeEXIF
    }

    /// Whether `format` has a row encoder here and the registry's encoder for it is Imago's own.
    private static func canEncodeRows(_ format: ImageFormat, _ options: EncodeOptions, _ coders: ImageCoderRegistry) -> Bool {
        switch format {
        case .jpeg: coders.encoder(for: .jpeg) is JPEGCoder
        case .png: !options.progressive && coders.encoder(for: .png) is PNGCoder
        case .webp: !options.lossless && coders.encoder(for: .webp) is WebPCoder
        case .bmp: coders.encoder(for: .bmp) is BMPCoder
        default: false
        }
    }

    private static func transcode(
        info: ImageInfo, decoder: any RowStreamingImageDecoding, source: any ImageByteSource,
        to format: ImageFormat, options: EncodeOptions, decodeOptions: DecodeOptions,
        coders: ImageCoderRegistry, metadata: (@Sendable (ImageMetadata) -> ImageMetadata)? = nil
    ) throws -> Data? {
        guard info.frameCount == 1, info.orientation == .up || options.orientation == .writeEXIF else { return nil }
        func into(_ encoder: any DecodedRowConsuming) -> any DecodedRowConsuming {
            metadata.map { MetadataRewriter(encoder, rewrite: $0) } ?? encoder
        }
        var rowOptions = decodeOptions
        rowOptions.sourceFormat = info.format
        rowOptions.thumbnailPixelSize = nil
        rowOptions.page = nil
        // The encoder's side on a helper thread, as libwebp runs its own: off for work that
        // must stay on its lane (`maxThreads` 1).
        rowOptions.rowHelperThread = CodecThreads.limit(options.maxThreads) > 1
        if format == .png {
            rowOptions.pixelFormat = .rgba8  // straight rows where the decoder can give them
            let encoder = try PNGRowEncoder(options: options, gray: info.isGrayscale)
            _ = try decoder.decodeRows(from: source, options: rowOptions, into: into(encoder))
            return try encoder.finish()
        }
        if format == .webp {
            rowOptions.pixelFormat = .rgba8  // straight rows where the decoder can give them
            let encoder = try WebPRowEncoder(options: options, method: (coders.encoder(for: .webp) as? WebPCoder)?.method ?? 4)
            _ = try decoder.decodeRows(from: source, options: rowOptions, into: into(encoder))
            return try encoder.finish()
        }
        rowOptions.pixelFormat = .argb32Premultiplied
        if format == .bmp {
            guard !info.hasAlpha, info.orientation == .up else { return nil }
            let encoder = BMPRowEncoder()
            _ = try decoder.decodeRows(from: source, options: rowOptions, into: encoder)
            return try encoder.finish()
        }
        let encoder = try JPEGRowEncoder(options: options, gray: info.isGrayscale)
        _ = try decoder.decodeRows(from: source, options: rowOptions, into: into(encoder))
        return try encoder.finish()
    }
}

/// Hands rows on unchanged, and the attributes with their metadata rewritten.
private final class MetadataRewriter: DecodedRowConsuming {
    private let next: any DecodedRowConsuming
    private let rewrite: @Sendable (ImageMetadata) -> ImageMetadata

    init(_ next: any DecodedRowConsuming, rewrite: @escaping @Sendable (ImageMetadata) -> ImageMetadata) {
        self.next = next
        self.rewrite = rewrite
    }

    func begin(size: PixelSize) throws { try next.begin(size: size) }

    func begin(size: PixelSize, attributes: StreamedImageAttributes) throws {
        var rewritten = attributes
        rewritten.metadata = rewrite(attributes.metadata)
        try next.begin(size: size, attributes: rewritten)
    }

    func consume(row: UnsafeRawBufferPointer, y: Int) throws { try next.consume(row: row, y: y) }
}
