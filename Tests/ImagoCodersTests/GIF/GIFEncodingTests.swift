// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("GIF encoding: global palette, changed rectangles, disposal")
struct GIFEncodingTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Mean colour difference and the count of pixels whose 1-bit transparency differs.
    static func compare(_ a: PixelBuffer, _ b: PixelBuffer) -> (mean: Double, alphaMismatches: Int) {
        let x = a.converted(to: .rgba8), y = b.converted(to: .rgba8)
        var mismatches = 0
        for p in stride(from: 3, to: x.bytes.count, by: 4) where (x.bytes[p] >= 128) != (y.bytes[p] >= 128) { mismatches += 1 }
        return (Fixtures.difference(x, y).mean, mismatches)
    }

    /// A frame of `width`×`height` RGBA where `color(x, y)` gives each pixel.
    static func frame(_ width: Int, _ height: Int, duration: Double = 0.1, _ color: (Int, Int) -> RGBA8) throws -> ImageFrame {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y), o = (y * width + x) * 4
                bytes[o] = c.r
                bytes[o + 1] = c.g
                bytes[o + 2] = c.b
                bytes[o + 3] = c.a
            }
        }
        return ImageFrame(buffer: try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes), duration: duration)
    }

    @Test(
        "real animations come back with the same frames, timing and transparency, and smaller than frame-per-palette files",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpusRoundTrips() throws {
        for path in [
            "wuffs/gifplayer-muybridge.gif", "wuffs/animated-red-blue.gif", "pillow/gif/dispose_bgnd_transparency.gif",
            "pillow/gif/chi.gif", "image-rs-image/gif/anim/mixed-disposal.gif", "pillow/gif/dispose_prev.gif",
            "pillow/gif/iss634.gif"
        ] {
            let data = try Corpus.data(path)
            let source = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            let out = try coders.encode(source, as: .gif)
            if path.hasSuffix("muybridge.gif") {
                // 380 frames, 357 KB as it ships: one palette and changed rectangles keep it near that.
                #expect(out.count < data.count * 5 / 4, "\(out.count) bytes")
                #expect(try GIFStructure(out).frames.allSatisfy { !$0.hasLocalPalette })
            }
            let back = try coders.decode(out, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(back.frameCount == source.frameCount && back.loopCount == source.loopCount, "\(path)")
            #expect((0..<back.frameCount).map(back.duration(at:)) == (0..<source.frameCount).map(source.duration(at:)), "\(path)")
            for i in 0..<min(source.frameCount, back.frameCount) {
                let d = Self.compare(source.frames[i].buffer, back.frames[i].buffer)
                #expect(d.mean < 0.5 && d.alphaMismatches == 0, "\(path) frame \(i): \(d)")
            }
            // The frames after the first write only what changed.
            let structure = try GIFStructure(out)
            if source.frameCount > 2 {
                #expect(structure.frames.dropFirst().contains { $0.width * $0.height < structure.width * structure.height }, "\(path)")
            }
        }
    }

    @Test("frames the global palette fits badly get a local palette; every frame stays close to its source")
    func localPaletteFallback() throws {
        // 32 frames; the palette samples every other one. The odd frames are in other colours.
        let frames = try (0..<32).map { i in
            try Self.frame(64, 48) { x, y in
                i % 2 == 0 ? RGBA8(r: UInt8(x * 4), g: UInt8(y * 2), b: 20) : RGBA8(r: 10, g: UInt8(255 - y * 5), b: UInt8(x * 4))
            }
        }
        let source = try Image(frames: frames, loopCount: 0)
        let out = try coders.encode(source, as: .gif)
        let structure = try GIFStructure(out)
        #expect(structure.frames.enumerated().allSatisfy { i, f in f.hasLocalPalette == (i % 2 == 1) })
        let back = try coders.decode(out)
        for i in 0..<32 {
            let d = Self.compare(source.frames[i].buffer, back.frames[i].buffer)
            #expect(d.mean < 3 && d.alphaMismatches == 0, "frame \(i): \(d)")
        }
    }

    @Test("a pixel that turns transparent long after it last changed is cleared by disposal; identical frames cost a pixel")
    func transparencyTransitions() throws {
        let base: (Int, Int) -> RGBA8 = { x, y in RGBA8(r: UInt8(x * 6), g: UInt8(y * 6), b: 128) }
        let frames = try [
            Self.frame(40, 30, base),
            // Only a corner square changes.
            Self.frame(40, 30) { x, y in x < 5 && y < 5 ? RGBA8(r: 255, g: 0, b: 0) : base(x, y) },
            // The same again, twice.
            Self.frame(40, 30) { x, y in x < 5 && y < 5 ? RGBA8(r: 255, g: 0, b: 0) : base(x, y) },
            Self.frame(40, 30) { x, y in x < 5 && y < 5 ? RGBA8(r: 255, g: 0, b: 0) : base(x, y) },
            // The bottom-right quarter, untouched since frame 0, turns transparent.
            Self.frame(40, 30) { x, y in x >= 20 && y >= 15 ? RGBA8(r: 0, g: 0, b: 0, a: 0) : x < 5 && y < 5 ? RGBA8(r: 255, g: 0, b: 0) : base(x, y) },
            // And comes back.
            Self.frame(40, 30, base)
        ]
        let source = try Image(frames: frames, loopCount: 0)
        let out = try coders.encode(source, as: .gif)
        let structure = try GIFStructure(out)
        #expect(structure.frames[1].width == 5 && structure.frames[1].height == 5)
        #expect(structure.frames[2].width == 1 && structure.frames[2].height == 1 && structure.frames[2].disposal == 1)
        // The frame before the vanishing pixels grows over them and is disposed to background.
        let f3 = structure.frames[3]
        #expect(f3.disposal == 2 && f3.x <= 20 && f3.y <= 15 && f3.x + f3.width == 40 && f3.y + f3.height == 30)
        let back = try coders.decode(out)
        for i in 0..<frames.count {
            let d = Self.compare(source.frames[i].buffer, back.frames[i].buffer)
            #expect(d.mean < 2 && d.alphaMismatches == 0, "frame \(i): \(d)")
        }
        // A lazily decoded source writes the same file, reading one frame at a time.
        let lazy = try coders.decode(
            try coders.encode(source, as: .webp, options: EncodeOptions(lossless: true)),
            options: DecodeOptions(decodesFramesLazily: true))
        #expect(lazy.animation != nil)
        #expect(try coders.encode(lazy, as: .gif) == coders.encode(try lazy.decodingAllFrames(), as: .gif))
    }

    @Test("frames with no more colours than a palette keep them exactly, undithered; a colour met later gets its nearest entry")
    func exactPalettes() throws {
        // 200 colours over 24 frames (the global palette samples 16 of them), with transparency.
        func color(_ n: Int) -> RGBA8 { RGBA8(r: UInt8(n * 37 % 256), g: UInt8(n * 91 % 256), b: UInt8(n * 13 % 256)) }
        let frames = try (0..<24).map { f in
            try Self.frame(20, 10) { x, y in x == 0 && y == 0 ? RGBA8(r: 0, g: 0, b: 0, a: 0) : color((x + y * 20 + f * 7) % 200) }
        }
        let source = try Image(frames: frames, loopCount: 0)
        let back = try coders.decode(try coders.encode(source, as: .gif))
        for i in 0..<frames.count {
            let d = Self.compare(source.frames[i].buffer, back.frames[i].buffer)
            #expect(d.mean == 0 && d.alphaMismatches == 0, "frame \(i): \(d)")
        }
        // A still with a few colours, too.
        let still = try Image(frames: [frames[3]])
        #expect(
            try coders.decode(try coders.encode(still, as: .gif)).frames[0].buffer.converted(to: .rgba8)
                == still.frames[0].buffer.converted(to: .rgba8))
        // 40 frames of 16 colours, and frame 37 (never sampled) brings one more, near an existing one:
        // it is drawn with its nearest entry.
        let many = try (0..<40).map { f in
            try Self.frame(8, 8) { x, y in f == 37 && x == 4 && y == 4 ? RGBA8(r: 250, g: 2, b: 2) : color(x + y % 2 * 8) }
        }
        let palette = try GIFPalette(quantizing: [GIFCanvasPixels(many[0].buffer)], reservingTransparent: true, animationFrames: true, maxThreads: nil)
        #expect(palette.colors.count == 17 && palette.transparentIndex == 16)
        let again = try coders.decode(try coders.encode(try Image(frames: many, loopCount: 0), as: .gif))
        let d = Self.compare(many[37].buffer, again.frames[37].buffer)
        #expect(d.mean < 1 && d.alphaMismatches == 0, "\(d)")
    }
}
