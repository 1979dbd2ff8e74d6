#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore

/// Decoding straight to a smaller size through a row-streaming decoder, for formats that cannot
/// shrink while loading (PNG): the full-size bitmap is never allocated.
enum StreamedDecoding {
    /// Decodes the still image in `data` resized to `target` (Lanczos3, as ``Resampler``), or
    /// returns `nil` when its decoder cannot stream rows for this data, so the caller decodes whole.
    static func decode(_ data: Data, format: ImageFormat, to target: PixelSize, options: DecodeOptions,
                       coders: ImageCoderRegistry) throws -> Image? {
        guard let decoder = streamingDecoder(for: format, prefix: data, coders: coders) else { return nil }
        return try decode(from: DataByteSource(data), decoder: decoder, to: target, options: options)
    }

    /// The row-streaming decoder for data starting with `prefix`, or `nil`.
    static func streamingDecoder(for format: ImageFormat, prefix: Data, coders: ImageCoderRegistry) -> (any RowStreamingImageDecoding)? {
        guard let decoder = coders.decoder(for: format) as? any RowStreamingImageDecoding,
              decoder.canStreamRows(of: prefix) else { return nil }
        return decoder
    }

    /// Streams `source` through `decoder` into a resampler to `target`.
    static func decode(from source: any ImageByteSource, decoder: any RowStreamingImageDecoding, to target: PixelSize,
                       options: DecodeOptions) throws -> Image {
        let resampler = try StreamingResampler(target: target, limits: options.limits)
        // A decoder that shrinks while decoding (JPEG) hands over rows at the smallest scale that
        // still covers the target in both dimensions; the resampler does the rest.
        var rowOptions = options
        rowOptions.thumbnailPixelSize = target
        rowOptions.preserveAspectRatio = false
        let attributes = try decoder.decodeRows(from: source, options: rowOptions, into: resampler)
        var buffer = try resampler.result()
        if options.pixelFormat != .argb32Premultiplied { buffer = buffer.converted(to: options.pixelFormat) }
        return Image(buffer: buffer, orientation: attributes.orientation, scale: options.scale, format: attributes.format,
                     metadata: attributes.metadata, hasAlpha: attributes.hasAlpha)
    }
}

/// The file's first bytes (already read, to sniff and read the header), then the rest of it.
final class PrefixedByteSource: ImageByteSource {
    private var prefix: Data?
    private let rest: any ImageByteSource

    init(prefix: Data, rest: any ImageByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    func read(maxLength: Int) throws -> Data {
        guard let head = prefix, !head.isEmpty else { return try rest.read(maxLength: maxLength) }
        let n = min(maxLength, head.count)
        prefix = n == head.count ? nil : head.dropFirst(n)
        return head.prefix(n)
    }
}

/// A file opened for a thumbnail or a scale-down: either streamable as it is read, or mapped.
enum FileInput {
    /// Row-streamable data: its header and a source that yields the whole file from the start.
    case streamed(info: ImageInfo, decoder: any RowStreamingImageDecoding, source: any ImageByteSource)
    /// Anything else: the file, mapped where possible.
    case whole(Data)

    /// Opens `url`, reading only its first 64 KiB unless the format cannot stream its rows.
    ///
    /// - Throws: the file's read errors; `ImageCodingError` from the header.
    static func open(_ url: URL, coders: ImageCoderRegistry) throws -> FileInput {
        try open(FileByteSource(url: url), coders: coders) { try Data(contentsOf: url, options: .mappedIfSafe) }
    }

    /// Opens `file` as ``open(_:coders:)-(URL,_)`` opens a path.
    ///
    /// - Throws: the file's read errors; `ImageCodingError` from the header.
    static func open(_ file: ImageFile, coders: ImageCoderRegistry) throws -> FileInput {
        try open(file.makeByteSource(), coders: coders) { try file.contents() }
    }

    private static func open(_ source: any ImageByteSource, coders: ImageCoderRegistry, whole: () throws -> Data) throws -> FileInput {
        let prefix = try source.read(maxLength: 1 << 16)
        if let format = ImageFormat(sniffing: prefix),
           let decoder = StreamedDecoding.streamingDecoder(for: format, prefix: prefix, coders: coders),
           let info = try? decoder.info(of: prefix), info.frameCount == 1 {
            return .streamed(info: info, decoder: decoder, source: PrefixedByteSource(prefix: prefix, rest: source))
        }
        return .whole(try whole())
    }
}
