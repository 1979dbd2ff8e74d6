// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoServiceURL

extension ServiceTransformer {
    /// The detections of the classes `setting` names (all of them when it names none).
    static func chosen(_ objects: [DetectedObject], _ setting: ProcessingOptions.Detections) -> [DetectedObject] {
        setting.classes.isEmpty || setting.classes.contains("all") ? objects : objects.filter { setting.classes.contains($0.className) }
    }

    /// `buffer` with each box blurred (`blur_detections`): a Gaussian of `sigma` over the box
    /// and a margin around it, so the box's edges blur as its middle does.
    func blurring(_ buffer: PixelBuffer, _ boxes: [DetectedObject], sigma: Double) throws -> PixelBuffer {
        guard !boxes.isEmpty, sigma > 0 else { return buffer }
        var out = buffer.converted(to: .argb32Premultiplied)
        let margin = Int((sigma * 3).rounded(.up))
        for b in boxes {
            let x0 = max(0, b.x), y0 = max(0, b.y), x1 = min(out.width, b.x + b.width), y1 = min(out.height, b.y + b.height)
            guard x1 > x0, y1 > y0 else { continue }
            let ex0 = max(0, x0 - margin), ey0 = max(0, y0 - margin)
            let ex1 = min(out.width, x1 + margin), ey1 = min(out.height, y1 + margin)
            let patch = try ImageTransformers.Crop(x: ex0, y: ey0, width: ex1 - ex0, height: ey1 - ey0).transform(out)
            let soft = try ImageTransformers.Blur(radius: sigma).transform(patch)
            let inner = try ImageTransformers.Crop(x: x0 - ex0, y: y0 - ey0, width: x1 - x0, height: y1 - y0).transform(soft)
            out = try ImageTransformers.Overlay(inner, identifier: "blur_detections", x: x0, y: y0).transform(out)
        }
        return out
    }

    /// `buffer` with each box outlined in red, `width` pixels wide (`draw_detections`).
    func outlining(_ buffer: PixelBuffer, _ boxes: [DetectedObject], width: Int) throws -> PixelBuffer {
        guard !boxes.isEmpty else { return buffer }
        let src = buffer.converted(to: .rgba8)
        let w = src.width, h = src.height
        var bytes = src.bytes
        for b in boxes {
            let x0 = max(0, b.x), y0 = max(0, b.y), x1 = min(w, b.x + b.width), y1 = min(h, b.y + b.height)
            guard x1 > x0, y1 > y0 else { continue }
            for y in y0..<y1 {
                for x in x0..<x1 where x < x0 + width || x >= x1 - width || y < y0 + width || y >= y1 - width {
                    let o = (y * w + x) * 4
                    bytes[o] = 255
                    bytes[o + 1] = 0
                    bytes[o + 2] = 0
                    bytes[o + 3] = 255
                }
            }
        }
        return try PixelBuffer(width: w, height: h, format: .rgba8, bytes: bytes)
    }
}
