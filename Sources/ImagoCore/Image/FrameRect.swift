// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A rectangle of pixels inside a frame's buffer: the part of a sprite sheet that is one frame
/// (``AnimatedImage/contentsRect(at:)``).
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
