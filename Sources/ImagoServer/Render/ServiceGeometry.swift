// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL

/// The sizes and rectangles of imgproxy's pipeline, computed from the image's size and the
/// options as imgproxy computes them (its `processing/prepare.go` and `calc_position.go`): pure
/// arithmetic, tested against imgproxy's own tables.
///
/// ``sizes(width:height:)`` works in the source's pixels, as shown (after the EXIF orientation,
/// `rotate` and trimming); the transformer brings crop sizes and offsets to the pixels of the
/// image it holds when the decoder shrank it on load. Go's rounding is kept: `math.Round` (half
/// away from zero) for sizes, `math.RoundToEven` for positions, offsets and padding.
struct ServiceGeometry {
    let options: ProcessingOptions
    /// The longer side a result may have, padding and extension included; a larger result is
    /// scaled down to fit (`max_result_dimension`).
    var maxResultDimension: Int?
    /// A vector source (SVG, PDF) is drawn at any scale: `enlarge` does not hold it back.
    var vectorSource = false

    init(options: ProcessingOptions, maxResultDimension: Int? = nil, vectorSource: Bool = false) {
        self.options = options
        self.maxResultDimension = maxResultDimension
        self.vectorSource = vectorSource
    }

    /// Every size of one request, in the source's pixels and the result's.
    struct Sizes: Equatable {
        /// The region `crop` cuts before resizing (0: the whole extent), source pixels.
        var cropWidth = 0, cropHeight = 0
        /// The factor from the (cropped) source to the resized image, per axis.
        var wScale = 1.0, hScale = 1.0
        /// The factor applied to pixel values in the options (offsets, padding, target sizes).
        var dprScale = 1.0
        /// The requested size times the `dpr` and zoom (0: not given).
        var targetWidth = 0, targetHeight = 0
        /// The resized image.
        var scaledWidth = 0, scaledHeight = 0
        /// The crop after resizing (fill, fill-down); 0: the whole extent.
        var resultCropWidth = 0, resultCropHeight = 0
        /// The canvas `extend_aspect_ratio` extends to (0: none).
        var aspectWidth = 0, aspectHeight = 0
    }

    static func round(_ v: Double) -> Int { clamped(v.rounded(.toNearestOrAwayFromZero)) }
    static func roundToEven(_ v: Double) -> Int { clamped(v.rounded(.toNearestOrEven)) }

    /// `v` as an `Int`, held within ±2^40 (far past any image, and summed without overflow), 0
    /// for what is not a number: option values from a URL may be anything finite.
    static func clamped(_ v: Double) -> Int {
        guard v.isFinite else { return 0 }
        return Int(max(-Self.bound, min(Self.bound, v)))
    }

    static let bound = Double(1 << 40)
    static func scale(_ a: Int, _ s: Double) -> Int { a == 0 ? 0 : round(Double(a) * s) }
    static func scaleToEven(_ a: Int, _ s: Double) -> Int { a == 0 ? 0 : roundToEven(Double(a) * s) }
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    /// The size `crop` asks for on one axis of `extent` pixels: 0 none, at least 1 pixels
    /// (truncated), under 1 a fraction (rounded, at least 1).
    static func cropExtent(_ extent: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return clamped(crop.rounded(.towardZero)) }
        return max(1, scale(extent, crop))
    }

    /// The size `crop` cuts from a `width`×`height` image, as the render cuts it: each side by
    /// ``cropExtent(_:_:)`` (imgproxy's `calcCropSize`), none or more than the image being the
    /// whole side. The one rule for renders and `/info`'s `crop`.
    static func cropSize(_ crop: ProcessingOptions.Crop, width: Int, height: Int) -> PixelSize {
        PixelSize(width: minNonZero(cropExtent(width, crop.width), width), height: minNonZero(cropExtent(height, crop.height), height))
    }

    /// imgproxy's sizes for a `width`×`height` source (as shown).
    func sizes(width: Int, height: Int) -> Sizes {
        var s = Sizes()
        if let crop = options.crop {
            s.cropWidth = Self.cropExtent(width, crop.width)
            s.cropHeight = Self.cropExtent(height, crop.height)
        }
        let w = Self.minNonZero(s.cropWidth, width), h = Self.minNonZero(s.cropHeight, height)
        scale(&s, width: w, height: h)
        measure(&s, width: w, height: h)
        limit(&s, width: w, height: h)
        return s
    }

    /// The resize factors and the `dpr` left to apply (imgproxy's `calcScale`).
    private func scale(_ s: inout Sizes, width: Int, height: Int) {
        let o = options
        var wShrink = 1.0, hShrink = 1.0
        let srcW = Double(width), srcH = Double(height)
        let dstW = o.width != 0 ? Double(o.width) : srcW
        let dstH = o.height != 0 ? Double(o.height) : srcH
        if dstW != srcW { wShrink = srcW / dstW }
        if dstH != srcH { hShrink = srcH / dstH }
        if wShrink != 1 || hShrink != 1 {
            var type = o.resizingType
            if type == .auto {
                let srcD = srcW - srcH, dstD = dstW - dstH
                type = (srcD >= 0 && dstD >= 0) || (srcD < 0 && dstD < 0) ? .fill : .fit
            }
            if o.width == 0 && type != .force {
                wShrink = hShrink
            } else if o.height == 0 && type != .force {
                hShrink = wShrink
            } else if type == .fit {
                wShrink = max(wShrink, hShrink)
                hShrink = wShrink
            } else if type == .fill || type == .fillDown {
                wShrink = min(wShrink, hShrink)
                hShrink = wShrink
            }
        }
        wShrink /= o.zoomX
        hShrink /= o.zoomY
        s.dprScale = o.dpr
        if !o.enlarge && !vectorSource {
            let minShrink = min(wShrink, hShrink)
            if minShrink < 1 {
                wShrink /= minShrink
                hShrink /= minShrink
                if !o.extend { s.dprScale /= minShrink }
            }
            s.dprScale = min(s.dprScale, min(wShrink, hShrink))
        }
        if o.minWidth > 0 {
            let minShrink = srcW / Double(o.minWidth)
            if minShrink < wShrink {
                hShrink /= wShrink / minShrink
                wShrink = minShrink
            }
        }
        if o.minHeight > 0 {
            let minShrink = srcH / Double(o.minHeight)
            if minShrink < hShrink {
                wShrink /= hShrink / minShrink
                hShrink = minShrink
            }
        }
        wShrink /= s.dprScale
        hShrink /= s.dprScale
        wShrink = min(wShrink, srcW)
        hShrink = min(hShrink, srcH)
        s.wScale = 1 / wShrink
        s.hScale = 1 / hShrink
    }

    /// The target, resized, result-crop and aspect-ratio sizes (imgproxy's `calcSizes`).
    private func measure(_ s: inout Sizes, width: Int, height: Int) {
        let o = options
        s.targetWidth = Self.scale(o.width, s.dprScale * o.zoomX)
        s.targetHeight = Self.scale(o.height, s.dprScale * o.zoomY)
        s.scaledWidth = Self.scale(width, s.wScale)
        s.scaledHeight = Self.scale(height, s.hScale)
        s.resultCropWidth = s.targetWidth
        s.resultCropHeight = s.targetHeight
        if o.resizingType == .fillDown && !o.enlarge {
            let diffW = Double(s.targetWidth) / Double(s.scaledWidth)
            let diffH = Double(s.targetHeight) / Double(s.scaledHeight)
            if diffW > diffH && diffW > 1 {
                s.resultCropHeight = Self.scale(s.scaledWidth, Double(s.targetHeight) / Double(s.targetWidth))
                s.resultCropWidth = s.scaledWidth
            } else if diffH > diffW && diffH > 1 {
                s.resultCropWidth = Self.scale(s.scaledHeight, Double(s.targetWidth) / Double(s.targetHeight))
                s.resultCropHeight = s.scaledHeight
            }
        }
        s.aspectWidth = 0
        s.aspectHeight = 0
        if o.extendAspectRatio && s.targetWidth > 0 && s.targetHeight > 0 {
            let outW = Self.minNonZero(s.scaledWidth, s.resultCropWidth)
            let outH = Self.minNonZero(s.scaledHeight, s.resultCropHeight)
            let diffW = Double(s.targetWidth) / Double(outW), diffH = Double(s.targetHeight) / Double(outH)
            if diffH > diffW {
                s.aspectHeight = Self.scale(outW, Double(s.targetHeight) / Double(s.targetWidth))
                s.aspectWidth = outW
            } else if diffW > diffH {
                s.aspectWidth = Self.scale(outH, Double(s.targetWidth) / Double(s.targetHeight))
                s.aspectHeight = outH
            }
        }
    }

    /// Scales everything down when the result, extension and padding included, would be larger
    /// than ``maxResultDimension`` (imgproxy's `limitScale`).
    private func limit(_ s: inout Sizes, width: Int, height: Int) {
        guard let limit = maxResultDimension, limit > 0 else { return }
        let o = options
        var outW = Self.minNonZero(s.scaledWidth, s.resultCropWidth)
        var outH = Self.minNonZero(s.scaledHeight, s.resultCropHeight)
        if o.extend {
            outW = max(outW, s.targetWidth)
            outH = max(outH, s.targetHeight)
        } else if o.extendAspectRatio {
            outW = max(outW, s.aspectWidth)
            outH = max(outH, s.aspectHeight)
        }
        if let p = o.padding {
            outW += Self.scaleToEven(p.left, s.dprScale) + Self.scaleToEven(p.right, s.dprScale)
            outH += Self.scaleToEven(p.top, s.dprScale) + Self.scaleToEven(p.bottom, s.dprScale)
        }
        guard outW > limit || outH > limit else { return }
        let down = Double(limit) / Double(max(outW, outH))
        s.wScale = max(s.wScale * down, 1 / Double(width))
        s.hScale = max(s.hScale * down, 1 / Double(height))
        s.dprScale *= down
        measure(&s, width: width, height: height)
    }

    /// Where a `w`×`h` window goes in a `width`×`height` container by `gravity`, as imgproxy
    /// places it: the middle at round-half-to-even of (free + 1) / 2, offsets of 1 or more are
    /// pixels times `pixelScale` (the `dpr`, or the decoder's shrink for a crop), under 1
    /// fractions of the container; east and south offsets push inward. The window stays inside
    /// (or, when larger, at 0); with `overflow` (a watermark) it may stick out, but keeps at
    /// least one pixel inside. Smart gravity is placed by the caller; here it is the centre.
    static func place(
        _ w: Int, _ h: Int, in width: Int, _ height: Int, gravity: ProcessingOptions.Gravity,
        pixelScale: Double = 1, overflow: Bool = false
    ) -> (x: Int, y: Int) {
        var x: Int, y: Int
        if gravity.kind == .focusPoint {
            x = scaleToEven(width, gravity.x) - w / 2
            y = scaleToEven(height, gravity.y) - h / 2
        } else {
            let ox = abs(gravity.x) >= 1 ? roundToEven(gravity.x * pixelScale) : scaleToEven(width, gravity.x)
            let oy = abs(gravity.y) >= 1 ? roundToEven(gravity.y * pixelScale) : scaleToEven(height, gravity.y)
            switch gravity.kind {
            case .west, .northWest, .southWest: x = ox
            case .east, .northEast, .southEast: x = width - w - ox
            default: x = roundToEven(Double(width - w + 1) / 2) + ox
            }
            switch gravity.kind {
            case .north, .northEast, .northWest: y = oy
            case .south, .southEast, .southWest: y = height - h - oy
            default: y = roundToEven(Double(height - h + 1) / 2) + oy
            }
        }
        if overflow { return (max(1 - w, min(x, width - 1)), max(1 - h, min(y, height - 1))) }
        return (max(0, min(x, width - w)), max(0, min(y, height - h)))
    }

    /// The box to decode at least, for shrink-on-load: the whole source scaled by the largest
    /// factor the resize will use, or `nil` when the result needs the full resolution (or trim
    /// is asked for, which needs every pixel to find the border). A vector source gets a hint
    /// for any scale, enlarging too, since it is drawn at the hint's size.
    func decodeHint(sourceWidth: Int, sourceHeight: Int) -> PixelSize? {
        guard options.trim == nil, sourceWidth > 0, sourceHeight > 0 else { return nil }
        let s = sizes(width: sourceWidth, height: sourceHeight)
        let scale = max(s.wScale, s.hScale)
        if vectorSource {
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
