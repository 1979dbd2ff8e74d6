// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bytes to pixels for one request: the pipeline's one decode step, for the final image and the
/// partial ones alike. It runs on the pipeline's work queue.
struct DecodeStep: Sendable {
    let spec: DecodeSpec
    let coders: ImageCoderRegistry

    /// The coders' options: pixel format, scale, frames, colour management, limits.
    var options: DecodeOptions {
        var o = DecodeOptions(
            pixelFormat: spec.pixelFormat, scale: spec.scale, firstFrameOnly: spec.frames == .first,
            decodesFramesLazily: spec.frames == .lazy, thumbnailPixelSize: spec.sizeHint,
            colorManagement: spec.colorManagement, limits: spec.limits)
        o.page = spec.page
        o.embeddedThumbnail = spec.embeddedThumbnail
        o.gainMap = spec.gainMap
        return o
    }

    /// Options for a progressive decoder: as ``options``, shrinking on load towards a thumbnail
    /// (the box is squared, since the orientation is not known before the header).
    var progressiveOptions: DecodeOptions {
        var o = options
        if let t = spec.thumbnail {
            let side = max(t.maxPixelSize.width, t.maxPixelSize.height)
            o.thumbnailPixelSize = PixelSize(width: side, height: side)
        }
        return o
    }

    /// What the request asks of the decode, for ``DecodePlanner``.
    var goal: DecodeGoal {
        let size: DecodeGoal.Size
        if let t = spec.thumbnail {
            size = .fitting(t.maxPixelSize, preserveAspectRatio: t.preserveAspectRatio)
        } else if let limit = spec.scaleDownLimitBytes {
            size = .scaledDown(limitBytes: limit)
        } else if let hint = spec.sizeHint {
            size = .atLeast(hint)
        } else {
            size = .full
        }
        return DecodeGoal(size: size, options: options)
    }

    /// Decodes the fetched bytes, or the fetched file where it lies: a thumbnail, scaled down, or
    /// whole, as the request asks and ``DecodePlanner`` plans it.
    ///
    /// - Throws: `ImageCodingError`; any other failure (a file that cannot be read) is reported
    ///   as corrupt data of the input's format.
    func decode(_ input: ImageInput) throws -> Image {
        try DecodePlanner.decode(input, goal: goal, coders: coders)
    }

    /// Brings an image given decoded (``ImageRequest/Source/image(_:key:)``) to what a decode
    /// would have made: its pixels within the limits, then the thumbnail or scale-down, in the
    /// requested pixel format.
    ///
    /// - Throws: `ImageCodingError.exceedsLimit` for an image over the decoding limits, and the
    ///   resampler's errors.
    func prepare(_ image: Image) throws -> Image {
        let size = image.pixelSize
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        guard !pixels.overflow, pixels.partialValue <= spec.limits.maxPixels else {
            throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels.overflow ? Int.max : pixels.partialValue, limit: spec.limits.maxPixels)
        }
        let finished = try finishPartial(image)
        return finished.frames.allSatisfy({ $0.buffer.format == spec.pixelFormat }) ? finished : finished.converted(to: spec.pixelFormat)
    }

    /// Brings a partial image to the size and orientation the final one will have.
    func finishPartial(_ image: Image) throws -> Image {
        if let t = spec.thumbnail {
            let upright = image.applyingOrientation()
            let target = Thumbnailer.targetSize(
                for: upright.pixelSize, within: t.maxPixelSize,
                preserveAspectRatio: t.preserveAspectRatio)
            guard target != upright.pixelSize else { return upright }
            let frames = try upright.frames.map { frame in
                ImageFrame(buffer: try Resampler.resize(frame.buffer, to: target, limits: spec.limits), duration: frame.duration)
            }
            return try Image(
                frames: frames, loopCount: upright.loopCount, scale: upright.scale, format: upright.format,
                metadata: upright.metadata, hasAlpha: upright.hasAlpha)
        }
        if let limit = spec.scaleDownLimitBytes { return try image.scaledDown(limitBytes: limit) }
        return image
    }
}
