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
                       coders: ImageCoders) throws -> Image? {
        guard let decoder = coders.decoder(for: format) as? any RowStreamingImageDecoding,
              decoder.canStreamRows(of: data) else { return nil }
        let resampler = try StreamingResampler(target: target, limits: options.limits)
        let attributes = try decoder.decodeRows(data, options: options, into: resampler)
        var buffer = try resampler.result()
        if options.pixelFormat != .argb32Premultiplied { buffer = buffer.converted(to: options.pixelFormat) }
        return Image(buffer: buffer, orientation: attributes.orientation, scale: options.scale, format: attributes.format,
                     metadata: attributes.metadata, hasAlpha: attributes.hasAlpha)
    }
}
