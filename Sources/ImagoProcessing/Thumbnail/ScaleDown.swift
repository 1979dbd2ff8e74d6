// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

/// Scaling images down to a budget of decoded bytes (SDWebImage's
/// `decodedAndScaledDownImage(limitBytes:)`).
public enum ScaleDown {
    /// SDWebImage's default budget: 60 MB of decoded pixels (about 15.7 megapixels).
    public static let defaultLimitBytes = 60 * 1024 * 1024

    /// The largest size with `source`'s aspect ratio whose ARGB32 pixels (`frameCount` frames of
    /// them) fit in `limitBytes`; `source` itself when it already fits. Never upscales; at least 1×1.
    public static func targetSize(for source: PixelSize, limitBytes: Int, frameCount: Int = 1) -> PixelSize {
        let perFrame = max(4, limitBytes / max(1, frameCount))
        let allowed = Double(perFrame / 4)
        let pixels = Double(source.width) * Double(source.height)
        guard pixels > allowed else { return source }
        let f = (allowed / pixels).squareRoot()
        var w = max(1, Int((Double(source.width) * f).rounded(.down)))
        var h = max(1, Int((Double(source.height) * f).rounded(.down)))
        while Double(w) * Double(h) > allowed, w > 1 || h > 1 {  // rounding can leave one row too many
            if w >= h { w -= 1 } else { h -= 1 }
        }
        return PixelSize(width: w, height: h)
    }

    /// Decodes `input` scaled down to fit `limitBytes` of decoded pixels over all frames, as
    /// ``DecodePlanner`` plans it.
    ///
    /// Peak memory stays near the result, not the source: a still whose rows stream (JPEG, a
    /// non-interlaced PNG) goes through a ``StreamingResampler`` (the result plus a window of
    /// rows; a file is read a piece at a time), formats that can shrink while decoding (WebP
    /// scaled decoding) hold at most about four times the result, and other images are decoded
    /// whole, then reduced. The orientation is left to the viewer.
    ///
    /// - Parameters:
    ///   - input: The encoded image: bytes or a file.
    ///   - limitBytes: Default ``defaultLimitBytes``.
    ///   - options: Further decode options; the thumbnail size is set here.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    /// - Throws: `ImageCodingError` from decoding (a file's read errors as corrupt data),
    ///   `.invalidArgument` for a limit under 4 bytes.
    public static func decode(
        _ input: ImageInput, limitBytes: Int = defaultLimitBytes, options: DecodeOptions = .default,
        coders: ImageCoderRegistry = .shared
    ) throws -> Image {
        try DecodePlanner.decode(input, goal: DecodeGoal(size: .scaledDown(limitBytes: limitBytes), options: options), coders: coders)
    }
}

extension Image {
    /// The image with every frame scaled down (Lanczos3) so all frames together fit `limitBytes`
    /// of ARGB32 pixels; `self` converted to the display format when it already fits.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a limit under 4 bytes.
    public func scaledDown(limitBytes: Int = ScaleDown.defaultLimitBytes) throws -> Image {
        guard limitBytes >= 4 else { throw ImageCodingError.invalidArgument("scale-down limit \(limitBytes) is under one pixel") }
        let target = ScaleDown.targetSize(for: pixelSize, limitBytes: limitBytes, frameCount: frames.count)
        guard target != pixelSize else { return converted(to: .argb32Premultiplied) }
        let scaled = try frames.map { ImageFrame(buffer: try Resampler.resize($0.buffer, to: target), duration: $0.duration) }
        return try Image(
            frames: scaled, loopCount: loopCount, orientation: orientation, scale: scale, format: format,
            metadata: metadata, hasAlpha: hasAlpha)
    }
}
