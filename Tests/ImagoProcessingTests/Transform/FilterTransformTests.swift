// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Invariants of the pixel filters: what they keep (size, opacity, flat areas, valid
/// premultiplied pixels) and the settings at which they change nothing.
@Suite("Filters: blur, sharpen, tint, colour adjustments, corners")
struct FilterTransformTests {
    typealias T = ImageTransformers

    static func solid(_ c: RGBA8, width: Int, height: Int) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: .rgba8, bytes: Array(repeating: [c.r, c.g, c.b, c.a], count: width * height).flatMap { $0 })
    }

    /// Whether no colour byte of a premultiplied buffer exceeds its pixel's alpha.
    static func isValidPremultiplied(_ buffer: PixelBuffer) -> Bool {
        let off = PixelFormat.argbOffsets
        return buffer.withUnsafeBytes { p in
            stride(from: 0, to: p.count, by: 4).allSatisfy { i in
                p[i + off.r] <= p[i + off.a] && p[i + off.g] <= p[i + off.a] && p[i + off.b] <= p[i + off.a]
            }
        }
    }

    @Test("blur keeps the size, an opaque image opaque, a flat one flat, and translucent pixels validly premultiplied")
    func blurInvariants() throws {
        let noisy = try Fixtures.noisy(width: 23, height: 9, amplitude: 64)
        let blurred = try T.Blur(radius: 2.5).transform(noisy)
        #expect(blurred.size == noisy.size && blurred.isOpaque)
        let flat = try Self.solid(RGBA8(r: 10, g: 200, b: 90), width: 9, height: 7)
        #expect(try T.Blur(radius: 4).transform(flat) == flat.converted(to: .argb32Premultiplied))
        let translucent = try Fixtures.noisy(width: 17, height: 11, alpha: true, noisyAlpha: true, amplitude: 40)
        let soft = try T.Blur(radius: 1.5).transform(translucent)
        #expect(soft.size == translucent.size && Self.isValidPremultiplied(soft))
        let line = try Fixtures.coordinates(width: 1, height: 6)
        #expect(try T.Blur(radius: 3).transform(line).size == PixelSize(width: 1, height: 6))
    }

    @Test("sharpen steepens an edge on both sides, leaves flat areas and alpha alone; sigma or amount 0 changes nothing")
    func sharpen() throws {
        var bytes: [UInt8] = []
        for _ in 0..<4 {
            for x in 0..<12 { bytes += x < 6 ? [64, 64, 64, 255] : [192, 192, 192, 255] }
        }
        let step = try PixelBuffer(width: 12, height: 4, format: .rgba8, bytes: bytes)
        let sharp = try T.Sharpen(sigma: 1).transform(step)
        let row = (0..<12).map { sharp.color(atX: $0, y: 2)?.r ?? 0 }
        // A box of 3 for sigma 1: 64 + (64 − 107) at the dark side, 192 + (192 − 149) at the light one.
        #expect(row[0] == 64 && row[5] == 21 && row[6] == 235 && row[11] == 192, "\(row)")
        #expect(sharp.isOpaque && sharp.size == step.size)
        let premultiplied = step.converted(to: .argb32Premultiplied)
        #expect(try T.Sharpen(sigma: 0).transform(step) == premultiplied)
        #expect(try T.Sharpen(sigma: 2, amount: 0).transform(step) == premultiplied)
        for bad in [T.Sharpen(sigma: -1), T.Sharpen(sigma: 101), T.Sharpen(sigma: 1, amount: 11), T.Sharpen(sigma: .nan)] {
            #expect(throws: ImageCodingError.self) { try bad.transform(step) }
        }
    }

    @Test("tint: a clear colour changes nothing, an opaque one replaces the colour, transparent pixels stay clear")
    func tint() throws {
        let src = try Fixtures.noisy(width: 6, height: 4, alpha: true)
        #expect(try T.Tint(color: RGBA8(r: 9, g: 99, b: 199, a: 0)).transform(src) == src.converted(to: .argb32Premultiplied))
        let blue = RGBA8(r: 0, g: 0, b: 255)
        let solid = try Self.solid(RGBA8(r: 200, g: 100, b: 50), width: 3, height: 3)
        #expect(try T.Tint(color: blue).transform(solid).color(atX: 1, y: 1) == blue)
        #expect(try T.Tint(color: blue, blendMode: .sourceIn).transform(solid).color(atX: 1, y: 1) == blue)
        let clear = try Self.solid(RGBA8(r: 200, g: 100, b: 50, a: 0), width: 2, height: 2)
        #expect(try T.Tint(color: blue, blendMode: .sourceIn).transform(clear).color(atX: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(T.Tint(color: RGBA8(r: 1, g: 2, b: 3, a: 4), blendMode: .sourceIn).key == "Tint(#01020304,sourceIn)")
    }

    @Test("colour adjustments: brightness up then down restores unclamped levels; saturation leaves grays gray; the key names what acts")
    func colorAdjust() throws {
        var bytes: [UInt8] = []
        for i in 0..<64 { bytes += [UInt8(30 + i * 3), UInt8(220 - i * 2), UInt8(100 + i), 255] }
        let src = try PixelBuffer(width: 8, height: 8, format: .rgba8, bytes: bytes)
        let brighter = try T.ColorAdjust(brightness: 20).transform(src)
        #expect(brighter.color(atX: 0, y: 0) == RGBA8(r: 50, g: 240, b: 120))
        #expect(try T.ColorAdjust(brightness: -20).transform(brighter) == src.converted(to: .argb32Premultiplied))
        for level: UInt8 in [0, 5, 60, 128, 200, 255] {
            let gray = try Self.solid(RGBA8(r: level, g: level, b: level), width: 2, height: 2)
            let out = try #require(try T.ColorAdjust(saturation: 2).transform(gray).color(atX: 1, y: 1))
            for channel in [out.r, out.g, out.b] { #expect(abs(Int(channel) - Int(level)) <= 1, "\(level): \(out)") }
        }
        #expect(T.ColorAdjust().key == "ColorAdjust()")
        #expect(T.ColorAdjust(brightness: -5, saturation: 0.5).key == "ColorAdjust(br-5,sa0.5)")
        let colorize = T.ColorAdjust(contrast: 2, colorizeOpacity: 0.25, colorizeColor: RGBA8(r: 255, g: 0, b: 16))
        #expect(colorize.key == "ColorAdjust(co2.0,col0.25:ff0010:0)" && !colorize.isIdentity)
    }

    @Test("round corners: radius 0 changes nothing; a radius past half the shorter side is cut to it")
    func cornerRadius() throws {
        let src = try Fixtures.coordinates(width: 20, height: 10)
        #expect(try T.RoundCorner(radius: 0).transform(src) == src.converted(to: .argb32Premultiplied))
        let half = try T.RoundCorner(radius: 5).transform(src)
        #expect(try T.RoundCorner(radius: 1000).transform(src) == half)
        #expect(half.color(atX: 10, y: 0) == src.color(atX: 10, y: 0) && half.color(atX: 0, y: 5) == src.color(atX: 0, y: 5))
        #expect(half.color(atX: 0, y: 0)?.a == 0 && half.color(atX: 19, y: 9)?.a == 0)
    }
}
