#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCoders
public import ImagoCore

/// Conversions that flow from decoder to encoder in rows, as libvips runs them: a PNG or JPEG
/// converted to JPEG holds a band of rows, never the whole bitmap, so its memory does not grow
/// with the image's height.
///
/// A conversion streams when the source's decoder streams rows (a JPEG, a non-interlaced PNG),
/// the source is a still, the output is JPEG, and no orientation has to be baked into the pixels
/// (the source is upright, or the options write orientation to EXIF). Otherwise ``transcode(contentsOf:to:options:decodeOptions:coders:)``
/// returns `nil` and the caller decodes whole.
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
        guard format == .jpeg, coders.encoder(for: .jpeg) is JPEGCoder else { return nil }
        guard case .streamed(let info, let decoder, let source) = try FileInput.open(url, coders: coders) else { return nil }
        return try transcode(info: info, decoder: decoder, source: source, options: options, decodeOptions: decodeOptions)
    }

    /// Converts `data` to `format` row by row, or returns `nil` when it cannot stream.
    ///
    /// - Throws: `ImageCodingError` from decoding or encoding.
    public static func transcode(_ data: Data, to format: ImageFormat, options: EncodeOptions = .default,
                                 decodeOptions: DecodeOptions = .default, coders: ImageCoderRegistry = .shared) throws -> Data? {
        guard format == .jpeg, coders.encoder(for: .jpeg) is JPEGCoder, let sniffed = ImageFormat(sniffing: data),
              let decoder = StreamedDecoding.streamingDecoder(for: sniffed, prefix: data, coders: coders),
              let info = try? decoder.info(of: data) else { return nil }
        return try transcode(info: info, decoder: decoder, source: DataByteSource(data), options: options, decodeOptions: decodeOptions)
    }

    private static func transcode(info: ImageInfo, decoder: any RowStreamingImageDecoding, source: any ImageByteSource,
                                  options: EncodeOptions, decodeOptions: DecodeOptions) throws -> Data? {
        guard info.frameCount == 1, info.orientation == .up || options.orientation == .writeEXIF else { return nil }
        var rowOptions = decodeOptions
        rowOptions.thumbnailPixelSize = nil
        rowOptions.page = nil
        let encoder = try JPEGRowEncoder(options: options, gray: info.isGrayscale)
        _ = try decoder.decodeRows(from: source, options: rowOptions, into: encoder)
        return try encoder.finish()
    }
}
