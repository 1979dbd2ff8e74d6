// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// imgproxy Pro's colour adjustments in one pass: brightness, contrast, saturation (CIE LCh
/// chroma), monochrome, duotone and colorize.
@Suite("Colour adjustments")
struct ColorAdjustTests {
    static func solid(_ c: RGBA8, width: Int = 4, height: Int = 4) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: .rgba8, bytes: Array(repeating: [c.r, c.g, c.b, c.a], count: width * height).flatMap { $0 })
    }

    static func color(_ b: PixelBuffer) throws -> RGBA8 { try #require(b.converted(to: .rgba8).color(atX: 0, y: 0)) }

    /// CIE L*a*b* of an sRGB colour (D65), by the textbook formulas in Double.
    static func lab(_ c: RGBA8) -> (l: Double, a: Double, b: Double) {
        func lin(_ v: UInt8) -> Double {
            let x = Double(v) / 255
            return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        }
        let r = lin(c.r), g = lin(c.g), b = lin(c.b)
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216 / 24389 ? cbrt(t) : (24389 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    @Test("no adjustment returns the pixels untouched")
    func identity() throws {
        let source = try Fixtures.noisy(width: 16, height: 16)
        let adjust = ImageTransformers.ColorAdjust()
        #expect(adjust.isIdentity)
        #expect(try adjust.transform(source) == source)
    }

    @Test("brightness adds to each channel, contrast scales about 128, both clamped")
    func levels() throws {
        let gray = try Self.solid(RGBA8(r: 100, g: 100, b: 100))
        #expect(try Self.color(ImageTransformers.ColorAdjust(brightness: 50).transform(gray)) == RGBA8(r: 150, g: 150, b: 150))
        #expect(try Self.color(ImageTransformers.ColorAdjust(brightness: -255).transform(gray)) == RGBA8(r: 0, g: 0, b: 0))
        #expect(try Self.color(ImageTransformers.ColorAdjust(contrast: 2).transform(gray)) == RGBA8(r: 72, g: 72, b: 72))
        let light = try Self.solid(RGBA8(r: 200, g: 10, b: 128))
        #expect(try Self.color(ImageTransformers.ColorAdjust(contrast: 2).transform(light)) == RGBA8(r: 255, g: 0, b: 128))
        #expect(try Self.color(ImageTransformers.ColorAdjust(contrast: 0).transform(light)) == RGBA8(r: 128, g: 128, b: 128))
    }

    @Test(
        "saturation scales CIE chroma: 0 is gray of the same lightness, 2 is more colourful of the same hue",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func saturation() throws {
        let colour = RGBA8(r: 180, g: 90, b: 60)
        let source = try Self.solid(colour)
        let gray = try Self.color(ImageTransformers.ColorAdjust(saturation: 0).transform(source))
        #expect(abs(Int(gray.r) - Int(gray.g)) <= 1 && abs(Int(gray.g) - Int(gray.b)) <= 1, "\(gray)")
        #expect(abs(Self.lab(gray).l - Self.lab(colour).l) < 0.8)
        let vivid = try Self.color(ImageTransformers.ColorAdjust(saturation: 1.5).transform(source))
        let before = Self.lab(colour), after = Self.lab(vivid)
        #expect(hypot(after.a, after.b) > 1.4 * hypot(before.a, before.b), "\(vivid)")
        #expect(abs(atan2(after.b, after.a) - atan2(before.b, before.a)) < 0.03)
        #expect(abs(after.l - before.l) < 1)
        // A real photo made gray: every pixel's channels within a level of each other.
        let photo = try ImageCoderRegistry.shared.decode(try Corpus.data("wuffs/peacock.png")).buffer
        let flat = try ImageTransformers.ColorAdjust(saturation: 0).transform(photo).converted(to: .rgba8)
        let spread = flat.bytes.withUnsafeBufferPointer { p in
            stride(from: 0, to: p.count, by: 4).map { max(p[$0], p[$0 + 1], p[$0 + 2]) - min(p[$0], p[$0 + 1], p[$0 + 2]) }.max() ?? 0
        }
        #expect(spread <= 2)
    }

    @Test("monochrome: the default colour is neutral gray, a colour tints the mid-tones, black and white stay")
    func monochrome() throws {
        let colour = RGBA8(r: 40, g: 160, b: 90)
        let neutral = try Self.color(ImageTransformers.ColorAdjust(monochrome: (1, RGBA8(r: 0xb3, g: 0xb3, b: 0xb3))).transform(try Self.solid(colour)))
        #expect(abs(Int(neutral.r) - Int(neutral.b)) <= 2 && abs(Self.lab(neutral).l - Self.lab(colour).l) < 1.5, "\(neutral)")
        let red = RGBA8(r: 200, g: 30, b: 30)
        let tinted = ImageTransformers.ColorAdjust(monochrome: (1, red))
        #expect(try Self.color(tinted.transform(try Self.solid(RGBA8(r: 0, g: 0, b: 0)))) == RGBA8(r: 0, g: 0, b: 0))
        #expect(try Self.color(tinted.transform(try Self.solid(RGBA8(r: 255, g: 255, b: 255)))) == RGBA8(r: 255, g: 255, b: 255))
        let mid = try Self.color(tinted.transform(try Self.solid(colour)))
        #expect(mid.r > mid.g && mid.r > mid.b, "\(mid)")
        // Half intensity: halfway between the original and the tint.
        let half = try Self.color(ImageTransformers.ColorAdjust(monochrome: (0.5, red)).transform(try Self.solid(colour)))
        #expect(abs(Int(half.g) - (Int(colour.g) + Int(mid.g)) / 2) <= 1)
    }

    @Test("duotone: shadows take the first colour, highlights the second")
    func duotone() throws {
        let shadows = RGBA8(r: 20, g: 0, b: 90), highlights = RGBA8(r: 255, g: 220, b: 80)
        let adjust = ImageTransformers.ColorAdjust(duotone: (1, shadows, highlights))
        #expect(try Self.color(adjust.transform(try Self.solid(RGBA8(r: 0, g: 0, b: 0)))) == shadows)
        #expect(try Self.color(adjust.transform(try Self.solid(RGBA8(r: 255, g: 255, b: 255)))) == highlights)
        // The default colours make a gray of the same lightness.
        let gray = try Self.color(
            ImageTransformers.ColorAdjust(duotone: (1, RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 255, g: 255, b: 255))).transform(
                try Self.solid(RGBA8(r: 180, g: 90, b: 60))))
        #expect(abs(Int(gray.r) - Int(gray.b)) <= 1)
    }

    @Test("colorize: a colour over the image at the opacity, transparent parts covered unless keep_alpha")
    func colorize() throws {
        let red = RGBA8(r: 255, g: 0, b: 0)
        let over = try Self.color(
            ImageTransformers.ColorAdjust(colorizeOpacity: 0.5, colorizeColor: red).transform(try Self.solid(RGBA8(r: 100, g: 100, b: 100))))
        #expect(abs(Int(over.r) - 178) <= 1 && abs(Int(over.g) - 50) <= 1 && over.a == 255)
        let clear = try Self.solid(RGBA8(r: 0, g: 0, b: 0, a: 0))
        let covered = try Self.color(ImageTransformers.ColorAdjust(colorizeOpacity: 0.5, colorizeColor: red).transform(clear))
        #expect(abs(Int(covered.a) - 128) <= 1 && covered.r >= 253)
        let kept = try Self.color(ImageTransformers.ColorAdjust(colorizeOpacity: 0.5, colorizeColor: red, colorizeKeepsAlpha: true).transform(clear))
        #expect(kept.a == 0)
    }

    @Test("settings out of range are refused")
    func refusals() throws {
        let source = try Self.solid(RGBA8(r: 1, g: 2, b: 3))
        for bad in [
            ImageTransformers.ColorAdjust(brightness: 256), ImageTransformers.ColorAdjust(contrast: -1), ImageTransformers.ColorAdjust(saturation: .nan),
            ImageTransformers.ColorAdjust(monochrome: (2, RGBA8(r: 0, g: 0, b: 0))), ImageTransformers.ColorAdjust(colorizeOpacity: 1.5)
        ] {
            #expect(throws: ImageCodingError.self) { try bad.transform(source) }
        }
    }
}
