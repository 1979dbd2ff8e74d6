// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@Suite("Scale down to a byte limit")
struct ScaleDownTests {
    @Test("the target fits the limit, keeps the aspect ratio, never upscales, is at least 1x1")
    func targets() {
        let big = PixelSize(width: 8000, height: 6000)
        let t = ScaleDown.targetSize(for: big, limitBytes: 60 * 1024 * 1024)
        #expect(t.width * t.height * 4 <= 60 * 1024 * 1024)
        #expect(abs(Double(t.width) / Double(t.height) - 4.0 / 3.0) < 0.01)
        #expect(t.width * t.height * 4 > 59 * 1024 * 1024)  // uses the budget, not far below it
        #expect(ScaleDown.targetSize(for: PixelSize(width: 100, height: 100), limitBytes: 1 << 20) == PixelSize(width: 100, height: 100))
        #expect(ScaleDown.targetSize(for: PixelSize(width: 100_000, height: 1), limitBytes: 16) == PixelSize(width: 4, height: 1))
        #expect(ScaleDown.targetSize(for: big, limitBytes: 4) == PixelSize(width: 1, height: 1))
        let anim = ScaleDown.targetSize(for: PixelSize(width: 1000, height: 1000), limitBytes: 4_000_000, frameCount: 4)
        #expect(anim.width * anim.height * 4 * 4 <= 4_000_000)
    }

    @Test("decoding under a limit: JPEG shrinks on load, PNG reduces after; both fit")
    func decode() throws {
        let source = Image(buffer: try Fixtures.gradient(width: 1600, height: 1200))
        let limit = 400_000  // 100k pixels
        for format in [ImageFormat.jpeg, .png, .webp] {
            let data = try ImageCoderRegistry.shared.encode(source, as: format)
            let image = try ScaleDown.decode(ImageInput(data), limitBytes: limit)
            #expect(image.byteCount <= limit, "\(format)")
            #expect(image.pixelSize == ScaleDown.targetSize(for: source.pixelSize, limitBytes: limit), "\(format)")
        }
        #expect(throws: ImageCodingError.self) { try ScaleDown.decode(ImageInput(Data()), limitBytes: limit) }
        #expect(throws: ImageCodingError.self) { try source.scaledDown(limitBytes: 3) }
    }

    @Test("animated images divide the limit by the frame count")
    func animated() throws {
        let frame = try Fixtures.gradient(width: 400, height: 300)
        let anim = try Image(frames: (0..<5).map { _ in ImageFrame(buffer: frame, duration: 0.1) })
        let small = try anim.scaledDown(limitBytes: 240_000)
        #expect(small.frames.count == 5 && small.byteCount <= 240_000 && small.frames.allSatisfy { $0.duration == 0.1 })
    }
}
