// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// An animation cut from one sheet (YYImage's `YYSpriteSheetImage`): every frame is the sheet,
/// with a rectangle saying which part to show.
public struct SpriteSheetImage: AnimatedImage {
    /// The sheet, premultiplied.
    public let sheet: PixelBuffer
    /// One rectangle per frame, inside the sheet.
    public let rects: [FrameRect]
    private let durations: [Double]
    /// Total plays; 0 means forever.
    public let loopCount: Int

    /// Creates a sprite-sheet animation.
    ///
    /// - Parameters:
    ///   - sheet: The sheet holding every frame.
    ///   - rects: One rectangle per frame, in the sheet's pixels.
    ///   - durations: One per rectangle, or one for all.
    ///   - loopCount: Total plays; 0 (the default) means forever.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for no rectangles, one outside
    ///   the sheet or empty, or a duration count that is neither 1 nor the rectangle count.
    public init(sheet: Image, rects: [FrameRect], durations: [Double], loopCount: Int = 0) throws {
        guard !rects.isEmpty else { throw ImageCodingError.invalidArgument("a sprite sheet needs at least one rectangle") }
        let buffer = sheet.buffer.converted(to: .argb32Premultiplied)
        for (i, r) in rects.enumerated()
        where r.width < 1 || r.height < 1 || r.x < 0 || r.y < 0
            || r.x > buffer.width - r.width || r.y > buffer.height - r.height
        {
            throw ImageCodingError.invalidArgument("sprite \(i) \(r) is empty or outside the \(buffer.size) sheet")
        }
        if durations.count == rects.count {
            self.durations = durations.map { max(0, $0) }
        } else if durations.count == 1 {
            self.durations = Array(repeating: max(0, durations[0]), count: rects.count)
        } else {
            throw ImageCodingError.invalidArgument("\(durations.count) durations for \(rects.count) sprites")
        }
        self.sheet = buffer
        self.rects = rects
        self.loopCount = max(0, loopCount)
    }

    /// One frame per rectangle.
    public var frameCount: Int { rects.count }
    /// The sheet's size: every frame's canvas is the whole sheet.
    public var canvasSize: PixelSize { sheet.size }
    /// Premultiplied ARGB32, the format frames are drawn in.
    public var pixelFormat: PixelFormat { .argb32Premultiplied }
    /// The largest sprite's bytes: the sheet is shared, so a buffered frame costs no more.
    public var bytesPerFrame: Int { rects.map { $0.width * $0.height * 4 }.max() ?? 0 }
    /// Seconds frame `index` is shown (a negative duration given is 0); 0 for an index out of range.
    public func duration(at index: Int) -> Double { durations.indices.contains(index) ? durations[index] : 0 }
    /// The sheet itself; ``contentsRect(at:)`` says which part is the frame.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an index out of range.
    public func canvas(at index: Int) throws -> PixelBuffer {
        guard rects.indices.contains(index) else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: \(frameCount) frame(s)")
        }
        return sheet
    }
    /// Frame `index`'s rectangle in the sheet; `nil` for an index out of range.
    public func contentsRect(at index: Int) -> FrameRect? { rects.indices.contains(index) ? rects[index] : nil }
}
