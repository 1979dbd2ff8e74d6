// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Synchronization
import Testing

/// An animation decoded on demand: frame i of a w×h canvas has pixel (x, y) = (x, y, i, 255),
/// shown for 0.1 × (i + 1) s. It records which frames were decoded.
final class RecordingAnimation: AnimatedImage {
    let frameCount: Int
    let loopCount: Int
    let canvasSize: PixelSize
    let pixelFormat: PixelFormat = .rgba8
    private let decoded = Mutex<[Int]>([])

    init(frames: Int, loopCount: Int = 0, width: Int = 3, height: Int = 2) {
        frameCount = frames
        self.loopCount = loopCount
        canvasSize = PixelSize(width: width, height: height)
    }

    var decodes: [Int] { decoded.withLock { $0 } }

    func duration(at index: Int) -> Double { index >= 0 && index < frameCount ? 0.1 * Double(index + 1) : 0 }

    func canvas(at index: Int) throws -> PixelBuffer {
        guard index >= 0, index < frameCount else { throw ImageCodingError.invalidArgument("no frame \(index)") }
        decoded.withLock { $0.append(index) }
        return try Self.pixels(index, canvasSize)
    }

    static func pixels(_ index: Int, _ size: PixelSize) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<size.height { for x in 0..<size.width { bytes += [UInt8(x), UInt8(y), UInt8(index), 255] } }
        return try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: bytes)
    }
}

@Suite("Images decoded lazily: frames on demand, limits before decoding, transforms kept lazy")
struct LazyImageTests {
    static func lazyImage(_ animation: RecordingAnimation) throws -> Image {
        try Image(animation: animation, firstFrame: RecordingAnimation.pixels(0, animation.canvasSize), format: .gif)
    }

    @Test("a lazy image decodes only the frames asked for, with the animation's durations and loop count")
    func onDemand() throws {
        let animation = RecordingAnimation(frames: 4, loopCount: 3)
        let image = try Self.lazyImage(animation)
        #expect(image.frameCount == 4 && image.frames.count == 1 && image.isAnimated && image.loopCount == 3)
        #expect(image.duration(at: 2) == animation.duration(at: 2) && image.duration(at: 9) == 0)
        #expect(image.byteCount == 3 * 2 * 4, "only frame 0 is held")
        let third = try image.frame(at: 2)
        let expectedThird = try RecordingAnimation.pixels(2, animation.canvasSize)
        #expect(third.buffer == expectedThird && third.duration == animation.duration(at: 2))
        #expect(try image.frame(at: 0).buffer == image.buffer)
        #expect(animation.decodes == [2])
        #expect(throws: ImageCodingError.self) { try image.frame(at: 4) }
        #expect(throws: ImageCodingError.self) { try image.frame(at: -1) }
        #expect(animation.decodes == [2])
    }

    @Test("a first frame of the wrong size is refused; a one-frame animation is a still")
    func construction() throws {
        let animation = RecordingAnimation(frames: 3)
        #expect(throws: ImageCodingError.self) {
            try Image(animation: animation, firstFrame: RecordingAnimation.pixels(0, PixelSize(width: 2, height: 3)))
        }
        let single = RecordingAnimation(frames: 1, loopCount: 5)
        let still = try Self.lazyImage(single)
        #expect(still.animation == nil && still.frameCount == 1 && still.loopCount == 1 && !still.isAnimated)
        #expect(still.duration(at: 0) == 0.1, "frame 0 keeps the animation's duration")
    }

    @Test("allFrames checks the limits before decoding anything, then decodes every frame")
    func limitsFirst() throws {
        let animation = RecordingAnimation(frames: 3, width: 10, height: 10)
        let image = try Self.lazyImage(animation)
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 3, limit: 2)) {
            try image.allFrames(limits: DecodingLimits(maxFrames: 2))
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: 300, limit: 299)) {
            try image.decodingAllFrames(limits: DecodingLimits(maxTotalFramePixels: 299))
        }
        #expect(animation.decodes.isEmpty)
        let all = try image.decodingAllFrames(limits: DecodingLimits(maxTotalFramePixels: 300))
        #expect(all.animation == nil && all.frames.count == 3 && all.frameCount == 3 && all.loopCount == image.loopCount)
        #expect(all.frames.map(\.duration) == [0.1, 0.2, 0.1 * 3])
        #expect(animation.decodes == [1, 2])
        #expect(try all.decodingAllFrames() == all, "already decoded: itself")
        let again = try Self.lazyImage(animation)
        let twin = try Self.lazyImage(RecordingAnimation(frames: 3, width: 10, height: 10))
        #expect(image == again && image != twin && all != image, "lazy images compare by the identity of their source")
    }

    @Test("conversion, orientation and mapping apply to decoded frames now and to lazy frames when decoded")
    func lazyTransforms() throws {
        let animation = RecordingAnimation(frames: 3, width: 4, height: 2)
        let image = try Self.lazyImage(animation)
        #expect(image.converted(to: .rgba8).animation === image.animation, "already in that format: no wrapper")
        let gray = image.converted(to: .gray8)
        #expect(gray.buffer.format == .gray8 && gray.animation?.pixelFormat == .gray8 && animation.decodes.isEmpty)
        #expect(try gray.frame(at: 1).buffer == RecordingAnimation.pixels(1, animation.canvasSize).converted(to: .gray8))

        var turned = image
        turned.orientation = .left
        let upright = turned.applyingOrientation()
        #expect(upright.orientation == .up && upright.pixelSize == PixelSize(width: 2, height: 4))
        #expect(upright.animation?.canvasSize == PixelSize(width: 2, height: 4) && upright.frameCount == 3)
        #expect(try upright.frame(at: 2).buffer == RecordingAnimation.pixels(2, animation.canvasSize).applyingOrientation(.left))

        let half = PixelSize(width: 2, height: 2)
        let cropped = try image.mappingFrames(to: half, format: .rgb8) { buffer in
            var bytes: [UInt8] = []
            for y in 0..<2 { for x in 0..<2 { if let c = buffer.color(atX: x, y: y) { bytes += [c.r, c.g, c.b] } } }
            return try PixelBuffer(width: 2, height: 2, format: .rgb8, bytes: bytes)
        }
        #expect(cropped.pixelSize == half && cropped.animation?.canvasSize == half && cropped.animation?.pixelFormat == .rgb8)
        #expect(try cropped.frame(at: 1).buffer.bytes == [0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1])
        #expect(cropped.duration(at: 1) == image.duration(at: 1) && cropped.loopCount == image.loopCount)
        #expect(animation.decodes == [1, 2, 1])
    }

    @Test("a transformed animation forwards counts and durations, and passes on the base's errors")
    func transformedAnimation() throws {
        let base = RecordingAnimation(frames: 2, loopCount: 7)
        let wrapped = TransformedAnimation(base, canvasSize: PixelSize(width: 2, height: 3), pixelFormat: .rgba8) {
            $0.applyingOrientation(.right)
        }
        #expect(wrapped.base === base && wrapped.frameCount == 2 && wrapped.loopCount == 7 && wrapped.duration(at: 1) == 0.2)
        #expect(try wrapped.canvas(at: 1).size == PixelSize(width: 2, height: 3))
        #expect(throws: ImageCodingError.invalidArgument("no frame 5")) { try wrapped.canvas(at: 5) }
    }
}
