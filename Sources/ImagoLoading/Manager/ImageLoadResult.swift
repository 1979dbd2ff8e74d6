#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore

/// Where a loaded image came from.
public enum ImageLoadSource: String, Sendable, Hashable {
    /// The memory cache: nothing was read or decoded.
    case memory
    /// The disk cache: its bytes were decoded now.
    case disk
    /// The loader: downloaded (or read from a `file` or `data` URL, or the bytes given in the
    /// request) and decoded now. A 304 revalidation counts here too.
    case network
}

/// A loaded image.
public struct ImageLoadResult: Sendable {
    /// The image: decoded, thumbnailed or scaled down, and transformed as asked.
    public var image: Image
    /// The encoded bytes, when they were at hand: downloaded, read from disk, or queried with
    /// ``ImageRequest/Options/queryMemoryData``. For a processed image read back from disk
    /// (``ImageManager/DataCachePolicy/processedImages``), its own encoded bytes.
    public var data: Data?
    /// Memory, disk or network.
    public var source: ImageLoadSource
    /// The request.
    public var request: ImageRequest
    /// The memory-cache key of the image (``ImageManager/imageKey(for:)``).
    public var cacheKey: String
    /// Whether a revalidation (``ImageRequest/Options/refreshCached``) got 304 and kept the cached bytes.
    public var revalidated: Bool = false

    /// The URL asked for, for a URL request.
    public var url: URL? { request.url }
}

/// What a caller of ``ImageManager/imageEvents(with:)`` sees, in order.
public enum ImageLoadEvent: Sendable {
    /// Bytes arrived.
    case progress(ImageDownloadProgress)
    /// A partial image (``ImageRequest/Options/progressive``): decoded and processed as the final
    /// image will be, never cached.
    case partialImage(Image)
    /// The load finished.
    case completed(ImageLoadResult)
}

/// Original bytes loaded without decoding (``ImageManager/loadData(with:)``).
public struct DataLoadResult: Sendable {
    /// The bytes.
    public var data: Data
    /// The response head, when they came from the network.
    public var response: DataLoadResponse?
    /// Disk or network (never memory: the memory cache holds images, not bytes).
    public var source: ImageLoadSource
    /// Whether a revalidation got 304 and kept the cached bytes.
    public var revalidated: Bool
}
