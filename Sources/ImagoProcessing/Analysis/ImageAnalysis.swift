// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

/// Questions about an image's content that cropping needs answered: where a uniform border ends
/// (trim), and where the most interesting part is (smart gravity).
public enum ImageAnalysis {
    /// The rectangle left after cutting away a border of `color` (by default the colour of the
    /// pixel at `corner`, the top-left one unless given) from every side, as libvips's
    /// `find_trim` finds it for imgproxy: each channel smoothed by a 3x3 median, and pixels whose
    /// channels all lie within `threshold` of the colour (fractions count) are border. `nil` when the whole image is border. An image with transparency is first
    /// flattened over magenta (255, 0, 255), as libvips's trim in imgproxy does, so a transparent
    /// border is cut by default and by the colour `ff00ff`; the colour's own alpha is ignored.
    ///
    /// With `equalHorizontal` the same amount is cut from the left and the right (the smaller
    /// of the two); `equalVertical` does the same for top and bottom.
    public static func trimRect(
        _ buffer: PixelBuffer, color: RGBA8? = nil, threshold: Double = 10,
        equalHorizontal: Bool = false, equalVertical: Bool = false, colorAt corner: (x: Int, y: Int) = (0, 0)
    )
        -> (x: Int, y: Int, width: Int, height: Int)?
    {
        var src = buffer.converted(to: .rgba8)
        if !src.isOpaque { src = src.flattened(over: RGBA8(r: 255, g: 0, b: 255)).converted(to: .rgba8) }
        let w = src.width, h = src.height
        let reference = color ?? src.color(atX: corner.x, y: corner.y) ?? RGBA8(r: 0, g: 0, b: 0)
        let ref = [Double(reference.r), Double(reference.g), Double(reference.b)]
        // libvips's find_trim, which imgproxy's trim runs: each channel smoothed by a 3x3 median
        // (edges repeated), and a pixel is border when no channel differs by more than the
        // threshold (a fraction counts: 10.5 keeps a difference of 11).
        let smooth = w >= 3 && h >= 3
        return src.withUnsafeBytes { raw -> (Int, Int, Int, Int)? in
            let p = raw.bindMemory(to: UInt8.self)
            func value(_ x: Int, _ y: Int, _ c: Int) -> UInt8 {
                guard smooth else { return p[(y * w + x) * 4 + c] }
                let x0 = max(0, x - 1), x2 = min(w - 1, x + 1), y0 = max(0, y - 1), y2 = min(h - 1, y + 1)
                func at(_ xx: Int, _ yy: Int) -> UInt8 { p[(yy * w + xx) * 4 + c] }
                return median9(
                    at(x0, y0), at(x, y0), at(x2, y0), at(x0, y), at(x, y), at(x2, y), at(x0, y2), at(x, y2), at(x2, y2))
            }
            func isBorder(_ x: Int, _ y: Int) -> Bool {
                for c in 0..<3 where abs(Double(value(x, y, c)) - ref[c]) > threshold { return false }
                return true
            }
            func rowIsBorder(_ y: Int) -> Bool { (0..<w).allSatisfy { isBorder($0, y) } }
            func columnIsBorder(_ x: Int, _ y0: Int, _ y1: Int) -> Bool { (y0..<y1).allSatisfy { isBorder(x, $0) } }
            var top = 0
            while top < h && rowIsBorder(top) { top += 1 }
            guard top < h else { return nil }
            var bottom = h
            while bottom > top && rowIsBorder(bottom - 1) { bottom -= 1 }
            var left = 0
            while left < w && columnIsBorder(left, top, bottom) { left += 1 }
            var right = w
            while right > left && columnIsBorder(right - 1, top, bottom) { right -= 1 }
            if equalHorizontal {
                let cut = min(left, w - right)
                left = cut
                right = w - cut
            }
            if equalVertical {
                let cut = min(top, h - bottom)
                top = cut
                bottom = h - cut
            }
            return (left, top, right - left, bottom - top)
        }
    }

    /// The median of nine values (Paeth's sorting network: 19 exchanges, no allocation).
    static func median9(
        _ a0: UInt8, _ a1: UInt8, _ a2: UInt8, _ a3: UInt8, _ a4: UInt8, _ a5: UInt8, _ a6: UInt8, _ a7: UInt8, _ a8: UInt8
    ) -> UInt8 {
        var p = (a0, a1, a2, a3, a4, a5, a6, a7, a8)
        func sort(_ a: inout UInt8, _ b: inout UInt8) { if a > b { swap(&a, &b) } }
        sort(&p.1, &p.2)
        sort(&p.4, &p.5)
        sort(&p.7, &p.8)
        sort(&p.0, &p.1)
        sort(&p.3, &p.4)
        sort(&p.6, &p.7)
        sort(&p.1, &p.2)
        sort(&p.4, &p.5)
        sort(&p.7, &p.8)
        sort(&p.0, &p.3)
        sort(&p.5, &p.8)
        sort(&p.4, &p.7)
        sort(&p.3, &p.6)
        sort(&p.1, &p.4)
        sort(&p.2, &p.5)
        sort(&p.4, &p.7)
        sort(&p.4, &p.2)
        sort(&p.6, &p.4)
        sort(&p.4, &p.2)
        return p.4
    }

    /// The origin of the `width`×`height` window with the most detail, found as libvips's
    /// entropy crop does: while the window is larger than asked, cut a slice from whichever of
    /// the two opposite edges holds less information (Shannon entropy of its luminance).
    /// The work is done on a copy shrunk to at most 256 pixels a side, so it costs a few
    /// milliseconds for any image.
    public static func smartCropOrigin(_ buffer: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let w = buffer.width, h = buffer.height
        guard width < w || height < h else { return (0, 0) }
        let scale = min(1, 256 / Double(max(w, h)))
        let sw = max(1, Int((Double(w) * scale).rounded())), sh = max(1, Int((Double(h) * scale).rounded()))
        let small = (try? Resampler.resize(buffer, to: PixelSize(width: sw, height: sh), quality: .bilinear)) ?? buffer
        let gray = luminance(small)
        let tw = max(1, min(sw, Int((Double(width) * scale).rounded()))), th = max(1, min(sh, Int((Double(height) * scale).rounded())))
        var left = 0, right = sw, top = 0, bottom = sh
        while right - left > tw {
            let slice = max(1, min(right - left - tw, max(1, sw / 32)))
            let a = entropy(gray, sw, x0: left, x1: left + slice, y0: top, y1: bottom)
            let b = entropy(gray, sw, x0: right - slice, x1: right, y0: top, y1: bottom)
            if a < b { left += slice } else { right -= slice }
        }
        while bottom - top > th {
            let slice = max(1, min(bottom - top - th, max(1, sh / 32)))
            let a = entropy(gray, sw, x0: left, x1: right, y0: top, y1: top + slice)
            let b = entropy(gray, sw, x0: left, x1: right, y0: bottom - slice, y1: bottom)
            if a < b { top += slice } else { bottom -= slice }
        }
        let x = min(max(0, Int((Double(left) / scale).rounded())), w - min(width, w))
        let y = min(max(0, Int((Double(top) / scale).rounded())), h - min(height, h))
        return (x, y)
    }

    /// 8-bit luminance (Rec. 601), straight alpha ignored.
    static func luminance(_ buffer: PixelBuffer) -> [UInt8] {
        let src = buffer.converted(to: .rgba8)
        return src.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            return (0..<(src.width * src.height)).map { i in
                let o = i * 4
                let r = 299 * Int(p[o]), g = 587 * Int(p[o + 1]), b = 114 * Int(p[o + 2])
                return UInt8((r + g + b + 500) / 1000)
            }
        }
    }

    /// Shannon entropy, in bits, of the luminance histogram of a rectangle.
    static func entropy(_ gray: [UInt8], _ stride: Int, x0: Int, x1: Int, y0: Int, y1: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        var n = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                histogram[Int(gray[y * stride + x])] += 1
                n += 1
            }
        }
        guard n > 0 else { return 0 }
        var e = 0.0
        for count in histogram where count > 0 {
            let p = Double(count) / Double(n)
            e -= p * Glibc.log2(p)
        }
        return e
    }
}
