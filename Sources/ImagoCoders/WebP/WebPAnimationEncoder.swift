// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Animated WebP through libwebp's animation encoder (`WebPAnimEncoder`): every frame, lossy at
/// the quality asked or lossless, with per-frame durations (milliseconds) and the loop count.
/// libwebp finds the changed rectangle of each frame and the best blend and dispose methods.
enum WebPAnimationEncoder {
    static func encode(
        _ frames: [ImageFrame], loopCount: Int, options: EncodeOptions, method: Int,
        icc: Data?, exif: Data?
    ) throws -> Data {
        guard let first = frames.first else { throw ImageCodingError.invalidArgument("an animation needs at least one frame") }
        let width = first.buffer.width, height = first.buffer.height
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInitInternal(&encoderOptions, WEBP_MUX_ABI_VERSION) != 0 else {
            throw ImageCodingError.encoderUnavailable(.webp)
        }
        encoderOptions.anim_params.loop_count = Int32(clamping: max(0, loopCount))
        encoderOptions.anim_params.bgcolor = 0  // transparent: what "dispose to background" shows in browsers
        guard let encoder = WebPAnimEncoderNewInternal(Int32(width), Int32(height), &encoderOptions, WEBP_MUX_ABI_VERSION) else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp could not create an animation encoder for \(width)x\(height)")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        guard var config = WebPCoder.makeConfig(options: options, method: method) else {
            throw ImageCodingError.invalidArgument("libwebp rejected the encoder configuration")
        }
        var timestamp = 0
        for (i, frame) in frames.enumerated() {
            let pixels = frame.buffer.converted(to: .rgba8)
            var picture = WebPPicture()
            guard WebPPictureInitInternal(&picture, WEBP_ENCODER_ABI_VERSION) != 0 else { throw ImageCodingError.encoderUnavailable(.webp) }
            defer { WebPPictureFree(&picture) }
            picture.use_argb = 1
            picture.width = Int32(width)
            picture.height = Int32(height)
            let imported = pixels.withUnsafeBytes {
                WebPPictureImportRGBA(&picture, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(pixels.bytesPerRow))
            }
            guard imported != 0 else { throw ImageCodingError.encodingFailed(.webp, "libwebp could not import frame \(i) (out of memory)") }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0 else {
                throw ImageCodingError.encodingFailed(.webp, "libwebp failed on frame \(i): \(message(encoder))")
            }
            timestamp += max(1, Int((frame.duration * 1000).rounded()))
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp failed to finish the animation: \(message(encoder))")
        }
        var assembled = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &assembled) != 0, let bytes = assembled.bytes else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp failed to assemble the animation: \(message(encoder))")
        }
        defer { WebPDataClear(&assembled) }
        let animation = Data(bytes: bytes, count: assembled.size)
        guard icc != nil || exif != nil else { return animation }
        return try WebPMuxing.attach(icc: icc, exif: exif, toAnimation: animation)
    }

    private static func message(_ encoder: OpaquePointer) -> String {
        WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "unknown error"
    }
}
