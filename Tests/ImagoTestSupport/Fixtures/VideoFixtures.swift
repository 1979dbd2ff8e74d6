// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// Videos the tests make with Debian's `ffmpeg` (its test patterns, so every frame differs), and
/// ffmpeg's own decode of a frame to compare with.
public enum VideoFixtures {
    /// The ffmpeg executable the fixtures run: Debian's, at `/usr/bin/ffmpeg`.
    public static let ffmpeg = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    /// Whether ``ffmpeg`` is there and executable; video tests are enabled only when it is.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: ffmpeg.path) }

    /// A `seconds`-long test pattern, `width`×`height` at 10 frames a second, one keyframe a second:
    /// H.264 in MP4 (`mp4`), VP9 in WebM (`webm`), MPEG-2 in a transport stream (`ts`).
    public static func clip(_ container: String, width: Int = 320, height: Int = 240, seconds: Int = 4) async throws -> Data {
        let dir = try TestFiles.temporaryDirectory("imago-video")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("clip.\(container)")
        let codec: [String] =
            switch container {
            case "mp4": ["-c:v", "libx264", "-pix_fmt", "yuv420p"]
            case "webm": ["-c:v", "libvpx-vp9", "-b:v", "300k"]
            default: ["-c:v", "mpeg2video"]
            }
        let (status, _, err) = try await Subprocess.run(
            ffmpeg,
            ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=10:duration=\(seconds)", "-g", "10"]
                + codec + [out.path])
        guard status == 0 else { throw VideoFixtureError(message: err) }
        return try Data(contentsOf: out)
    }

    /// ffmpeg's own decode of the frame at `seconds` of `video`, as tight RGBA bytes.
    public static func frame(_ video: Data, at seconds: Double) async throws -> [UInt8] {
        let dir = try TestFiles.temporaryDirectory("imago-video")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("frame.rgba")
        try video.write(to: input)
        let (status, _, err) = try await Subprocess.run(
            ffmpeg,
            ["-loglevel", "error", "-y", "-ss", "\(seconds)", "-i", input.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", out.path])
        guard status == 0 else { throw VideoFixtureError(message: err) }
        return [UInt8](try Data(contentsOf: out))
    }

    /// ffmpeg exited with a failure status.
    public struct VideoFixtureError: Error, CustomStringConvertible {
        /// What ffmpeg wrote to standard error.
        public var message: String
        /// `ffmpeg failed:` and ffmpeg's message.
        public var description: String { "ffmpeg failed: \(message)" }
    }
}
