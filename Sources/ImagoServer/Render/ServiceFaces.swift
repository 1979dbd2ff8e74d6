// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoServiceURL

/// The faces a crop keeps: `g:obj`/`g:objw` (imgproxy Pro's object gravity, with the class
/// `face`) and, with `IMAGO_SMART_CROP_FACE_DETECTION`, `g:sm`. Faces are looked for once per
/// render, on the decoded (shrunk-on-load) frame, through ``FaceDetector``.
struct ServiceFaces: Sendable {
    let detector: FaceDetector
    /// `g:sm` keeps faces when it finds any (`IMAGO_SMART_CROP_FACE_DETECTION`).
    let smartCrop: Bool
    /// `g:obj` with nothing to keep falls back to smart gravity, else to the centre
    /// (`IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP`).
    let fallbackToSmartCrop: Bool
    /// Where `g:obj` puts the objects in the result (`objects_position`).
    let position: ProcessingOptions.ObjectsPosition?

    /// The faces a render with these options needs, or `nil` when its gravities need none.
    init?(options: ProcessingOptions, drawing: DrawingSettings) {
        let gravities = [options.gravity.kind, options.crop?.gravity?.kind].compactMap { $0 }
        let objects = gravities.contains(.objects)
        let smart = drawing.smartCropFaceDetection && gravities.contains(.smart)
        let marked = options.blurDetections != nil || options.drawDetections != nil
        guard objects || smart || marked else { return nil }
        detector = FaceDetector(
            configuration: .init(cascadePath: drawing.faceDetectionCascade, timeLimit: drawing.faceDetectionTimeLimit))
        smartCrop = drawing.smartCropFaceDetection
        fallbackToSmartCrop = drawing.objectDetectionFallbackToSmartCrop
        position = options.objectsPosition
    }

    /// `objects_position` for a window of `width`×`height`: offsets from 1 up are pixels of the
    /// frame cut, under 1 fractions of the window.
    func placement(width: Int, height: Int) -> ObjectPlacement {
        guard let p = position else { return .center }
        if p.proportional { return .proportional }
        let g = p.gravity
        if g.kind == .focusPoint { return .point(x: g.x, y: g.y) }
        func px(_ v: Double, _ size: Int) -> Double { abs(v) >= 1 ? v : v * Double(size) }
        let sx: Int, sy: Int
        switch g.kind {
        case .west, .northWest, .southWest: sx = -1
        case .east, .northEast, .southEast: sx = 1
        default: sx = 0
        }
        switch g.kind {
        case .north, .northEast, .northWest: sy = -1
        case .south, .southEast, .southWest: sy = 1
        default: sy = 0
        }
        return .edges(x: sx, y: sy, dx: px(g.x, width), dy: px(g.y, height))
    }

    /// What changes the bytes: part of the transformer's key and the ETag.
    var key: String {
        let c = detector.configuration
        return "faces=\(smartCrop ? 1 : 0)\(fallbackToSmartCrop ? 1 : 0):\(c.cascadePath):\(c.maxDimension):\(c.minNeighbors):\(c.scaleFactor):\(c.timeLimit)"
    }

    /// The faces in `buffer` (none when the detector cannot be loaded: the crop then goes by
    /// the fallback, as when there are no faces).
    func faces(in buffer: PixelBuffer) -> [DetectedObject] {
        (try? detector.faces(in: buffer)) ?? []
    }

    /// Where a `width`×`height` window of `buffer` goes for `gravity` (smart or objects), given
    /// the faces in `buffer`'s pixels.
    func origin(
        _ gravity: ProcessingOptions.Gravity, in buffer: PixelBuffer, faces: [DetectedObject], width: Int, height: Int
    ) -> (x: Int, y: Int) {
        let w = buffer.width, h = buffer.height
        if gravity.kind == .objects || smartCrop,
            let o = ImageAnalysis.objectCropOrigin(
                faces, width: width, height: height, imageWidth: w, imageHeight: h,
                weights: gravity.kind == .objects ? gravity.objectWeights : [:],
                placement: gravity.kind == .objects ? placement(width: width, height: height) : .center)
        {
            return o
        }
        if gravity.kind == .smart || fallbackToSmartCrop { return ImageAnalysis.attentionCropOrigin(buffer, width: width, height: height) }
        return ServiceGeometry.place(width, height, in: w, h, gravity: .center)
    }
}
