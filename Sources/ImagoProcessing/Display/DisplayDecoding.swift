// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension Image {
    /// The image ready to draw: every frame in the premultiplied display format
    /// (`PixelFormat.argb32Premultiplied`, cairo's ARGB32), with `Image.hasAlpha`
    /// cleared when no pixel is transparent (SDWebImage skips alpha for opaque images).
    /// An image that is already decoded and correctly flagged is returned as is.
    public func decodedForDisplay() -> Image {
        var out = isDecoded ? self : converted(to: .argb32Premultiplied)
        if out.hasAlpha, out.frames.allSatisfy({ $0.buffer.isOpaque }) { out.hasAlpha = false }
        return out
    }
}

extension PixelBuffer {
    /// The straight (unpremultiplied) colours of every pixel in the rectangle, row by row, clipped
    /// to the buffer (SDWebImage's `sd_colorsWithRect`). Empty when the rectangle misses the buffer.
    public func colors(x: Int, y: Int, width: Int, height: Int) -> [RGBA8] {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(self.width, x.addingReportingOverflow(width).overflow ? Int.max : x + width)
        let y1 = min(self.height, y.addingReportingOverflow(height).overflow ? Int.max : y + height)
        guard width > 0, height > 0, x1 > x0, y1 > y0 else { return [] }
        var out: [RGBA8] = []
        out.reserveCapacity((x1 - x0) * (y1 - y0))
        for row in y0..<y1 { for col in x0..<x1 { if let c = color(atX: col, y: row) { out.append(c) } } }
        return out
    }

    /// The average straight colour of a rectangle (alpha-weighted, so transparent pixels do not
    /// darken it), or `nil` when the rectangle misses the buffer.
    public func averageColor(x: Int, y: Int, width: Int, height: Int) -> RGBA8? {
        let cs = colors(x: x, y: y, width: width, height: height)
        guard !cs.isEmpty else { return nil }
        var r = 0, g = 0, b = 0, a = 0
        for c in cs {
            r += Int(c.r) * Int(c.a)
            g += Int(c.g) * Int(c.a)
            b += Int(c.b) * Int(c.a)
            a += Int(c.a)
        }
        guard a > 0 else { return RGBA8(r: 0, g: 0, b: 0, a: 0) }
        return RGBA8(r: UInt8(r / a), g: UInt8(g / a), b: UInt8(b / a), a: UInt8(a / cs.count))
    }
}
