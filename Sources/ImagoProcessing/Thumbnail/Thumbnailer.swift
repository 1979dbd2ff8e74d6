#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore
public import ImagoCoders

/// Thumbnails decoded at (close to) their final size.
///
/// The decoder shrinks while loading where the format allows (JPEG DCT scaling, WebP scaled
/// decoding), so a thumbnail of a 24-megapixel JPEG never holds the full-size bitmap, and a PNG
/// streams its rows through a ``StreamingResampler`` without ever holding it either; the rest
/// of the reduction is a ``Resampler`` pass; finally the EXIF orientation is applied. A vector
/// (SVG, PDF) is rendered at the thumbnail's size, which may be larger than its intrinsic size.
public enum Thumbnailer {
    /// The size of a thumbnail of `source` (as displayed) within `box`.
    ///
    /// With `preserveAspectRatio` (default) the result fits inside `box`; without, it is `box`
    /// itself. Never larger than the source in either dimension, unless `enlarges` (a vector
    /// source, drawn at any size); never smaller than 1×1.
    public static func targetSize(for source: PixelSize, within box: PixelSize, preserveAspectRatio: Bool = true,
                                  enlarges: Bool = false) -> PixelSize {
        guard preserveAspectRatio else {
            if enlarges { return PixelSize(width: max(1, box.width), height: max(1, box.height)) }
            return PixelSize(width: max(1, min(box.width, source.width)), height: max(1, min(box.height, source.height)))
        }
        let f = min(Double(box.width) / Double(source.width), Double(box.height) / Double(source.height), enlarges ? .infinity : 1)
        return PixelSize(width: max(1, Int((Double(source.width) * f).rounded())),
                         height: max(1, Int((Double(source.height) * f).rounded())))
    }

    /// Makes a thumbnail of the image file at `url`, fitting `box` (as displayed), upright.
    ///
    /// Reads the file as ``thumbnail(of:fitting:preserveAspectRatio:quality:options:coders:)-(Data,_,_,_,_,_)``
    /// decodes data, with one difference in memory: a format whose rows stream (a non-interlaced
    /// PNG) is read from the file 256 KiB at a time and never held whole, so a 40 MB PNG costs
    /// the thumbnail plus a few rows. Other files are mapped.
    ///
    /// - Throws: the file's read errors (`CocoaError`) and what the in-memory variant throws.
    public static func thumbnail(contentsOf url: URL, fitting box: PixelSize, preserveAspectRatio: Bool = true,
                                 quality: ResamplingQuality = .lanczos3, options: DecodeOptions = .default,
                                 coders: ImageCoderRegistry = .shared) throws -> Image {
        try requireUsable(box)
        return try thumbnail(of: FileInput.open(url, coders: coders), fitting: box, preserveAspectRatio: preserveAspectRatio,
                             quality: quality, options: options, coders: coders) { try Data(contentsOf: url, options: .mappedIfSafe) }
    }

    /// Makes a thumbnail of an open image file, fitting `box` (as displayed), upright: as
    /// ``thumbnail(contentsOf:fitting:preserveAspectRatio:quality:options:coders:)`` reads a path,
    /// a JPEG or non-interlaced PNG is read a piece at a time and never held whole; other files
    /// are read whole from `ImageFile.contents()`.
    ///
    /// - Throws: the file's read errors (`CocoaError`) and what the in-memory variant throws.
    public static func thumbnail(of file: ImageFile, fitting box: PixelSize, preserveAspectRatio: Bool = true,
                                 quality: ResamplingQuality = .lanczos3, options: DecodeOptions = .default,
                                 coders: ImageCoderRegistry = .shared) throws -> Image {
        try requireUsable(box)
        return try thumbnail(of: FileInput.open(file, coders: coders), fitting: box, preserveAspectRatio: preserveAspectRatio,
                             quality: quality, options: options, coders: coders) { try file.contents() }
    }

    /// Throws `.invalidArgument` for a box under 1×1: checked before anything is read.
    private static func requireUsable(_ box: PixelSize) throws {
        guard box.width > 0, box.height > 0 else {
            throw ImageCodingError.invalidArgument("thumbnail size \(box) must be at least 1x1")
        }
    }

    private static func thumbnail(of input: FileInput, fitting box: PixelSize, preserveAspectRatio: Bool, quality: ResamplingQuality,
                                  options: DecodeOptions, coders: ImageCoderRegistry, whole: () throws -> Data) throws -> Image {
        switch input {
        case .whole(let data):
            return try thumbnail(of: data, fitting: box, preserveAspectRatio: preserveAspectRatio, quality: quality,
                                 options: options, coders: coders)
        case .streamed(let info, let decoder, let source):
            let storedBox = info.orientation.swapsDimensions ? PixelSize(width: box.height, height: box.width) : box
            let target = targetSize(for: info.pixelSize, within: storedBox, preserveAspectRatio: preserveAspectRatio)
            if quality == .lanczos3 {
                return try StreamedDecoding.decode(from: source, decoder: decoder, to: target, options: options)
                    .applyingOrientation()
            }
            return try thumbnail(of: try whole(), fitting: box, preserveAspectRatio: preserveAspectRatio, quality: quality,
                                 options: options, coders: coders)
        }
    }

    /// Decodes `data` as a thumbnail fitting `box` (as displayed), upright.
    ///
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - box: The size to fit, as displayed (after orientation).
    ///   - preserveAspectRatio: Default `true`.
    ///   - quality: Default ``ResamplingQuality/lanczos3``.
    ///   - options: Further decode options (limits, colour management). The thumbnail size is set here.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    /// - Throws: `ImageCodingError` from decoding, or `.invalidArgument` for a box under 1×1.
    public static func thumbnail(of data: Data, fitting box: PixelSize, preserveAspectRatio: Bool = true,
                                 quality: ResamplingQuality = .lanczos3, options: DecodeOptions = .default,
                                 coders: ImageCoderRegistry = .shared) throws -> Image {
        try requireUsable(box)
        let info = try coders.info(of: data)
        // The box is in display orientation; the decoder works on stored pixels.
        let storedBox = info.orientation.swapsDimensions ? PixelSize(width: box.height, height: box.width) : box
        // A vector (SVG, PDF) is drawn at the thumbnail's size, larger than its intrinsic size if asked.
        let target = targetSize(for: info.pixelSize, within: storedBox, preserveAspectRatio: preserveAspectRatio,
                                enlarges: info.format.isVector)
        if quality == .lanczos3, info.frameCount == 1, target != info.pixelSize,
           let image = try StreamedDecoding.decode(data, format: info.format, to: target, options: options, coders: coders) {
            return image.applyingOrientation()
        }
        var decodeOptions = options
        decodeOptions.thumbnailPixelSize = storedBox
        decodeOptions.preserveAspectRatio = preserveAspectRatio
        var image = try coders.decode(data, options: decodeOptions)
        let frames = try image.frames.map { frame in
            ImageFrame(buffer: try Resampler.resize(frame.buffer, to: target, quality: quality, limits: options.limits),
                       duration: frame.duration)
        }
        image = try Image(frames: frames, loopCount: image.loopCount, orientation: image.orientation, scale: image.scale,
                          format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
        return image.applyingOrientation()
    }
}
