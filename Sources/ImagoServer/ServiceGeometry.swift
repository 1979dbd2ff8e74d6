// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL

/// The sizes and rectangles of imgproxy's pipeline, computed from the image's size and the
/// options: pure arithmetic, tested on its own.
///
/// Sizes are in the pixels of the image being processed. `sourceScale` is that image's size over
/// the source's (below 1 when the decoder shrank it on load), so that option values meant in
/// source pixels (absolute crop sizes and offsets) can be brought to it.
struct ServiceGeometry {
    let options: ProcessingOptions

    /// A `w`×`h` window placed in a `width`×`height` container by `gravity`; offsets of 1 or more
    /// are pixels (times `pixelScale`), under 1 fractions of the container. Smart gravity is
    /// placed by the caller; here it is the centre.
    static func place(
        _ w: Int, _ h: Int, in width: Int, _ height: Int, gravity: ProcessingOptions.Gravity,
        pixelScale: Double = 1
    ) -> (x: Int, y: Int) {
        func offset(_ v: Double, _ extent: Int) -> Int {
            abs(v) >= 1 ? Int((v * pixelScale).rounded()) : Int((v * Double(extent)).rounded())
        }
        let freeX = width - w, freeY = height - h
        var x: Int, y: Int
        switch gravity.kind {
        case .focusPoint:
            x = Int((gravity.x * Double(width) - Double(w) / 2).rounded())
            y = Int((gravity.y * Double(height) - Double(h) / 2).rounded())
        default:
            let ox = offset(gravity.x, width), oy = offset(gravity.y, height)
            switch gravity.kind {
            case .west, .northWest, .southWest: x = ox
            case .east, .northEast, .southEast: x = freeX - ox
            default: x = freeX / 2 + ox
            }
            switch gravity.kind {
            case .north, .northEast, .northWest: y = oy
            case .south, .southEast, .southWest: y = freeY - oy
            default: y = freeY / 2 + oy
            }
        }
        return (min(max(0, x), max(0, freeX)), min(max(0, y), max(0, freeY)))
    }

    /// The region `crop` cuts from a `width`×`height` image (before resizing): sizes of 1 or more
    /// are source pixels (times `sourceScale`), under 1 fractions, 0 the whole extent.
    func cropSize(width: Int, height: Int, sourceScale: Double) -> (w: Int, h: Int)? {
        guard let crop = options.crop else { return nil }
        func extent(_ v: Double, _ full: Int) -> Int {
            if v == 0 { return full }
            let px = v >= 1 ? Int((v * sourceScale).rounded()) : Int((v * Double(full)).rounded())
            return min(full, max(1, px))
        }
        return (extent(crop.width, width), extent(crop.height, height))
    }

    /// What to resize a `width`×`height` region of this image to, and the box a `fill` crops
    /// the result to, both in the result's pixels. The region is brought back to source pixels
    /// by `sourceScale` first, so a source the decoder shrank on load gives the same result.
    func resize(width: Int, height: Int, sourceScale: Double) -> (size: PixelSize, fillBox: PixelSize?) {
        let o = options
        // Everything in source pixels: the region's size, and the request's.
        let srcW = Double(width) / sourceScale, srcH = Double(height) / sourceScale
        let w = Double(o.width) * o.dpr, h = Double(o.height) * o.dpr
        let minW = Double(o.minWidth) * o.dpr, minH = Double(o.minHeight) * o.dpr
        var type = o.resizingType
        if type == .auto {
            type = w > 0 && h > 0 && (srcW >= srcH) == (w >= h) ? .fill : .fit
        }
        var sx: Double, sy: Double
        if w == 0 && h == 0 {
            sx = 1
            sy = 1
        } else if type == .force {
            sx = w > 0 ? w / srcW : 1
            sy = h > 0 ? h / srcH : 1
        } else {
            let rw = w > 0 ? w / srcW : nil, rh = h > 0 ? h / srcH : nil
            let s: Double
            switch (rw, rh) {
            case let (a?, b?): s = type == .fit ? min(a, b) : max(a, b)
            case let (a?, nil): s = a
            case let (nil, b?): s = b
            default: s = 1
            }
            sx = s
            sy = s
        }
        if minW > 0 { let m = minW / srcW; if sx < m { sy *= m / sx; sx = m } }
        if minH > 0 { let m = minH / srcH; if sy < m { sx *= m / sy; sy = m } }
        sx *= o.zoomX
        sy *= o.zoomY
        if !o.enlarge {
            let m = max(sx, sy)
            if m > 1 {
                sx /= m
                sy /= m
            }
        }
        // The result's pixels: what the request asked for, whatever the decoder delivered.
        let rw = max(1, Int((srcW * sx).rounded()))
        let rh = max(1, Int((srcH * sy).rounded()))
        var fillBox: PixelSize?
        if type == .fill || type == .fillDown, w > 0, h > 0 {
            let bw = Int(w.rounded()), bh = Int(h.rounded())
            if type == .fillDown, rw < bw || rh < bh {
                // Smaller than asked: crop to the asked aspect ratio instead of growing.
                let ratio = w / h
                let cw = min(Double(rw), Double(rh) * ratio), ch = min(Double(rh), Double(rw) / ratio)
                fillBox = PixelSize(width: max(1, Int(cw.rounded())), height: max(1, Int(ch.rounded())))
            } else {
                fillBox = PixelSize(width: min(rw, max(1, bw)), height: min(rh, max(1, bh)))
            }
        }
        return (PixelSize(width: rw, height: rh), fillBox)
    }

    /// The canvas `extend` pads a `width`×`height` result to (result pixels), or `nil` when it
    /// is not smaller.
    func extendCanvas(width: Int, height: Int) -> PixelSize? {
        guard options.extend else { return nil }
        let w = Int((Double(options.width) * options.dpr).rounded())
        let h = Int((Double(options.height) * options.dpr).rounded())
        let cw = max(width, w), ch = max(height, h)
        return cw == width && ch == height ? nil : PixelSize(width: cw, height: ch)
    }

    /// The box to decode at least, for shrink-on-load: the whole source scaled by the largest
    /// factor the resize will use, or `nil` when the result needs the full resolution (or trim
    /// is asked for, which needs every pixel to find the border). A `vector` source (SVG, PDF)
    /// gets a hint for any scale, enlarging too, since it is drawn at the hint's size.
    func decodeHint(sourceWidth: Int, sourceHeight: Int, vector: Bool = false) -> PixelSize? {
        guard options.trim == nil, sourceWidth > 0, sourceHeight > 0 else { return nil }
        var regionW = sourceWidth, regionH = sourceHeight
        if let c = cropSize(width: sourceWidth, height: sourceHeight, sourceScale: 1) {
            regionW = c.w
            regionH = c.h
        }
        let r = resize(width: regionW, height: regionH, sourceScale: 1).size
        let scale = max(Double(r.width) / Double(regionW), Double(r.height) / Double(regionH))
        if vector {
            guard scale.isFinite, scale > 0, abs(scale - 1) > 1e-9 else { return nil }
        } else {
            guard scale < 0.5 else { return nil }  // no decoder reduction below 1/2 would help
        }
        return PixelSize(
            width: max(1, Int((Double(sourceWidth) * scale).rounded(.up))),
            height: max(1, Int((Double(sourceHeight) * scale).rounded(.up))))
    }

    /// `hint` rounded up to the exact size of the reduction a decoder that shrinks only by
    /// `denominators` (JPEG's DCT scaling: 2, 4, 8) will pick for it, or `nil` when none helps.
    /// Requests whose hints land on the same reduction then ask for the same decode, so
    /// concurrent ones share it (one decode of a large source, not one per requested size).
    static func reductionHint(_ hint: PixelSize, source: PixelSize, denominators: [Int] = [8, 4, 2]) -> PixelSize? {
        for d in denominators.sorted(by: >) where d > 1 {
            let w = (source.width + d - 1) / d, h = (source.height + d - 1) / d
            if w >= hint.width, h >= hint.height { return PixelSize(width: w, height: h) }
        }
        return nil
    }
}
