// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed SVG document (a librsvg handle) and its intrinsic size.
final class SVGDocument {
    /// The size when the document states neither a size nor a viewBox: 300×150, the default
    /// size CSS gives a replaced element without one, as browsers show such an SVG.
    static let defaultSize = (width: 300.0, height: 150.0)

    private let handle: OpaquePointer
    /// The size in CSS pixels (96 dpi), before rounding.
    let width: Double
    let height: Double

    /// Checks the markup (``SVGPreflight``), parses it with librsvg and works out the size.
    ///
    /// - Throws: `.unsupportedFeature` without librsvg or for a document that is not UTF-8;
    ///   `.exceedsLimit` from the preflight; `.corrupt(.svg, …)` with librsvg's reason or for a
    ///   zero or negative size.
    init(_ data: Data, limits: DecodingLimits) throws {
        guard imago_svg_available() != 0 else {
            throw ImageCodingError.unsupportedFeature(.svg, "librsvg (librsvg2-2) is not installed")
        }
        try limits.check(inputBytes: data.count)
        let bytes = [UInt8](data)
        try SVGPreflight.check(bytes, limits: limits)
        var message = [CChar](repeating: 0, count: 512)
        guard let handle = bytes.withUnsafeBufferPointer({ imago_svg_open($0.baseAddress, $0.count, &message, message.count) }) else {
            throw ImageCodingError.corrupt(.svg, glueMessage(message))
        }
        self.handle = handle
        var w = 0.0, h = 0.0
        if imago_svg_size_in_pixels(handle, &w, &h) == 0 {
            var dw = imago_svg_dimension(), dh = imago_svg_dimension()
            var hasViewBox: Int32 = 0, vw = 0.0, vh = 0.0
            imago_svg_dimensions(handle, &dw, &dh, &hasViewBox, &vw, &vh)
            let knownW = Self.pixels(dw), knownH = Self.pixels(dh)
            if hasViewBox != 0, vw > 0, vh > 0 {
                // A missing or relative side follows the viewBox's aspect ratio.
                switch (knownW, knownH) {
                case let (w0?, h0?): (w, h) = (w0, h0)
                case let (w0?, nil): (w, h) = (w0, w0 * vh / vw)
                case let (nil, h0?): (w, h) = (h0 * vw / vh, h0)
                case (nil, nil): (w, h) = (vw, vh)
                }
            } else {
                w = knownW ?? Self.defaultSize.width
                h = knownH ?? Self.defaultSize.height
            }
        }
        guard w.isFinite, h.isFinite, w > 0, h > 0 else {
            imago_svg_close(handle)
            throw ImageCodingError.corrupt(.svg, "the document's size \(w)x\(h) is empty")
        }
        width = w
        height = h
    }

    deinit { imago_svg_close(handle) }

    /// The intrinsic size in whole pixels: each side rounded to the nearest, as librsvg sizes it.
    var pixelSize: PixelSize { PixelSize(width: Self.whole(width), height: Self.whole(height)) }

    /// A side rounded to the nearest pixel, at least 1 (saturating for absurd sizes).
    static func whole(_ v: Double) -> Int {
        guard v.isFinite else { return .max }
        return v >= Double(Int.max / 2) ? Int.max / 2 : max(1, Int(v.rounded()))
    }

    /// A width or height attribute in CSS pixels, or `nil` when it is absent or relative.
    private static func pixels(_ d: imago_svg_dimension) -> Double? {
        guard d.present != 0 else { return nil }
        let perUnit: Double? =
            switch d.unit {
            case 1: 1  // px
            case 2: 16  // em, at the CSS default font size
            case 3: 8  // ex
            case 4: 96  // in
            case 5: 96 / 2.54  // cm
            case 6: 96 / 25.4  // mm
            case 7: 96.0 / 72  // pt
            case 8: 16  // pc
            default: nil  // percent
            }
        return perUnit.map { d.length * $0 }
    }

    /// Draws the document scaled to `size` (each side scaled on its own) into premultiplied
    /// ARGB32 pixels.
    ///
    /// - Throws: `.exceedsLimit(.maxRenderTime, …)` when the render passes
    ///   `limits.maxRenderSeconds`; `.corrupt(.svg, …)` with librsvg's reason.
    func render(size: PixelSize, limits: DecodingLimits) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: size.width, height: size.height, format: .argb32Premultiplied)
        let stride = buffer.bytesPerRow
        guard let w = Int32(exactly: size.width), let h = Int32(exactly: size.height), let s = Int32(exactly: stride) else {
            throw ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: PixelBuffer.maxByteCount)
        }
        var message = [CChar](repeating: 0, count: 512)
        let started = ContinuousClock.now
        let result = buffer.withUnsafeMutableBytes { raw in
            imago_svg_render(
                handle, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), w, h, s, width, height,
                Double(size.width) / width, Double(size.height) / height, limits.maxRenderSeconds,
                &message, message.count)
        }
        try VectorRender.check(Int(result), started: started, limits: limits, format: .svg, message: glueMessage(message))
        return buffer
    }
}

/// What vector renders share: the outcome of a render, and the size to render at.
enum VectorRender {
    /// Maps the glue's render result to an error.
    static func check(
        _ result: Int, started: ContinuousClock.Instant, limits: DecodingLimits, format: ImageFormat,
        message: String
    ) throws {
        switch result {
        case Int(IMAGO_RENDER_OK): return
        case Int(IMAGO_RENDER_TIMED_OUT):
            let elapsed = ContinuousClock.now - started
            let ms = Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
            let limit = limits.maxRenderSeconds.isFinite ? Int(limits.maxRenderSeconds * 1000) : Int.max
            throw ImageCodingError.exceedsLimit(.maxRenderTime, found: ms, limit: limit)
        default:
            throw ImageCodingError.corrupt(format, message.isEmpty ? "the render failed" : message)
        }
    }

    /// The pixel size to draw a vector of intrinsic size `natural` (at `naturalDPI`) at: the
    /// thumbnail size when one is asked (fitted, or exactly the box without
    /// ``DecodeOptions/preserveAspectRatio``, and larger than the intrinsic size if asked),
    /// otherwise the intrinsic size at ``DecodeOptions/renderDPI``.
    /// Without a thumbnail size, SVG rounds each side to the nearest pixel (librsvg's rule) and
    /// PDF rounds up (`roundsUp`, pdftoppm's rule).
    static func size(
        natural: (width: Double, height: Double), naturalDPI: Double, roundsUp: Bool = false,
        options: DecodeOptions
    ) -> PixelSize {
        let thumbnail = options.thumbnailPixelSize.flatMap { $0.width > 0 && $0.height > 0 ? $0 : nil }
        if let box = thumbnail, !options.preserveAspectRatio { return box }
        let s = scale(natural: natural, naturalDPI: naturalDPI, options: options)
        let w = natural.width * s.x, h = natural.height * s.y
        if roundsUp, thumbnail == nil { return PixelSize(width: covering(w), height: covering(h)) }
        return PixelSize(width: SVGDocument.whole(w), height: SVGDocument.whole(h))
    }

    /// Pixels a unit of `natural` along each axis for ``size(natural:naturalDPI:roundsUp:options:)``:
    /// the thumbnail's fitting factor on both axes (each its own without
    /// ``DecodeOptions/preserveAspectRatio``), or ``DecodeOptions/renderDPI`` over `naturalDPI`,
    /// exactly, as pdftoppm's `-scale-to` and `-r` scale a page. Scaling by the rounded size
    /// instead would draw a page a fraction of a pixel larger than pdftoppm does.
    static func scale(
        natural: (width: Double, height: Double), naturalDPI: Double, options: DecodeOptions
    ) -> (x: Double, y: Double) {
        if let box = options.thumbnailPixelSize, box.width > 0, box.height > 0 {
            let x = Double(box.width) / natural.width, y = Double(box.height) / natural.height
            guard options.preserveAspectRatio else { return (x, y) }
            return (min(x, y), min(x, y))
        }
        let f = (options.renderDPI.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? naturalDPI) / naturalDPI
        return (f, f)
    }

    /// A side rounded up to whole pixels, as pdftoppm sizes a page, ignoring
    /// floating-point noise; at least 1 (saturating for absurd sizes).
    static func covering(_ v: Double) -> Int {
        guard v.isFinite else { return .max }
        return v >= Double(Int.max / 2) ? Int.max / 2 : max(1, Int((v - 1e-6).rounded(.up)))
    }
}

/// The text a glue function wrote into `message`.
func glueMessage(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
