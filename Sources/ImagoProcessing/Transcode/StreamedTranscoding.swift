#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCoders
public import ImagoCore

/// Conversions that flow from decoder to encoder in rows, as libvips runs them: a PNG or JPEG
/// converted to JPEG or PNG holds a band of rows, never the whole bitmap, so its memory does not
/// grow with the image's height.
///
/// A conversion streams when the source's decoder streams rows (a JPEG, a non-interlaced PNG),
/// the source is a still, the output is JPEG or non-interlaced PNG, and no orientation has to be
/// baked into the pixels (the source is upright, or the options write orientation to EXIF).
/// Otherwise ``transcode(contentsOf:to:options:decodeOptions:coders:)`` returns `nil` and the
/// caller decodes whole. PNG output gets straight-alpha rows, so no visible pixel changes; JPEG
/// output flattens premultiplied rows over the background colour.
public enum StreamedTranscoding {
    /// Converts the file at `url` to `format` row by row, or returns `nil` when this conversion
    /// cannot stream (see the type's description).
    ///
    /// - Parameters:
    ///   - url: The source file; it is read in pieces.
    ///   - format: The output format.
    ///   - options: Encoding options, as for `ImageCoderRegistry.encode(_:as:options:)`. Default `.default`.
    ///   - decodeOptions: Colour management and limits. Default `.default`.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    /// - Throws: the file's read errors, `ImageCodingError` from decoding or encoding.
    public static func transcode(contentsOf url: URL, to format: ImageFormat, options: EncodeOptions = .default,
                                 decodeOptions: DecodeOptions = .default, coders: ImageCoderRegistry = .shared) throws -> Data? {
        guard canEncodeRows(format, options, coders) else { return nil }
        guard case .streamed(let info, let decoder, let source) = try FileInput.open(url, coders: coders) else { return nil }
        return try transcode(info: info, decoder: decoder, source: source, to: format, options: options,
                             decodeOptions: decodeOptions)
    }

    /// Converts `data` to `format` row by row, or returns `nil` when it cannot stream.
    ///
    /// - Throws: `ImageCodingError` from decoding or encoding.
    public static func transcode(_ data: Data, to format: ImageFormat, options: EncodeOptions = .default,
                                 decodeOptions: DecodeOptions = .default, coders: ImageCoderRegistry = .shared) throws -> Data? {
        guard canEncodeRows(format, options, coders), let sniffed = ImageFormat(sniffing: data),
              let decoder = StreamedDecoding.streamingDecoder(for: sniffed, prefix: data, coders: coders),
              let info = try? decoder.info(of: data) else { return nil }
        return try transcode(info: info, decoder: decoder, source: DataByteSource(data), to: format, options: options,
                             decodeOptions: decodeOptions)
    }

    /// Whether `format` has a row encoder here and the registry's encoder for it is Imago's own.
    private static func canEncodeRows(_ format: ImageFormat, _ options: EncodeOptions, _ coders: ImageCoderRegistry) -> Bool {
        switch format {
        case .jpeg: coders.encoder(for: .jpeg) is JPEGCoder
        case .png: !options.progressive && coders.encoder(for: .png) is PNGCoder
        default: false
        }
    }

    private static func transcode(info: ImageInfo, decoder: any RowStreamingImageDecoding, source: any ImageByteSource,
                                  to format: ImageFormat, options: EncodeOptions, decodeOptions: DecodeOptions) throws -> Data? {
        guard info.frameCount == 1, info.orientation == .up || options.orientation == .writeEXIF else { return nil }
        var rowOptions = decodeOptions
        rowOptions.thumbnailPixelSize = nil
        rowOptions.page = nil
        if format == .png {
            rowOptions.pixelFormat = .rgba8   // straight rows where the decoder can give them
            let encoder = try PNGRowEncoder(options: options, gray: info.isGrayscale)
            _ = try decoder.decodeRows(from: source, options: rowOptions, into: encoder)
            return try encoder.finish()
        }
        rowOptions.pixelFormat = .argb32Premultiplied
        let encoder = try JPEGRowEncoder(options: options, gray: info.isGrayscale)
        _ = try decoder.decodeRows(from: source, options: rowOptions, into: encoder)
        return try encoder.finish()
    }
}
