// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Anything with frames to show in turn: the one animation protocol, which decoders implement
/// and players play (YYImage's `YYAnimatedImage`).
///
/// A decoder's lazy animation (GIF, APNG, WebP, AVIF, HEIF and JPEG XL sequences) decodes frames
/// from the encoded data as they are asked for, as YYImage keeps its decoder: memory holds the
/// data and a few canvases, not every frame. It composites each frame onto the canvas per the
/// format's dispose and blend rules, so ``canvas(at:)`` returns what a viewer shows at that index.
/// Sequential access (0, 1, 2, …) is the fast path; a seek starts from the nearest earlier frame
/// that needs no frame before it. `Image` conforms (decoded or lazy frames alike), and so do
/// `FrameImage` and `SpriteSheetImage` of `ImagoAnimation`.
///
/// Implementations are thread-safe. One kept as the lazy source of an `Image`
/// (``Image/animation``) is a class: images compare their sources by identity.
public protocol AnimatedImage: Sendable {
    /// Frames, at least 1.
    var frameCount: Int { get }
    /// Total plays; 0 means forever.
    var loopCount: Int { get }
    /// The size of the buffers ``canvas(at:)`` returns.
    var canvasSize: PixelSize { get }
    /// The pixel format of the buffers ``canvas(at:)`` returns.
    var pixelFormat: PixelFormat { get }
    /// Bytes one frame takes once drawn (4 per pixel): what a player's automatic buffer size
    /// divides by. Default: the canvas's pixels × 4.
    var bytesPerFrame: Int { get }
    /// Seconds frame `index` is shown; 0 for an index out of range.
    func duration(at index: Int) -> Double
    /// The pixels of frame `index`, composited onto the canvas; may decode now.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for an index out of range, and the
    ///   format's `.corrupt` or `.truncated` errors for damaged frame data.
    func canvas(at index: Int) throws -> PixelBuffer
    /// The part of ``canvas(at:)`` that is frame `index`, or `nil` for all of it (the default;
    /// a sprite sheet returns the sheet and one rectangle per frame).
    func contentsRect(at index: Int) -> FrameRect?
}

extension AnimatedImage {
    /// All of the canvas.
    public func contentsRect(at index: Int) -> FrameRect? { nil }

    /// The canvas's pixels × 4 bytes (`Int.max` if that overflows).
    public var bytesPerFrame: Int {
        let (area, overflow) = canvasSize.width.multipliedReportingOverflow(by: canvasSize.height)
        let (bytes, overflow4) = area.multipliedReportingOverflow(by: 4)
        return overflow || overflow4 ? Int.max : bytes
    }
}

extension Image: AnimatedImage {
    /// The stored size of the frames (``pixelSize``, before orientation).
    public var canvasSize: PixelSize { pixelSize }

    /// The pixel format of the first frame: every frame's, decoded or lazy.
    public var pixelFormat: PixelFormat { buffer.format }

    /// Frame `index`'s pixels, decoded now for a lazy animation.
    ///
    /// - Throws: as ``frame(at:)``.
    public func canvas(at index: Int) throws -> PixelBuffer { try frame(at: index).buffer }
}
