// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoAnimation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

/// A lazily decoded 2×2 animation: frame i is (10 i, 0, 0) at alpha 128, shown 50 ms. Decodes are recorded.
final class LazyStrip: AnimatedImage {
    let frameCount: Int
    let loopCount = 0
    let canvasSize = PixelSize(width: 2, height: 2)
    let pixelFormat: PixelFormat = .rgba8
    private let decoded = Mutex<[Int]>([])

    init(frames: Int) { frameCount = frames }

    var decodes: [Int] { decoded.withLock { $0 } }

    func duration(at index: Int) -> Double { index >= 0 && index < frameCount ? 0.05 : 0 }

    func canvas(at index: Int) throws -> PixelBuffer {
        guard index >= 0, index < frameCount else { throw ImageCodingError.invalidArgument("no frame \(index)") }
        decoded.withLock { $0.append(index) }
        return try Self.pixels(index)
    }

    static func pixels(_ index: Int) throws -> PixelBuffer {
        try PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: (0..<4).flatMap { _ in [UInt8(index * 10), 0, 0, 128] })
    }
}

@Suite("What plays: Image, FrameImage and SpriteSheetImage")
struct AnimationModelTests {
    @Test("an Image is an AnimatedImage: its frames as stored, its durations and loop count, the canvas × 4 bytes a frame")
    func imageConformance() throws {
        let a = try Fixtures.gradient(width: 4, height: 3, alpha: true), b = try Fixtures.coordinates(width: 4, height: 3)
        let image = try Image(frames: [ImageFrame(buffer: a, duration: 0.1), ImageFrame(buffer: b, duration: 0.3)], loopCount: 2)
        let animated: any AnimatedImage = image
        #expect(animated.frameCount == 2 && animated.loopCount == 2 && animated.bytesPerFrame == 4 * 3 * 4)
        #expect(animated.duration(at: 1) == 0.3 && animated.duration(at: 2) == 0 && animated.contentsRect(at: 0) == nil)
        #expect(animated.canvasSize == PixelSize(width: 4, height: 3) && animated.pixelFormat == a.format)
        #expect(try animated.canvas(at: 0) == a)
        #expect(try animated.canvas(at: 1) == b)
        #expect(throws: ImageCodingError.self) { try animated.canvas(at: 2) }
    }

    @Test("a lazily decoded Image plays its frames as they come due, decoding them only then")
    func lazyImagePlays() async throws {
        let strip = LazyStrip(frames: 4)
        let image = try Image(animation: strip, firstFrame: LazyStrip.pixels(0))
        #expect(image.bytesPerFrame == 16 && strip.decodes.isEmpty)
        let player = try AnimatedImagePlayer(image: image, maxBufferSize: 1)
        let shown = Mutex<[PixelBuffer]>([])
        player.setFrameHandler { frame in shown.withLock { $0.append(frame.buffer) } }
        for t in stride(from: 0, through: 200, by: 50) {
            await player.waitForBuffer()
            player.update(now: .milliseconds(t))
        }
        let expected = try [1, 2, 3, 0].map { try LazyStrip.pixels($0).converted(to: .argb32Premultiplied) }
        #expect(shown.withLock { $0 } == expected)
        // Frame 0 was decoded with the image; the others one at a time, in order.
        #expect(Array(strip.decodes.prefix(3)) == [1, 2, 3] && !strip.decodes.contains(0))
    }

    @Test("frame images: clamped durations and loop count, the largest frame's bytes, typed errors for bad input")
    func frameImages() throws {
        let small = try Image(buffer: Fixtures.gradient(width: 4, height: 3))
        let large = try Image(buffer: Fixtures.coordinates(width: 8, height: 6))
        let frames = try FrameImage(images: [small, large], durations: [-1, 0.2], loopCount: -5)
        #expect(frames.frameCount == 2 && frames.loopCount == 0)
        #expect(frames.duration(at: 0) == 0 && frames.duration(at: 1) == 0.2 && frames.duration(at: 2) == 0)
        #expect(frames.bytesPerFrame == 8 * 6 * 4 && frames.contentsRect(at: 0) == nil)
        #expect(try frames.canvas(at: 0) == small.buffer.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.invalidArgument("frame 2 is out of range: 2 frame(s)")) { try frames.canvas(at: 2) }
        #expect(throws: ImageCodingError.invalidArgument("a frame image needs at least one image")) {
            try FrameImage(images: [], durations: [0.1])
        }
        #expect(throws: ImageCodingError.invalidArgument("3 durations for 2 images: give one per image or one for all")) {
            try FrameImage(images: [small, large], durations: [0.1, 0.2, 0.3])
        }
        #expect(throws: ImageCodingError.invalidArgument("a frame image needs at least one image")) {
            try FrameImage(encoded: [], durations: [0.1])
        }
        #expect(throws: ImageCodingError.emptyData) { try FrameImage(encoded: [Data()], durations: [0.1]) }
        #expect(throws: ImageCodingError.unsupportedFormat(nil)) { try FrameImage(encoded: [Data("hello".utf8)], durations: [0.1]) }
    }

    @Test("encoded frame images read only the first header up front; a damaged later frame fails when it is asked for")
    func encodedFrames() throws {
        let small = try Image(buffer: Fixtures.gradient(width: 4, height: 3))
        let png = try ImageCoderRegistry.shared.encode(small, as: .png)
        let mixed = try FrameImage(encoded: [png, Data("hello".utf8), png], durations: [0.1])
        #expect(mixed.frameCount == 3 && mixed.bytesPerFrame == 4 * 3 * 4 && mixed.duration(at: 2) == 0.1)
        #expect(try mixed.canvas(at: 2) == small.buffer.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.unsupportedFormat(nil)) { try mixed.canvas(at: 1) }
    }

    @Test("a sprite sheet cut into a 3 × 2 grid shows each cell in turn over one shared sheet")
    func spriteGrid() async throws {
        let sheetImage = try Image(buffer: Fixtures.coordinates(width: 48, height: 16))
        let rects = (0..<6).map { FrameRect(x: $0 % 3 * 16, y: $0 / 3 * 8, width: 16, height: 8) }
        let sprites = try SpriteSheetImage(sheet: sheetImage, rects: rects, durations: [0.1], loopCount: 2)
        #expect(sprites.frameCount == 6 && sprites.loopCount == 2 && sprites.bytesPerFrame == 16 * 8 * 4)
        #expect(sprites.sheet == sheetImage.buffer.converted(to: .argb32Premultiplied) && sprites.rects == rects)
        #expect(sprites.contentsRect(at: 4) == FrameRect(x: 16, y: 8, width: 16, height: 8) && sprites.contentsRect(at: 6) == nil)
        for (i, r) in rects.enumerated() {
            // Each cell's top-left pixel is where the grid puts it: red is x, green is y.
            #expect(try sprites.canvas(at: i).color(atX: r.x, y: r.y) == RGBA8(r: UInt8(r.x), g: UInt8(r.y), b: 7), "cell \(i)")
        }
        let player = try AnimatedImagePlayer(image: sprites, maxBufferSize: 6)
        let log = PlayLog(player)
        await PlayerBehaviourTests.drive(player, Array(stride(from: 0, through: 1300, by: 100)))
        let expected = (Array(rects[1...]) + rects).map { Optional($0) }
        #expect(log.rects == expected && log.indices == [1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5])
        #expect(player.isFinished && player.currentFrame?.buffer == sprites.sheet)
    }

    @Test("sprite rectangles must lie inside the sheet, edges included, and not be empty; durations one per sprite or one for all")
    func spriteValidation() throws {
        let sheet = try Image(buffer: Fixtures.gradient(width: 48, height: 16))
        func rejects(_ rect: FrameRect) -> Bool {
            do {
                _ = try SpriteSheetImage(sheet: sheet, rects: [FrameRect(x: 0, y: 0, width: 1, height: 1), rect], durations: [0.1])
                return false
            } catch ImageCodingError.invalidArgument(let message) {
                return message.hasPrefix("sprite 1 ")
            } catch {
                return false
            }
        }
        #expect(!rejects(FrameRect(x: 32, y: 8, width: 16, height: 8)), "touching the bottom-right corner")
        #expect(!rejects(FrameRect(x: 0, y: 0, width: 48, height: 16)), "the whole sheet")
        let outside = [
            FrameRect(x: 33, y: 8, width: 16, height: 8), FrameRect(x: 32, y: 9, width: 16, height: 8),
            FrameRect(x: -1, y: 0, width: 4, height: 4), FrameRect(x: 0, y: -1, width: 4, height: 4),
            FrameRect(x: 0, y: 0, width: 0, height: 4), FrameRect(x: 0, y: 0, width: 4, height: 0),
            FrameRect(x: 0, y: 0, width: 49, height: 1), FrameRect(x: Int.max, y: 0, width: 1, height: 1)
        ]
        for rect in outside { #expect(rejects(rect), "\(rect)") }
        #expect(throws: ImageCodingError.invalidArgument("a sprite sheet needs at least one rectangle")) {
            try SpriteSheetImage(sheet: sheet, rects: [], durations: [0.1])
        }
        let two = [FrameRect(x: 0, y: 0, width: 4, height: 4), FrameRect(x: 4, y: 0, width: 8, height: 4)]
        #expect(throws: ImageCodingError.invalidArgument("3 durations for 2 sprites")) {
            try SpriteSheetImage(sheet: sheet, rects: two, durations: [0.1, 0.2, 0.3])
        }
        let clamped = try SpriteSheetImage(sheet: sheet, rects: two, durations: [-0.5, 0.25], loopCount: -1)
        #expect(clamped.duration(at: 0) == 0 && clamped.duration(at: 1) == 0.25 && clamped.duration(at: 2) == 0)
        #expect(clamped.loopCount == 0 && clamped.bytesPerFrame == 8 * 4 * 4)
    }
}
