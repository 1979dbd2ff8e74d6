// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore
public import ImagoProcessing

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One image to load: where its bytes come from, what to make of them, and how to fetch them
/// (Nuke's `ImageRequest`; SDWebImage's options and context together).
///
/// Every key the pipeline uses derives from the request alone:
/// - ``ImageManager/dataKey(for:)``: the original bytes on disk;
/// - ``ImageManager/imageKey(for:)``: the finished image, in the memory cache and (when the manager stores
///   processed images) on disk;
/// - the key that shares work between identical loads, which adds to ``ImageManager/imageKey(for:)`` only what
///   changes how the bytes are fetched (headers, cache options, limits).
///
/// ```swift
/// var request = ImageRequest(url: avatarURL)
/// request.thumbnail = .init(maxPixelSize: PixelSize(width: 128, height: 128))
/// request.transformers = [ImageTransformers.RoundCorner(radius: 16)]
/// request.priority = .high
/// let avatar = try await ImageManager.shared.loadImage(with: request).image
/// ```
public struct ImageRequest: Sendable {
    /// Where the bytes come from.
    public enum Source: Sendable {
        /// An `http`, `https`, `file` or `data` URL.
        case url(URL)
        /// Bytes already in hand (from a database, say), named by `key` for the caches.
        case data(Data, key: String)
        /// An open file, named by `key` for the caches, decoded where it lies: a JPEG or PNG
        /// still is read a piece at a time and never held whole (see `ImageFile`).
        // Indirect: boxed, the case has one layout in every file of the module. Inline, Swift 6.3.1
        // laid the enum out differently in files that do not import ImagoCoders, and copies crashed.
        indirect case file(ImageFile, key: String)
        /// An image already decoded (a video's frame, pixels drawn by the app), named by `key`
        /// for the caches: it is processed and encoded as a decoded source would be, without
        /// bytes to fetch or decode. Its header facts come from the image (one without a
        /// `format` reads as BMP, uncompressed pixels); two such sources are equal when their
        /// keys are.
        indirect case image(Image, key: String)
    }

    /// A thumbnail to decode instead of the whole image: shrink-on-load where the format allows
    /// (JPEG DCT scaling, WebP scaled decoding, HEIF embedded thumbnails, PNG streamed), then an
    /// exact resample.
    public struct Thumbnail: Sendable, Hashable {
        /// The box the thumbnail must fit, in displayed (oriented) pixels.
        public var maxPixelSize: PixelSize
        /// `true` (default) fits the box keeping the aspect ratio; `false` fills it exactly.
        public var preserveAspectRatio: Bool

        /// Creates a thumbnail request; `preserveAspectRatio` defaults to `true`.
        public init(maxPixelSize: PixelSize, preserveAspectRatio: Bool = true) {
            self.maxPixelSize = maxPixelSize
            self.preserveAspectRatio = preserveAspectRatio
        }
    }

    /// How much of an animation to decode now.
    public enum Frames: String, Sendable, Hashable {
        /// Every frame, composited, now (within the decoding limits). The default, as
        /// SDWebImage's animated images.
        case all
        /// The first frame only: a still image.
        case first
        /// Frame 0 now and the rest on demand from the encoded bytes (YYImage, `SDAnimatedImage`),
        /// so memory holds a few canvases rather than every frame.
        case lazy
    }

    /// Where the bytes come from.
    public var source: Source
    /// Decode a thumbnail fitting this box instead of the whole image. Default `nil`.
    public var thumbnail: Thumbnail?
    /// Decode large images scaled down to at most this many bytes of pixels (SDWebImage's
    /// `scaleDownLargeImages`, whose limit is 60 MB: `ScaleDown.defaultLimitBytes`).
    /// Animations divide it among their frames. Default `nil`: full size.
    public var scaleDownLimitBytes: Int?
    /// Transformations applied in order to the decoded image; their keys join ``ImageManager/imageKey(for:)``.
    /// Default none.
    public var transformers: [any ImageTransforming]
    /// Decode no smaller than this box (fitting it, aspect kept), using only the decoder's own
    /// reduction (JPEG DCT scaling to 1/2, 1/4 or 1/8, WebP scaled decoding): a cheap
    /// shrink-on-load for callers that resample exactly themselves, in their transformers.
    /// Unlike ``thumbnail`` it never resamples. Default `nil`: full size.
    public var decodeSizeHint: PixelSize?
    /// Decode the thumbnail the file stores beside the image instead of the image, when it has
    /// one (`DecodeOptions.embeddedThumbnail`: HEIF and AVIF read by libheif). Default `false`.
    public var embeddedThumbnail: Bool
    /// Also decode an Ultra HDR JPEG's gain map into `ImageMetadata.gainMap`
    /// (`DecodeOptions.gainMap`), so that a JPEG result keeps it. Transformers that change the
    /// geometry drop it unless they transform it too. Default `false`.
    public var gainMap = false
    /// How much of an animation to decode. Default ``Frames/all``.
    public var frames: Frames
    /// Decode one page or frame only, as a still (`DecodeOptions.page`): page N of a
    /// multi-page TIFF at its own size, or frame N of an animation composited. Default `nil`.
    /// A page past the last fails the load with `ImageCodingError.invalidArgument(_:)`.
    public var page: Int?
    /// The decoded pixel format. Default `PixelFormat.argb32Premultiplied`, ready to
    /// draw; `PixelFormat.rgba8` keeps straight alpha.
    public var pixelFormat: PixelFormat
    /// Convert embedded ICC profiles and CMYK to sRGB. Default `true`.
    public var colorManagement: Bool
    /// The image's points-to-pixels scale. Default `nil`: from `@2x`/`@3x` in the URL's file
    /// name (`PathName.displayScale(of:)`), else 1.
    public var scale: Double?
    /// Limits checked before allocating. Default `nil`: the manager's
    /// (``ImageManager/Configuration/decodingLimits``).
    public var limits: DecodingLimits?
    /// Queue priority for the download and the decode; it can change while the load runs
    /// (``ImageTask/priority``). Default `ImagePriority.normal`.
    public var priority: ImagePriority
    /// How the load uses the caches and the network. Default none.
    public var options: Options
    /// Headers added to this request's download. Default none.
    ///
    /// Loads share a download only when their headers are the same, but headers are not part of
    /// the cache keys: a request whose bytes depend on them (a `Cookie`, an `Authorization`)
    /// should set a ``cacheKey`` of its own or skip the caches
    /// (``ImageRequest/Options/disableDiskCacheReads`` and the other `disable` options).
    public var headers: [String: String]
    /// URLs downloaded in order when the source URL fails (Kingfisher's alternative sources):
    /// the bytes are cached under the source's key. Each goes through the same loaders and
    /// source policy. Default none.
    public var alternativeURLs: [URL] = []
    /// What ``ImageManager/loadEncodedImage(with:source:)`` encodes the finished image as:
    /// format, encoder options, metadata, byte budget. Other loads ignore it. Default: an
    /// ``Output`` at its defaults (the image's own format, or PNG or JPEG; quality 0.9;
    /// metadata kept).
    public var output: Output
    /// Names the source for the caches instead of its URL (to drop a signature from the query,
    /// say). Default `nil`: the manager's ``ImageManager/Configuration/cacheKeyFilter``, else
    /// the URL's absolute string.
    public var cacheKey: String?
    /// Hold the finished image (decoded and transformed) up to 30 s after this load encodes
    /// it, for one later load of the same pixels from the same bytes in another output format,
    /// which then encodes it without decoding or transforming again (a service answering with
    /// one format and trying a smaller one for the same result). Not part of any key. Default
    /// `false`.
    package var holdsProcessedImage = false

    /// Creates a request for `url`; every other property defaults as documented on it.
    public init(
        url: URL, thumbnail: Thumbnail? = nil, transformers: [any ImageTransforming] = [],
        priority: ImagePriority = .normal, options: Options = []
    ) {
        self.init(source: .url(url), thumbnail: thumbnail, transformers: transformers, priority: priority, options: options)
    }

    /// Creates a request for bytes in hand, named `key` in the caches; every other property
    /// defaults as documented on it.
    public init(
        data: Data, key: String, thumbnail: Thumbnail? = nil, transformers: [any ImageTransforming] = [],
        priority: ImagePriority = .normal, options: Options = []
    ) {
        self.init(source: .data(data, key: key), thumbnail: thumbnail, transformers: transformers, priority: priority, options: options)
    }

    /// Creates a request for an open file, named `key` in the caches, decoded where it lies (a
    /// JPEG or PNG still a piece at a time); every other property defaults as documented on it.
    public init(
        file: ImageFile, key: String, thumbnail: Thumbnail? = nil, transformers: [any ImageTransforming] = [],
        priority: ImagePriority = .normal, options: Options = []
    ) {
        self.init(source: .file(file, key: key), thumbnail: thumbnail, transformers: transformers, priority: priority, options: options)
    }

    /// Creates a request for an image already decoded, named `key` in the caches: processed and
    /// encoded without a fetch or a decode (``Source/image(_:key:)``); every other property
    /// defaults as documented on it.
    public init(
        image: Image, key: String, thumbnail: Thumbnail? = nil, transformers: [any ImageTransforming] = [],
        priority: ImagePriority = .normal, options: Options = []
    ) {
        self.init(source: .image(image, key: key), thumbnail: thumbnail, transformers: transformers, priority: priority, options: options)
    }

    private init(
        source: Source, thumbnail: Thumbnail?, transformers: [any ImageTransforming], priority: ImagePriority,
        options: Options
    ) {
        self.source = source
        self.thumbnail = thumbnail
        scaleDownLimitBytes = nil
        decodeSizeHint = nil
        embeddedThumbnail = false
        self.transformers = transformers
        frames = .all
        page = nil
        pixelFormat = .argb32Premultiplied
        colorManagement = true
        scale = nil
        limits = nil
        self.priority = priority
        self.options = options
        headers = [:]
        output = Output()
        cacheKey = nil
    }

    /// The URL, for a URL source.
    public var url: URL? {
        if case .url(let url) = source { return url }
        return nil
    }
}

extension ImageRequest.Source: Hashable {
    /// Equal sources: the same URL; the same key and bytes or file; or, for decoded images,
    /// the same key (pixels are not compared).
    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.url(let x), .url(let y)): x == y
        case (.data(let x, let k), .data(let y, let l)): k == l && x == y
        case (.file(let x, let k), .file(let y, let l)): k == l && x == y
        case (.image(_, let k), .image(_, let l)): k == l
        default: false
        }
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .url(let url): hasher.combine(url)
        case .data(let data, let key):
            hasher.combine(key)
            hasher.combine(data)
        case .file(let file, let key):
            hasher.combine(key)
            hasher.combine(file)
        case .image(_, let key):
            hasher.combine(3)
            hasher.combine(key)
        }
    }
}
