// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoLoading
import ImagoProcessing
import ImagoServiceURL

extension ImageService {
    /// `/info`'s `detect_objects` (`objects`) and `crop` with a smart or object gravity: both look
    /// at a decode of the source at the face detector's size (800 pixels a side), not the
    /// colours' small sample.
    func objectReport(
        _ wanted: InfoOptions, info: ImageInfo, request: ImageRequest, source: ServiceSource
    ) async throws -> [String: InfoReport.Value] {
        let cropGravity = wanted.crop?.gravity ?? .center
        let pixelCrop = wanted.crop != nil && (cropGravity.kind == .smart || cropGravity.kind == .objects)
        guard wanted.detectObjects || pixelCrop else {
            return wanted.crop.map { ["crop": Self.cropValue($0, info: info, origin: nil)] } ?? [:]
        }
        var options = ProcessingOptions()
        options.gravity = pixelCrop ? cropGravity : .init(.objects)
        let faces = ServiceFaces(options: options, drawing: configuration.drawing)
        let detector =
            faces?.detector
            ?? FaceDetector(
                configuration: .init(cascadePath: configuration.drawing.faceDetectionCascade, timeLimit: configuration.drawing.faceDetectionTimeLimit))
        var request = request
        let side = detector.configuration.maxDimension
        request.thumbnail = ImageRequest.Thumbnail(maxPixelSize: PixelSize(width: side, height: side))
        let image: Image
        do {
            image = try await manager.loadImage(with: request, source: source.loaded).image
        } catch {
            throw ServiceError(error)
        }
        let wantsObjects = wanted.detectObjects, crop = wanted.crop
        return try await workers.run { () throws -> [String: InfoReport.Value] in
            let shown = image.applyingOrientation().buffer
            let w = Double(max(1, shown.width)), h = Double(max(1, shown.height))
            let found = try Self.detectedFaces(in: shown, by: detector, looking: wantsObjects || faces != nil, required: wantsObjects)
            var out: [String: InfoReport.Value] = [:]
            if wantsObjects { out["objects"] = Self.objectsValue(found, width: w, height: h) }
            if let crop {
                guard pixelCrop else {
                    out["crop"] = Self.cropValue(crop, info: info, origin: nil)
                    return out
                }
                out["crop"] = Self.pixelCropValue(crop, gravity: cropGravity, info: info, shown: shown, faces: faces, found: found)
            }
            return out
        }
    }

    /// The faces `detector` finds in `shown`, when `looking`; none when it cannot look, unless
    /// they are `required` (`detect_objects`).
    ///
    /// - Throws: 422 ``ServiceError`` when required faces cannot be detected.
    private static func detectedFaces(
        in shown: PixelBuffer, by detector: FaceDetector, looking: Bool, required: Bool
    ) throws -> [DetectedObject] {
        var found: [DetectedObject] = []
        if looking {
            do {
                found = try detector.faces(in: shown)
            } catch {
                guard !required else { throw ServiceError.unprocessable("faces cannot be detected here: \(error)") }
            }
        }
        return found
    }

    /// `objects`: each detection in fractions of the `w`×`h` sample it was found in.
    private static func objectsValue(_ found: [DetectedObject], width w: Double, height h: Double) -> InfoReport.Value {
        // imgproxy Pro's keys; the class list is one class, face.
        .array(
            found.map { f in
                .object([
                    "class_id": .int(0), "class_name": .string(f.className), "confidence": .double(f.confidence),
                    "left": .double(Double(f.x) / w), "top": .double(Double(f.y) / h),
                    "width": .double(Double(f.width) / w), "height": .double(Double(f.height) / h)
                ])
            })
    }

    /// `crop`'s rectangle in fractions of the shown size, for a smart or object `gravity`:
    /// placed in `shown` (the detector's sample) by the `found` faces, or by smart crop.
    private static func pixelCropValue(
        _ crop: ProcessingOptions.Crop, gravity cropGravity: ProcessingOptions.Gravity, info: ImageInfo, shown: PixelBuffer,
        faces: ServiceFaces?, found: [DetectedObject]
    ) -> InfoReport.Value {
        let w = Double(max(1, shown.width)), h = Double(max(1, shown.height))
        // The window in the source's pixels, brought to the sample's and placed there as a
        // render would place it.
        let full = info.orientation.orientedSize(info.pixelSize)
        let inFull = ServiceGeometry.cropSize(crop, width: full.width, height: full.height)
        let s = w / Double(max(1, full.width))
        let size = PixelSize(
            width: max(1, min(shown.width, Int((Double(inFull.width) * s).rounded()))),
            height: max(1, min(shown.height, Int((Double(inFull.height) * s).rounded()))))
        let origin =
            faces?.origin(cropGravity, in: shown, faces: found, width: size.width, height: size.height)
            ?? ImageAnalysis.attentionCropOrigin(shown, width: size.width, height: size.height)
        return .object([
            "left": .double(Double(origin.x) / w), "top": .double(Double(origin.y) / h),
            "width": .double(Double(inFull.width) / Double(max(1, full.width))),
            "height": .double(Double(inFull.height) / Double(max(1, full.height)))
        ])
    }

    /// `crop`'s rectangle in fractions of the shown size, for a gravity that needs no pixels.
    static func cropValue(_ crop: ProcessingOptions.Crop, info: ImageInfo, origin: (x: Int, y: Int)?) -> InfoReport.Value {
        let shown = info.orientation.orientedSize(info.pixelSize)
        let size = ServiceGeometry.cropSize(crop, width: shown.width, height: shown.height)
        let at = origin ?? ServiceGeometry.place(size.width, size.height, in: shown.width, shown.height, gravity: crop.gravity ?? .center)
        let w = Double(max(1, shown.width)), h = Double(max(1, shown.height))
        return .object([
            "left": .double(Double(at.x) / w), "top": .double(Double(at.y) / h),
            "width": .double(Double(size.width) / w), "height": .double(Double(size.height) / h)
        ])
    }
}
