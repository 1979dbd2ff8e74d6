// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// One frame of an ``Image``: its pixels and how long it is shown.
public struct ImageFrame: Sendable, Equatable {
    /// The frame's pixels, the size of the image's canvas.
    public var buffer: PixelBuffer
    /// Seconds the frame is shown; 0 for a still image.
    public var duration: Double

    /// Creates a frame; `duration` defaults to 0 (a still).
    public init(buffer: PixelBuffer, duration: Double = 0) {
        self.buffer = buffer
        self.duration = duration
    }
}
