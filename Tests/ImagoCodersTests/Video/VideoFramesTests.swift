// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Video frames through FFmpeg, against ffmpeg's own decode of the same frame.
@Suite("Video frames (FFmpeg)", .enabled(if: VideoFrames.isAvailable && VideoFixtures.isAvailable, "FFmpeg or ffmpeg is not installed"))
struct VideoFramesTests {
    static func psnr(_ a: PixelBuffer, _ b: [UInt8]) throws -> Double {
        PixelMetrics.psnr(a.converted(to: .rgba8), try PixelBuffer(width: a.width, height: a.height, format: .rgba8, bytes: b))
    }

    @Test("the exact frame at a time is ffmpeg's; a keyframe is the last one before it; past the end, the last frame", arguments: ["mp4", "webm"])
    func frames(_ container: String) async throws {
        let video = try await VideoFixtures.clip(container)
        let (exact, info) = try VideoFrames.frame(of: video, at: 1.55)
        #expect(exact.pixelSize == PixelSize(width: 320, height: 240) && !exact.hasAlpha)
        #expect(abs((info.duration ?? 0) - 4) < 0.2 && info.size == PixelSize(width: 320, height: 240))
        #expect(info.codec == (container == "mp4" ? "h264" : "vp9") || info.codec == "libvpx-vp9", "\(info.codec)")
        #expect(try Self.psnr(exact.buffer, try await VideoFixtures.frame(video, at: 1.55)) > 40)
        let key = try VideoFrames.frame(of: video, at: 1.55, keyframesOnly: true).image
        #expect(try Self.psnr(key.buffer, try await VideoFixtures.frame(video, at: 1.0)) > 40)
        #expect(PixelMetrics.psnr(key.buffer, exact.buffer) < 30, "a keyframe is another frame")
        let first = try VideoFrames.frame(of: video, at: 0).image
        #expect(try Self.psnr(first.buffer, try await VideoFixtures.frame(video, at: 0)) > 40)
        let last = try VideoFrames.frame(of: video, at: 3.9).image
        #expect(PixelMetrics.psnr(try VideoFrames.frame(of: video, at: 100).image.buffer, last.buffer) > 60)
    }

    @Test("frames whose rows are not a whole number of swscale's blocks are ffmpeg's pixels, and nothing is written past them")
    func narrowAndOddRows() async throws {
        // swscale's SIMD wrote past the end of a tight 24-pixel row (the fuzz target's AV1 frame
        // of 24x20, Fuzz/regressions/video): the heap broke at the next free.
        for (width, height) in [(24, 20), (34, 18), (322, 66), (1918, 24)] {
            let video = try await VideoFixtures.clip("mp4", width: width, height: height, seconds: 1)
            let frame = try VideoFrames.frame(of: video, at: 0).image
            #expect(frame.pixelSize == PixelSize(width: width, height: height))
            #expect(try Self.psnr(frame.buffer, try await VideoFixtures.frame(video, at: 0)) > 40, "\(width)x\(height)")
        }
    }

    @Test("what looks like a video: ISO media that is not HEIF or AVIF, and EBML", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func sniffing() async throws {
        #expect(VideoFrames.looksLikeVideo(try await VideoFixtures.clip("mp4", seconds: 1)))
        #expect(VideoFrames.looksLikeVideo(try await VideoFixtures.clip("webm", seconds: 1)))
        let heif = Corpus.files(in: "libheif", extensions: ["heic"]).first
        if let heif { #expect(!VideoFrames.looksLikeVideo(try Data(contentsOf: heif))) }
        let avif = Corpus.files(in: "libavif", extensions: ["avif"]).first
        if let avif { #expect(!VideoFrames.looksLikeVideo(try Data(contentsOf: avif))) }
        #expect(!VideoFrames.looksLikeVideo(Data("GIF89a".utf8)))
    }

    /// A playlist naming a file beside it (HLS; concat alike) is not opened: FFmpeg's demuxers may
    /// open nothing but the bytes given, so a source cannot make the server read its files or
    /// fetch URLs.
    @Test("a playlist's segments are never opened: no local files, no URLs")
    func playlistsOpenNothing() async throws {
        let directory = try TestFiles.temporaryDirectory("imago-video-hls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let segment = directory.appendingPathComponent("segment.ts")
        try await VideoFixtures.clip("ts", seconds: 1).write(to: segment)
        let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nfile://\(segment.path)\n#EXT-X-ENDLIST\n"
        let error = #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: Data(playlist.utf8)) }
        #expect(String(describing: error).contains("not a video FFmpeg reads"), "\(String(describing: error))")
    }

    @Test("limits and bad input: a typed error, never a crash")
    func refusals() async throws {
        let video = try await VideoFixtures.clip("mp4", seconds: 2)
        #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: video, limits: DecodingLimits(maxPixels: 1000)) }
        #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: video, at: -1) }
        #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: video, maxPackets: 0) }
        let transport = try await VideoFixtures.clip("ts", seconds: 1)
        #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: transport) }
        #expect(throws: ImageCodingError.self) { try VideoFrames.frame(of: Data("not a video, just some words".utf8)) }
        // Cut short and mutated: a frame or an error.
        var state: UInt32 = 5
        var outcomes = (frames: 0, errors: 0)
        for n in 0..<40 {
            var b = [UInt8](video.prefix(n % 2 == 0 ? video.count * (n + 1) / 41 : video.count))
            for _ in 0..<16 {
                state = state &* 1_664_525 &+ 1_013_904_223
                if !b.isEmpty { b[Int(state >> 8) % b.count] ^= UInt8(truncatingIfNeeded: state) }
            }
            do {
                let frame = try VideoFrames.frame(of: Data(b)).image
                #expect(frame.pixelSize.width <= 320 && frame.pixelSize.height <= 240)
                outcomes.frames += 1
            } catch is ImageCodingError {
                outcomes.errors += 1
            }
        }
        #expect(outcomes.frames + outcomes.errors == 40 && outcomes.errors > 0)
    }
}
