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

    /// The faces a render with these options needs, or `nil` when its gravities need none.
    init?(options: ProcessingOptions, configuration: ServerConfiguration) {
        let gravities = [options.gravity.kind, options.crop?.gravity?.kind].compactMap { $0 }
        let objects = gravities.contains(.objects)
        let smart = configuration.smartCropFaceDetection && gravities.contains(.smart)
        let marked = options.blurDetections != nil || options.drawDetections != nil
        guard objects || smart || marked else { return nil }
        detector = FaceDetector(
            configuration: .init(cascadePath: configuration.faceDetectionCascade, timeLimit: configuration.faceDetectionTimeLimit))
        smartCrop = configuration.smartCropFaceDetection
        fallbackToSmartCrop = configuration.objectDetectionFallbackToSmartCrop
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
                weights: gravity.kind == .objects ? gravity.objectWeights : [:])
        {
            return o
        }
        if gravity.kind == .smart || fallbackToSmartCrop { return ImageAnalysis.smartCropOrigin(buffer, width: width, height: height) }
        return ServiceGeometry.place(width, height, in: w, h, gravity: .center)
    }
}
