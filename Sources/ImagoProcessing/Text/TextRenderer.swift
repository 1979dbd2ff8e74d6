// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

/// Text drawn with Pango and cairo (loaded on first use): Pango markup (`<b>`, `<i>`,
/// `<span foreground="#c00" size="x-large" font_family="Serif">`, …) in a font description,
/// wrapped to a width, black on transparent where the markup names no colour — what the
/// service's `watermark_text` draws, as imgproxy Pro's.
///
/// ```swift
/// let label = try TextRenderer.render("<b>© Imago</b> 2026", font: "sans 24")
/// let marked = try ImageTransformers.Overlay(label, identifier: "label", x: 16, y: 16, opacity: 0.7).transform(photo)
/// ```
public enum TextRenderer {
    /// How wrapped lines line up.
    public enum Alignment: Int32, Sendable {
        case left = 0, center = 1, right = 2
    }

    /// The longest markup drawn: 16 KiB.
    public static let maxMarkupBytes = 16 << 10

    /// Whether Pango and cairo are installed (the first call loads them).
    public static var isAvailable: Bool { imago_text_available() != 0 }

    /// Draws `markup`.
    ///
    /// - Parameters:
    ///   - markup: Pango markup; plain text needs `&`, `<` and `>` escaped (``escaped(_:)``).
    ///   - font: A Pango font description (family, style, size in points at 72 dpi, so points are
    ///     pixels). Default `"sans 16"`, imgproxy Pro's.
    ///   - width: Wrap lines at this many pixels (between words, else characters). Default `nil`:
    ///     one line per line of the text.
    ///   - alignment: Default ``Alignment/left``.
    ///   - maxPixels: The largest picture drawn. Default 16 megapixels.
    /// - Returns: The text's pixels, `PixelFormat.argb32Premultiplied`, as large as its ink and
    ///   line boxes.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for markup Pango cannot parse, empty or
    ///   too long text, or a picture over `maxPixels`; `ImageCodingError.unsupportedFeature(_:_:)`
    ///   when Pango is not installed.
    public static func render(
        _ markup: String, font: String = "sans 16", width: Int? = nil, alignment: Alignment = .left, maxPixels: Int = 16_000_000
    ) throws -> PixelBuffer {
        guard !markup.isEmpty, markup.utf8.count <= maxMarkupBytes, !markup.utf8.contains(0), !font.utf8.contains(0) else {
            throw ImageCodingError.invalidArgument("the text must be 1 to \(maxMarkupBytes) bytes, without NUL")
        }
        guard isAvailable else { throw ImageCodingError.unsupportedFeature(.png, "Pango is not installed: text cannot be drawn") }
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { m in
            imago_text_render(
                markup, font, Int32(clamping: max(0, width ?? 0)), alignment.rawValue, maxPixels, &pixels, &w, &h, m.baseAddress, m.count)
        }
        guard status == 0, let pixels else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageCodingError.invalidArgument("the text cannot be drawn: \(reason)")
        }
        defer { free(pixels) }
        let count = Int(w) * Int(h) * 4
        return try PixelBuffer(
            width: Int(w), height: Int(h), format: .argb32Premultiplied, bytes: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    /// `text` with Pango markup's special characters escaped, to draw it as it is.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
