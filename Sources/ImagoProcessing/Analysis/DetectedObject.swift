// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Something found in an image: a box in the image's pixels, what it is, and how sure the
/// detector is. ``FaceDetector`` finds faces (class `"face"`); object-aware crops
/// (``ImageAnalysis/objectCropOrigin(_:width:height:imageWidth:imageHeight:weights:placement:)``) keep them.
public struct DetectedObject: Sendable, Hashable {
    /// The class of the object: `"face"` for ``FaceDetector``'s.
    public var className: String
    /// The box's left edge, in the image's pixels.
    public var x: Int
    /// The box's top edge.
    public var y: Int
    /// The box's width.
    public var width: Int
    /// The box's height.
    public var height: Int
    /// How sure the detector is, from 0 to 1. For ``FaceDetector``, n / (n + 3) of the n
    /// neighbouring windows that agreed on the face (so 0.57 at the fewest the default asks, four).
    public var confidence: Double

    /// Creates a detection.
    public init(className: String, x: Int, y: Int, width: Int, height: Int, confidence: Double = 1) {
        self.className = className
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
    }

    /// The box's area in pixels.
    public var area: Int { max(0, width) * max(0, height) }

    /// The box moved by (`dx`, `dy`) and then scaled by `scale` (into the pixels of a cut and
    /// resized image), rounded outwards so that it still covers the object.
    public func mapped(dx: Int = 0, dy: Int = 0, scale: Double = 1) -> DetectedObject {
        var o = self
        let x0 = (Double(x + dx) * scale).rounded(.down), y0 = (Double(y + dy) * scale).rounded(.down)
        let x1 = (Double(x + dx + width) * scale).rounded(.up), y1 = (Double(y + dy + height) * scale).rounded(.up)
        o.x = Int(x0)
        o.y = Int(y0)
        o.width = Int(x1 - x0)
        o.height = Int(y1 - y0)
        return o
    }
}
