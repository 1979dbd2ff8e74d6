// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// A rectangle of pixels inside a frame's buffer.
public struct FrameRect: Sendable, Hashable {
    /// Left edge, in pixels.
    public var x: Int
    /// Top edge, in pixels.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Anything a player can play (YYImage's `YYAnimatedImage`): frames decoded on demand, with
/// their durations, a loop count, and the memory one frame takes.
///
/// Implemented by `Image` (a lazily decoded GIF, APNG, WebP or HEIF sequence, or
/// decoded frames), ``FrameImage`` and ``SpriteSheetImage``.
public protocol AnimatedImage: Sendable {
    /// Frames, at least 1.
    var frameCount: Int { get }
    /// Total plays; 0 means forever.
    var loopCount: Int { get }
    /// Bytes one decoded frame takes: what the player's automatic buffer size divides by.
    var bytesPerFrame: Int { get }
    /// Seconds frame `index` is shown.
    func duration(at index: Int) -> Double
    /// The pixels of frame `index` (premultiplied ARGB32 for drawing); may decode now.
    ///
    /// - Throws: the frame's decoding errors.
    func animationFrame(at index: Int) throws -> PixelBuffer
    /// The part of ``animationFrame(at:)`` to show, or `nil` for all of it (sprite sheets
    /// return the sheet and one rectangle per frame).
    func contentsRect(at index: Int) -> FrameRect?
}

extension AnimatedImage {
    /// All of the frame.
    public func contentsRect(at index: Int) -> FrameRect? { nil }
}

extension Image: AnimatedImage {
    /// The canvas size × 4 bytes.
    public var bytesPerFrame: Int {
        let (n, overflow) = pixelSize.width.multipliedReportingOverflow(by: pixelSize.height * 4)
        return overflow ? Int.max : n
    }

    /// Frame `index` in the premultiplied display format, decoded now for a lazy animation.
    ///
    /// - Throws: as `Image.frame(at:)`.
    public func animationFrame(at index: Int) throws -> PixelBuffer {
        try frame(at: index).buffer.converted(to: .argb32Premultiplied)
    }
}
