// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Animations resized and written as GIF again: the frames then hold more colours than a
/// palette, so they go through libimagequant (one global palette, local ones where it fits badly).
@Suite("Resized animations to GIF", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct ResizedAnimationTests {
    @Test(
        "every frame stays close to its unquantized resize, timing kept",
        arguments: [("pillow/gif/chi.gif", 60.0), ("wuffs/gifplayer-muybridge.gif", 48.0)])
    func quantizedFrames(_ path: String, minimumPSNR: Double) throws {
        let coders = ImageCoderRegistry.shared
        let source = try coders.decode(try Corpus.data(path), options: DecodeOptions(pixelFormat: .rgba8))
        let first = source.frames[0].buffer
        let size = PixelSize(width: 200, height: max(1, first.height * 200 / first.width))
        let frames = try source.frames.map { f in
            ImageFrame(buffer: try Resampler.resize(f.buffer, to: size).converted(to: .rgba8), duration: f.duration)
        }
        let out = try coders.encode(try Image(frames: frames, loopCount: source.loopCount), as: .gif)
        let back = try coders.decode(out, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(back.frameCount == frames.count)
        #expect((0..<back.frameCount).map(back.duration(at:)) == frames.map(\.duration))
        var total = 0.0, worst = Double.infinity
        for i in 0..<min(frames.count, back.frameCount) {
            let p = PixelMetrics.psnr(frames[i].buffer, back.frames[i].buffer)
            total += min(p, 99)
            worst = min(worst, p)
        }
        let mean = total / Double(frames.count)
        #expect(mean >= minimumPSNR, "\(path): mean \(mean) dB")
        #expect(worst >= minimumPSNR - 12, "\(path): worst frame \(worst) dB")
    }
}
