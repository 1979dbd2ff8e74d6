// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ImageRequest {
    /// How a load uses the caches and the network: SDWebImage's `SDWebImageOptions` and Nuke's
    /// request options, where they make sense off Apple's UI frameworks.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The options' bits, one per option.
        public let rawValue: Int
        /// The options whose bits are set in `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Try a URL even though it is in the failed-URL list.
        public static let retryFailed = Options(rawValue: 1 << 0)
        /// Deliver partial images while the bytes arrive (never cached), decoded and processed
        /// as the final image is.
        public static let progressive = Options(rawValue: 1 << 1)
        /// Revalidate the disk copy with a conditional request (`If-None-Match`,
        /// `If-Modified-Since`); a 304 keeps the cached bytes, anything else replaces them. The
        /// memory cache is not read.
        public static let refreshCached = Options(rawValue: 1 << 2)
        /// Never go to the network: a cache miss fails with ``ImageLoadingError/notCached``.
        public static let fromCacheOnly = Options(rawValue: 1 << 3)
        /// Skip both cache reads and download (the result is still stored).
        public static let fromLoaderOnly = Options(rawValue: 1 << 4)
        /// Do not look in the memory cache.
        public static let disableMemoryCacheReads = Options(rawValue: 1 << 5)
        /// Do not store the result in the memory cache.
        public static let disableMemoryCacheWrites = Options(rawValue: 1 << 6)
        /// Do not look in the disk cache.
        public static let disableDiskCacheReads = Options(rawValue: 1 << 7)
        /// Do not store anything on disk.
        public static let disableDiskCacheWrites = Options(rawValue: 1 << 8)
        /// Return only after the disk write is done (by default it finishes in the background,
        /// and loads of the same key meanwhile are served from the pending write).
        public static let waitStoreCache = Options(rawValue: 1 << 9)
        /// On a memory hit, also read the encoded bytes from disk for the result.
        public static let queryMemoryData = Options(rawValue: 1 << 10)
        /// Apply the transformers to every frame of an animation (by default an animation is not
        /// transformed, as in SDWebImage).
        public static let transformAnimatedImage = Options(rawValue: 1 << 11)

        var readsMemory: Bool { isDisjoint(with: [.disableMemoryCacheReads, .refreshCached, .fromLoaderOnly]) }
        var writesMemory: Bool { !contains(.disableMemoryCacheWrites) }
        var readsDisk: Bool { isDisjoint(with: [.disableDiskCacheReads, .fromLoaderOnly]) }
        var writesDisk: Bool { !contains(.disableDiskCacheWrites) }
    }
}
