/// How ``ImageManager`` loads one image: SDWebImage's `SDWebImageOptions`, where they make sense
/// off Apple's UI frameworks.
public struct ImageLoadOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Try a URL even though it is in the failed-URL list.
    public static let retryFailed = ImageLoadOptions(rawValue: 1 << 0)
    /// Download at low priority (prefetching).
    public static let lowPriority = ImageLoadOptions(rawValue: 1 << 1)
    /// Download at high priority: to the front of the queue.
    public static let highPriority = ImageLoadOptions(rawValue: 1 << 2)
    /// Deliver partial images while the bytes arrive (never cached).
    public static let progressiveLoad = ImageLoadOptions(rawValue: 1 << 3)
    /// Revalidate the disk copy with a conditional request (`If-None-Match`, `If-Modified-Since`);
    /// a 304 keeps the cached bytes, anything else replaces them. The memory cache is skipped.
    public static let refreshCached = ImageLoadOptions(rawValue: 1 << 4)
    /// Never go to the network: a cache miss fails with ``ImageLoadingError/notCached``.
    public static let fromCacheOnly = ImageLoadOptions(rawValue: 1 << 5)
    /// Skip the cache query and download (the result is still stored).
    public static let fromLoaderOnly = ImageLoadOptions(rawValue: 1 << 6)
    /// Decode large images scaled down to the context's scale-down limit (60 MB of pixels by default).
    public static let scaleDownLargeImages = ImageLoadOptions(rawValue: 1 << 7)
    /// Decode only the first frame of an animation.
    public static let decodeFirstFrameOnly = ImageLoadOptions(rawValue: 1 << 8)
    /// Decode every frame of an animation now, even from a lazily decoded source.
    public static let preloadAllFrames = ImageLoadOptions(rawValue: 1 << 9)
    /// Keep the encoded data with the image and decode animation frames on demand
    /// (``ImagoCoders/DecodeOptions/decodesFramesLazily``) rather than all at once.
    public static let avoidDecodeImage = ImageLoadOptions(rawValue: 1 << 10)
    /// Apply the context's transformer to every frame of an animation (by default an animation
    /// is not transformed, as in SDWebImage).
    public static let transformAnimatedImage = ImageLoadOptions(rawValue: 1 << 11)
    /// Return only after the result is stored in the caches (by default storing finishes in the
    /// background).
    public static let waitStoreCache = ImageLoadOptions(rawValue: 1 << 12)
    /// On a memory hit, also read the encoded data from disk for the result.
    public static let queryMemoryData = ImageLoadOptions(rawValue: 1 << 13)
}
