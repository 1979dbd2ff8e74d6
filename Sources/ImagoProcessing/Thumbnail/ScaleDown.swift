#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore
public import ImagoCoders

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
        while Double(w) * Double(h) > allowed, w > 1 || h > 1 {   // rounding can leave one row too many
            if w >= h { w -= 1 } else { h -= 1 }
        }
        return PixelSize(width: w, height: h)
    }

    /// Decodes the image file at `url` scaled down to fit `limitBytes` of decoded pixels, as
    /// ``decode(_:limitBytes:options:coders:)-(Data,_,_,_)``; a non-interlaced PNG is read from the file a
    /// piece at a time and never held whole. Other files are mapped.
    ///
    /// - Throws: the file's read errors (`CocoaError`) and what the in-memory variant throws.
    public static func decode(contentsOf url: URL, limitBytes: Int = defaultLimitBytes, options: DecodeOptions = .default,
                              coders: ImageCoderRegistry = .shared) throws -> Image {
        guard limitBytes >= 4 else { throw ImageCodingError.invalidArgument("scale-down limit \(limitBytes) is under one pixel") }
        return try decode(FileInput.open(url, coders: coders), limitBytes: limitBytes, options: options, coders: coders)
    }

    /// Decodes an open image file scaled down to fit `limitBytes` of decoded pixels, as
    /// ``decode(contentsOf:limitBytes:options:coders:)`` decodes a path: a JPEG or non-interlaced
    /// PNG is read a piece at a time, other files whole from `ImageFile.contents()`.
    ///
    /// - Throws: the file's read errors (`CocoaError`) and what the in-memory variant throws.
    public static func decode(_ file: ImageFile, limitBytes: Int = defaultLimitBytes, options: DecodeOptions = .default,
                              coders: ImageCoderRegistry = .shared) throws -> Image {
        guard limitBytes >= 4 else { throw ImageCodingError.invalidArgument("scale-down limit \(limitBytes) is under one pixel") }
        return try decode(FileInput.open(file, coders: coders), limitBytes: limitBytes, options: options, coders: coders)
    }

    private static func decode(_ input: FileInput, limitBytes: Int, options: DecodeOptions, coders: ImageCoderRegistry) throws -> Image {
        switch input {
        case .whole(let data):
            return try decode(data, limitBytes: limitBytes, options: options, coders: coders)
        case .streamed(let info, let decoder, let source):
            let target = targetSize(for: info.pixelSize, limitBytes: limitBytes)
            return try StreamedDecoding.decode(from: source, decoder: decoder, to: target, options: options)
        }
    }

    /// Decodes `data` scaled down to fit `limitBytes` of decoded pixels over all frames.
    ///
    /// Peak memory stays near the result, not the source: formats that can shrink while decoding
    /// (JPEG DCT scaling, WebP scaled decoding) hold at most about four times the result, and a
    /// non-interlaced PNG streams its rows through a ``StreamingResampler`` (the result plus a
    /// window of rows). Other data is decoded whole, then reduced.
    ///
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - limitBytes: Default ``defaultLimitBytes``.
    ///   - options: Further decode options; the thumbnail size is set here.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    /// - Throws: `ImageCodingError` from decoding, `.invalidArgument` for a limit under 4 bytes.
    public static func decode(_ data: Data, limitBytes: Int = defaultLimitBytes, options: DecodeOptions = .default,
                              coders: ImageCoderRegistry = .shared) throws -> Image {
        guard limitBytes >= 4 else { throw ImageCodingError.invalidArgument("scale-down limit \(limitBytes) is under one pixel") }
        let info = try coders.info(of: data)
        let target = targetSize(for: info.pixelSize, limitBytes: limitBytes, frameCount: info.frameCount)
        if target != info.pixelSize, info.frameCount == 1,
           let image = try StreamedDecoding.decode(data, format: info.format, to: target, options: options, coders: coders) {
            return image
        }
        var decodeOptions = options
        if target != info.pixelSize { decodeOptions.thumbnailPixelSize = target }
        return try coders.decode(data, options: decodeOptions).scaledDown(limitBytes: limitBytes)
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
        return try Image(frames: scaled, loopCount: loopCount, orientation: orientation, scale: scale, format: format,
                         metadata: metadata, hasAlpha: hasAlpha)
    }
}
