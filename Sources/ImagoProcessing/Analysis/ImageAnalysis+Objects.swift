// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Where the objects an object-aware crop keeps go in its window (imgproxy Pro's
/// `objects_position`).
public enum ObjectPlacement: Sendable, Hashable {
    /// The objects' weighted centre at the window's centre: the default.
    case center
    /// Along each axis, -1 puts the objects' near edge (left, top) at the window's, 1 their far
    /// edge at the window's far edge, 0 centres them; `dx` and `dy` move them inwards from
    /// that edge (or, centred, right and down), in the image's pixels.
    case edges(x: Int, y: Int, dx: Double = 0, dy: Double = 0)
    /// The objects' centre at this fraction of the window (0...1 each).
    case point(x: Double, y: Double)
    /// The objects' centre at the same fraction of the window as of the image: the scene's
    /// layout kept.
    case proportional
}

extension ImageAnalysis {
    /// The origin of the `width`×`height` window of an `imageWidth`×`imageHeight` image that
    /// keeps the most of `objects`, as imgproxy Pro's `max_score_area` object gravity: each
    /// object scores its weight times the share of its box inside the window, and of the windows
    /// with the best score the one nearest the `placement` is taken (by default, the one centred
    /// nearest the objects' weighted centre). Every
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
    ///   - placement: Where the objects go in the window among the best windows. Default
    ///     ``ObjectPlacement/center``.
    /// - Returns: `nil` when no object weighs anything (the caller falls back to another gravity).
    public static func objectCropOrigin(
        _ objects: [DetectedObject], width: Int, height: Int, imageWidth: Int, imageHeight: Int, weights: [String: Double] = [:],
        placement: ObjectPlacement = .center
    ) -> (x: Int, y: Int)? {
        let w = min(width, imageWidth), h = min(height, imageHeight)
        let weighted = weightedObjects(objects, weights: weights)
        guard !weighted.isEmpty else { return nil }
        let target = placementTarget(
            weighted, placement: placement, width: w, height: h, imageWidth: imageWidth, imageHeight: imageHeight)
        let xs = candidates(w, imageWidth, target.x, weighted.map { ($0.0.x, $0.0.width) })
        let ys = candidates(h, imageHeight, target.y, weighted.map { ($0.0.y, $0.0.height) })
        return bestWindow(xs: xs, ys: ys, weighted: weighted, width: w, height: h, target: target)
    }

    /// The objects (at most ``FaceDetector/maxFaces``) with a weight above 0 and a box, each with
    /// its weight from `weights`.
    private static func weightedObjects(_ objects: [DetectedObject], weights: [String: Double]) -> [(DetectedObject, Double)] {
        func weight(_ o: DetectedObject) -> Double {
            if let v = weights[o.className] { return v }
            if let v = weights["all"] { return v }
            return weights.isEmpty ? 1 : 0
        }
        return objects.prefix(FaceDetector.maxFaces).compactMap { o -> (DetectedObject, Double)? in
            let v = weight(o)
            return v > 0 && o.area > 0 ? (o, v) : nil
        }
    }

    /// The window's origin the placement asks for, from the objects' weighted centre and their
    /// bounding box; among the best windows the nearest to it wins.
    private static func placementTarget(
        _ weighted: [(DetectedObject, Double)], placement: ObjectPlacement, width w: Int, height h: Int, imageWidth: Int, imageHeight: Int
    ) -> (x: Double, y: Double) {
        var total = 0.0, cx = 0.0, cy = 0.0
        for (o, v) in weighted {
            total += v
            cx += v * (Double(o.x) + Double(o.width) / 2)
            cy += v * (Double(o.y) + Double(o.height) / 2)
        }
        cx /= total
        cy /= total
        // The window's origin the placement asks for; among the best windows the nearest wins.
        let bx0 = Double(weighted.map { $0.0.x }.min() ?? 0), by0 = Double(weighted.map { $0.0.y }.min() ?? 0)
        let bx1 = Double(weighted.map { $0.0.x + $0.0.width }.max() ?? 0), by1 = Double(weighted.map { $0.0.y + $0.0.height }.max() ?? 0)
        func along(_ side: Int, _ low: Double, _ high: Double, _ centre: Double, _ size: Int, _ shift: Double) -> Double {
            side < 0 ? low - shift : side > 0 ? high + shift - Double(size) : centre - Double(size) / 2 + shift
        }
        let target: (x: Double, y: Double)
        switch placement {
        case .center: target = (cx - Double(w) / 2, cy - Double(h) / 2)
        case .edges(let sx, let sy, let dx, let dy): target = (along(sx, bx0, bx1, cx, w, dx), along(sy, by0, by1, cy, h, dy))
        case .point(let px, let py): target = (cx - px * Double(w), cy - py * Double(h))
        case .proportional:
            target = (cx - cx / Double(max(1, imageWidth)) * Double(w), cy - cy / Double(max(1, imageHeight)) * Double(h))
        }
        return target
    }

    /// The window's edges worth trying along an axis: against each box's edges, centred on
    /// each box and on the weighted centre, and the image's ends.
    private static func candidates(_ size: Int, _ extent: Int, _ wanted: Double, _ edges: [(Int, Int)]) -> [Int] {
        let top = extent - size
        var c: Set<Int> = [0, top, Int(wanted.rounded())]
        for (a, length) in edges {
            c.insert(a)
            c.insert(a + length - size)
            c.insert(a + length / 2 - size / 2)
        }
        return c.map { max(0, min(top, $0)) }.sorted()
    }

    /// The candidate window with the best score (each object's weight times the share of its box
    /// inside), the one nearest `target` among equals.
    private static func bestWindow(
        xs: [Int], ys: [Int], weighted: [(DetectedObject, Double)], width w: Int, height h: Int, target: (x: Double, y: Double)
    ) -> (x: Int, y: Int) {
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
                let dx = Double(x) - target.x, dy = Double(y) - target.y
                let distance = dx * dx + dy * dy
                if score > best.score + 1e-9 || (abs(score - best.score) <= 1e-9 && distance < best.distance) {
                    best = (score, distance, x, y)
                }
            }
        }
        return (best.x, best.y)
    }
}
