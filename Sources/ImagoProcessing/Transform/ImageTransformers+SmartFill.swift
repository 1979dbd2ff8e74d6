// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension ImageTransformers {
    /// Covers `size` as ``ContentMode/aspectFill`` does, but cuts where the picture matters:
    /// around the faces ``FaceDetector`` finds (all of them when they fit together), and where
    /// there are none the part with the most detail (``ImageAnalysis/smartCropOrigin(_:width:height:)``,
    /// libvips's entropy crop). The service's `rs:fill` with `g:sm`, as a processor.
    ///
    /// ```swift
    /// request.transformers = [ImageTransformers.SmartFill(size: PixelSize(width: 256, height: 256))]
    /// ```
    public struct SmartFill: ImageTransforming {
        /// The result's size.
        public var size: PixelSize
        /// The faces' detector; `nil` crops by detail alone. Default `FaceDetector()`. When the
        /// detector cannot be loaded the crop goes by detail, as when there are no faces.
        public var faces: FaceDetector?
        /// Default ``ResamplingQuality/lanczos3``.
        public var quality: ResamplingQuality

        /// Creates the transformer; see the properties for the defaults.
        public init(size: PixelSize, faces: FaceDetector? = FaceDetector(), quality: ResamplingQuality = .lanczos3) {
            self.size = size
            self.faces = faces
            self.quality = quality
        }

        /// `SmartFill(WxH,faces|detail,quality)`.
        public var key: String {
            let f = faces.map(\.configuration).map { c in "faces:\(c.cascadePath):\(c.maxDimension):\(c.minNeighbors):\(c.scaleFactor)" }
            return "SmartFill(\(size.width)x\(size.height),\(f ?? "detail"),\(quality.rawValue))"
        }

        /// - Throws: `.invalidArgument` for a size under 1×1.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard size.width > 0, size.height > 0 else { throw ImageCodingError.invalidArgument("resize size \(size) must be at least 1x1") }
            let f = max(Double(size.width) / Double(buffer.width), Double(size.height) / Double(buffer.height))
            let cover = PixelSize(
                width: max(size.width, Int((Double(buffer.width) * f).rounded())),
                height: max(size.height, Int((Double(buffer.height) * f).rounded())))
            let found = (try? faces?.faces(in: buffer)) ?? []
            let scaled = try Resampler.resize(buffer, to: cover, quality: quality)
            let boxes = found.map { $0.mapped(scale: Double(cover.width) / Double(buffer.width)) }
            let origin =
                ImageAnalysis.objectCropOrigin(
                    boxes, width: size.width, height: size.height, imageWidth: cover.width, imageHeight: cover.height)
                ?? ImageAnalysis.smartCropOrigin(scaled, width: size.width, height: size.height)
            return try Crop(x: origin.x, y: origin.y, width: size.width, height: size.height).transform(scaled)
        }
    }
}
