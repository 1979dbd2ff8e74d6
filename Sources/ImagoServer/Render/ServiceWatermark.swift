// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's watermark image (`IMAGO_WATERMARK_DATA`, `_PATH` or `_URL`), decoded once,
/// and how imgproxy fits and places it on a result: scaled (`wm`'s scale, fitted into that
/// share of the result, enlarging too; a vector drawn afresh at that size), spaced by the
/// offsets and tiled for `re`, else placed by its position with the offsets (pixels times the
/// `dpr`), allowed to stick out.
struct ServiceWatermark: Sendable {
    /// The first frame at its own size.
    let image: PixelBuffer
    /// Names these pixels in cache keys and ETags: a digest of the encoded image.
    let digest: String
    /// The encoded image, kept for a vector to be drawn at each size.
    let vectorData: Data?
    /// `IMAGO_WATERMARK_OPACITY`, which multiplies every request's.
    let opacity: Double

    /// Decodes `data` (its first frame) within `limits`.
    ///
    /// - Throws: ``ImageCodingError`` when it is not an image this service decodes.
    init(data: Data, digest: String, opacity: Double, limits: DecodingLimits, coders: ImageCoderRegistry) throws {
        let format = try coders.detectFormat(of: data, limits: limits)
        let decoded = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: limits))
        image = try decoded.applyingOrientation().frame(at: 0).buffer
        self.digest = digest
        vectorData = format.isVector ? data : nil
        self.opacity = opacity
    }

    /// A raster watermark from pixels in hand.
    init(image: PixelBuffer, digest: String, opacity: Double = 1) {
        self.image = image
        self.digest = digest
        vectorData = nil
        self.opacity = opacity
    }

    /// The overlay for a result of `width`×`height` (one frame), or `nil` when nothing of the
    /// watermark would show.
    ///
    /// - Parameters:
    ///   - dprScale: What pixel offsets are multiplied by (the `dpr`, as imgproxy's).
    ///   - box: `watermark_size`: the box the watermark is fitted into when `options` has no scale.
    ///   - rotate: `watermark_rotate`: degrees clockwise, after the scaling (the canvas grows).
    ///   - shadow: `watermark_shadow`: the sigma of a black shadow of the watermark's alpha under
    ///     it (the canvas grows by three sigmas each side, so the shadow is not cut).
    func overlay(
        for options: ProcessingOptions.Watermark, width: Int, height: Int, dprScale: Double,
        box: PixelSize? = nil, rotate: Double = 0, shadow: Double = 0, coders: ImageCoderRegistry = .shared
    ) throws -> ImageTransformers.Overlay? {
        let opacity = options.opacity * self.opacity
        guard opacity > 0, width > 0, height > 0 else { return nil }
        var mark = try scaled(for: options, width: width, height: height, box: box, coders: coders)
        if rotate != 0 { mark = try ImageTransformers.Rotate(degrees: -rotate).transform(mark) }
        if shadow > 0 { mark = try Self.shadowed(mark, sigma: shadow) }
        let identifier = key(options) + "-r\(rotate)-s\(shadow)"
        if options.position == .replicate {
            return try replicated(mark, options: options, width: width, height: height, dprScale: dprScale, opacity: opacity, identifier: identifier)
        }
        let kind = ProcessingOptions.Gravity.Kind(rawValue: options.position.rawValue) ?? .center
        let at = ServiceGeometry.place(
            mark.width, mark.height, in: width, height, gravity: .init(kind, x: options.x, y: options.y), pixelScale: dprScale,
            overflow: true)
        return ImageTransformers.Overlay(mark, identifier: identifier, x: at.x, y: at.y, opacity: opacity)
    }

    /// The watermark at the size it takes on a `width`×`height` result: as imgproxy resizes it,
    /// a `fit` (enlarging, dpr 1) into the result scaled by `options`' scale, or into `box`
    /// (Pro's `watermark_size`) when there is no scale; a vector drawn afresh at that size.
    ///
    /// - Throws: ``ImageCodingError/exceedsLimit(_:found:limit:)`` for a watermark larger than
    ///   any result may be; the decoder's error when a vector cannot be drawn.
    private func scaled(
        for options: ProcessingOptions.Watermark, width: Int, height: Int, box: PixelSize?, coders: ImageCoderRegistry
    ) throws -> PixelBuffer {
        guard options.scale > 0 || box != nil else { return image }
        var fit = ProcessingOptions()
        if options.scale > 0 {
            fit.width = max(ServiceGeometry.scaleToEven(width, options.scale), 1)
            fit.height = max(ServiceGeometry.scaleToEven(height, options.scale), 1)
        } else if let box {
            fit.width = box.width
            fit.height = box.height
        }
        fit.enlarge = true
        let s = ServiceGeometry(options: fit, maxResultDimension: nil, vectorSource: vectorData != nil)
            .sizes(width: image.width, height: image.height)
        let size = PixelSize(width: max(1, s.scaledWidth), height: max(1, s.scaledHeight))
        // A scale far over 1 asks for a watermark no result could show.
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        guard !pixels.overflow, pixels.partialValue <= ServiceTransformer.maxResultPixels else {
            throw ImageCodingError.exceedsLimit(
                .maxPixels, found: pixels.overflow ? Int.max : pixels.partialValue, limit: ServiceTransformer.maxResultPixels)
        }
        guard size.width != image.width || size.height != image.height else { return image }
        var mark = image
        if let data = vectorData {
            let drawn = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true, thumbnailPixelSize: size))
            mark = try drawn.frame(at: 0).buffer
        }
        if mark.width != size.width || mark.height != size.height { mark = try Resampler.resize(mark, to: size) }
        return mark
    }

    /// `re`: `mark` spaced by the offsets (the gap between copies, split around each one, in
    /// pixels times `dprScale` or as a share of the result) and tiled over the result, the
    /// copies centred as libvips replicates them for imgproxy: an odd number across and down,
    /// the middle one on the middle of the result.
    private func replicated(
        _ mark: PixelBuffer, options: ProcessingOptions.Watermark, width: Int, height: Int, dprScale: Double, opacity: Double,
        identifier: String
    ) throws -> ImageTransformers.Overlay {
        func gap(_ v: Double, _ extent: Int) -> Int {
            max(0, abs(v) >= 1 ? ServiceGeometry.roundToEven(v * dprScale) : ServiceGeometry.scaleToEven(extent, v))
        }
        let gx = gap(options.x, width), gy = gap(options.y, height)
        var tile = mark
        if gx > 0 || gy > 0 {
            tile = try ImageTransformers.Pad(top: gy / 2, right: gx - gx / 2, bottom: gy - gy / 2, left: gx / 2).transform(mark)
        }
        func phase(_ extent: Int, _ tile: Int) -> Int {
            let copies = (extent + tile - 1) / tile
            return ((copies % 2 == 0 ? copies + 1 : copies) * tile - extent) / 2
        }
        return ImageTransformers.Overlay(
            tile, identifier: identifier, x: -phase(width, tile.width), y: -phase(height, tile.height), opacity: opacity, tiled: true)
    }

    private func key(_ options: ProcessingOptions.Watermark) -> String {
        "wm-\(digest)-\(options.scale)-\(options.x)-\(options.y)"
    }

    /// `mark` over a black shadow of its alpha blurred with `sigma`, on a canvas grown by three
    /// sigmas on each side.
    static func shadowed(_ mark: PixelBuffer, sigma: Double) throws -> PixelBuffer {
        let pad = Int((3 * sigma).rounded(.up))
        let padded = try ImageTransformers.Pad(top: pad, right: pad, bottom: pad, left: pad).transform(mark)
            .converted(to: .argb32Premultiplied)
        var shadow = padded
        let off = PixelFormat.argbOffsets
        shadow.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                p[i + off.r] = 0
                p[i + off.g] = 0
                p[i + off.b] = 0
            }
        }
        shadow = try ImageTransformers.Blur(radius: sigma).transform(shadow)
        return try ImageTransformers.Overlay(padded, identifier: "shadowed").transform(shadow)
    }
}
