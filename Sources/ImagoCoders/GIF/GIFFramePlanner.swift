// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// Decides what each animation frame must write, tracking what the canvas shows.
struct GIFFramePlanner {
    let width: Int
    let height: Int
    /// The frame before, as given.
    private var previous: GIFCanvasPixels?
    /// Whether each canvas pixel shows a colour (after the disposal planned for this frame).
    private var visible: [Bool]
    /// The rectangle disposal to background clears before the current frame, if any.
    private var cleared: GIFRect?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        visible = [Bool](repeating: false, count: width * height)
    }

    struct Plan {
        /// What the frame writes; `nil` when nothing changed.
        var rect: GIFRect?
        /// Set when the frame before must be disposed to background over this rectangle.
        var clearing: GIFRect?
    }

    /// The rectangle frame `pixels` writes, and whether the frame before must be cleared.
    mutating func plan(_ pixels: GIFCanvasPixels, previousRect: GIFRect?) -> Plan {
        cleared = nil
        guard let previous else {
            return Plan(rect: GIFRect(x: 0, y: 0, width: width, height: height), clearing: nil)
        }
        var changed: (x0: Int, y0: Int, x1: Int, y1: Int)?
        var vanish: (x0: Int, y0: Int, x1: Int, y1: Int)?
        pixels.words.withUnsafeBufferPointer { now in
            previous.words.withUnsafeBufferPointer { before in
                for y in 0..<height {
                    let row = y * width
                    var x = 0
                    while x < width, now[row + x] == before[row + x] { x += 1 }
                    guard x < width else { continue }
                    var last = width - 1
                    while now[row + last] == before[row + last] { last -= 1 }
                    changed = changed.map { (min($0.x0, x), $0.y0, max($0.x1, last), y) } ?? (x, y, last, y)
                    for i in x...last where now[row + i] == 0 && visible[row + i] {
                        vanish = vanish.map { (min($0.x0, i), $0.y0, max($0.x1, i), y) } ?? (i, y, i, y)
                    }
                }
            }
        }
        func rect(_ b: (x0: Int, y0: Int, x1: Int, y1: Int)) -> GIFRect {
            GIFRect(x: b.x0, y: b.y0, width: b.x1 - b.x0 + 1, height: b.y1 - b.y0 + 1)
        }
        guard let changed else { return Plan(rect: nil, clearing: nil) }
        var target = rect(changed)
        var clearing: GIFRect?
        if let vanish {
            // Disposal to background clears the previous frame's whole rectangle, grown to these pixels;
            // everything still visible in it is drawn again.
            let c = previousRect.map { rect(vanish).union($0) } ?? rect(vanish)
            clearing = c
            cleared = c
            for y in c.y..<(c.y + c.height) { for x in c.x..<(c.x + c.width) { visible[y * width + x] = false } }
            target = target.union(c)
        }
        return Plan(rect: target, clearing: clearing)
    }

    /// Makes pixels that did not change, and still show, transparent so the canvas shows through.
    func keepUnchanged(_ frame: inout GIFIndexedFrame, pixels: GIFCanvasPixels, transparent: Int?) {
        guard let previous, let t = transparent else { return }
        let r = frame.rect
        let tIndex = UInt8(t)
        pixels.words.withUnsafeBufferPointer { now in
            previous.words.withUnsafeBufferPointer { before in
                frame.indices.withUnsafeMutableBufferPointer { out in
                    for y in 0..<r.height {
                        let row = (r.y + y) * width + r.x
                        for x in 0..<r.width where now[row + x] == before[row + x] && (visible[row + x] || now[row + x] == 0) {
                            out[y * r.width + x] = tIndex
                        }
                    }
                }
            }
        }
    }

    /// Records what the frame drew.
    mutating func commit(_ pixels: GIFCanvasPixels, drawn frame: GIFIndexedFrame, palette: GIFPalette) {
        let r = frame.rect
        for y in 0..<r.height {
            for x in 0..<r.width {
                let i = Int(frame.indices[y * r.width + x])
                if i != frame.transparent { visible[(r.y + y) * width + r.x + x] = palette.colors[i].a != 0 }
            }
        }
        previous = pixels
    }
}

/// A rectangle on the GIF canvas.
struct GIFRect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    func union(_ o: GIFRect) -> GIFRect {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return GIFRect(x: x0, y: y0, width: max(x + width, o.x + o.width) - x0, height: max(y + height, o.y + o.height) - y0)
    }

    func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
}

/// A frame as GIF can show it: straight RGBA words (little-endian R, G, B, A), alpha either 0
/// (the whole word 0) or 255.
struct GIFCanvasPixels {
    let width: Int
    let height: Int
    var words: [UInt32]

    init(_ buffer: PixelBuffer) {
        let rgba = buffer.converted(to: .rgba8)
        width = rgba.width
        height = rgba.height
        let count = width * height
        words = rgba.withUnsafeBytes { src in
            [UInt32](unsafeUninitializedCapacity: count) { out, initialized in
                guard let s = src.baseAddress, let d = out.baseAddress else { return }
                for y in 0..<rgba.height {
                    for x in 0..<rgba.width {
                        let w = (s + y * rgba.bytesPerRow + x * 4).loadUnaligned(as: UInt32.self)
                        d[y * rgba.width + x] = w >> 24 < 128 ? 0 : w | 0xFF00_0000
                    }
                }
                initialized = count
            }
        }
    }

    var isOpaque: Bool { !words.contains { $0 == 0 } }
}

/// Palette indices for one frame's rectangle, rows top to bottom.
struct GIFIndexedFrame {
    var rect: GIFRect
    var indices: [UInt8]
    /// The index drawn as transparent (every animated frame has one), or `nil`.
    var transparent: Int?
    /// Set by a remap that checked the fit: the palette represents these pixels badly.
    var fitsBadly = false

    /// A 1×1 frame drawing nothing: a frame identical to the one before.
    static func empty(transparent: Int?) -> GIFIndexedFrame {
        GIFIndexedFrame(rect: GIFRect(x: 0, y: 0, width: 1, height: 1), indices: [UInt8(transparent ?? 0)], transparent: transparent)
    }

    /// Widens the rectangle to cover `other` too, the new pixels transparent (drawing nothing).
    mutating func grow(to other: GIFRect) {
        let r = rect.union(other)
        guard r != rect, let t = transparent else { return }
        var grown = [UInt8](repeating: UInt8(t), count: r.width * r.height)
        for y in 0..<rect.height {
            let d = (rect.y - r.y + y) * r.width + (rect.x - r.x)
            grown.replaceSubrange(d..<(d + rect.width), with: indices[(y * rect.width)..<((y + 1) * rect.width)])
        }
        rect = r
        indices = grown
    }
}
