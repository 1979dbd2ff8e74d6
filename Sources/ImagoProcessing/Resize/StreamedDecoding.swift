// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding straight to a smaller size through a row-streaming decoder, for formats that cannot
/// shrink while loading (PNG): the full-size bitmap is never allocated.
enum StreamedDecoding {
    /// Streams `source` through `decoder` into a resampler to `target`.
    static func decode(
        from source: any ImageByteSource, decoder: any RowStreamingImageDecoding, to target: PixelSize,
        options: DecodeOptions
    ) throws -> Image {
        let resampler = try StreamingResampler(target: target, limits: options.limits)
        // A decoder that shrinks while decoding (JPEG) hands over rows at the smallest scale that
        // still covers the target in both dimensions; the resampler does the rest.
        var rowOptions = options
        rowOptions.thumbnailPixelSize = target
        rowOptions.preserveAspectRatio = false
        let attributes = try decoder.decodeRows(from: source, options: rowOptions, into: resampler)
        var buffer = try resampler.result()
        if options.pixelFormat != .argb32Premultiplied { buffer = buffer.converted(to: options.pixelFormat) }
        return Image(
            buffer: buffer, orientation: attributes.orientation, scale: options.scale, format: attributes.format,
            metadata: attributes.metadata, hasAlpha: attributes.hasAlpha)
    }
}
