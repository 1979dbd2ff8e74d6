// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// An animation seen through a per-frame transformation (a pixel-format conversion, an
/// orientation, a resize): frames are transformed as they are asked for, so the result stays lazy.
public final class TransformedAnimation: AnimatedImage {
    /// The animation underneath.
    public let base: any AnimatedImage & AnyObject
    /// The size of every canvas after the transformation.
    public let canvasSize: PixelSize
    /// The pixel format of every canvas after the transformation.
    public let pixelFormat: PixelFormat
    private let transform: @Sendable (PixelBuffer) throws -> PixelBuffer

    /// Wraps `base`; `transform` must turn every canvas into one of `canvasSize` in `pixelFormat`.
    public init(
        _ base: any AnimatedImage & AnyObject, canvasSize: PixelSize, pixelFormat: PixelFormat,
        transform: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer
    ) {
        self.base = base
        self.canvasSize = canvasSize
        self.pixelFormat = pixelFormat
        self.transform = transform
    }

    /// The base's frame count: the transformation keeps every frame.
    public var frameCount: Int { base.frameCount }
    /// The base's total plays; 0 means forever.
    public var loopCount: Int { base.loopCount }
    /// Seconds the base shows frame `index`; 0 for an index out of range.
    public func duration(at index: Int) -> Double { base.duration(at: index) }

    /// The base's canvas, transformed.
    ///
    /// - Throws: the base's errors and the transformation's.
    public func canvas(at index: Int) throws -> PixelBuffer { try transform(try base.canvas(at: index)) }
}
