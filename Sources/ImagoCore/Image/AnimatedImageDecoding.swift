// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// An animation whose frames are decoded on demand from the encoded data, as YYImage keeps its
/// decoder: memory holds the data and a few canvases, not every frame.
///
/// Frames are composited onto the canvas per the format's dispose and blend rules, so
/// ``frame(at:)`` returns what a viewer shows at that index. Implementations are thread-safe;
/// sequential access (0, 1, 2, …) is the fast path, and a seek starts from the nearest earlier
/// frame that needs no frame before it.
public protocol AnimatedImageDecoding: AnyObject, Sendable {
    /// Frames in the animation, at least 1.
    var frameCount: Int { get }
    /// Total plays; 0 means forever.
    var loopCount: Int { get }
    /// The canvas every frame is drawn on: the size of every frame returned.
    var canvasSize: PixelSize { get }
    /// The pixel format of the frames returned.
    var pixelFormat: PixelFormat { get }
    /// Seconds frame `index` is shown; 0 for an index out of range.
    func duration(at index: Int) -> Double
    /// The composited canvas for frame `index`.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for an index out of range, and the
    ///   format's `.corrupt` or `.truncated` errors for damaged frame data.
    func frame(at index: Int) throws -> PixelBuffer
}

/// An animation seen through a per-frame transformation (a pixel-format conversion, an
/// orientation, a resize): frames are transformed as they are asked for, so the result stays lazy.
public final class TransformedAnimation: AnimatedImageDecoding {
    /// The animation underneath.
    public let base: any AnimatedImageDecoding
    public let canvasSize: PixelSize
    public let pixelFormat: PixelFormat
    private let transform: @Sendable (PixelBuffer) throws -> PixelBuffer

    /// Wraps `base`; `transform` must turn every canvas into one of `canvasSize` in `pixelFormat`.
    public init(
        _ base: any AnimatedImageDecoding, canvasSize: PixelSize, pixelFormat: PixelFormat,
        transform: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer
    ) {
        self.base = base
        self.canvasSize = canvasSize
        self.pixelFormat = pixelFormat
        self.transform = transform
    }

    public var frameCount: Int { base.frameCount }
    public var loopCount: Int { base.loopCount }
    public func duration(at index: Int) -> Double { base.duration(at: index) }

    /// The base's frame, transformed.
    ///
    /// - Throws: the base's errors and the transformation's.
    public func frame(at index: Int) throws -> PixelBuffer { try transform(try base.frame(at: index)) }
}
