// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

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
    public static func targetSize(
        for source: PixelSize, within box: PixelSize, preserveAspectRatio: Bool = true,
        enlarges: Bool = false
    ) -> PixelSize {
        guard preserveAspectRatio else {
            if enlarges { return PixelSize(width: max(1, box.width), height: max(1, box.height)) }
            return PixelSize(width: max(1, min(box.width, source.width)), height: max(1, min(box.height, source.height)))
        }
        let f = min(Double(box.width) / Double(source.width), Double(box.height) / Double(source.height), enlarges ? .infinity : 1)
        return PixelSize(
            width: max(1, Int((Double(source.width) * f).rounded())),
            height: max(1, Int((Double(source.height) * f).rounded())))
    }

    /// Makes a thumbnail of `input` fitting `box` (as displayed), upright, as
    /// ``DecodePlanner`` plans it: a still whose rows stream (JPEG, a non-interlaced PNG) never
    /// holds its full bitmap, and a file is read a piece at a time; other formats decode at the
    /// smallest scale their decoder reaches (JPEG DCT, WebP scaled decoding, HEIF thumbnails),
    /// then resample exactly.
    ///
    /// ```swift
    /// let thumb = try Thumbnailer.thumbnail(of: ImageInput(jpegData), fitting: PixelSize(width: 256, height: 256))
    /// ```
    ///
    /// - Parameters:
    ///   - input: The encoded image: bytes (`ImageInput(data)`) or a file (`ImageInput(contentsOf:)`).
    ///   - box: The size to fit, as displayed (after orientation).
    ///   - preserveAspectRatio: Default `true`.
    ///   - quality: Default ``ResamplingQuality/lanczos3``.
    ///   - options: Further decode options (limits, colour management). The thumbnail size is set here.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    /// - Throws: `ImageCodingError` from decoding (a file's read errors as corrupt data), or
    ///   `.invalidArgument` for a box under 1×1.
    public static func thumbnail(
        of input: ImageInput, fitting box: PixelSize, preserveAspectRatio: Bool = true,
        quality: ResamplingQuality = .lanczos3, options: DecodeOptions = .default,
        coders: ImageCoderRegistry = .shared
    ) throws -> Image {
        try DecodePlanner.decode(
            input,
            goal: DecodeGoal(
                size: .fitting(box, preserveAspectRatio: preserveAspectRatio),
                options: options, quality: quality),
            coders: coders)
    }
}
