// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// GIF decoding through giflib: every frame composited per its disposal (none, background,
/// previous) and transparency, local and global palettes, interlacing, frames partly outside
/// the canvas clipped.
///
/// Timing follows browsers and SDWebImage: a delay of 10 ms or less, or none, shows for 100 ms;
/// the first NETSCAPE2.0 block gives the loop count (stored n plays n + 1 times, 0 forever, no
/// block once). "Background" disposal clears to transparent, as browsers do, whatever the
/// background colour index says. A frame without any colour table is drawn in black. A canvas
/// of 0×0 takes the extent of the frames.
///
/// Truncated files decode to the frames whose data is complete; with none complete the decode
/// fails with `.truncated`. Encoding quantizes each frame with libimagequant (see `GIFEncoder`).
public struct GIFCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.gif`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .gif }

    /// Walks the blocks (no pixels): canvas, frames, delays, loop count, transparency.
    ///
    /// - Throws: `.truncated`, `.corrupt`, `.exceedsLimit(.maxFrames, …)`.
    public func info(of data: Data) throws -> ImageInfo {
        try GIFStructure(data).info()
    }

    /// Decodes every frame (default), frame 0 only (``DecodeOptions/firstFrameOnly``), or frame 0
    /// plus a lazy source (``DecodeOptions/decodesFramesLazily``).
    ///
    /// - Throws: `.exceedsLimit` from the canvas size and frame count before decoding; `.truncated`
    ///   when no frame is complete; `.corrupt` with giflib's message.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let animation = try GIFAnimation(data: data, options: options)
        return try animation.image(options: options)
    }

    /// `true` for `ImageFormat.gif`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .gif }

    /// Encodes a still or every frame of an animation (see `GIFEncoder`): libimagequant's
    /// palettes, dithered, one transparent index; an animation shares one global palette where it
    /// fits, writes only the changed rectangle of each frame, and keeps delays in hundredths of a
    /// second and the loop count. Frames are read one at a time, so a lazy source stays lazy.
    /// GIF holds no EXIF, so the orientation is always applied to the pixels.
    ///
    /// - Throws: `.encoderUnavailable` for another format, `.invalidArgument` for sizes over
    ///   65535 or options out of range, `.corrupt` when libimagequant or giflib fail.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .gif else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, _, _) = options.prepareBakingOrientation(image)
        return try GIFEncoder.encode(
            count: img.frameCount, loopCount: img.isAnimated ? img.loopCount : 1, maxThreads: options.maxThreads
        ) { try img.frame(at: $0) }
    }

    /// A progressive decoder giving the frames complete so far.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? {
        let limits = options.limits
        return AnimatedProgressiveDecoder(
            options: options, readInfo: { try? GIFStructure($0, limits: limits).info() },
            decode: { try GIFCoder().decode($0, options: $1) })
    }
}
