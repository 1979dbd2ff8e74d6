// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Synchronization

/// How a frame leaves the canvas before the next one is drawn (GIF, APNG and WebP share these).
enum FrameDisposal: Sendable, Equatable {
    /// The frame stays.
    case none
    /// Its rectangle is cleared to transparent (browsers ignore GIF's background colour).
    case background
    /// The canvas returns to what it was before the frame was drawn.
    case previous
}

/// How a frame's pixels meet the canvas.
enum FrameBlend: Sendable, Equatable {
    /// They replace the canvas in the frame's rectangle.
    case source
    /// They are drawn over it (premultiplied "over").
    case over
}

/// Where and how one frame is drawn on the canvas.
struct AnimationFrameLayout: Sendable, Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var duration: Double
    var disposal: FrameDisposal
    var blend: FrameBlend
    /// Whether the frame can hold transparent pixels (GIF: it has a transparent index).
    var mayBeTransparent: Bool

    func covers(_ canvas: PixelSize) -> Bool {
        x <= 0 && y <= 0 && x + width >= canvas.width && y + height >= canvas.height
    }
}

/// Composites an animation's frames onto its canvas on demand, keeping one canvas (and a saved
/// copy for "previous" disposal): the engine behind the lazy GIF, APNG and WebP sources.
///
/// Asking for frames in order costs one frame decode each. A jump backwards, or far ahead,
/// starts from the nearest earlier frame that needs no frame before it: the first frame, a frame
/// that replaces the whole canvas, or one that follows a frame cleared from the whole canvas.
final class AnimationComposer: Sendable {
    let canvas: PixelSize
    let layouts: [AnimationFrameLayout]
    /// Decodes frame `i`'s own pixels (its rectangle's size), premultiplied ARGB32.
    private let decodeFrame: @Sendable (Int) throws -> PixelBuffer

    private struct State {
        var index: Int?
        var canvas: PixelBuffer?
        /// The canvas before `index` was drawn, when its disposal is `.previous`.
        var saved: PixelBuffer?
    }

    private let state = Mutex(State())

    /// The format errors name.
    let format: ImageFormat

    init(
        format: ImageFormat = .gif, canvas: PixelSize, layouts: [AnimationFrameLayout],
        decodeFrame: @escaping @Sendable (Int) throws -> PixelBuffer
    ) {
        self.format = format
        self.canvas = canvas
        self.layouts = layouts
        self.decodeFrame = decodeFrame
    }

    /// Whether frame `k` can be drawn on a cleared canvas with the same result.
    func isIndependent(_ k: Int) -> Bool {
        if k == 0 { return true }
        let f = layouts[k]
        if f.covers(canvas), f.blend == .source || !f.mayBeTransparent { return true }
        let p = layouts[k - 1]
        return p.disposal == .background && p.covers(canvas)
    }

    /// The composited canvas at frame `index`.
    ///
    /// - Throws: `.invalidArgument` out of range; the frame decoder's errors.
    func frame(at index: Int) throws -> PixelBuffer {
        guard index >= 0, index < layouts.count else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: the animation has \(layouts.count) frame(s)")
        }
        return try state.withLock { s in
            if s.index == index, let c = s.canvas { return c }
            var start = index
            while !isIndependent(start) { start -= 1 }
            var canvasBuffer: PixelBuffer
            var saved: PixelBuffer?
            var first: Int
            var continuing = false
            if let last = s.index, last < index, last >= start - 1, let c = s.canvas {
                // Carry on from the frame shown last.
                canvasBuffer = c
                saved = s.saved
                first = last + 1
                continuing = true
                s.canvas = nil  // keep the buffer uniquely referenced, so it is drawn on in place
            } else if isExactlyCanvas(layouts[start]) {
                // A frame filling the canvas, drawn on a cleared one, is the canvas: no blank canvas
                // to fill and copy onto. ("Previous" disposal of it clears the canvas, as it would.)
                canvasBuffer = try pixels(of: start)
                saved = nil
                first = start + 1
                continuing = true
                s.canvas = nil
            } else {
                canvasBuffer = try PixelBuffer(width: canvas.width, height: canvas.height, format: .argb32Premultiplied)
                saved = nil
                first = start
            }
            s.index = nil
            if first <= index {
                for j in first...index {
                    if j > first || continuing { dispose(j - 1, canvas: &canvasBuffer, saved: saved) }
                    saved = layouts[j].disposal == .previous ? canvasBuffer : nil
                    try draw(j, on: &canvasBuffer)
                }
            }
            s.index = index
            s.canvas = canvasBuffer
            s.saved = saved
            return canvasBuffer
        }
    }

    /// Drops the kept canvas (memory pressure); the next request starts from a keyframe.
    func reset() {
        state.withLock { $0 = State() }
    }

    private func dispose(_ j: Int, canvas buffer: inout PixelBuffer, saved: PixelBuffer?) {
        let f = layouts[j]
        switch f.disposal {
        case .none: break
        case .previous:
            if let saved { buffer = saved } else { clear(f, on: &buffer) }
        case .background: clear(f, on: &buffer)
        }
    }

    /// The part of `f`'s rectangle inside the canvas, or `nil`.
    private func clipped(_ f: AnimationFrameLayout) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let x0 = max(0, f.x), y0 = max(0, f.y)
        let x1 = min(canvas.width, f.x + f.width), y1 = min(canvas.height, f.y + f.height)
        return x0 < x1 && y0 < y1 ? (x0, y0, x1, y1) : nil
    }

    private func clear(_ f: AnimationFrameLayout, on buffer: inout PixelBuffer) {
        guard let r = clipped(f) else { return }
        let stride = buffer.bytesPerRow
        buffer.withUnsafeMutableBytes { p in
            guard let base = p.baseAddress else { return }
            for y in r.y0..<r.y1 { (base + y * stride + r.x0 * 4).initializeMemory(as: UInt8.self, repeating: 0, count: (r.x1 - r.x0) * 4) }
        }
    }

    private func isExactlyCanvas(_ f: AnimationFrameLayout) -> Bool {
        f.x == 0 && f.y == 0 && f.width == canvas.width && f.height == canvas.height
    }

    /// Frame `j`'s own pixels, premultiplied, checked against its rectangle.
    private func pixels(of j: Int) throws -> PixelBuffer {
        let f = layouts[j]
        let pixels = try decodeFrame(j).converted(to: .argb32Premultiplied)
        guard pixels.width == f.width, pixels.height == f.height else {
            throw ImageCodingError.corrupt(format, "frame \(j) decoded to \(pixels.size), not its \(f.width)x\(f.height)")
        }
        return pixels
    }

    private func draw(_ j: Int, on buffer: inout PixelBuffer) throws {
        let f = layouts[j]
        guard let r = clipped(f) else { return }
        let pixels = try pixels(of: j)
        let dstStride = buffer.bytesPerRow, srcStride = pixels.bytesPerRow
        let over = f.blend == .over
        pixels.withUnsafeBytes { src in
            buffer.withUnsafeMutableBytes { dst in
                guard let s0 = src.baseAddress, let d0 = dst.baseAddress else { return }
                let count = r.x1 - r.x0
                for y in r.y0..<r.y1 {
                    let s = (s0 + (y - f.y) * srcStride + (r.x0 - f.x) * 4).assumingMemoryBound(to: UInt32.self)
                    let d = (d0 + y * dstStride + r.x0 * 4).assumingMemoryBound(to: UInt32.self)
                    if !over {
                        d.update(from: s, count: count)
                        continue
                    }
                    for x in 0..<count {
                        let sp = s[x]
                        let a = sp >> 24
                        if a == 255 {
                            d[x] = sp
                            continue
                        }
                        if a == 0 { continue }
                        d[x] = Self.over(sp, d[x])
                    }
                }
            }
        }
    }

    /// Premultiplied `src` over `dst`, per channel `s + d × (255 − αs) / 255`, rounded.
    @inline(__always)
    static func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 255 - (src >> 24)
        var rb = (dst & 0x00FF_00FF) &* inv &+ 0x0080_0080
        rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
        var ag = ((dst >> 8) & 0x00FF_00FF) &* inv &+ 0x0080_0080
        ag = (ag &+ ((ag >> 8) & 0x00FF_00FF)) & 0xFF00_FF00
        return src &+ (rb | ag)
    }
}
