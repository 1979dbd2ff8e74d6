// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Animated WebP", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct WebPAnimationTests {
    let webp = WebPCoder()
    static let files = [
        "image-rs-image/webp/extended_images/advertises_rgba_but_frames_are_rgb.webp",
        "image-rs-image/webp/extended_images/anim.webp", "image-webp/images/animated/random_lossless.webp",
        "image-webp/images/animated/random_lossy.webp", "pillow/webp/iss634.webp"
    ]

    /// Every frame as libwebp's own animation decoder composites it (straight RGBA).
    static func libwebpFrames(_ data: Data) throws -> [[UInt8]] {
        try data.withUnsafeBytes { raw -> [[UInt8]] in
            var webpData = WebPData(bytes: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), size: raw.count)
            var options = WebPAnimDecoderOptions()
            _ = WebPAnimDecoderOptionsInitInternal(&options, WEBP_DEMUX_ABI_VERSION)
            options.color_mode = MODE_RGBA
            let decoder = try #require(WebPAnimDecoderNewInternal(&webpData, &options, WEBP_DEMUX_ABI_VERSION))
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            _ = WebPAnimDecoderGetInfo(decoder, &info)
            var frames: [[UInt8]] = []
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer {
                frames.append(Array(UnsafeBufferPointer(start: buffer, count: Int(info.canvas_width * info.canvas_height * 4))))
            }
            return frames
        }
    }

    /// The largest difference between two premultiplied buffers, byte by byte.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        let x = a.converted(to: .argb32Premultiplied).bytes, y = b.converted(to: .argb32Premultiplied).bytes
        guard x.count == y.count else { return Int.max }
        return zip(x, y).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test("every frame matches libwebp's own animation decoder, premultiplied (libwebp premultiplies by truncation, Imago rounds: at most 1 apart)")
    func matchesLibwebp() throws {
        for path in Self.files {
            let data = try Corpus.data(path)
            let image = try webp.decode(data, options: .default)
            let reference = try Self.libwebpFrames(data)
            #expect(image.frameCount == reference.count, "\(path)")
            for (i, expected) in reference.enumerated() where i < image.frames.count {
                let ours = image.frames[i].buffer
                let theirs = try PixelBuffer(width: ours.width, height: ours.height, format: .rgba8, bytes: expected).converted(to: .argb32Premultiplied)
                #expect(Self.maxDifference(ours, theirs) <= 1, "\(path) frame \(i)")
            }
        }
    }

    @Test("image-webp's per-frame references and image-rs's first frame")
    func references() throws {
        let png = PNGCoder()
        // random_lossy: every frame exact. random_lossless: frame 1 exact; frames 2 and 3 are
        // blended over frame 1 and match libwebp's own compositing (above), one level above the
        // references, which image-webp extracted per frame with webpmux and so never blended.
        for (name, exact) in [("random_lossy", 0..<4), ("random_lossless", 0..<1)] {
            let image = try webp.decode(Corpus.data("image-webp/images/animated/\(name).webp"), options: .default)
            for i in exact {
                let reference = try png.decode(Corpus.data("image-webp/reference/animated/\(name)-\(i + 1).png"), options: .default)
                #expect(image.frames[i].buffer == reference.buffer, "\(name) \(i + 1)")
            }
        }
        let anim = try webp.decode(Corpus.data("image-rs-image/webp/extended_images/anim.webp"), options: .default)
        let first = try png.decode(Corpus.data("image-rs-image/reference/webp/extended_images/anim.webp.png"), options: .default)
        #expect(Self.maxDifference(anim.buffer, first.buffer) <= 1)
    }

    @Test("frame counts, loop counts and durations (<= 10 ms -> 100 ms); lazy equals eager")
    func factsAndLazy() throws {
        let iss = try webp.decode(Corpus.data("pillow/webp/iss634.webp"), options: DecodeOptions(decodesFramesLazily: true))
        #expect(iss.frameCount == 42 && iss.loopCount == 0 && iss.duration(at: 0) == 0.1 && iss.duration(at: 1) == 0.07)
        let lossy = try webp.decode(Corpus.data("image-webp/images/animated/random_lossy.webp"), options: .default)
        #expect(lossy.frameCount == 4 && (0..<4).allSatisfy { lossy.duration(at: $0) == 0.15 })
        for path in Self.files {
            let data = try Corpus.data(path)
            let eager = try webp.decode(data, options: .default)
            let lazy = try webp.decode(data, options: DecodeOptions(decodesFramesLazily: true))
            let n = eager.frameCount
            for i in Array((0..<n).reversed()) + Array(0..<n) {
                let frame = try lazy.frame(at: i)
                #expect(frame == eager.frames[i], "\(path) frame \(i)")
            }
            let firstOnly = try webp.decode(data, options: DecodeOptions(firstFrameOnly: true))
            #expect(firstOnly.frameCount == 1 && firstOnly.buffer == eager.buffer)
        }
    }
}
