// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("APNG conformance", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct APNGConformanceTests {
    let png = PNGCoder()
    static let green = RGBA8(r: 0, g: 0xFF, b: 0), clear = RGBA8(r: 0, g: 0, b: 0, a: 0)

    /// Philip Taylor's suite (Pillow's names). Valid files: the last frame's pixels at (0,0) and
    /// (64,32), green where the suite's pass colour is green. Where a value is not green it is
    /// what the spec's compositing gives (premultiplied "over" of a half-transparent frame on an
    /// opaque one is opaque); Pillow differs on those few.
    static let valid: [(String, Int, RGBA8, RGBA8)] = [
        ("single_frame.png", 1, green, green), ("single_frame_default.png", 1, green, green),
        ("split_fdat.png", 1, green, green), ("split_fdat_zero_chunk.png", 1, green, green),
        ("dispose_op_none.png", 3, green, green), ("dispose_op_background.png", 3, clear, clear),
        ("dispose_op_background_final.png", 2, green, green), ("dispose_op_previous.png", 3, green, green),
        ("dispose_op_previous_final.png", 2, green, green), ("dispose_op_previous_first.png", 2, clear, clear),
        ("dispose_op_none_region.png", 3, green, green), ("dispose_op_background_before_region.png", 2, clear, clear),
        ("dispose_op_background_region.png", 3, RGBA8(r: 0, g: 0, b: 0xFF), clear),
        ("dispose_op_previous_region.png", 3, green, green),
        ("blend_op_source_solid.png", 2, green, green), ("blend_op_source_transparent.png", 2, clear, clear),
        ("blend_op_source_near_transparent.png", 2, RGBA8(r: 0, g: 0xFF, b: 0, a: 2), RGBA8(r: 0, g: 0xFF, b: 0, a: 2)),
        ("blend_op_over.png", 2, green, green), ("blend_op_over_near_transparent.png", 128, green, green),
        ("fctl_actl.png", 2, green, green),
        ("mode_16bit.png", 2, RGBA8(r: 0, g: 0, b: 128), RGBA8(r: 0, g: 0, b: 128)),
        ("mode_grayscale.png", 2, RGBA8(r: 128, g: 128, b: 128), RGBA8(r: 0xFF, g: 0xFF, b: 0xFF)),
        ("mode_grayscale_alpha.png", 2, RGBA8(r: 128, g: 128, b: 128), RGBA8(r: 128, g: 128, b: 128)),
        ("mode_palette.png", 2, green, green), ("mode_palette_alpha.png", 2, green, green),
        ("mode_palette_1bit_alpha.png", 2, RGBA8(r: 0, g: 0, b: 128), RGBA8(r: 0, g: 0, b: 128))
    ]

    /// Invalid files, shown as their still default image (green in this suite), as browsers show them.
    static let invalid = [
        "chunk_multi_actl.png", "chunk_no_fctl.png", "chunk_no_fdat.png", "chunk_repeat_fctl.png",
        "syntax_num_frames_high.png", "syntax_num_frames_low.png", "syntax_num_frames_invalid.png",
        "syntax_num_frames_zero_default.png", "sequence_start.png", "sequence_gap.png", "sequence_repeat.png",
        "sequence_repeat_chunk.png", "sequence_reorder.png", "sequence_reorder_chunk.png",
        "sequence_fdat_fctl.png"
    ]

    @Test("valid files of Philip Taylor's suite: frame counts and composited last frames")
    func validFiles() throws {
        for (name, frames, a, b) in Self.valid {
            let data = try Corpus.data("pillow/apng/" + name)
            #expect(APNGStructure.invalidReason(data) == nil, "\(name)")
            let image = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(image.frameCount == frames, "\(name)")
            let last = try #require(image.frames.last).buffer
            #expect(
                last.color(atX: 0, y: 0) == a && last.color(atX: 64, y: 32) == b,
                "\(name): \(String(describing: last.color(atX: 0, y: 0))) \(String(describing: last.color(atX: 64, y: 32)))")
            #expect(try png.info(of: data).frameCount == frames, "\(name)")
        }
        #expect(try png.decode(Corpus.data("pillow/apng/num_plays.png"), options: .default).loopCount == 0)
        #expect(try png.decode(Corpus.data("pillow/apng/num_plays_1.png"), options: .default).loopCount == 1)
    }

    @Test("a first-frame decode equals frame 0 of the full decode, for every file of the suite, valid or not")
    func firstFrameOnly() throws {
        for name in Self.valid.map(\.0) + Self.invalid + ["dispose_op_previous_first.png", "chunk_no_actl.png"] {
            let data = try Corpus.data("pillow/apng/" + name)
            let full = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            let first = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8, firstFrameOnly: true))
            #expect(first.frameCount == 1 && first.buffer == full.frames[0].buffer, "\(name)")
        }
    }

    @Test("invalid files are shown as their still default image, and say why; acTL after IDAT is a plain PNG")
    func invalidFiles() throws {
        for name in Self.invalid {
            let data = try Corpus.data("pillow/apng/" + name)
            #expect(APNGStructure.invalidReason(data) != nil, "\(name)")
            let image = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(image.frameCount == 1 && image.buffer.color(atX: 0, y: 0) == Self.green, "\(name)")
            #expect(try png.info(of: data).frameCount == 1, "\(name)")
        }
        for name in ["chunk_no_actl.png", "chunk_actl_after_idat.png"] {
            let data = try Corpus.data("pillow/apng/" + name)
            #expect(try png.decode(data, options: .default).frameCount == 1, "\(name)")
        }
        // No frames and no usable default image: a typed error, as in Pillow.
        #expect(throws: ImageCodingError.self) { try png.decode(Corpus.data("pillow/apng/syntax_num_frames_zero.png"), options: .default) }
    }

    @Test("every frame of image-rs's reference renderings (ball.png, the WPT dispose and blend tests) matches exactly")
    func referenceFrames() throws {
        let files = [
            "png/apng/ball.png": 20, "png/apng/wpt/dispose-background-blend-source.png": 3,
            "png/apng/wpt/dispose-previous-blend-source.png": 3, "png/apng/wpt/fcTL-blend-source-transparent.png": 2,
            "png/apng/wpt/fcTL-dispose-in-region-background.png": 3, "png/apng/wpt/fcTL-dispose-in-region-none.png": 3,
            "png/apng/wpt/fcTL-dispose-in-region-previous.png": 3
        ]
        for (path, count) in files {
            let image = try png.decode(Corpus.data("image-rs-image/" + path), options: .default)
            #expect(image.frameCount == count, "\(path)")
            for i in 0..<min(count, image.frameCount) {
                let reference = try png.decode(Corpus.data(String(format: "image-rs-image/reference/%@.anim_%02d.png", path, i + 1)), options: .default)
                #expect(image.frames[i].buffer == reference.buffer, "\(path) frame \(i + 1): \(Fixtures.difference(image.frames[i].buffer, reference.buffer))")
            }
        }
    }

    @Test("every valid APNG in INDEX-animated.tsv: fcTL frame count, num_plays, delays (den 0 -> 1/100 s, <= 10 ms -> 100 ms)")
    func indexFacts() throws {
        let text = try String(contentsOf: Corpus.url("INDEX-animated.tsv"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count > 5, c[1] == "APNG", !c[0].hasPrefix("#") else { continue }
            let data = try Corpus.data(c[0])
            guard let structure = try APNGStructure.parse(data) else { continue }
            let fcTL = c[3].split(separator: " ").first { $0.hasPrefix("fcTL=") }.flatMap { Int($0.dropFirst(5)) }
            let plays = Int(c[4].replacingOccurrences(of: "num_plays=", with: ""))
            #expect(structure.frames.count == fcTL, "\(c[0])")
            let info = try png.info(of: data)
            #expect(info.frameCount == fcTL && (fcTL == 1 || info.loopCount == plays), "\(c[0])")
            if !c[5].contains("..."), !c[5].isEmpty, (fcTL ?? 0) > 1 {
                var delays: [Double] = []
                for part in c[5].split(separator: ",") {
                    var repeatCount = 1, fraction = Substring(part)
                    if let x = part.firstIndex(of: "x") {
                        repeatCount = Int(part[..<x]) ?? 1
                        fraction = part[part.index(after: x)...]
                    }
                    let nd = fraction.split(separator: "/").compactMap { Double($0) }
                    guard nd.count == 2 else { continue }
                    let seconds = nd[0] / (nd[1] == 0 ? 100 : nd[1])
                    delays += Array(repeating: seconds <= 0.010 ? 0.1 : seconds, count: repeatCount)
                }
                #expect(info.durations == delays, "\(c[0])")
            }
            checked += 1
        }
        #expect(checked >= 40)
    }

    @Test("lazy frames equal eager ones; a hostile canvas size is refused before allocating")
    func lazyAndLimits() throws {
        for path in [
            "apng/apngkit-general/pyani.apng", "apng/apngkit-general/spinfox.apng", "apng/apngkit-general/over_previous.apng",
            "apng/apngkit-general/over_background.apng", "image-rs-image/png/apng/ball.png"
        ] {
            let data = try Corpus.data(path)
            let eager = try png.decode(data, options: .default)
            let lazy = try png.decode(data, options: DecodeOptions(decodesFramesLazily: true))
            #expect(lazy.animation != nil && lazy.frameCount == eager.frameCount, "\(path)")
            let n = eager.frameCount
            for i in Array((0..<n).reversed()) + Array(0..<n) {
                let frame = try lazy.frame(at: i)
                #expect(frame == eager.frames[i], "\(path) frame \(i)")
            }
        }
        let bomb = try Corpus.data("apng/apngkit-general/malformed-size.apng")
        #expect { try png.decode(bomb, options: .default) } throws: { error in
            if case ImageCodingError.exceedsLimit = error { return true }
            return false
        }
    }
}
