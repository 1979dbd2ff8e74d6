// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Pango markup drawn with cairo: size, wrapping, colour from markup, refusals.
@Suite("Text with Pango and cairo", .enabled(if: TextRenderer.isAvailable, "Pango is not installed"))
struct TextRendererTests {
    /// Opaque-ish pixels of `b` (alpha over 128) and their mean colour.
    static func ink(_ b: PixelBuffer) -> (count: Int, r: Int, g: Int, b: Int) {
        let rgba = b.converted(to: .rgba8)
        var n = 0, r = 0, g = 0, bl = 0
        rgba.withUnsafeBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] > 128 {
                n += 1
                r += Int(p[i])
                g += Int(p[i + 1])
                bl += Int(p[i + 2])
            }
        }
        return (n, n > 0 ? r / n : 0, n > 0 ? g / n : 0, n > 0 ? bl / n : 0)
    }

    @Test("a line of text at 16 points is about 16 pixels of type, black by default")
    func line() throws {
        let text = try TextRenderer.render("Imago")
        #expect(text.format == .argb32Premultiplied)
        #expect((14...30).contains(text.height) && (30...80).contains(text.width), "\(text.size)")
        let ink = Self.ink(text)
        #expect(ink.count > 40 && ink.r < 30 && ink.g < 30 && ink.b < 30)
        let larger = try TextRenderer.render("Imago", font: "sans 32")
        #expect(abs(Double(larger.height) / Double(text.height) - 2) < 0.3)
    }

    @Test("markup: bold is wider, a span's colour is drawn; plain text is escaped")
    func markup() throws {
        let plain = try TextRenderer.render("Imago Imago")
        let bold = try TextRenderer.render("<b>Imago Imago</b>")
        #expect(bold.width > plain.width)
        let red = Self.ink(try TextRenderer.render("<span foreground=\"#ff0000\">Imago</span>"))
        #expect(red.r > 200 && red.g < 40 && red.b < 40)
        #expect(TextRenderer.escaped("a < b & \"c\"") == "a &lt; b &amp; &quot;c&quot;")
        #expect(try TextRenderer.render(TextRenderer.escaped("1 < 2 & 3 > 2")).width > 0)
    }

    @Test("wrapping at a width makes several lines no wider than it")
    func wrapping() throws {
        let words = "the quick brown fox jumps over the lazy dog and keeps on running"
        let one = try TextRenderer.render(words)
        let wrapped = try TextRenderer.render(words, width: 120, alignment: .center)
        #expect(wrapped.width <= 124 && wrapped.height >= 3 * one.height, "\(wrapped.size) from \(one.size)")
    }

    @Test("drawn from many threads at once: every text whole")
    func concurrent() async throws {
        let sizes = try await withThrowingTaskGroup(of: PixelSize.self) { group in
            for i in 0..<12 { group.addTask { try TextRenderer.render("Imago \(i % 3)", font: "sans \(12 + i % 3 * 4)").size } }
            var all: [PixelSize] = []
            for try await s in group { all.append(s) }
            return all
        }
        #expect(sizes.count == 12 && Set(sizes).count == 3)
    }

    @Test("bad markup, empty or endless text and a giant size are refused, never drawn")
    func refusals() throws {
        for bad in ["<b>unclosed", "<blink>x</blink>", "", String(repeating: "x", count: 20_000), "a\u{0}b"] {
            #expect(throws: ImageCodingError.self) { try TextRenderer.render(bad) }
        }
        // Giant type is refused before a font is made at its size: cairo would keep the font face
        // in an error state and fail every later text in it.
        for giant in [
            "<span size=\"100000000\">Big</span>", "<span font_desc=\"Sans 90000\">Big</span>",
            "<big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big><big>x</big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big></big>"
        ] {
            #expect(throws: ImageCodingError.self) { try TextRenderer.render(giant) }
        }
        #expect(throws: ImageCodingError.self) { try TextRenderer.render("Imago", font: "sans 50000") }
        #expect(throws: ImageCodingError.self) { try TextRenderer.render("Imago", maxPixels: 10) }
        #expect(try TextRenderer.render("Imago").height > 10, "still drawn after the refusals")
    }
}
