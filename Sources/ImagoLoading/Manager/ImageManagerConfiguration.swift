// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCache
public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ImageManager {
    /// What the disk cache keeps.
    public enum DataCachePolicy: String, Sendable, Hashable {
        /// The original bytes, under the request's data key (SDWebImage's choice): every new
        /// size or transform of a cached source costs a decode, never a download.
        case originalData
        /// For requests with processing (thumbnail, scale-down, transformers), the finished image
        /// encoded (``Configuration/serializer``) under its image key; for the rest the original
        /// bytes (Nuke's `automatic`). A repeat of a processed request then decodes a small file.
        case processedImages
        /// Both: the original bytes, and the encoded finished image of requests with processing.
        case all
    }

    /// How long and how many encoded results are kept after they are made
    /// (``Configuration/resultRetention``).
    public struct ResultRetention: Sendable, Hashable {
        /// The most bytes of results kept.
        public var costLimit: Int
        /// How long a result is kept after it was last used.
        public var ageLimit: Duration

        /// Creates a retention policy.
        public init(costLimit: Int, ageLimit: Duration) {
            self.costLimit = costLimit
            self.ageLimit = ageLimit
        }
    }

    /// Everything an ``ImageManager`` does the same for every request.
    ///
    /// ```swift
    /// var configuration = ImageManager.Configuration()
    /// configuration.dataCache = try DiskCache(directory: DiskCache.defaultDirectory)
    /// configuration.memoryCache = MemoryCache<String, Image>(costLimit: 256 << 20)
    /// configuration.processingQueue = WorkQueue(label: "images", maxConcurrentCount: 2)
    /// let manager = ImageManager(configuration: configuration)
    /// ```
    ///
    /// **Sizing memory.** Peak memory is about the memory cache's cost limit, plus one decoded
    /// bitmap per processing thread (``processingQueue``), plus the bitmaps callers still hold.
    /// Downloads waiting to be decoded hold only their encoded bytes.
    public struct Configuration: Sendable {
        /// Decoded images by image key. Default: a `MemoryCache` with its default
        /// limit (15% of physical memory, at most 768 MiB); `nil` keeps nothing in memory.
        public var memoryCache: (any ImageCaching)?
        /// Encoded bytes on disk. Default `nil`: nothing on disk.
        public var dataCache: (any DataCaching)?
        /// What ``dataCache`` keeps. Default ``DataCachePolicy/originalData``.
        public var dataCachePolicy: DataCachePolicy
        /// Encodes finished images for ``DataCachePolicy/processedImages``. Default
        /// `DefaultImageSerializer`.
        public var serializer: any ImageSerializing
        /// Moves the bytes. Default: a new ``ImageDownloader`` with its default configuration.
        public var downloader: ImageDownloader
        /// The decoders: the pipeline's only registry. Default `ImageCoderRegistry.shared`.
        public var coders: ImageCoderRegistry
        /// Where decoding, transforms and encoding run: at most its thread count at once, highest
        /// priority first. Default `WorkQueue.processing` (one thread per core).
        public var processingQueue: WorkQueue
        /// Where disk-cache reads run. Default: two threads of its own.
        public var dataCacheQueue: WorkQueue
        /// Limits for requests that set none. Default `DecodingLimits.default`.
        public var decodingLimits: DecodingLimits
        /// Turns a URL into its data key (to drop a signature from the query, say), for requests
        /// without their own ``ImageRequest/cacheKey``. Default `nil`: the URL's absolute string.
        public var cacheKeyFilter: (@Sendable (URL) -> String)?
        /// Keep encoded results (``ImageManager/loadEncodedImage(with:source:)``) in memory a
        /// short while after they are made, so identical loads that straggle in just after (a
        /// client's next connection, a CDN's second miss) share them as they share one in flight.
        /// Default `nil`: none kept.
        public var resultRetention: ResultRetention?
        /// Encoded results (``ImageManager/loadEncodedImage(with:source:)``) on disk, so a result
        /// asked for again is read, not made again: what thumbor's result storage and a CDN do for
        /// other services. A result is stored under its source's data key, the digest of the
        /// source's bytes, every setting that changes the pixels and the output's settings, so
        /// other bytes under the same URL (the origin replaced them) never meet an old result, and
        /// its source's freshness is the result's. Written in the background through the
        /// pipeline's one disk writer per cache, atomically; read before anything is decoded;
        /// purged with its source (``ImageManager/Cache/purge(_:)``). Results passed through
        /// unchanged are not stored (they are the source). A `DiskCache` of its own namespace
        /// and size is the usual choice. Default `nil`: results are not stored.
        public var resultCache: (any DataCaching)?
        /// Results shared by every instance of a service (``SharedResultStoring``, such as
        /// ``ObjectStoreResults``), behind ``resultCache``: read after a miss there (and copied
        /// into it), written in the background after a render (at most 16 uploads at once; more
        /// are skipped), purged with their source. Needs ``resultCache``. A failed read counts
        /// as a miss. Default `nil`.
        public var sharedResults: (any SharedResultStoring)?
        /// Original bytes of `http(s)` sources shared by every instance, behind ``dataCache``:
        /// after a miss there, a source another instance downloaded is taken from here (with its
        /// origin's validators, freshness and route, so the policy and freshness rules apply as
        /// to a local entry: a stale one is revalidated with the origin, a refused one refused),
        /// and a download is uploaded in the background; purged with the source. Default `nil`.
        public var sharedSources: (any SharedResultStoring)?
        /// Keep recent decodes of a source in memory, up to this many bytes of pixels, so another
        /// size of the same source costs a resize, not a decode (``ImageManager/DecodedImageRetention``).
        /// Default `nil`: decodes are shared while in flight, and not kept.
        public var decodedImageRetention: DecodedImageRetention?
        /// Decode some formats in sandboxed worker processes (`DecoderIsolation`): the manager
        /// decodes through ``coders`` made isolating (`ImageCoderRegistry.isolating(_:)`), whose
        /// workers start at the first decode of an isolated format. The executable must call
        /// `DecoderWorker.runIfRequested()` first thing in `main`. Default `nil`: every decode in
        /// this process.
        public var decoderIsolation: DecoderIsolation?
        /// How long downloaded bytes stay fresh on disk, from the origin's headers; a stale entry
        /// is revalidated before use. Default ``CacheFreshness/origin``: the origin's word, and
        /// bytes that carry none kept until evicted.
        public var freshness: CacheFreshness = .origin
        /// Renders in flight at once: the encode stage's work on a miss (decode, transform and
        /// encode, or a conversion in rows) for ``ImageManager/loadEncodedImage(with:source:)``.
        /// The loads past it wait holding only their source, so memory does not grow with the
        /// queue; a result already stored or kept takes no place. Highest priority first. Default
        /// `nil`: one more than ``processingQueue``'s threads (one reads its source or hands its
        /// answer on while the others keep the threads busy).
        public var maxConcurrentRenders: Int?
        /// Conversions that leave every pixel as decoded stream rows from decoder to encoder
        /// (tests turn it off to compare with the whole-image path). Default `true`.
        package var streamsConversions = true
        /// How long a finished image held for another encode (``ImageRequest/holdsProcessedImage``)
        /// waits to be taken (tests hold it longer than a loaded machine's loads take). Default 30 s.
        package var processedHoldTime = ProcessedHandoff.defaultHoldTime

        /// Creates a configuration; every parameter defaults as documented on its property.
        public init(
            memoryCache: (any ImageCaching)? = MemoryCache<String, Image>(), dataCache: (any DataCaching)? = nil,
            dataCachePolicy: DataCachePolicy = .originalData, serializer: any ImageSerializing = DefaultImageSerializer(),
            downloader: ImageDownloader = ImageDownloader(), coders: ImageCoderRegistry = .shared,
            processingQueue: WorkQueue = .processing,
            dataCacheQueue: WorkQueue = WorkQueue(label: "imago.disk-reads", maxConcurrentCount: 2),
            decodingLimits: DecodingLimits = .default, cacheKeyFilter: (@Sendable (URL) -> String)? = nil
        ) {
            self.memoryCache = memoryCache
            self.dataCache = dataCache
            self.dataCachePolicy = dataCachePolicy
            self.serializer = serializer
            self.downloader = downloader
            self.coders = coders
            self.processingQueue = processingQueue
            self.dataCacheQueue = dataCacheQueue
            self.decodingLimits = decodingLimits
            self.cacheKeyFilter = cacheKeyFilter
        }
    }
}

extension ImageManager {
    /// How many decoded pixels are kept for other sizes of the same source
    /// (``Configuration/decodedImageRetention``).
    ///
    /// A decode that shrinks on load (a JPEG's DCT scaling, WebP's scaled decode) is kept in
    /// memory under its source's digest. A later load of the same bytes that asks for a size the
    /// kept decode covers, with at least a sixteenth of the kept decode's pixels (two DCT
    /// scales), resizes the kept decode instead of decoding: one 1/4-scale decode of a 12-MP
    /// photo (1000 px wide) serves every width from 250 px to 1000. A new decode replaces the kept ones it covers, so a hot
    /// source keeps the decode that serves the sizes asked of it. Thumbnails, pages, animations
    /// and embedded thumbnails are not kept; identical decodes in flight are shared either way.
    public struct DecodedImageRetention: Sendable, Hashable {
        /// The most bytes of pixels kept; one source's decodes may take at most half.
        public var costLimit: Int
        /// How long a source's decodes are kept after they were last used. Default 5 minutes.
        public var ageLimit: Duration

        /// Creates a retention policy.
        public init(costLimit: Int, ageLimit: Duration = .seconds(300)) {
            self.costLimit = costLimit
            self.ageLimit = ageLimit
        }
    }
}
