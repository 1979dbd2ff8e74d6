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
///
/// Where librsvg 2.54 draws differently from resvg and browsers, the document is rewritten before
/// it renders (only when it has an `feDropShadow` or a `data:` URL that is not a JPEG, PNG or GIF
/// named as such): embedded images are named by their bytes, formats gdk-pixbuf cannot read are
/// decoded by Imago and embedded as PNG, an embedded SVG is drawn at the size it is shown at, and
/// `feDropShadow` becomes the primitives it stands for. `systemLanguage` is matched against the process's locale (`LANGUAGE`,
/// `LC_ALL`, `LC_MESSAGES`, `LANG`), under which the C locale matches no language; the `imago`
/// and `imago-server` executables set `LANGUAGE=en` at start-up in that case.
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
        let started = ContinuousClock.now
        var document = try SVGDocument(data, limits: options.limits)
        let natural = (width: document.width, height: document.height)
        let size = VectorRender.size(natural: natural, naturalDPI: 96, options: options)
        try options.limits.check(width: size.width, height: size.height, format: .svg)
        let scale = VectorRender.scale(natural: natural, naturalDPI: 96, options: options)
        if let fixed = SVGRenderFixes.apply(to: [UInt8](data), scale: max(scale.x, scale.y), limits: options.limits, started: started),
            let again = try? SVGDocument(Data(fixed), limits: options.limits)
        {
            document = again
        }
        var buffer = try document.render(size: size, limits: options.limits)
        buffer.convert(to: options.pixelFormat)
        return Image(
            buffer: buffer, orientation: .up, scale: options.scale, format: .svg,
            metadata: ImageMetadata(), hasAlpha: true)
    }
}
