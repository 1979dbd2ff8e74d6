// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("GIF conformance", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct GIFConformanceTests {
    let gif = GIFCoder()

    @Test("image-gif's CRC-32 of every decoded frame (LZW, palettes, interlacing, transparency), all 12 samples")
    func imageGIFChecksums() throws {
        let lines = try String(contentsOf: Corpus.url("image-gif/samples-crc32-results.txt"), encoding: .utf8)
            .split(separator: "\n")
        #expect(lines.count == 12)
        for line in lines {
            let parts = line.split(separator: ":")
            let name = String(parts[0]).replacingOccurrences(of: "tests/", with: "")
            let expected = try #require(UInt32(parts[1].trimmingCharacters(in: .whitespaces)))
            let data = try Corpus.data("image-gif/" + name)
            let structure = try GIFStructure(data)
            // image-gif's frames are straight RGBA of the frame's own rectangle; a transparent pixel
            // keeps its palette colour with alpha 0 (Imago's decoded frames premultiply it to 0).
            var crc: UInt32 = 0
            for i in structure.frames.indices {
                let frame = try GIFFrameDecoder.indexed(data, structure: structure, index: i, limits: .default)
                var table = [UInt32](repeating: 0, count: 256)  // RGBA bytes, little-endian
                for i in 0..<256 {
                    let c = frame.palette[i]
                    let alpha = i == frame.transparentIndex ? 0 : c >> 24
                    table[i] = (c >> 16 & 0xFF) | (c & 0xFF00) | (c & 0xFF) << 16 | alpha << 24
                }
                var rgba = [UInt32](repeating: 0, count: frame.indices.count)
                table.withUnsafeBufferPointer { table in
                    frame.indices.withUnsafeBufferPointer { indices in
                        rgba.withUnsafeMutableBufferPointer { out in
                            for p in 0..<indices.count { out[p] = table[Int(indices[p])] }
                        }
                    }
                }
                let bytes = rgba.withUnsafeBytes { [UInt8]($0) }
                crc = CRC32.checksum(bytes, continuing: crc)
            }
            #expect(crc == expected, "\(name)")
        }
    }

    /// The animated GIFs of INDEX-animated.tsv: path, frames, stored NETSCAPE value (nil when absent), delays in centiseconds (nil: no GCE; the whole list only when not elided).
    static func indexed() throws -> [(path: String, frames: Int, netscape: Int?, delays: [Int?]?)] {
        let text = try String(contentsOf: Corpus.url("INDEX-animated.tsv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count > 5, c[1] == "GIF", let frames = Int(c[3]) else { return nil }
            let loopField = c[4].replacingOccurrences(of: "NETSCAPE=", with: "")
            let netscape = loopField.hasPrefix("absent") ? nil : Int(loopField.prefix { $0.isNumber })
            var delays: [Int?]?
            let d = c[5].replacingOccurrences(of: "cs", with: "")
            if !d.contains("...") {
                if let x = d.firstIndex(of: "x"), let n = Int(d[..<x]) {
                    let v = String(d[d.index(after: x)...])
                    delays = Array(repeating: v == "-" ? nil : Int(v), count: n)
                } else {
                    delays = d.split(separator: ",").map { $0 == "-" ? nil : Int($0) }
                }
            }
            return (c[0], frames, netscape, delays)
        }
    }

    @Test("every animated GIF in INDEX-animated.tsv: frame count, loop count (n -> n+1, none -> 1, 0 -> forever), delays (<= 10 ms -> 100 ms)")
    func indexFacts() throws {
        let files = try Self.indexed()
        #expect(files.count >= 45)
        for file in files {
            let data = try Corpus.data(file.path)
            let image = try gif.decode(data, options: DecodeOptions(decodesFramesLazily: true))
            let info = try gif.info(of: data)
            #expect(info.frameCount == file.frames, "\(file.path)")
            #expect(image.frameCount == file.frames, "\(file.path)")
            let plays = file.frames == 1 ? 1 : file.netscape.map { $0 == 0 ? 0 : $0 + 1 } ?? 1
            #expect(image.loopCount == plays && info.loopCount == plays, "\(file.path)")
            if let delays = file.delays, file.frames > 1 {
                let expected = delays.map { d -> Double in
                    guard let d, d > 1 else { return 0.1 }
                    return Double(d) / 100
                }
                #expect((0..<file.frames).map { image.duration(at: $0) } == expected, "\(file.path)")
            }
        }
    }

    @Test("first frames equal image-rs's reference renderings exactly")
    func imageRSReferences() throws {
        let png = PNGCoder()
        for name in [
            "simple/alpha_gif_a.gif", "simple/sample_1.gif", "simple/issue_1455_oversized.gif", "anim/oob.gif",
            "anim/interlaced.gif", "anim/border_touching_layers.gif", "anim/issue_1455_undersized.gif",
            "anim/any-disposal.gif", "anim/mixed-disposal.gif"
        ] {
            let image = try gif.decode(Corpus.data("image-rs-image/gif/" + name), options: .default)
            let reference = try png.decode(Corpus.data("image-rs-image/reference/gif/\(name).png"), options: .default)
            #expect(image.buffer.size == reference.buffer.size, "\(name)")
            #expect(image.buffer == reference.buffer, "\(name): \(Fixtures.difference(image.buffer, reference.buffer))")
        }
    }

    @Test("lazy frames equal eagerly decoded ones in any order of access, and the 380-frame file holds one canvas")
    func lazyEqualsEager() throws {
        for path in [
            "wuffs/gifplayer-muybridge.gif", "wuffs/animated-red-blue.gif", "pillow/gif/dispose_prev.gif",
            "pillow/gif/dispose_bgnd.gif", "pillow/gif/dispose_bgnd_transparency.gif", "pillow/gif/chi.gif",
            "image-rs-image/gif/anim/mixed-disposal.gif", "wuffs/artificial-gif/frame-out-of-bounds.gif"
        ] {
            let data = try Corpus.data(path)
            let eager = try gif.decode(data, options: .default)
            let lazy = try gif.decode(data, options: DecodeOptions(decodesFramesLazily: true))
            #expect(lazy.frames.count == 1 && lazy.animation != nil, "\(path)")
            #expect(lazy.frameCount == eager.frames.count, "\(path)")
            let n = eager.frames.count
            // Backwards from the end (every step a seek), then jumps, then forwards (the fast path).
            let backwards = n > 50 ? [n - 1, n - 2, n - 40, 7, 3] : Array((0..<n).reversed())
            let order = backwards + [n / 2, 0, n - 1, n / 3] + Array(0..<n)
            for i in order {
                let frame = try lazy.frame(at: i)
                #expect(frame.buffer == eager.frames[i].buffer, "\(path) frame \(i)")
            }
            #expect(lazy.byteCount == lazy.frames[0].buffer.bytes.count)
            let all = try lazy.allFrames()
            #expect(all == eager.frames, "\(path)")
        }
        let first = try gif.decode(Corpus.data("wuffs/gifplayer-muybridge.gif"), options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frameCount == 1 && first.loopCount == 1)
    }

    @Test("Pillow's and Wuffs's assertions: frame counts, first loop block wins, frames outside the canvas, missing palettes")
    func assertions() throws {
        #expect(try gif.decode(Corpus.data("pillow/gif/iss634.gif"), options: .default).frameCount == 42)
        #expect(try gif.decode(Corpus.data("pillow/gif/comment_after_last_frame.gif"), options: .default).frameCount == 2)
        #expect(try gif.decode(Corpus.data("pillow/gif/duplicate_number_of_loops.gif"), options: .default).loopCount == 3)
        let red = try gif.decode(Corpus.data("wuffs/animated-red-blue.gif"), options: .default)
        #expect(red.frameCount == 4 && red.loopCount == 3 && red.pixelSize == PixelSize(width: 64, height: 48))
        // Four frames all outside a 2x2 canvas: they decode, and leave it transparent.
        let out = try gif.decode(Corpus.data("wuffs/artificial-gif/frame-out-of-bounds.gif"), options: .default)
        #expect(out.frameCount == 4)
        // No palette for the second frame: drawn in opaque black, as browsers and Wuffs do.
        let empty = try gif.decode(Corpus.data("wuffs/artificial-gif/empty-palette.gif"), options: DecodeOptions(pixelFormat: .rgba8))
        #expect(empty.frameCount == 2 && empty.frames[1].buffer.color(atX: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0))
        // Truncated: the frames whose data is complete.
        let full = try Corpus.data("wuffs/animated-red-blue.gif")
        let truncated = try gif.decode(full.prefix(full.count - 1), options: .default)
        #expect(truncated.frameCount == 4)
        #expect(throws: ImageCodingError.self) { try gif.decode(full.prefix(40), options: .default) }
    }

    @Test("incremental decoding gives the frames complete so far, then equals a one-shot decode")
    func incremental() throws {
        let data = try Corpus.data("wuffs/muybridge.gif")
        let decoder = try #require(ImageCoderRegistry.makeDefault().makeProgressiveDecoder(for: data.prefix(16)))
        var counts: [Int] = []
        for cut in stride(from: 200, to: data.count, by: data.count / 7) {
            try decoder.update(data.prefix(cut), isFinal: false)
            if let image = try decoder.currentImage() {
                #expect(image.isIncremental)
                counts.append(image.frameCount)
            }
        }
        #expect(counts == counts.sorted() && (counts.last ?? 0) < 15)
        try decoder.update(data, isFinal: true)
        let final = try #require(try decoder.currentImage())
        let oneShot = try gif.decode(data, options: .default)
        #expect(decoder.isComplete && !final.isIncremental && final == oneShot)
    }
}
