#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore
public import ImagoCoders
public import ImagoCache
public import ImagoProcessing

/// Per-load settings beyond the options: SDWebImage's context dictionary, typed.
public struct ImageLoadContext: Sendable {
    /// Turns a URL into its cache key (to drop a signature from the query, say). Default: the
    /// URL's absolute string.
    public var cacheKeyFilter: (@Sendable (URL) -> String)?
    /// Encodes an image for the disk cache when there are no original bytes to store. Default:
    /// the cache's own serializer.
    public var cacheSerializer: (any ImageSerializing)?
    /// Transforms the decoded image; the result is cached in memory under the original key plus
    /// the transformer's key. Default `nil`.
    public var transformer: (any ImageTransforming)?
    /// Decode to a thumbnail fitting this size (shrink-on-load where the format allows). Default `nil`.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: keep the aspect ratio. Default `true`.
    public var preserveAspectRatio: Bool
    /// The pixel budget for ``ImageLoadOptions/scaleDownLargeImages``. Default 60 MB.
    public var scaleDownLimitBytes: Int
    /// The cache to use. Default: the manager's.
    public var cache: (any ImageStoring)?
    /// The downloader to use. Default: the manager's.
    public var downloader: ImageDownloader?
    /// The coders to decode with. Default: the manager's.
    public var coders: ImageCoders?
    /// Which layers a query reads. Default `.all`.
    public var queryCacheType: ImageCacheType
    /// Where the final image is stored: its memory part gets the (transformed) image, its disk
    /// part the original bytes under the original key. Default `.all`.
    public var storeCacheType: ImageCacheType
    /// Headers added to this load's request. Default none.
    public var headers: [String: String]
    /// Base decode options (pixel format, scale, colour management, limits). Default `.default`;
    /// the options and the fields above set the rest.
    public var decodeOptions: DecodeOptions

    /// Creates a context; every parameter defaults as documented on its property.
    public init(cacheKeyFilter: (@Sendable (URL) -> String)? = nil, cacheSerializer: (any ImageSerializing)? = nil,
                transformer: (any ImageTransforming)? = nil, thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true,
                scaleDownLimitBytes: Int = ScaleDown.defaultLimitBytes, cache: (any ImageStoring)? = nil,
                downloader: ImageDownloader? = nil, coders: ImageCoders? = nil, queryCacheType: ImageCacheType = .all,
                storeCacheType: ImageCacheType = .all, headers: [String: String] = [:], decodeOptions: DecodeOptions = .default) {
        self.cacheKeyFilter = cacheKeyFilter
        self.cacheSerializer = cacheSerializer
        self.transformer = transformer
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.cache = cache
        self.downloader = downloader
        self.coders = coders
        self.queryCacheType = queryCacheType
        self.storeCacheType = storeCacheType
        self.headers = headers
        self.decodeOptions = decodeOptions
    }
}

/// Where a loaded image came from.
public enum ImageLoadSource: String, Sendable, Hashable {
    /// The memory cache.
    case memory
    /// The disk cache (decoded now).
    case disk
    /// The network (or a `file`/`data` URL): downloaded and decoded now. A 304 revalidation counts here too.
    case network
}

/// A loaded image.
public struct ImageLoadResult: Sendable {
    /// The image: decoded, thumbnailed or scaled down, and transformed as asked.
    public var image: Image
    /// The encoded bytes, when they were at hand: downloaded, read from disk, or queried with
    /// ``ImageLoadOptions/queryMemoryData``.
    public var data: Data?
    /// Memory, disk or network.
    public var source: ImageLoadSource
    /// The URL asked for.
    public var url: URL
    /// The memory-cache key of the image (the original key plus any transform and thumbnail).
    public var cacheKey: String
    /// Whether a revalidation (``ImageLoadOptions/refreshCached``) got 304 and kept the cached bytes.
    public var revalidated: Bool = false
}

/// What a caller of ``ImageManager/imageEvents(with:options:context:)`` sees, in order.
public enum ImageLoadEvent: Sendable {
    /// Bytes arrived.
    case progress(ImageDownloadProgress)
    /// A partial image (``ImageLoadOptions/progressiveLoad``; never cached, not transformed).
    case partialImage(Image)
    /// The load finished.
    case completed(ImageLoadResult)
}
