// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ImageAnalysis {
    /// The origin of the `width`×`height` window of an `imageWidth`×`imageHeight` image that
    /// keeps the most of `objects`, as imgproxy Pro's `max_score_area` object gravity: each
    /// object scores its weight times the share of its box inside the window, and of the windows
    /// with the best score the one centred nearest the objects' weighted centre is taken. Every
    /// object that fits is kept whole when all of them fit together.
    ///
    /// - Parameters:
    ///   - objects: Boxes in the image's pixels (``FaceDetector/faces(in:)``'s, say).
    ///   - width: The window's width.
    ///   - height: The window's height.
    ///   - imageWidth: The image's width.
    ///   - imageHeight: The image's height.
    ///   - weights: The weight of a class (`"face": 2`); `"all"` sets the weight of every class
    ///     not named. Classes not in `weights` weigh 1 when it is empty or has no `"all"`, and
    ///     0 (ignored) when it names classes but not theirs and has no `"all"`.
    /// - Returns: `nil` when no object weighs anything (the caller falls back to another gravity).
    public static func objectCropOrigin(
        _ objects: [DetectedObject], width: Int, height: Int, imageWidth: Int, imageHeight: Int, weights: [String: Double] = [:]
    ) -> (x: Int, y: Int)? {
        let w = min(width, imageWidth), h = min(height, imageHeight)
        func weight(_ o: DetectedObject) -> Double {
            if let v = weights[o.className] { return v }
            if let v = weights["all"] { return v }
            return weights.isEmpty ? 1 : 0
        }
        let weighted = objects.prefix(FaceDetector.maxFaces).compactMap { o -> (DetectedObject, Double)? in
            let v = weight(o)
            return v > 0 && o.area > 0 ? (o, v) : nil
        }
        guard !weighted.isEmpty else { return nil }
        var total = 0.0, cx = 0.0, cy = 0.0
        for (o, v) in weighted {
            total += v
            cx += v * (Double(o.x) + Double(o.width) / 2)
            cy += v * (Double(o.y) + Double(o.height) / 2)
        }
        cx /= total
        cy /= total
        // The window's edges worth trying along an axis: against each box's edges, centred on
        // each box and on the weighted centre, and the image's ends.
        func candidates(_ size: Int, _ extent: Int, _ centre: Double, _ edges: [(Int, Int)]) -> [Int] {
            let top = extent - size
            var c: Set<Int> = [0, top, Int((centre - Double(size) / 2).rounded())]
            for (a, length) in edges {
                c.insert(a)
                c.insert(a + length - size)
                c.insert(a + length / 2 - size / 2)
            }
            return c.map { max(0, min(top, $0)) }.sorted()
        }
        let xs = candidates(w, imageWidth, cx, weighted.map { ($0.0.x, $0.0.width) })
        let ys = candidates(h, imageHeight, cy, weighted.map { ($0.0.y, $0.0.height) })
        func overlap(_ a: Int, _ al: Int, _ b: Int, _ bl: Int) -> Double {
            Double(max(0, min(a + al, b + bl) - max(a, b)))
        }
        var best: (score: Double, distance: Double, x: Int, y: Int) = (-1, 0, 0, 0)
        for y in ys {
            for x in xs {
                var score = 0.0
                for (o, v) in weighted {
                    score += v * overlap(x, w, o.x, o.width) * overlap(y, h, o.y, o.height) / Double(o.area)
                }
                let dx = Double(x) + Double(w) / 2 - cx, dy = Double(y) + Double(h) / 2 - cy
                let distance = dx * dx + dy * dy
                if score > best.score + 1e-9 || (abs(score - best.score) <= 1e-9 && distance < best.distance) {
                    best = (score, distance, x, y)
                }
            }
        }
        return (best.x, best.y)
    }
}
