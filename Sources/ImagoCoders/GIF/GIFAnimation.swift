// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A GIF's frames, decoded on demand: the encoded data, the block walk, and a composer holding
/// the current canvas.
final class GIFAnimation: ComposedAnimation {
    let data: Data
    let structure: GIFStructure
    let composer: AnimationComposer
    let frameCount: Int
    let canvasSize: PixelSize

    /// Walks `data` and checks the canvas and frame count against `options.limits`.
    init(data: Data, options: DecodeOptions) throws {
        let structure = try GIFStructure(data, limits: options.limits, frameLimit: options.firstFrameOnly ? 1 : nil)
        // Only frames whose data is complete are shown (a truncated file plays what arrived).
        let frames = structure.frames.prefix { $0.complete }
        guard !frames.isEmpty else {
            throw ImageCodingError.truncated(.gif, "the first frame's image data is incomplete")
        }
        var canvas = PixelSize(width: structure.width, height: structure.height)
        if canvas.width == 0 || canvas.height == 0 {
            canvas = PixelSize(
                width: max(1, frames.map { $0.x + $0.width }.max() ?? 1),
                height: max(1, frames.map { $0.y + $0.height }.max() ?? 1))
        }
        try options.limits.check(width: canvas.width, height: canvas.height, format: .gif)
        self.data = data
        self.structure = structure
        self.canvasSize = canvas
        self.frameCount = options.firstFrameOnly ? 1 : frames.count
        let layouts = frames.prefix(frameCount).map { f in
            AnimationFrameLayout(
                x: f.x, y: f.y, width: f.width, height: f.height, duration: f.duration,
                disposal: f.disposal == 2 ? .background : f.disposal == 3 ? .previous : .none,
                blend: .over, mayBeTransparent: f.transparentIndex != nil)
        }
        let limits = options.limits
        composer = AnimationComposer(format: .gif, canvas: canvas, layouts: Array(layouts)) { [data, structure] index in
            try GIFFrameDecoder.decode(data, structure: structure, index: index, limits: limits)
        }
    }

    var loopCount: Int { frameCount > 1 ? structure.loopCount : 1 }

    /// Every frame, frame 0 alone, or frame 0 and this source.
    func image(options: DecodeOptions) throws -> Image {
        let hasAlpha = structure.hasTransparency || !composer.layouts.allSatisfy { $0.covers(canvasSize) }
        return try image(options: options, format: .gif, hasAlpha: hasAlpha)
    }
}
