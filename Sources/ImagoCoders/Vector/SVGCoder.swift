// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// SVG through librsvg 2.54 (Debian's `librsvg2-2`), drawn with cairo, loaded on first use.
///
/// The document is rendered as a vector at the size asked for, as SDWebImageSVGCoder does: with
/// ``DecodeOptions/thumbnailPixelSize`` it is drawn at the thumbnail's size (fitted, or stretched
/// to the box without ``DecodeOptions/preserveAspectRatio``), larger than its intrinsic size if
/// asked, never a scaled raster; otherwise at its intrinsic size, scaled by
/// ``DecodeOptions/renderDPI`` over 96.
///
/// The intrinsic size comes from the root's `width` and `height` (CSS units at 96 dpi); a missing
/// or percentage side follows the `viewBox`'s aspect ratio, and with neither a size nor a
/// `viewBox` the document is 300×150 (`SVGDocument.defaultSize`, CSS's default object size).
///
/// Nothing outside the document is ever loaded: librsvg is given no base location, so `file:`,
/// `http(s):` and relative references, XInclude, CSS `@import` and external entities all fail to
/// resolve and draw nothing; only `data:` URLs inside the document load. Before librsvg parses,
/// the markup is checked against `DecodingLimits.maxElements`,
/// `DecodingLimits.maxNestingDepth` and (for entity expansion) `DecodingLimits.maxBytes`, and
/// a render stops once it passes `DecodingLimits.maxRenderSeconds`. Only UTF-8 documents are
/// read, as resvg reads them. `svgz` (gzip) is not read.
public struct SVGCoder: ImageDecoding {
    /// Creates the coder. librsvg itself is loaded only when an SVG is first met.
    public init() {}

    /// Whether the format is SVG and librsvg and cairo can be loaded.
    public func canDecode(_ format: ImageFormat) -> Bool {
        format == .svg && imago_svg_available() != 0
    }

    /// The intrinsic size in pixels (rounded), with alpha: an SVG's background is transparent.
    ///
    /// - Throws: as ``decode(_:options:)`` before rendering.
    public func info(of data: Data) throws -> ImageInfo {
        let document = try SVGDocument(data, limits: .default)
        let size = document.pixelSize
        return ImageInfo(format: .svg, width: size.width, height: size.height, hasAlpha: true)
    }

    /// Renders the document (see the type's description for the size) into
    /// ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.unsupportedFeature` without librsvg or for a non-UTF-8 document;
    ///   `.exceedsLimit` for input bytes, elements, nesting, entity expansion, the rendered
    ///   pixel count (checked before allocating) or the render time; `.corrupt(.svg, …)` with
    ///   librsvg's reason, or for an empty size.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let document = try SVGDocument(data, limits: options.limits)
        let size = VectorRender.size(natural: (document.width, document.height), naturalDPI: 96, options: options)
        try options.limits.check(width: size.width, height: size.height, format: .svg)
        var buffer = try document.render(size: size, limits: options.limits)
        buffer.convert(to: options.pixelFormat)
        return Image(
            buffer: buffer, orientation: .up, scale: options.scale, format: .svg,
            metadata: ImageMetadata(), hasAlpha: true)
    }
}
