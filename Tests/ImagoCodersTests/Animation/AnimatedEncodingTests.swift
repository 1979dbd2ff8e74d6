// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Animated encoding round trips (GIF, APNG, WebP)")
struct AnimatedEncodingTests {
    /// Five 48x32 frames: a gradient with a square moving across, the last two with a
    /// transparent band; durations 0.05, 0.1, 0.25, 0.5, 1 s; plays three times.
    static func animation(alpha: Bool = true) throws -> Image {
        let durations = [0.05, 0.1, 0.25, 0.5, 1.0]
        let frames = try durations.enumerated().map { i, d -> ImageFrame in
            var bytes = try Fixtures.gradient(width: 48, height: 32).bytes
            for y in 8..<20 {
                for x in (i * 8)..<(i * 8 + 12) {
                    let o = (y * 48 + x) * 4
                    bytes[o] = 250
                    bytes[o + 1] = 30
                    bytes[o + 2] = 30
                }
            }
            if alpha, i >= 3 { for y in 26..<32 { for x in 0..<48 { bytes[(y * 48 + x) * 4 + 3] = 0 } } }
            return ImageFrame(
                buffer: try PixelBuffer(width: 48, height: 32, format: .rgba8, bytes: bytes).converted(to: .argb32Premultiplied),
                duration: d)
        }
        return try Image(frames: frames, loopCount: 3)
    }

    let coders = ImageCoderRegistry.makeDefault()

    @Test("APNG keeps every pixel, the durations (ms) and the loop count; it decodes as a valid APNG", arguments: [true, false])
    func apng(alpha: Bool) throws {
        let source = try Self.animation(alpha: alpha)
        let data = try coders.encode(source, as: .apng)
        #expect(ImageFormat(sniffing: data) == .apng && APNGStructure.invalidReason(data) == nil)
        let back = try coders.decode(data)
        #expect(back.frameCount == 5 && back.loopCount == 3)
        #expect((0..<5).map { back.duration(at: $0) } == [0.05, 0.1, 0.25, 0.5, 1.0])
        for i in 0..<5 { #expect(back.frames[i].buffer == source.frames[i].buffer, "frame \(i)") }
        // Written as .png, an animation is an APNG too.
        #expect(try coders.decode(try coders.encode(source, as: .png)).frameCount == 5)
    }

    @Test("GIF keeps frames, durations (1/100 s), loop count and 1-bit transparency; colours close after quantization")
    func gif() throws {
        let source = try Self.animation()
        let data = try coders.encode(source, as: .gif)
        let back = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(back.frameCount == 5 && back.loopCount == 3)
        #expect((0..<5).map { back.duration(at: $0) } == [0.05, 0.1, 0.25, 0.5, 1.0])
        for i in 0..<5 {
            let original = source.frames[i].buffer.converted(to: .rgba8)
            let d = Fixtures.difference(back.frames[i].buffer, original)
            #expect(d.mean < 3, "frame \(i): \(d)")
            // The transparent band comes back transparent, the square stays red.
            #expect(back.frames[i].buffer.color(atX: 5, y: 30)?.a == (i >= 3 ? 0 : 255))
            let red = try #require(back.frames[i].buffer.color(atX: i * 8 + 5, y: 12))
            #expect(red.r > 230 && red.g < 60)
        }
        // Loop counts: once writes no loop block, forever writes 0.
        var once = source
        once.loopCount = 1
        #expect(try GIFStructure(coders.encode(once, as: .gif)).loopCount == 1)
        once.loopCount = 0
        #expect(try GIFStructure(coders.encode(once, as: .gif)).loopCount == 0)
        // A still GIF.
        let still = try coders.decode(try coders.encode(Image(buffer: source.buffer), as: .gif))
        #expect(still.frameCount == 1 && still.pixelSize == source.pixelSize)
    }

    @Test("animated WebP keeps frames, durations (ms) and loop count; lossless keeps every pixel")
    func webp() throws {
        let source = try Self.animation()
        let lossless = try coders.decode(try coders.encode(source, as: .webp, options: EncodeOptions(lossless: true)))
        #expect(lossless.frameCount == 5 && lossless.loopCount == 3)
        #expect((0..<5).map { lossless.duration(at: $0) } == [0.05, 0.1, 0.25, 0.5, 1.0])
        for i in 0..<5 {
            let a = lossless.frames[i].buffer.converted(to: .rgba8).bytes, b = source.frames[i].buffer.converted(to: .rgba8).bytes
            // Lossless, but transparent pixels' colours are free (premultiplied they are all zero).
            #expect(zip(a, b).enumerated().allSatisfy { o, p in p.0 == p.1 || b[o / 4 * 4 + 3] == 0 }, "frame \(i)")
        }
        let lossy = try coders.decode(try coders.encode(source, as: .webp, options: EncodeOptions(quality: 0.9)))
        #expect(lossy.frameCount == 5)
        for i in 0..<5 { #expect(Fixtures.difference(lossy.frames[i].buffer, source.frames[i].buffer).mean < 4) }
    }

    @Test("round trips between the animated formats, and lazily decoded sources encode every frame")
    func crossFormat() throws {
        let source = try Self.animation(alpha: false)
        for (from, to) in [(ImageFormat.gif, ImageFormat.webp), (.webp, .apng), (.apng, .gif), (.gif, .apng)] {
            let first = try coders.decode(try coders.encode(source, as: from), options: DecodeOptions(decodesFramesLazily: true))
            #expect(first.animation != nil)
            let second = try coders.decode(try coders.encode(first, as: to))
            #expect(second.frameCount == 5 && second.loopCount == 3, "\(from) -> \(to)")
            #expect((0..<5).map { second.duration(at: $0) } == [0.05, 0.1, 0.25, 0.5, 1.0], "\(from) -> \(to)")
        }
        #expect(coders.canEncode(.apng) && coders.canEncode(.gif))
        #expect(coders.preferredEncodingFormat(for: try coders.decode(try coders.encode(source, as: .apng))) == .apng)
    }
}
