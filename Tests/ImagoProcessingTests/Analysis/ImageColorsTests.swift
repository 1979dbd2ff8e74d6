// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Average, palette and Android Palette's dominant colours.
@Suite("Image colours: average, palette, dominant colours", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct ImageColorsTests {
    /// Two flat halves: 3/4 of the pixels a saturated red, 1/4 a dull gray-blue.
    static func halves() throws -> PixelBuffer {
        var bytes = [UInt8]()
        for _ in 0..<40 {
            for x in 0..<80 { bytes += x < 60 ? [220, 30, 40, 255] : [110, 120, 135, 255] }
        }
        return try PixelBuffer(width: 80, height: 40, format: .rgba8, bytes: bytes)
    }

    @Test("average: exact mean of straight colour; transparent pixels left out or counted")
    func average() throws {
        let flat = try Self.halves()
        let a = ImageColors.average(flat)
        #expect(a == RGBA8(r: 193, g: 53, b: 64, a: 255))  // (3*220+110)/4 = 192.5 rounded up, ...
        var clear = try Fixtures.gradient(width: 10, height: 10, alpha: true)
        clear = clear.converted(to: .rgba8)
        let ignoring = ImageColors.average(clear), counting = ImageColors.average(clear, ignoringTransparent: false)
        #expect(ignoring.a > counting.a)
        let none = try PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: [UInt8](repeating: 0, count: 16))
        #expect(ImageColors.average(none) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("palette: at most N colours, the most used first, the image's own colours when it has few")
    func palette() throws {
        let flat = try Self.halves()
        let two = try ImageColors.palette(flat, colors: 8)
        #expect(two.count == 2)
        #expect(abs(Int(two[0].r) - 220) <= 2 && abs(Int(two[1].b) - 135) <= 2, "\(two)")
        let photo = try ImageCoderRegistry.shared.decode(try Corpus.data("wuffs/peacock.png")).buffer
        let sixteen = try ImageColors.palette(photo, colors: 16)
        #expect((10...16).contains(sixteen.count))
        #expect(throws: ImageCodingError.self) { try ImageColors.palette(flat, colors: 1) }
        #expect(throws: ImageCodingError.self) { try ImageColors.palette(flat, colors: 257) }
    }

    @Test("dominant colours: a saturated colour is vibrant, a dull one muted; build_missed fills the rest")
    func dominant() throws {
        let colors = try ImageColors.dominantColors(try Self.halves())
        let vibrant = try #require(colors.vibrant)
        #expect(vibrant.r > 200 && vibrant.g < 60, "\(vibrant)")
        let muted = try #require(colors.muted)
        #expect(abs(Int(muted.b) - 135) <= 3, "\(muted)")
        #expect(colors.lightVibrant == nil && colors.darkMuted == nil)
        let built = try ImageColors.dominantColors(try Self.halves(), buildingMissing: true)
        #expect(built.named.count == 6)
        #expect(built.vibrant == colors.vibrant)
        // A photo: every colour found lies in its target's ranges.
        let photo = try ImageCoderRegistry.shared.decode(try Corpus.data("wuffs/peacock.png")).buffer
        let found = try ImageColors.dominantColors(photo)
        #expect(found.named.count >= 3, "\(found.named.map(\.name))")
    }
}
