// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to encode: quality, compression and what happens to orientation and metadata.
public struct EncodeOptions: Sendable, Hashable {
    /// What to do with an image's EXIF orientation when encoding.
    public enum OrientationHandling: String, Sendable, Hashable {
        /// Turn the pixels upright and write orientation 1 (safest for every reader).
        case bake
        /// Keep the stored pixels and record the orientation in the written EXIF.
        case writeEXIF
    }

    /// Lossy quality from 0 (smallest) to 1 (best). Default 0.9. Used by JPEG, lossy WebP,
    /// AVIF/HEIC and JPEG XL (mapped to libjxl's distance as `cjxl -q` maps it).
    public var quality: Double
    /// Lossless WebP, JPEG XL or AVIF/HEIC. Default `false`. (PNG is always lossless.)
    public var lossless: Bool
    /// Progressive JPEG, interlaced PNG, progressive JPEG XL passes. Default `false`.
    public var progressive: Bool
    /// The quantisation tables of a JPEG: the JPEG standard's (Annex K) or N. Robidoux's.
    public enum JPEGQuantization: String, Sendable, Hashable, CaseIterable {
        /// The tables of the JPEG standard's Annex K, libjpeg's, libvips' and Pillow's default.
        case standard
        /// N. Robidoux's table for luma and chroma (ImageMagick's, mozjpeg's default): at
        /// equal SSIMULACRA2 score, photos about 6% smaller than with the standard's (median
        /// over 16 held-out photos, `scripts/bench-formats --efficient`). A quality number
        /// scales it as it scales the standard's, but the two do not score alike at one number.
        case robidoux
    }
    /// The quantisation tables of a JPEG. Default ``JPEGQuantization/standard``.
    public var jpegQuantization = JPEGQuantization.standard
    /// zlib level 0–9 for PNG. Default 6.
    public var compressionLevel: Int
    /// Orientation handling. Default ``OrientationHandling/bake``.
    public var orientation: OrientationHandling
    /// Write the ICC profile and EXIF block. Default `true`.
    public var keepMetadata: Bool
    /// The colour alpha is flattened against when the format has no alpha (JPEG). Default white.
    public var backgroundColor: RGBA8
    /// Embed a thumbnail whose longest side is at most this many pixels, for formats that carry
    /// one (HEIC, AVIF), so readers can shrink on load (SDWebImage's `encodeEmbedThumbnail`).
    /// Default `nil`: none.
    public var embeddedThumbnailSize: Int?
    /// JPEG Huffman tables computed for the image (2–8% smaller files) rather than the standard
    /// ones. libjpeg then holds every coefficient of the image until the end, about 3 bytes a
    /// pixel, so a row-streamed conversion is no longer lean. Default `nil`: optimized up to
    /// ``optimizedHuffmanPixelLimit`` pixels, standard above, as libvips and Pillow write by
    /// default. Progressive JPEGs always hold every coefficient.
    public var optimizesHuffmanTables: Bool?
    /// How hard the encoder works, from 1 (fastest) to 9 (smallest files, slowest), for the
    /// formats with such a dial: JPEG XL (libjxl's effort), AVIF (libavif's speed, 11 − effort)
    /// and WebP (libwebp's method, effort − 3 within 0–6). Default `nil`: the format's own
    /// default (effort 7 for JPEG XL, as `cjxl`; speed 9 for AVIF; the coder's method, 4, for
    /// WebP).
    public var effort: Int?
    /// The threads an encoder may run at once, the caller's included, for the encoders that can
    /// use more than one: AVIF (libavif's `maxThreads`), JPEG XL (libjxl's runner), GIF
    /// (libimagequant's team, for frames of a megapixel or more), WebP (libwebp's helper thread,
    /// at 2 or more), and a PNG converted in rows by `StreamedTranscoding` (the encoder's side on
    /// a helper thread, at 2 or more). Default `nil`: the cores, up to 4. `1` keeps the encode on
    /// the calling thread: work in the background, which must not take more than its lane. Not
    /// part of a result's identity: either way the bytes encode the same settings (WebP's, JPEG
    /// XL's and GIF's are the same bytes).
    public var maxThreads: Int?

    /// The largest image whose JPEG Huffman tables are optimized by default: 4 megapixels,
    /// where the coefficient buffer costs at most 12 MB.
    public static let optimizedHuffmanPixelLimit = 4_000_000

    /// Whether a JPEG of `pixels` pixels gets optimized Huffman tables.
    func optimizesHuffman(pixels: Int) -> Bool { optimizesHuffmanTables ?? (pixels <= Self.optimizedHuffmanPixelLimit) }

    /// Creates options; every parameter defaults as documented on its property.
    public init(
        quality: Double = 0.9, lossless: Bool = false, progressive: Bool = false,
        compressionLevel: Int = 6, orientation: OrientationHandling = .bake,
        keepMetadata: Bool = true, backgroundColor: RGBA8 = RGBA8(r: 255, g: 255, b: 255),
        embeddedThumbnailSize: Int? = nil
    ) {
        self.embeddedThumbnailSize = embeddedThumbnailSize
        self.quality = quality
        self.lossless = lossless
        self.progressive = progressive
        self.compressionLevel = compressionLevel
        self.orientation = orientation
        self.keepMetadata = keepMetadata
        self.backgroundColor = backgroundColor
    }

    /// The defaults.
    public static let `default` = EncodeOptions()

    /// Checks ranges.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)`.
    func validate() throws {
        guard quality.isFinite, (0...1).contains(quality) else {
            throw ImageCodingError.invalidArgument("quality \(quality) must be between 0 and 1")
        }
        guard (0...9).contains(compressionLevel) else {
            throw ImageCodingError.invalidArgument("compression level \(compressionLevel) must be between 0 and 9")
        }
        if let effort, !(1...9).contains(effort) {
            throw ImageCodingError.invalidArgument("effort \(effort) must be between 1 and 9")
        }
    }

    /// ``prepare(_:)`` for formats that carry no EXIF orientation (GIF, TIFF as written here, BMP,
    /// HEIF): the orientation is always baked into the pixels, whatever ``orientation`` says.
    func prepareBakingOrientation(_ image: Image) -> (image: Image, exif: Data?, icc: Data?) {
        var baked = self
        baked.orientation = .bake
        return baked.prepare(image)
    }

    /// The EXIF block and ICC profile an encoder fed rows writes ahead of them: what
    /// ``prepare(_:)`` gives for the whole image, with a turned source's orientation written to
    /// EXIF, since rows cannot be turned.
    func streamedMetadata(_ attributes: StreamedImageAttributes) throws -> (exif: Data?, icc: Data?) {
        var stand = Image(
            buffer: try PixelBuffer(width: 1, height: 1, format: .rgba8), orientation: attributes.orientation,
            format: attributes.format, metadata: attributes.metadata, hasAlpha: attributes.hasAlpha)
        stand.metadata = attributes.metadata
        var options = self
        if attributes.orientation != .up { options.orientation = .writeEXIF }
        let (_, exif, icc) = options.prepare(stand)
        return (exif, icc)
    }

    /// The image as the encoder should write it: orientation baked or kept, metadata kept or dropped.
    func prepare(_ image: Image) -> (image: Image, exif: Data?, icc: Data?) {
        var img = orientation == .bake ? image.applyingOrientation() : image
        var exif = keepMetadata ? img.metadata.exif.map(EXIF.strippingPrefix) : nil
        if orientation == .writeEXIF, img.orientation != .up {
            exif = exif.map { EXIF.settingOrientation(img.orientation, in: $0) } ?? EXIFWriter.minimal(orientation: img.orientation)
        }
        if !keepMetadata { img.metadata = ImageMetadata() }
        return (img, exif, keepMetadata ? img.metadata.iccProfile : nil)
    }
}
