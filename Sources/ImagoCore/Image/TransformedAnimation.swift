// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// An animation seen through a per-frame transformation (a pixel-format conversion, an
/// orientation, a resize): frames are transformed as they are asked for, so the result stays lazy.
package final class TransformedAnimation: AnimatedImage {
    /// The animation underneath.
    package let base: any AnimatedImage & AnyObject
    /// The size of every canvas after the transformation.
    package let canvasSize: PixelSize
    /// The pixel format of every canvas after the transformation.
    package let pixelFormat: PixelFormat
    private let transform: @Sendable (PixelBuffer) throws -> PixelBuffer

    /// Wraps `base`; `transform` must turn every canvas into one of `canvasSize` in `pixelFormat`.
    package init(
        _ base: any AnimatedImage & AnyObject, canvasSize: PixelSize, pixelFormat: PixelFormat,
        transform: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer
    ) {
        self.base = base
        self.canvasSize = canvasSize
        self.pixelFormat = pixelFormat
        self.transform = transform
    }

    /// The base's frame count: the transformation keeps every frame.
    package var frameCount: Int { base.frameCount }
    /// The base's total plays; 0 means forever.
    package var loopCount: Int { base.loopCount }
    /// Seconds the base shows frame `index`; 0 for an index out of range.
    package func duration(at index: Int) -> Double { base.duration(at: index) }

    /// The base's canvas, transformed.
    ///
    /// - Throws: the base's errors and the transformation's.
    package func canvas(at index: Int) throws -> PixelBuffer { try transform(try base.canvas(at: index)) }
}
