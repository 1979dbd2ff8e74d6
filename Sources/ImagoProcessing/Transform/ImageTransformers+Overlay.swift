// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CPixman
public import ImagoCore

extension ImageTransformers {
    /// Draws an image over this one (a watermark, a badge), with pixman's `OVER`: at a point,
    /// or tiled over the whole canvas. Parts outside the canvas are cut; the canvas keeps its
    /// size, and an opaque canvas stays opaque.
    ///
    /// ```swift
    /// let logo = try ImageCoderRegistry.shared.decode(logoData).frames[0].buffer
    /// let marked = try ImageTransformers.Overlay(logo, identifier: "logo-v2", x: 16, y: 16, opacity: 0.5)
    ///     .transform(photo)
    /// ```
    public struct Overlay: ImageTransforming {
        /// The image drawn (straight or premultiplied alpha; any format).
        public var image: PixelBuffer
        /// Names the image in ``key``: two overlays with the same identifier must draw the same
        /// pixels (a digest of the file, say), or cached results mix them up.
        public var identifier: String
        /// Where the overlay's top-left corner lands; negative and past-the-edge values put part
        /// (or all) of it outside. With ``tiled``, where one of the copies starts.
        public var x: Int, y: Int
        /// 0 (invisible) to 1 (the overlay's own alpha, the default).
        public var opacity: Double
        /// Repeat the overlay across the whole canvas, edge to edge. Default `false`.
        public var tiled: Bool

        /// Creates the transformer; `opacity` defaults to 1 and `tiled` to `false`.
        public init(_ image: PixelBuffer, identifier: String, x: Int = 0, y: Int = 0, opacity: Double = 1, tiled: Bool = false) {
            self.image = image
            self.identifier = identifier
            self.x = x
            self.y = y
            self.opacity = opacity
            self.tiled = tiled
        }

        /// `Overlay(identifier,x,y,opacity,tiled)`.
        public var key: String { "Overlay(\(identifier),\(x),\(y),\(opacity),\(tiled ? 1 : 0))" }

        /// - Throws: `.invalidArgument` for an opacity outside 0–1 or an empty overlay.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard opacity.isFinite, (0...1).contains(opacity) else {
                throw ImageCodingError.invalidArgument("overlay opacity \(opacity) is not between 0 and 1")
            }
            guard image.width > 0, image.height > 0 else { throw ImageCodingError.invalidArgument("the overlay has no pixels") }
            // What it covers, in the canvas's pixels (all of it when tiled).
            let x0 = tiled ? 0 : max(0, x), y0 = tiled ? 0 : max(0, y)
            let x1 = tiled ? buffer.width : min(buffer.width, x.addingReportingOverflow(image.width).partialValue)
            let y1 = tiled ? buffer.height : min(buffer.height, y.addingReportingOverflow(image.height).partialValue)
            guard opacity > 0, x1 > x0, y1 > y0 else { return buffer }
            var overlay = image.converted(to: .argb32Premultiplied)
            let overlayStride = Int32(overlay.bytesPerRow)
            // A tile's phase: where the canvas's corner falls inside the copy that covers it.
            let sx = tiled ? ((-x % image.width) + image.width) % image.width : x0 - x
            let sy = tiled ? ((-y % image.height) + image.height) % image.height : y0 - y
            let base = buffer.converted(to: .argb32Premultiplied)
            return try base.withTransform { out in
                try overlay.withUnsafeMutableBytes { raw in
                    guard
                        let src = pixman_image_create_bits(
                            PIXMAN_a8r8g8b8, Int32(image.width), Int32(image.height),
                            raw.baseAddress?.assumingMemoryBound(to: UInt32.self), overlayStride),
                        let dst = pixman_image_create_bits(
                            PIXMAN_a8r8g8b8, Int32(buffer.width), Int32(buffer.height),
                            out.baseAddress?.assumingMemoryBound(to: UInt32.self), Int32(base.bytesPerRow))
                    else {
                        throw ImageCodingError.invalidArgument("pixman could not wrap the buffers")
                    }
                    defer {
                        pixman_image_unref(src)
                        pixman_image_unref(dst)
                    }
                    if tiled { pixman_image_set_repeat(src, PIXMAN_REPEAT_NORMAL) }
                    var mask: OpaquePointer?
                    if opacity < 1 {
                        var color = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16((opacity * 65535).rounded()))
                        mask = pixman_image_create_solid_fill(&color)
                    }
                    defer { if let mask { pixman_image_unref(mask) } }
                    pixman_image_composite32(
                        PIXMAN_OP_OVER, src, mask, dst, Int32(sx), Int32(sy), 0, 0, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
                }
            }
        }
    }
}
