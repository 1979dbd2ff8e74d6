// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CPixman
public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The built-in transformers (SDWebImage's set). All work in premultiplied ARGB32.
public enum ImageTransformers {
    /// How ``Resize`` fits the image into the size.
    public enum ContentMode: String, Sendable, Hashable {
        /// Stretch to exactly the size.
        case fill
        /// Scale to fit inside the size, keeping the aspect ratio (the result may be smaller).
        case aspectFit
        /// Scale to cover the size, keeping the aspect ratio, and crop the overflow (centred).
        case aspectFill
    }

    /// Resizes with ``Resampler``.
    public struct Resize: ImageTransforming {
        /// The size to fit into, at least 1×1; ``ContentMode/aspectFit`` may give a smaller image.
        public var size: PixelSize
        /// How the image fits into ``size``. Default ``ContentMode/fill``.
        public var mode: ContentMode
        /// The resampling filter. Default ``ResamplingQuality/lanczos3``.
        public var quality: ResamplingQuality
        /// Creates the transformer. Defaults: ``ContentMode/fill``, ``ResamplingQuality/lanczos3``.
        public init(size: PixelSize, mode: ContentMode = .fill, quality: ResamplingQuality = .lanczos3) {
            self.size = size
            self.mode = mode
            self.quality = quality
        }
        /// `Resize(WxH,mode)`.
        public var key: String { "Resize(\(size.width)x\(size.height),\(mode.rawValue),\(quality.rawValue))" }
        /// - Throws: `.invalidArgument` for a size under 1×1.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard size.width > 0, size.height > 0 else { throw ImageCodingError.invalidArgument("resize size \(size) must be at least 1x1") }
            let sx = Double(size.width) / Double(buffer.width), sy = Double(size.height) / Double(buffer.height)
            switch mode {
            case .fill:
                return try Resampler.resize(buffer, to: size, quality: quality)
            case .aspectFit:
                let f = min(sx, sy)
                let fit = PixelSize(
                    width: max(1, Int((Double(buffer.width) * f).rounded())),
                    height: max(1, Int((Double(buffer.height) * f).rounded())))
                return try Resampler.resize(buffer, to: fit, quality: quality)
            case .aspectFill:
                let f = max(sx, sy)
                let cover = PixelSize(
                    width: max(size.width, Int((Double(buffer.width) * f).rounded())),
                    height: max(size.height, Int((Double(buffer.height) * f).rounded())))
                let scaled = try Resampler.resize(buffer, to: cover, quality: quality)
                return try Crop(
                    x: (cover.width - size.width) / 2, y: (cover.height - size.height) / 2,
                    width: size.width, height: size.height
                ).transform(scaled)
            }
        }
    }

    /// Cuts out a rectangle; the part outside the image is dropped. The result keeps the
    /// buffer's pixel format.
    public struct Crop: ImageTransforming {
        public var x: Int, y: Int, width: Int, height: Int
        /// Creates the transformer for the rectangle at (`x`, `y`) of `width`×`height`.
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        /// `Crop(x,y,w,h)`.
        public var key: String { "Crop(\(x),\(y),\(width),\(height))" }
        /// ``PixelEffect/movesPixels``, or ``PixelEffect/none`` when the rectangle is the whole upright image.
        public func pixelEffect(on info: ImageInfo) -> PixelEffect {
            let size = info.orientation.orientedSize(info.pixelSize)
            return x == 0 && y == 0 && width == size.width && height == size.height && info.orientation == .up ? .none : .movesPixels
        }
        /// - Throws: `.invalidArgument` when the rectangle is empty or misses the image.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            let src = buffer
            let x0 = max(0, x), y0 = max(0, y)
            let (xe, o1) = x.addingReportingOverflow(width), (ye, o2) = y.addingReportingOverflow(height)
            let x1 = min(src.width, o1 ? Int.max : xe), y1 = min(src.height, o2 ? Int.max : ye)
            guard width > 0, height > 0, x1 > x0, y1 > y0 else {
                throw ImageCodingError.invalidArgument("crop \(key) does not intersect the \(src.size) image")
            }
            let w = x1 - x0, h = y1 - y0, bpp = src.format.bytesPerPixel
            // Whole pixels are copied, so the format is kept (straight alpha stays straight).
            return try PixelBuffer(uninitializedWidth: w, height: h, format: src.format) { out in
                src.withUnsafeBytes { s in
                    for row in 0..<h {
                        let from = UnsafeRawBufferPointer(rebasing: s[((y0 + row) * src.bytesPerRow + x0 * bpp)...].prefix(w * bpp))
                        UnsafeMutableRawBufferPointer(rebasing: out[(row * w * bpp)...].prefix(w * bpp)).copyMemory(from: from)
                    }
                }
            }
        }
    }

    /// Mirrors horizontally, vertically, or both; the result keeps the buffer's pixel format.
    public struct Flip: ImageTransforming {
        public var horizontal: Bool, vertical: Bool
        /// Creates the transformer.
        public init(horizontal: Bool, vertical: Bool) {
            self.horizontal = horizontal
            self.vertical = vertical
        }
        /// `Flip(h,v)` with 0 or 1 for each.
        public var key: String { "Flip(\(horizontal ? 1 : 0),\(vertical ? 1 : 0))" }
        /// ``PixelEffect/movesPixels``.
        public func pixelEffect(on info: ImageInfo) -> PixelEffect { .movesPixels }
        /// Whole pixels move, so the buffer keeps its format.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            let src = buffer
            switch (horizontal, vertical) {
            case (true, true): return src.applyingOrientation(.down)
            case (true, false): return src.applyingOrientation(.upMirrored)
            case (false, true): return src.applyingOrientation(.downMirrored)
            case (false, false): return src
            }
        }
    }

    /// Rotates by any angle (degrees, counter-clockwise as in SDWebImage), bilinear, transparent outside.
    /// Quarter turns move whole pixels and keep the buffer's format; other angles give
    /// `PixelFormat.argb32Premultiplied`.
    public struct Rotate: ImageTransforming {
        /// The angle in degrees, counter-clockwise; any finite value.
        public var degrees: Double
        /// `true`: grow the canvas to hold the whole rotated image; `false`: keep the original size.
        public var fitSize: Bool
        /// Creates the transformer. Default `fitSize` `true`.
        public init(degrees: Double, fitSize: Bool = true) {
            self.degrees = degrees
            self.fitSize = fitSize
        }
        /// `Rotate(deg,fit)`.
        public var key: String { "Rotate(\(degrees),\(fitSize ? 1 : 0))" }
        /// ``PixelEffect/movesPixels`` for quarter turns that grow the canvas (or half turns),
        /// else ``PixelEffect/resamples``.
        public func pixelEffect(on info: ImageInfo) -> PixelEffect {
            guard degrees.isFinite else { return .resamples }
            let turns = (degrees / 90).rounded()
            guard abs(degrees / 90 - turns) < 1e-9 else { return .resamples }
            let quarter = ((Int(turns) % 4) + 4) % 4
            return quarter == 2 || fitSize ? .movesPixels : .resamples
        }
        /// - Throws: `.invalidArgument` for a non-finite angle.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard degrees.isFinite else { throw ImageCodingError.invalidArgument("rotation \(degrees) is not finite") }
            let turns = (degrees / 90).rounded()
            if abs(degrees / 90 - turns) < 1e-9 {  // exact quarter turns move whole pixels, in any format
                switch ((Int(turns) % 4) + 4) % 4 {
                case 0: return buffer
                case 1: return fitSize ? buffer.applyingOrientation(.left) : try Self.general(buffer, 90, fit: false)
                case 2: return buffer.applyingOrientation(.down)
                default: return fitSize ? buffer.applyingOrientation(.right) : try Self.general(buffer, 270, fit: false)
                }
            }
            return try Self.general(buffer, degrees, fit: fitSize)
        }

        static func general(_ buffer: PixelBuffer, _ degrees: Double, fit: Bool) throws -> PixelBuffer {
            let src = buffer.converted(to: .argb32Premultiplied)
            let r = degrees * .pi / 180, c = cos(r), s = sin(r)
            let w = Double(src.width), h = Double(src.height)
            let ow = fit ? Int((abs(w * c) + abs(h * s)).rounded(.up)) : src.width
            let oh = fit ? Int((abs(w * s) + abs(h * c)).rounded(.up)) : src.height
            var source = src
            return try PixelBuffer(width: max(1, ow), height: max(1, oh), format: .argb32Premultiplied).withTransform { out in
                try source.withUnsafeMutableBytes { raw in
                    guard
                        let si = pixman_image_create_bits(
                            PIXMAN_a8r8g8b8, Int32(src.width), Int32(src.height),
                            raw.baseAddress?.assumingMemoryBound(to: UInt32.self), Int32(src.bytesPerRow)),
                        let di = pixman_image_create_bits(
                            PIXMAN_a8r8g8b8, Int32(max(1, ow)), Int32(max(1, oh)),
                            out.baseAddress?.assumingMemoryBound(to: UInt32.self), Int32(max(1, ow) * 4))
                    else {
                        throw ImageCodingError.invalidArgument("pixman could not wrap the buffers")
                    }
                    defer {
                        pixman_image_unref(si)
                        pixman_image_unref(di)
                    }
                    // Destination to source: translate to the output centre, rotate back, translate to the source centre.
                    // Counter-clockwise on screen (y down) is a negative angle in the math convention.
                    var t = pixman_f_transform()
                    pixman_f_transform_init_translate(&t, -Double(ow) / 2, -Double(oh) / 2)
                    pixman_f_transform_rotate(&t, nil, cos(r), sin(r))
                    pixman_f_transform_translate(&t, nil, w / 2, h / 2)
                    var fixed = pixman_transform()
                    pixman_transform_from_pixman_f_transform(&fixed, &t)
                    pixman_image_set_transform(si, &fixed)
                    pixman_image_set_filter(si, PIXMAN_FILTER_BILINEAR, nil, 0)
                    pixman_image_composite32(PIXMAN_OP_SRC, si, nil, di, 0, 0, 0, 0, 0, 0, Int32(max(1, ow)), Int32(max(1, oh)))
                }
            }
        }
    }
}

extension PixelBuffer {
    /// Runs `body` on this buffer's bytes and returns the buffer.
    func withTransform(_ body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows -> PixelBuffer {
        var copy = self
        try copy.withUnsafeMutableBytes(body)
        return copy
    }
}
