// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes GIF: colours quantized by libimagequant (dithered), pixels written by giflib.
///
/// A still gets its own palette of up to 256 colours. An animation is written the way gifsicle
/// and Pillow optimize one, so it stays small and quick to write:
/// - **One global palette** of up to 255 colours, quantized once from up to 16 frames spread
///   over the animation, plus one transparent entry. A frame that the global palette fits badly
///   (remapping error well over the palette's own) gets a local palette of its own instead.
/// - **Only what changed is written.** Each frame after the first covers the bounding rectangle
///   of the pixels that differ from the frame before, and inside it the pixels that did not
///   change are transparent, so the canvas shows through and LZW compresses the runs.
/// - **Disposal** is "none", except before a frame where a visible pixel becomes transparent:
///   the frame before it is then disposed to background over a rectangle covering those pixels,
///   and the new frame redraws what must stay.
///
/// GIF transparency is one bit: alpha under 128 is transparent, anything else opaque. Delays are
/// written in hundredths of a second (the format's resolution); the loop count as a NETSCAPE2.0
/// block storing plays − 1 (none for a single play, 0 for forever). Frames are read one at a
/// time, so a lazily decoded animation is encoded holding a few canvases, not every frame.
enum GIFEncoder {
    /// At most this many frames are sampled for the global palette.
    static let paletteSamples = 16

    /// Encodes `count` frames, each the size of frame 0, read in order through `frame`,
    /// quantizing on at most `maxThreads` threads (``EncodeOptions/maxThreads``).
    ///
    /// - Throws: `.invalidArgument` for no frames, sizes over 65535 or frames of different sizes;
    ///   `.corrupt` when libimagequant or giflib fail; `frame`'s errors.
    static func encode(count: Int, loopCount: Int, maxThreads: Int?, frame: (Int) throws -> ImageFrame) throws -> Data {
        guard count > 0 else { throw ImageCodingError.invalidArgument("a GIF needs at least one frame") }
        let first = try frame(0)
        let width = first.buffer.width, height = first.buffer.height
        guard width <= 65535, height <= 65535 else {
            throw ImageCodingError.invalidArgument("GIF sizes are at most 65535x65535, not \(width)x\(height)")
        }
        if count == 1 {
            let pixels = GIFCanvasPixels(first.buffer)
            let palette = try GIFPalette(quantizing: [pixels], reservingTransparent: !pixels.isOpaque, maxThreads: maxThreads)
            let writer = try GIFStreamWriter(width: width, height: height, globalPalette: palette)
            let frame = try palette.remap(pixels, in: GIFRect(x: 0, y: 0, width: width, height: height))
            try writer.put(frame, palette: palette, delay: nil, disposal: 0)
            return try writer.finish()
        }

        // The global palette, from frames spread over the animation.
        let sampleCount = min(count, paletteSamples)
        var samples: [GIFCanvasPixels] = []
        for s in 0..<sampleCount {
            let index = s * count / sampleCount
            let f = index == 0 ? first : try frame(index)
            samples.append(GIFCanvasPixels(try checked(f.buffer, index: index, width: width, height: height)))
        }
        let global = try GIFPalette(quantizing: samples, reservingTransparent: true, animationFrames: true, maxThreads: maxThreads)
        samples.removeAll()
        let writer = try GIFStreamWriter(width: width, height: height, globalPalette: global)
        if loopCount != 1 { try writer.putLoopCount(loopCount) }

        var planner = GIFFramePlanner(width: width, height: height)
        var pending: (frame: GIFIndexedFrame, palette: GIFPalette, delay: Int)?
        for index in 0..<count {
            let f = index == 0 ? first : try frame(index)
            let pixels = GIFCanvasPixels(try checked(f.buffer, index: index, width: width, height: height))
            let plan = planner.plan(pixels, previousRect: pending?.frame.rect)
            if var previous = pending {
                if let clear = plan.clearing { previous.frame.grow(to: clear) }
                try writer.put(
                    previous.frame, palette: previous.palette, delay: previous.delay,
                    disposal: plan.clearing == nil ? 1 : 2)
            }
            var palette = global
            var indexed: GIFIndexedFrame
            if let rect = plan.rect {
                indexed = try global.remap(pixels, in: rect, checkingFit: true)
                if indexed.fitsBadly {
                    palette = try GIFPalette(quantizing: [pixels], in: rect, reservingTransparent: true, animationFrames: true, maxThreads: maxThreads)
                    indexed = try palette.remap(pixels, in: rect)
                }
                planner.keepUnchanged(&indexed, pixels: pixels, transparent: palette.transparentIndex)
            } else {
                indexed = GIFIndexedFrame.empty(transparent: global.transparentIndex)
            }
            planner.commit(pixels, drawn: indexed, palette: palette)
            pending = (indexed, palette, min(65535, max(0, Int((f.duration * 100).rounded()))))
        }
        if let last = pending { try writer.put(last.frame, palette: last.palette, delay: last.delay, disposal: 1) }
        return try writer.finish()
    }

    private static func checked(_ buffer: PixelBuffer, index: Int, width: Int, height: Int) throws -> PixelBuffer {
        guard buffer.width == width, buffer.height == height else {
            throw ImageCodingError.invalidArgument("every frame of a GIF must be the canvas size: frame \(index) is \(buffer.size), not \(width)x\(height)")
        }
        return buffer
    }
}
