// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing

extension ServiceTransformer {
    /// `map` (the decoded image's gain map, oriented as the image was) given the geometry the
    /// image got: the turn and flips, then the plan's trim, crop, resize, fill crop, extension,
    /// aspect extension and padding, each scaled from the image's pixels to the map's, so that
    /// the map covers the result exactly as it covered the source. Added space gets the map's
    /// lowest gain. The map keeps its resolution relative to the image (at most the image's),
    /// so a map a quarter of the source's size is a quarter of the result's.
    func gainMap(_ map: GainMap, plan: Plan, from turned: PixelSize, to result: PixelSize) throws -> GainMap {
        let gray = map.pixels.format == .gray8
        var g = try orient(map.pixels.converted(to: .rgba8)).converted(to: .rgba8)
        // The map's pixels per image pixel, along each side.
        let ratioX = min(1, Double(g.width) / Double(max(1, turned.width)))
        let ratioY = min(1, Double(g.height) / Double(max(1, turned.height)))
        var w = Double(turned.width), h = Double(turned.height)
        func cut(_ r: (x: Int, y: Int, width: Int, height: Int)?) throws {
            guard let r else { return }
            let sx = Double(g.width) / w, sy = Double(g.height) / h
            let x0 = max(0, min(g.width - 1, Int((Double(r.x) * sx).rounded(.down))))
            let y0 = max(0, min(g.height - 1, Int((Double(r.y) * sy).rounded(.down))))
            let x1 = max(x0 + 1, min(g.width, Int((Double(r.x + r.width) * sx).rounded(.up))))
            let y1 = max(y0 + 1, min(g.height, Int((Double(r.y + r.height) * sy).rounded(.up))))
            g = try ImageTransformers.Crop(x: x0, y: y0, width: x1 - x0, height: y1 - y0).transform(g).converted(to: .rgba8)
            w = Double(r.width)
            h = Double(r.height)
        }
        try cut(plan.trim)
        try cut(plan.crop)
        if let size = plan.resize {
            let target = PixelSize(
                width: max(1, Int((Double(g.width) * Double(size.width) / w).rounded())),
                height: max(1, Int((Double(g.height) * Double(size.height) / h).rounded())))
            if target != g.size { g = try Resampler.resize(g, to: target).converted(to: .rgba8) }
            w = Double(size.width)
            h = Double(size.height)
        }
        try cut(plan.fill)
        for e in [plan.extend, plan.aspect, plan.padding] {
            guard let e else { continue }
            let sx = Double(g.width) / w, sy = Double(g.height) / h
            func px(_ v: Int, _ s: Double) -> Int { max(0, Int((Double(v) * s).rounded())) }
            g = try ImageTransformers.Pad(
                top: px(e.top, sy), right: px(e.right, sx), bottom: px(e.bottom, sy), left: px(e.left, sx),
                color: RGBA8(r: 0, g: 0, b: 0, a: 255)
            ).transform(g).converted(to: .rgba8)
            w += Double(e.left + e.right)
            h += Double(e.top + e.bottom)
        }
        // Rounding along the way is settled here: the map's size is the result's at its ratio.
        let final = PixelSize(
            width: max(1, Int((Double(result.width) * ratioX).rounded())), height: max(1, Int((Double(result.height) * ratioY).rounded())))
        if final != g.size { g = try Resampler.resize(g, to: final).converted(to: .rgba8) }
        var out = map
        out.pixels = g.converted(to: gray ? .gray8 : .rgb8)
        return out
    }
}
