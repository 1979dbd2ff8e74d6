// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Rewrites that let librsvg 2.54 draw what resvg and browsers draw, applied to a document before
/// it is rendered, and only when it has something to fix (an `feDropShadow`, or a `data:` URL
/// that is not a JPEG, PNG or GIF named as such):
///
/// - **Embedded images by their bytes.** librsvg 2.54 hands a `data:` image to gdk-pixbuf under
///   the media type the URL names, and `image/jpg` (not `image/jpeg`) finds no loader, so
///   nothing is drawn. JPEG, PNG and GIF payloads are named by what their bytes are.
/// - **Embedded images gdk-pixbuf cannot read** (WebP, AVIF, HEIF, JPEG XL, JPEG 2000, TIFF,
///   BMP, ICO, ICNS: every other format Imago decodes) are decoded by Imago, within the same
///   limits, and embedded again as PNG.
/// - **Embedded SVG at the size it is drawn.** librsvg 2.54 rasterises an SVG image at its own
///   size and scales that raster (librsvg #907), so a 20-px icon drawn 300 px wide is blurred.
///   It is drawn by Imago at the scale of the outer render (or larger, for an `image` element
///   larger than the SVG's own size) and embedded as PNG. A gzipped one (`svgz`) is inflated
///   first, bounded by ``DecodingLimits/maxBytes``. Its own embedded images are left as they are.
/// - **`feDropShadow`**, which librsvg 2.54 does not know (the filtered element then disappears),
///   is written as the chain of primitives the Filter Effects specification defines it as: the
///   input blurred by `stdDeviation`, moved by `dx`/`dy`, filled with `flood-color` at
///   `flood-opacity`, and the input drawn over it.
///
/// A fix that cannot be made (an unreadable payload, a limit) leaves that part as it was.
package struct SVGRenderFixes: SVGMarkupRules {
    /// Device pixels per user unit of the outer render, the larger of the two axes.
    let scale: Double
    let limits: DecodingLimits
    /// When the render must be finished; embedded renders and decodes share it.
    let deadline: ContinuousClock.Instant
    private var shadows = 0
    /// Whether any fix was made: without one, librsvg gets the document as it was.
    private var changed = false
    /// Bytes of URLs written so far: past ``DecodingLimits/maxBytes`` no more are made, so that
    /// many embedded images cannot grow the document without bound.
    private var written = 0

    /// Formats gdk-pixbuf reads well (its built-in loaders), named by their bytes and left alone.
    static let pixbufFormats: Set<ImageFormat> = [.jpeg, .png, .gif]

    /// The document with the fixes, or `nil` when it needs none or cannot be rewritten (one that
    /// declares an external or parameter entity, or that libxml2 cannot read, goes to librsvg as
    /// it is).
    package static func apply(to bytes: [UInt8], scale: Double, limits: DecodingLimits, started: ContinuousClock.Instant) -> [UInt8]? {
        guard mayNeedFixes(bytes), (try? SVGSanitizer.refuseOutsideEntities(bytes)) != nil else { return nil }
        let seconds = limits.maxRenderSeconds.isFinite ? min(max(0, limits.maxRenderSeconds), 86_400) : 86_400
        let rules = SVGRenderFixes(scale: scale, limits: limits, deadline: started + .seconds(seconds))
        var writer = rules
        guard let fixed = try? SVGMarkupWriter.write(bytes, rules: &writer), writer.changed else { return nil }
        return fixed
    }

    /// Whether the bytes name `feDropShadow` or hold a `data:` URL (the scheme in any case) that
    /// does not already name the JPEG, PNG or GIF it holds: a scan that lets almost every
    /// document, those with embedded photos included, skip the rewrite.
    static func mayNeedFixes(_ bytes: [UInt8]) -> Bool {
        if bytes.firstRange(of: Array("feDropShadow".utf8)) != nil { return true }
        let d = UInt8(ascii: "d"), colon = UInt8(ascii: ":")
        var i = 0
        while i + 5 <= bytes.count {
            if bytes[i] | 0x20 == d, bytes[i + 4] == colon,
                bytes[i + 1] | 0x20 == UInt8(ascii: "a"), bytes[i + 2] | 0x20 == UInt8(ascii: "t"), bytes[i + 3] | 0x20 == UInt8(ascii: "a")
            {
                // The URL up to its closing quote, or its first 256 bytes.
                let end = min(bytes.count, i + 256)
                let close = bytes[i..<end].firstIndex { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") } ?? end
                if !namesItsBytes(String(decoding: bytes[i..<close], as: UTF8.self)) { return true }
                i = close
                continue
            }
            i += 1
        }
        return false
    }

    mutating func rewrite(_ element: inout SVGElement) throws -> SVGElementAction {
        switch element.localName {
        case "image", "feImage":
            for (i, a) in element.attributes.enumerated() where a.localName == "href" && written <= limits.maxBytes {
                if let fixed = fixed(a.value, in: element) {
                    element.attributes[i].value = fixed
                    written += fixed.utf8.count
                    changed = true
                }
            }
            return .keep
        case "feDropShadow":
            shadows += 1
            changed = true
            return .replace(Self.dropShadowChain(element, index: shadows))
        default:
            return .keep
        }
    }

    /// The `data:` URL `value` as librsvg 2.54 can draw it, or `nil` to leave it.
    private func fixed(_ value: String, in element: SVGElement) -> String? {
        guard ContinuousClock.now < deadline, !Self.namesItsBytes(value) else { return nil }
        guard var url = DataURL(value, maxBytes: limits.maxBytes) else { return nil }
        guard var format = ImageFormat(sniffing: Data(url.payload)) else {
            // Gzipped, or text before the root: the media type says whether it is SVG.
            let isSVG = url.mediaType.lowercased() == ImageFormat.svg.mimeType
            return isSVG ? try? embeddedSVG(url.payload, in: element) : nil
        }
        if format == .apng { format = .png }
        if Self.pixbufFormats.contains(format) {
            guard url.mediaType.lowercased() != format.mimeType else { return nil }
            url.mediaType = format.mimeType
            url.parameters = []
            return url.base64String
        }
        if format == .svg { return try? embeddedSVG(url.payload, in: element) }
        guard format != .pdf else { return nil }
        // Through the registry decoding the SVG, with its isolation (a HEIC it sends to workers
        // is not decoded here because it came inside an SVG).
        guard let decoder = ImageCoderRegistry.shared.decoder(for: format) else { return nil }
        return try? pngURL(ImageCoderRegistry.decodeEmbedded(Data(url.payload), format: format, options: decodeOptions(), fallback: decoder))
    }

    /// Whether a `data:` URL already names the JPEG, PNG or GIF its payload is, judged from its
    /// first bytes alone, so that a large embedded photo is not decoded from base64 to be left
    /// as it was.
    static func namesItsBytes(_ value: String) -> Bool {
        let head = Array(value.utf8.prefix(256))
        // The header and 96 characters of payload: 72 bytes in base64, enough to sniff.
        guard let comma = head.firstIndex(of: UInt8(ascii: ",")),
            let url = DataURL(String(decoding: head.prefix(comma + 97), as: UTF8.self)),
            let format = ImageFormat(sniffing: Data(url.payload))
        else { return false }
        return pixbufFormats.contains(format) && url.mediaType.lowercased() == format.mimeType
    }

    /// An embedded SVG drawn at the size it will be shown at, as a PNG `data:` URL.
    private func embeddedSVG(_ payload: [UInt8], in element: SVGElement) throws -> String {
        let bytes = Gzip.isGzip(payload) ? try Gzip.inflate(payload, maxBytes: limits.maxBytes, format: .svg) : payload
        var inner = limits
        let left = (deadline - .now).components
        inner.maxRenderSeconds = max(0.001, Double(left.seconds) + Double(left.attoseconds) / 1e18)
        let document = try SVGDocument(Data(bytes), limits: inner)
        // Larger than its own size when the element shows it larger (in user units).
        let shown = [("width", document.width), ("height", document.height)].compactMap { side, own in
            element.value(of: side).flatMap(Double.init).map { $0 / own }
        }
        let factor = scale * max(1, shown.max() ?? 1)
        // Never more pixels than the limit allows: a larger drawing is shrunk to fit it.
        let pixels = document.width * factor * document.height * factor
        let fit = pixels > Double(limits.maxPixels) ? (Double(limits.maxPixels) / pixels).squareRoot() : 1
        let size = PixelSize(
            width: SVGDocument.whole(document.width * factor * fit), height: SVGDocument.whole(document.height * factor * fit))
        try limits.check(width: size.width, height: size.height, format: .svg)
        return try pngURL(Image(buffer: try document.render(size: size, limits: inner), format: .svg, hasAlpha: true))
    }

    private func decodeOptions() -> DecodeOptions {
        var options = DecodeOptions(limits: limits)
        options.firstFrameOnly = true
        return options
    }

    /// `image` as a PNG `data:` URL, encoded quickly: librsvg decodes it again at once.
    private func pngURL(_ image: Image) throws -> String {
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions(compressionLevel: 1, keepMetadata: false))
        return DataURL(mediaType: "image/png", payload: [UInt8](png)).base64String
    }

    /// The primitives `feDropShadow` stands for (Filter Effects 1, §15.8), with names of their own
    /// for the intermediate results. The subregion (`x`, `y`, `width`, `height`) goes on the last.
    static func dropShadowChain(_ element: SVGElement, index: Int) -> String {
        func attribute(_ name: String, _ value: String?) -> String {
            value.map { " \(name)=\"\(SVGMarkupWriter<SVGRenderFixes>.escape($0, attribute: true))\"" } ?? ""
        }
        let v = element.value(of:)
        let prefix = element.name.dropLast(element.localName.count)  // "svg:" when the document writes one
        let source = "imago-shadow-\(index)-in", offset = "imago-shadow-\(index)-offset"
        let shared = attribute("color-interpolation-filters", v("color-interpolation-filters"))
        let region = ["x", "y", "width", "height"].map { attribute($0, v($0)) }.joined()
        return "<\(prefix)feMerge\(attribute("result", source))\(shared)><\(prefix)feMergeNode\(attribute("in", v("in")))/></\(prefix)feMerge>"
            + "<\(prefix)feGaussianBlur\(attribute("in", source))\(attribute("stdDeviation", v("stdDeviation") ?? "2"))\(shared)/>"
            + "<\(prefix)feOffset\(attribute("dx", v("dx") ?? "2"))\(attribute("dy", v("dy") ?? "2"))\(attribute("result", offset))\(shared)/>"
            + "<\(prefix)feFlood\(attribute("flood-color", v("flood-color")))\(attribute("flood-opacity", v("flood-opacity")))"
            + "\(attribute("style", v("style")))\(attribute("class", v("class")))\(shared)/>"
            + "<\(prefix)feComposite\(attribute("in2", offset)) operator=\"in\"\(shared)/>"
            + "<\(prefix)feMerge\(attribute("result", v("result")))\(region)\(shared)><\(prefix)feMergeNode/>"
            + "<\(prefix)feMergeNode\(attribute("in", source))/></\(prefix)feMerge>"
    }
}
