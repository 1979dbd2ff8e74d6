// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A still frame of a video (video thumbnails, as imgproxy Pro makes them): MP4 and MOV,
/// WebM and Matroska, read through FFmpeg's libavformat and libavcodec, loaded the first time a
/// video is met.
///
/// ```swift
/// let (frame, info) = try VideoFrames.frame(of: data, at: 2.5)     // the frame shown at 2.5 s
/// print(info.duration ?? 0, info.codec)                             // 12.0 h264
/// ```
public enum VideoFrames {
    /// What the video's container says.
    public struct Info: Sendable, Hashable {
        /// Seconds, `nil` when the container does not say.
        public var duration: Double?
        /// The video stream's size.
        public var size: PixelSize
        /// The codec's FFmpeg name (`h264`, `vp9`, `av1`, `hevc`).
        public var codec: String
        /// The container's FFmpeg names (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
        public var container: String
        /// The container's metadata tags as FFmpeg names them (`major_brand`, `creation_time`,
        /// `encoder`, `location`, …); at most 4 KiB of them.
        public var tags: [String: String] = [:]
    }

    /// Whether FFmpeg (libavformat 59, libavcodec 59, libswscale 6) is installed; the first call
    /// loads it.
    public static var isAvailable: Bool { imago_video_available() != 0 }

    /// Whether `head` (a file's first bytes) starts like a video this reads: an ISO media file
    /// (`ftyp`) that is not an image format (HEIF, AVIF), or an EBML (Matroska, WebM) file.
    public static func looksLikeVideo(_ head: Data) -> Bool {
        let b = [UInt8](head.prefix(16))
        if b.count >= 4, b[0..<4].elementsEqual([0x1A, 0x45, 0xDF, 0xA3]) { return true }
        guard b.count >= 12, b[4..<8].elementsEqual("ftyp".utf8) else { return false }
        return ImageFormat(sniffing: head) == nil
    }

    /// The frame at `seconds`, as an opaque image (its container's size), and what the container
    /// says.
    ///
    /// - Parameters:
    ///   - data: The whole video.
    ///   - seconds: From the start; past the end gives the last frame. Default 1 (imgproxy Pro's).
    ///   - keyframesOnly: The last keyframe at or before `seconds` (fast: no frame decoded but it)
    ///     rather than the exact frame. Default `false`.
    ///   - limits: `maxPixels` bounds the frame, checked from the container before decoding;
    ///     `maxBytes` the input. Default `DecodingLimits.default`.
    ///   - maxPackets: The most packets read looking for the frame. Default 20 000.
    /// - Throws: `ImageCodingError.exceedsLimit(_:found:limit:)` for input over the limit;
    ///   `ImageCodingError.unsupportedFeature(_:_:)` when FFmpeg is not installed;
    ///   `ImageCodingError.invalidArgument(_:)` for a negative time; `ImageCodingError.corrupt(_:_:)`
    ///   for data FFmpeg cannot read, another container, a frame over the limit, or no frame.
    public static func frame(
        of data: Data, at seconds: Double = 1, keyframesOnly: Bool = false, limits: DecodingLimits = .default, maxPackets: Int = 20_000
    ) throws -> (image: Image, info: Info) {
        guard seconds.isFinite, seconds >= 0 else { throw ImageCodingError.invalidArgument("a video time must be 0 or more, not \(seconds)") }
        guard data.count <= limits.maxBytes else { throw ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: limits.maxBytes) }
        guard isAvailable else { throw ImageCodingError.unsupportedFeature(.png, "FFmpeg is not installed: no video frames") }
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var info = imago_video_info()
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { raw -> Int32 in
            message.withUnsafeMutableBufferPointer { m in
                imago_video_frame(
                    raw.bindMemory(to: UInt8.self).baseAddress, raw.count, seconds, keyframesOnly ? 1 : 0, limits.maxPixels,
                    Int32(clamping: maxPackets), &pixels, &w, &h, &info, m.baseAddress, m.count)
            }
        }
        guard status == 0, let pixels else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageCodingError.corrupt(.png, "the video cannot give a frame: \(reason)")
        }
        defer { free(pixels) }
        let buffer = try PixelBuffer(
            width: Int(w), height: Int(h), format: .rgba8, bytes: Array(UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * 4)))
        var described = Info(
            duration: info.duration > 0 ? info.duration : nil, size: PixelSize(width: Int(info.width), height: Int(info.height)),
            codec: withUnsafeBytes(of: info.codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) },
            container: withUnsafeBytes(of: info.container) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        let lines = withUnsafeBytes(of: info.tags) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        for line in lines.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, !parts[0].isEmpty { described.tags[String(parts[0])] = String(parts[1]) }
        }
        return (Image(buffer: buffer, hasAlpha: false), described)
    }
}
