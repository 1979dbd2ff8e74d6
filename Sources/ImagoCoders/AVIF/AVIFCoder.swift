// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CAVIF
import CImagoGlue
public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// AVIF through libavif 0.11 (Debian's `libavif15`, with dav1d), loaded on first use; AVIF's own
/// reference library. It takes AVIF decoding over from libheif, which stays for HEIC and HEIF.
///
/// Decodes stills and image sequences (`avis`): each frame on demand, as GIF, APNG and WebP
/// animations are, with its duration from the track's timing. YUV becomes RGB through
/// libavif's own conversion, which honours every matrix and both ranges, monochrome (4:0:0)
/// and limited range included; alpha comes out straight (premultiplied alpha is divided out);
/// grids are assembled by libavif. The clean aperture (`clap`), then `irot` and `imir`, are
/// applied, so the image comes out upright and `.up`, as from ``HEIFCoder``. An ICC profile is
/// converted to sRGB with lcms2 (kept as metadata with ``DecodeOptions/colorManagement`` off);
/// the `Exif` item is kept as metadata. A sequence's repetition comes from its edit list, read
/// here as libavif 1.x reads it (`AVIFRepetition`; libavif 0.11 does not): without one it plays
/// forever (`loopCount` 0), as browsers play it.
public struct AVIFCoder: ImageDecoding {
    /// Creates the coder. libavif itself is loaded only when an AVIF image is first met.
    public init() {}

    /// Whether the format is AVIF and libavif, with an AV1 decoder, can be loaded.
    public func canDecode(_ format: ImageFormat) -> Bool {
        format == .avif && imago_avif_available() != 0
            && avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_DECODE.rawValue) != nil
    }

    /// The displayed size (after `clap` and rotation), alpha, bit depth, ICC presence,
    /// monochrome, and for a sequence its frame count and durations, from the container alone.
    ///
    /// - Throws: `.unsupportedFeature` without libavif; `.truncated` or `.corrupt` with
    ///   libavif's reason.
    public func info(of data: Data) throws -> ImageInfo {
        try data.withUnsafeBytes { raw in
            let handle = try AVIFDecoderHandle(data: data, limits: .unlimited, owning: false)
            try handle.parse(raw)
            return Self.info(handle, plays: handle.frameCount > 1 ? AVIFRepetition.plays(in: data) ?? 0 : 1)
        }
    }

    static func info(_ handle: AVIFDecoderHandle, plays: Int) -> ImageInfo {
        let size = handle.displayedSize
        let count = max(1, handle.frameCount)
        let durations = count > 1 ? (0..<count).map { handle.duration(at: $0) } : [0]
        let image = handle.image?.pointee
        return ImageInfo(
            format: .avif, width: size.width, height: size.height, frameCount: count, loopCount: count > 1 ? plays : 1,
            durations: durations, hasAlpha: handle.hasAlpha, bitDepth: Int(image?.depth ?? 8),
            hasICCProfile: (image?.icc.size ?? 0) > 0,
            isGrayscale: image?.yuvFormat == AVIF_PIXEL_FORMAT_YUV400)
    }

    /// Decodes the image: a still, or a sequence (every frame, frame 0 alone with
    /// ``DecodeOptions/firstFrameOnly``, or frames on demand with
    /// ``DecodeOptions/decodesFramesLazily``), in ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.exceedsLimit` from the container before any pixel is decoded (size,
    ///   frames, total frame pixels, input bytes); `.truncated` or `.corrupt` with libavif's
    ///   reason; `.unsupportedFeature` without libavif.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let sequence = try !options.firstFrameOnly && info(of: data).frameCount > 1
        let handle = try AVIFDecoderHandle(data: data, limits: options.limits, owning: sequence)
        if sequence {
            try handle.parse(nil)
            let size = handle.displayedSize
            try options.limits.check(width: size.width, height: size.height, format: .avif)
            let animation = try AVIFAnimation(handle: handle, loopCount: AVIFRepetition.plays(in: data) ?? 0, options: options)
            return try animation.image(options: options)
        }
        return try data.withUnsafeBytes { raw in
            try handle.parse(raw)
            let size = handle.displayedSize
            try options.limits.check(width: size.width, height: size.height, format: .avif)
            let status = avifDecoderNextImage(handle.decoder)
            guard status == AVIF_RESULT_OK else { throw AVIFDecoderHandle.failure(status, decoder: handle.decoder, during: "decoding the image") }
            let (buffer, kept) = try handle.currentFrame(
                manages: options.colorManagement, wanted: options.pixelFormat, threads: CodecThreads.limit(options.maxThreads))
            return Image(
                buffer: buffer.converted(to: options.pixelFormat), orientation: .up, scale: options.scale, format: .avif,
                metadata: ImageMetadata(iccProfile: kept, exif: handle.exif), hasAlpha: handle.hasAlpha)
        }
    }
}

extension AVIFDecoderHandle {
    /// Frame `index`'s duration in seconds, shown as browsers show it.
    func duration(at index: Int) -> Double {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(clamping: index), &timing) == AVIF_RESULT_OK else { return 0 }
        return FrameTiming.displayedDuration(timing.duration)
    }
}

/// An AVIF image sequence's frames, decoded on demand: libavif decodes from the nearest key
/// frame to the one asked for, and playing in order costs one frame each.
final class AVIFAnimation: AnimatedImage {
    let frameCount: Int
    let loopCount: Int
    let canvasSize: PixelSize
    var pixelFormat: PixelFormat { .argb32Premultiplied }
    private let durations: [Double]
    private let hasAlpha: Bool
    private let manages: Bool
    private let threads: Int
    private let handle: Mutex<Handle>
    private let metadata: ImageMetadata

    /// Owns the decoder; used under the lock only.
    final class Handle: @unchecked Sendable {
        let decoder: AVIFDecoderHandle
        init(_ decoder: AVIFDecoderHandle) { self.decoder = decoder }
    }

    init(handle: AVIFDecoderHandle, loopCount: Int, options: DecodeOptions) throws {
        self.loopCount = loopCount
        let count = handle.frameCount
        let size = handle.displayedSize
        try options.limits.check(frameCount: count, framePixels: 0)
        frameCount = count
        canvasSize = size
        durations = (0..<count).map { handle.duration(at: $0) }
        hasAlpha = handle.hasAlpha
        manages = options.colorManagement
        threads = CodecThreads.limit(options.maxThreads)
        metadata = ImageMetadata(iccProfile: options.colorManagement ? nil : handle.icc, exif: handle.exif)
        self.handle = Mutex(Handle(handle))
    }

    func duration(at index: Int) -> Double { durations.indices.contains(index) ? durations[index] : 0 }

    func canvas(at index: Int) throws -> PixelBuffer {
        guard (0..<frameCount).contains(index) else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: the animation has \(frameCount) frame(s)")
        }
        let manages = self.manages, threads = self.threads, size = canvasSize
        let buffer = try handle.withLock { h -> PixelBuffer in
            let decoder = h.decoder
            let status = avifDecoderNthImage(decoder.decoder, UInt32(index))
            guard status == AVIF_RESULT_OK else {
                throw AVIFDecoderHandle.failure(status, decoder: decoder.decoder, during: "decoding frame \(index)")
            }
            return try decoder.currentFrame(manages: manages, wanted: .argb32Premultiplied, threads: threads).buffer
        }
        guard buffer.size == size else { throw ImageCodingError.corrupt(.avif, "frame \(index) is not the size of the first") }
        return buffer.converted(to: .argb32Premultiplied)
    }

    /// Every frame, frame 0 alone, or frame 0 and this source, as ``DecodeOptions`` asks.
    func image(options: DecodeOptions) throws -> Image {
        let first = try canvas(at: 0)
        var image: Image
        if options.decodesFramesLazily {
            image = try Image(animation: self, firstFrame: first, format: .avif, metadata: metadata, hasAlpha: hasAlpha)
        } else {
            try options.limits.check(frameCount: frameCount, framePixels: canvasSize.pixelCount ?? Int.max)
            var frames = [ImageFrame(buffer: first, duration: duration(at: 0))]
            for i in 1..<max(1, frameCount) { frames.append(ImageFrame(buffer: try canvas(at: i), duration: duration(at: i))) }
            image = try Image(frames: frames, loopCount: loopCount, format: .avif, metadata: metadata, hasAlpha: hasAlpha)
        }
        image.scale = options.scale
        return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
    }
}
