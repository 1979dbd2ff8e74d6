// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns one image into another, with a stable ``key`` that names the transformation, so the
/// result can be cached under the original key plus this one (SDWebImage's `SDImageTransformer`).
public protocol ImageTransforming: Sendable {
    /// Identifies the transformation and all its parameters; equal keys mean equal results.
    var key: String { get }
    /// Transforms one frame's pixels.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for parameters that do not fit
    ///   the image (an empty crop, for example).
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer

    /// Transforms a whole image: by default (see the extension) upright first, then every frame
    /// or the first only. A transformer that needs the image as a whole (its orientation, all
    /// its frames at once) implements this itself.
    func transform(_ image: Image, animated: Bool) throws -> Image

    /// Whether ``transform(_:animated:)`` takes a lazy animation (`Image.animation`, frames
    /// decoded on demand) as it is, decoding its frames one at a time itself, so that only its
    /// results are held rather than every full-size canvas. Default `false`: the pipeline
    /// decodes every frame before calling it.
    var acceptsLazyAnimations: Bool { get }

    /// What the transformation does to the pixels of an image with this header, for the
    /// pipeline's planner: whether a decode may hand over rows straight to an encoder
    /// (``PixelEffect/none``), or decode to the format that holds the source exactly
    /// (``PixelEffect/movesPixels``), or needs premultiplied pixels to resample or composite
    /// (``PixelEffect/resamples``). Default ``PixelEffect/resamples``, always safe.
    func pixelEffect(on info: ImageInfo) -> PixelEffect
}

/// What a transformer does to an image's pixels (``ImageTransforming/pixelEffect(on:)``), from
/// least to most.
public enum PixelEffect: Int, Sendable, Hashable, Comparable {
    /// Every pixel stays as decoded: the transformation changes nothing for this image.
    case none
    /// Whole pixels move (crops, flips, quarter turns) but none is computed from others.
    case movesPixels
    /// Pixels are resampled or composited (resizes, blurs, any angle, alpha flattened).
    case resamples

    /// Orders effects from least to most: ``PixelEffect/none``, ``PixelEffect/movesPixels``, then
    /// ``PixelEffect/resamples``.
    public static func < (a: PixelEffect, b: PixelEffect) -> Bool { a.rawValue < b.rawValue }
}

extension ImageTransforming {
    /// `false`: the pipeline hands this transformer fully decoded animations.
    public var acceptsLazyAnimations: Bool { false }

    /// ``PixelEffect/resamples``: always safe.
    public func pixelEffect(on info: ImageInfo) -> PixelEffect { .resamples }

    /// Applies the transformation to every frame (SDWebImage's `transformAnimatedImage`), or to
    /// the first frame only when `animated` is `false`. The image is turned upright first, since
    /// sizes and rectangles refer to what a viewer sees. A gain map (`ImageMetadata.gainMap`) is
    /// dropped: the transformation knows nothing of its geometry, and a map of another geometry
    /// would light the wrong parts.
    ///
    /// - Throws: as ``transform(_:)``.
    public func transform(_ image: Image, animated: Bool = true) throws -> Image {
        let upright = image.applyingOrientation()
        // Frame by frame, so a lazy animation's canvases are decoded one at a time.
        let transformed = try (0..<(animated ? upright.frameCount : 1)).map { index in
            let frame = try upright.frame(at: index)
            return ImageFrame(buffer: try transform(frame.buffer), duration: frame.duration)
        }
        var metadata = upright.metadata
        metadata.gainMap = nil
        return try Image(
            frames: transformed, loopCount: upright.loopCount, scale: upright.scale, format: upright.format,
            metadata: metadata, hasAlpha: upright.hasAlpha || transformed[0].buffer.format.hasAlphaChannel)
    }
}
