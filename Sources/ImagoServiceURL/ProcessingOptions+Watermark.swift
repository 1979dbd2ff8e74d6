// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

extension ProcessingOptions {
    /// The service's watermark over the result (`watermark`, `wm`), as imgproxy's option:
    /// `wm:opacity:position:x_offset:y_offset:scale`. The image itself is the service's
    /// (`IMAGO_WATERMARK_DATA`, `_PATH` or `_URL`); without one the option does nothing.
    public struct Watermark: Sendable, Hashable {
        /// Where the watermark sits: a side or corner, the centre, or tiled over the whole result.
        public enum Position: String, Sendable, Hashable, CaseIterable {
            case center = "ce", north = "no", south = "so", east = "ea", west = "we"
            case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
            /// Repeated over the whole result (`re`); the offsets are the space between copies.
            case replicate = "re"
        }

        /// 0 (none, the default) to 1, times `IMAGO_WATERMARK_OPACITY`.
        public var opacity: Double
        /// Default ``Position/center``.
        public var position: Position
        /// Pixels (times the `dpr`) from the edge the position names when at least 1, a fraction
        /// of the result's width when under 1; for ``Position/replicate``, the space between
        /// copies. Default 0.
        public var x: Double
        /// As ``x``, along the height.
        public var y: Double
        /// The watermark's size as a fraction of the result's (fitted into that share of its
        /// width and height, enlarging if need be); 0 (the default) keeps the watermark's own size.
        public var scale: Double

        /// Creates a watermark; every part but the opacity defaults to imgproxy's default.
        public init(opacity: Double, position: Position = .center, x: Double = 0, y: Double = 0, scale: Double = 0) {
            self.opacity = opacity
            self.position = position
            self.x = x
            self.y = y
            self.scale = scale
        }

        /// The canonical segment (`watermark:…`), or `nil` when it draws nothing (opacity 0).
        var canonicalSegment: String? {
            guard opacity > 0 else { return nil }
            return "watermark:\(ProcessingOptions.number(opacity)):\(position.rawValue):\(ProcessingOptions.number(x)):"
                + "\(ProcessingOptions.number(y)):\(ProcessingOptions.number(scale))"
        }
    }

    /// The longest `watermark_text` taken: 16 KiB of markup.
    package static let maxWatermarkTextBytes = 16 << 10

    /// imgproxy Pro's per-URL watermarks: `watermark_text` (`wmt`, base64url Pango markup) and
    /// `watermark_url` (`wmu`, a base64url source URL), and `watermark_size` (`wms`).
    mutating func applyWatermarkSource(_ name: String, _ a: OptionArguments) throws(ServiceURLError) {
        switch name {
        case "watermark_text", "wmt":
            let encoded = try a.single(try a.text(0))
            guard let bytes = Base64URL.decode(encoded), let text = String(validating: bytes, as: UTF8.self), !text.isEmpty,
                bytes.count <= Self.maxWatermarkTextBytes, !bytes.contains(0)
            else { throw a.fail("not base64url UTF-8 text of 1 to \(Self.maxWatermarkTextBytes) bytes") }
            watermarkText = text
        case "watermark_url", "wmu":
            let encoded = try a.single(try a.text(0))
            guard let bytes = Base64URL.decode(encoded), let url = String(validating: bytes, as: UTF8.self), !url.isEmpty else {
                throw a.fail("not a base64url URL")
            }
            watermarkURL = url
        default:
            try a.atMost(2)
            let w = try a.size(0), h = a.values.count > 1 && !a.values[1].isEmpty ? try a.size(1) : 0
            watermarkSize = w == 0 && h == 0 ? nil : PixelSize(width: w, height: h)
        }
    }

    /// `watermark`'s arguments, imgproxy's rules: the opacity (0–1) is required, an empty part
    /// keeps what an earlier `watermark` set, the scale is above 0, and up to seven arguments
    /// are taken (imgproxy Pro's last two are ignored).
    mutating func applyWatermark(_ a: OptionArguments) throws(ServiceURLError) {
        try a.atMost(7)
        var w = watermark ?? Watermark(opacity: 0)
        let opacity = try a.number(0)
        guard (0...1).contains(opacity) else { throw a.fail("opacity \(opacity) is not between 0 and 1") }
        w.opacity = opacity
        let values = a.values
        if values.count > 1, !values[1].isEmpty {
            guard let p = Watermark.Position(rawValue: values[1]) else {
                throw a.fail("'\(values[1])' is not a watermark position (ce, no, so, ea, we, noea, nowe, soea, sowe, re)")
            }
            w.position = p
        }
        if values.count > 2, !values[2].isEmpty { w.x = try a.number(2) }
        if values.count > 3, !values[3].isEmpty { w.y = try a.number(3) }
        if values.count > 4, !values[4].isEmpty { w.scale = try a.positive(4) }
        watermark = w
    }
}
