// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What the render draws with: the watermark image and how opaque it is, and how faces are
/// found for smart crops. ``ServerConfiguration/drawing``; the watermark store and the face
/// search take it.
public struct DrawingSettings: Sendable {
    /// `IMAGO_WATERMARK_DATA` (base64) or `IMAGO_WATERMARK_PATH` (a file, read at start): the
    /// image the `watermark` option draws over results. Checked at start. Default none.
    public var watermarkImageData: Data?
    /// `IMAGO_WATERMARK_URL`: a watermark fetched (and cached, and revalidated) like a source,
    /// through the same policy. Default none.
    public var watermarkImageURL: String?
    /// `IMAGO_WATERMARK_OPACITY`: multiplies every request's watermark opacity; above 0, at
    /// most 1. Default 1.
    public var watermarkOpacity: Double = 1
    /// `IMAGO_SMART_CROP_FACE_DETECTION`: smart gravity (`g:sm`) looks for faces first
    /// (OpenCV, loaded on first use) and keeps them; libvips's attention score (imgproxy's) decides where there are none.
    /// Default `true`; imgproxy Pro's is `false`.
    public var smartCropFaceDetection = true
    /// `IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP`: `g:obj` with no object of its classes
    /// found crops by smart gravity; `false`: from the centre. Default `true`, as imgproxy Pro's.
    public var objectDetectionFallbackToSmartCrop = true
    /// `IMAGO_FACE_DETECTION_CASCADE`: the OpenCV cascade faces are found with. Default Debian's
    /// `opencv-data` frontal-face cascade.
    public var faceDetectionCascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    /// `IMAGO_FACE_DETECTION_TIME_LIMIT` (seconds of CPU time): a face search stops after this
    /// much with what it found, the smallest faces missed first. Default 1.
    public var faceDetectionTimeLimit: Duration = .seconds(1)
    /// Whether a watermark image is configured.
    package var hasWatermark: Bool { watermarkImageData != nil || watermarkImageURL != nil }

    /// The defaults.
    public init() {}
}
