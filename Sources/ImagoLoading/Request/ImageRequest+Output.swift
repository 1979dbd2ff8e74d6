// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

extension ImageRequest {
    /// What the finished image is encoded as, for ``ImageManager/loadEncodedImage(with:source:)``: the
    /// format, its encoder's options, what metadata goes with it, and a byte budget.
    ///
    /// The encode is a stage of the pipeline like the decode: identical requests with identical
    /// outputs share one encode, which runs on the processing queue right after its transform
    /// (ahead of decodes that start other loads), so a batch holds about one decoded bitmap per
    /// worker.
    ///
    /// ```swift
    /// var request = ImageRequest(url: photoURL)
    /// request.thumbnail = .init(maxPixelSize: PixelSize(width: 300, height: 300))
    /// request.output = .init(format: .webp, quality: 0.8, metadata: .strip)
    /// let encoded = try await manager.loadEncodedImage(with: request)
    /// try encoded.data().write(to: destination)
    /// ```
    public struct Output: Sendable, Hashable {
        /// Which metadata is written.
        public enum Metadata: String, Sendable, Hashable {
            /// The EXIF block, as the finished image carries it (the default).
            case keep
            /// No EXIF.
            case strip
            /// Only the EXIF tags that name the author and copyright (imgproxy's `keep_copyright`).
            case copyrightOnly
        }

        /// The format to write. Default `nil`: the image's own format when an encoder writes it
        /// (and, for an animation, the format animates), else PNG with alpha and JPEG without
        /// (`ImageCoderRegistry.preferredEncodingFormat(for:)`).
        public var format: ImageFormat?
        /// The encoder's options: quality, lossless, progressive, effort, the background colour
        /// alpha is flattened over. Default `EncodeOptions.default` (quality 0.9).
        public var options: EncodeOptions
        /// Which EXIF goes with the pixels. Default ``Metadata/keep``.
        public var metadata: Metadata
        /// Write the ICC profile the pixels are in. Default `true`. A profile travels only when
        /// the decode kept the pixels in it (``ImageRequest/colorManagement`` off); converted to
        /// sRGB, the pixels need none.
        public var keepsColorProfile: Bool
        /// The most bytes the result may take: a lossy format (JPEG, WebP, AVIF, HEIC, JPEG XL)
        /// is encoded again at a lower quality until it fits or the quality reaches 5, as
        /// imgproxy's `max_bytes` does. Lossless formats ignore it. Default `nil`: no budget.
        public var maxBytes: Int?
        /// Send the fetched bytes themselves, without decoding them, when they already are what
        /// this output asks for: the request changes no pixel (no thumbnail, scale-down, page,
        /// transformer, first-frame or pixel-format choice), the format is the source's (or
        /// `nil`), the metadata and profile are kept, and the bytes fit ``maxBytes``. Default
        /// `true`, as SDWebImage stores the original data of an unprocessed image.
        public var passesThroughUnchanged: Bool

        /// Creates an output; every parameter defaults as documented on its property.
        public init(
            format: ImageFormat? = nil, options: EncodeOptions = .default, metadata: Metadata = .keep,
            keepsColorProfile: Bool = true, maxBytes: Int? = nil, passesThroughUnchanged: Bool = true
        ) {
            self.format = format
            self.options = options
            self.metadata = metadata
            self.keepsColorProfile = keepsColorProfile
            self.maxBytes = maxBytes
            self.passesThroughUnchanged = passesThroughUnchanged
        }

        /// Creates an output of `format` at `quality` (0 to 1); every other parameter defaults as
        /// documented on its property.
        public init(
            format: ImageFormat?, quality: Double, metadata: Metadata = .keep, keepsColorProfile: Bool = true,
            maxBytes: Int? = nil
        ) {
            self.init(
                format: format, options: EncodeOptions(quality: quality), metadata: metadata,
                keepsColorProfile: keepsColorProfile, maxBytes: maxBytes)
        }

        /// The lossy formats ``maxBytes`` lowers the quality of.
        static let lossyFormats: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, .jxl]

        /// The quality (1 to 100) to try after one of `quality` came out `bytes` long against a
        /// budget of `budget`, as imgproxy steps down (`saveImageToFitBytes`): a quarter of it at
        /// more than 3 times the budget, half at more than 1.5, else three quarters, rounded, and
        /// always at least one lower; `nil` when it fits, or at 10 or less, where it stops.
        static func nextQuality(after quality: Int, bytes: Int, budget: Int) -> Int? {
            guard bytes > budget, quality > 10 else { return nil }
            let ratio = Double(bytes) / Double(max(1, budget))
            let scaled = Int((Double(quality) * (ratio > 3 ? 0.25 : ratio > 1.5 ? 0.5 : 0.75)).rounded())
            return max(1, min(quality - 1, scaled))
        }

        /// The metadata written for an image that carries `metadata`.
        func written(_ metadata: ImageMetadata) -> ImageMetadata {
            // A gain map is picture, not metadata: it stays whenever the image still has one
            // (the request asked for it, and the transformers kept it).
            var out = ImageMetadata(gainMap: metadata.gainMap)
            if keepsColorProfile { out.iccProfile = metadata.iccProfile }
            switch self.metadata {
            case .keep: out.exif = metadata.exif
            case .strip: break
            case .copyrightOnly: out.exif = metadata.exif.flatMap { EXIF.keepingTextTags(of: $0) }
            }
            return out
        }

        /// A description for keys: everything that changes the bytes.
        var keyPart: String {
            let o = options
            return "\(format?.rawValue ?? "auto");q=\(o.quality);ll=\(o.lossless);pr=\(o.progressive);z=\(o.compressionLevel);"
                + "or=\(o.orientation.rawValue);km=\(o.keepMetadata);bg=\(o.backgroundColor.r),\(o.backgroundColor.g),\(o.backgroundColor.b),\(o.backgroundColor.a);"
                + "th=\(o.embeddedThumbnailSize ?? 0);hf=\(o.optimizesHuffmanTables.map { $0 ? 1 : 0 } ?? -1);ef=\(o.effort ?? 0);"
                + (o.jpegQuantization == .standard ? "" : "qt=\(o.jpegQuantization.rawValue);")
                + "md=\(metadata.rawValue);icc=\(keepsColorProfile);max=\(maxBytes ?? 0);pt=\(passesThroughUnchanged)"
        }
    }
}
