#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCache
public import ImagoCoders
import ImagoCore
import Dispatch
import ImagoProcessing
import Logging
import Synchronization

/// Loads images: memory cache, then disk cache, then the network; decodes (thumbnail, scale-down),
/// transforms and stores the result (SDWebImage's `SDWebImageManager`).
///
/// - **Keys.** The original bytes are stored on disk under the original key (the URL, or what
///   the context's cache-key filter makes of it); the final image goes to memory under the
///   original key plus the transformer's and thumbnail's keys, as SDWebImage does.
/// - **Coalescing.** Identical loads (same final key and same options) share one job: one
///   download, one decode, one transform. Loads that differ only in processing still share the
///   download through the ``ImageDownloader``. A caller leaving does not stop the job for the
///   others; the last one leaving cancels it.
/// - **Failed URLs.** A URL that failed for a lasting reason (see ``FailedURLList``) is refused
///   with ``ImageLoadingError/blockedFailedURL(_:)`` until ``ImageLoadOptions/retryFailed``.
/// - **Revalidation.** ``ImageLoadOptions/refreshCached`` sends the stored `ETag` and
///   `Last-Modified` (kept in the disk cache's entry metadata); a 304 keeps the cached bytes.
public final class ImageManager: Sendable {
    /// The shared manager: ``ImageDownloader/shared`` and a memory cache over a disk cache in
    /// ``ImagoCache/DiskCache/defaultDirectory`` (memory only when that cannot be opened).
    public static let shared: ImageManager = {
        let disk = try? DiskCache(directory: DiskCache.defaultDirectory)
        return ImageManager(cache: ImageCache(disk: disk), downloader: .shared)
    }()

    /// The default cache.
    public let cache: any ImageStoring
    /// The default downloader.
    public let downloader: ImageDownloader
    /// The default coders.
    public let coders: ImageCoders
    /// URLs refused until retried.
    public let failedURLs = FailedURLList()

    private let jobs = Mutex(Jobs())
    /// Disk stores running in the background, so ``finishPendingStores()`` can wait for them.
    private let pendingStores = Mutex<[Int: Task<Void, Never>]>([:])
    private let storeIDs = Atomic<Int>(0)
    /// Background disk writes to an `ImageCache`'s disk layer, one at a time.
    private let ioQueue = DispatchQueue(label: "imago.manager.io", qos: .utility)
    private let ioGroup = DispatchGroup()
    private let logger = Logger(label: "imago.manager")

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - cache: Default: a memory-only ``ImagoCache/ImageCache``.
    ///   - downloader: Default: a new ``ImageDownloader`` with the default configuration.
    ///   - coders: Default ``ImagoCoders/ImageCoders/shared``.
    public init(cache: any ImageStoring = ImageCache(), downloader: ImageDownloader = ImageDownloader(), coders: ImageCoders = .shared) {
        self.cache = cache
        self.downloader = downloader
        self.coders = coders
    }

    /// The original cache key of `url` under `context`.
    public func cacheKey(for url: URL, context: ImageLoadContext = ImageLoadContext()) -> String {
        context.cacheKeyFilter?(url) ?? url.absoluteString
    }

    /// The memory-cache key of the final image: the original key plus the thumbnail's and the
    /// transformer's keys.
    public func finalCacheKey(for url: URL, context: ImageLoadContext = ImageLoadContext()) -> String {
        var key = cacheKey(for: url, context: context)
        if let size = context.thumbnailPixelSize {
            key = TransformedKey.thumbnailKey(key, size: size, preserveAspectRatio: context.preserveAspectRatio)
        }
        if let transformer = context.transformer { key = TransformedKey.key(key, transformerKey: transformer.key) }
        return key
    }

    /// Loads the image at `url`.
    ///
    /// The memory-cache check runs on the caller's executor (`nonisolated(nonsending)`), so a
    /// hit from the main actor returns without a hop to another thread (about 0.3 µs); the
    /// download, decode and transforms of a miss run in a shared job off the caller.
    ///
    /// - Parameters:
    ///   - options: Default none.
    ///   - context: Default ``ImageLoadContext/init(cacheKeyFilter:cacheSerializer:transformer:thumbnailPixelSize:preserveAspectRatio:scaleDownLimitBytes:cache:downloader:coders:queryCacheType:storeCacheType:headers:decodeOptions:)``'s defaults.
    /// - Throws: ``ImageLoadingError``: the download's errors, ``ImageLoadingError/decodingFailed(_:)``,
    ///   ``ImageLoadingError/notCached`` (``ImageLoadOptions/fromCacheOnly``),
    ///   ``ImageLoadingError/blockedFailedURL(_:)``, ``ImageLoadingError/cancelled`` when the calling task is cancelled.
    nonisolated(nonsending) public func loadImage(with url: URL, options: ImageLoadOptions = [],
                                                  context: ImageLoadContext = ImageLoadContext()) async throws -> ImageLoadResult {
        if let hit = try await memoryHit(url, options: options, context: context) { return hit }
        let (stream, cancel) = subscribe(url, options: options, context: context, resultOnly: true)
        return try await withTaskCancellationHandler {
            do {
                for try await event in stream {
                    if case .completed(let result) = event { return result }
                }
            } catch {
                throw ImageDownloader.loadingError(error)
            }
            throw ImageLoadingError.cancelled
        } onCancel: {
            cancel()
        }
    }

    /// The same load as ``loadImage(with:options:context:)``, as a stream of progress, partial
    /// images and the result. Stop iterating to leave the load.
    public func imageEvents(with url: URL, options: ImageLoadOptions = [],
                            context: ImageLoadContext = ImageLoadContext()) -> AsyncThrowingStream<ImageLoadEvent, any Error> {
        subscribe(url, options: options, context: context).stream
    }

    /// Waits until every disk store started in the background (without
    /// ``ImageLoadOptions/waitStoreCache``) has finished: before a process exits, say.
    public func finishPendingStores() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in ioGroup.notify(queue: .global()) { c.resume() } }
        while true {
            let snapshot = pendingStores.withLock { $0 }
            if snapshot.isEmpty { return }
            for task in snapshot.values { await task.value }
            pendingStores.withLock { stores in for id in snapshot.keys { stores[id] = nil } }
        }
    }

    // MARK: Jobs

    private struct JobKey: Hashable {
        var finalKey: String
        var options: ImageLoadOptions
        var decode: DecodeOptions
        var scaleDownLimit: Int
        var headers: [String: String]
        var queryType: ImageCacheType
        var storeType: ImageCacheType
    }

    private final class Job: @unchecked Sendable {
        // Fields are touched only under the manager's `jobs` lock.
        var subscribers: [Int: AsyncThrowingStream<ImageLoadEvent, any Error>.Continuation] = [:]
        /// Subscribers that want progress and partial images, not only the result.
        var followers: Set<Int> = []
        var task: Task<Void, Never>?
    }

    private struct Jobs {
        var nextID = 0
        var byKey: [JobKey: Job] = [:]
    }

    /// Joins (or starts) the job for this load. `resultOnly` subscribers (``loadImage``) are not
    /// woken for progress or partial images.
    private func subscribe(_ url: URL, options: ImageLoadOptions, context: ImageLoadContext,
                           resultOnly: Bool = false) -> (stream: AsyncThrowingStream<ImageLoadEvent, any Error>, cancel: @Sendable () -> Void) {
        let (stream, continuation) = AsyncThrowingStream<ImageLoadEvent, any Error>.makeStream()
        let key = JobKey(finalKey: finalCacheKey(for: url, context: context), options: options, decode: context.decodeOptions,
                         scaleDownLimit: context.scaleDownLimitBytes, headers: context.headers,
                         queryType: context.queryCacheType, storeType: context.storeCacheType)
        let id = jobs.withLock { j -> Int in
            j.nextID += 1
            let id = j.nextID
            let job: Job
            if let existing = j.byKey[key] {
                job = existing
            } else {
                job = Job()
                j.byKey[key] = job
                job.task = Task { [self] in await self.run(job, key: key, url: url, options: options, context: context) }
            }
            job.subscribers[id] = continuation
            if !resultOnly { job.followers.insert(id) }
            return id
        }
        let leave: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            let c = self.jobs.withLock { j -> AsyncThrowingStream<ImageLoadEvent, any Error>.Continuation? in
                guard let job = j.byKey[key], let c = job.subscribers.removeValue(forKey: id) else { return nil }
                job.followers.remove(id)
                if job.subscribers.isEmpty {
                    job.task?.cancel()
                    j.byKey[key] = nil
                }
                return c
            }
            c?.finish(throwing: ImageLoadingError.cancelled)
        }
        continuation.onTermination = { _ in leave() }
        return (stream, leave)
    }

    private func broadcast(_ event: ImageLoadEvent, in job: Job) {
        let targets = jobs.withLock { _ in job.followers.compactMap { job.subscribers[$0] } }
        for c in targets { c.yield(event) }
    }

    private func run(_ job: Job, key: JobKey, url: URL, options: ImageLoadOptions, context: ImageLoadContext) async {
        let outcome: Result<ImageLoadResult, ImageLoadingError>
        do {
            outcome = .success(try await load(url, options: options, context: context, finalKey: key.finalKey) { [self] event in
                broadcast(event, in: job)
            })
        } catch {
            outcome = .failure(ImageDownloader.loadingError(error))
        }
        let targets = jobs.withLock { j -> [AsyncThrowingStream<ImageLoadEvent, any Error>.Continuation] in
            if j.byKey[key] === job { j.byKey[key] = nil }
            let subs = Array(job.subscribers.values)
            job.subscribers = [:]
            return subs
        }
        switch outcome {
        case .success(let result):
            for c in targets { c.yield(.completed(result)); c.finish() }
        case .failure(let error):
            for c in targets { c.finish(throwing: error) }
        }
    }

    // MARK: The pipeline

    /// The memory cache, checked before any job (no task, no lock beyond the cache's own).
    nonisolated(nonsending) private func memoryHit(_ url: URL, options: ImageLoadOptions,
                                                   context: ImageLoadContext) async throws -> ImageLoadResult? {
        guard !options.contains(.fromLoaderOnly), !options.contains(.refreshCached), context.queryCacheType == .memory || context.queryCacheType == .all
        else { return nil }
        let cache = context.cache ?? self.cache
        let finalKey = finalCacheKey(for: url, context: context)
        guard let hit = try await cache.image(forKey: finalKey, cacheType: .memory, options: context.decodeOptions) else { return nil }
        var data: Data?
        if options.contains(.queryMemoryData) {
            data = try await cache.data(forKey: cacheKey(for: url, context: context))
        }
        return ImageLoadResult(image: hit.image, data: data, source: .memory, url: url, cacheKey: finalKey)
    }

    private func load(_ url: URL, options: ImageLoadOptions, context: ImageLoadContext, finalKey: String,
                      emit: @escaping @Sendable (ImageLoadEvent) -> Void) async throws -> ImageLoadResult {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty,
              scheme == "file" || scheme == "data" || url.host?.isEmpty == false else {
            failedURLs.insert(url)
            throw ImageLoadingError.invalidURL(url.absoluteString)
        }
        if failedURLs.contains(url), !options.contains(.retryFailed) {
            throw ImageLoadingError.blockedFailedURL(url.absoluteString)
        }
        do {
            let result = try await pipeline(url, options: options, context: context, finalKey: finalKey, emit: emit)
            if result.source == .network { failedURLs.remove(url) }
            return result
        } catch {
            let e = ImageDownloader.loadingError(error)
            if FailedURLList.blocks(e) { failedURLs.insert(url) }
            throw e
        }
    }

    private func pipeline(_ url: URL, options: ImageLoadOptions, context: ImageLoadContext, finalKey: String,
                          emit: @escaping @Sendable (ImageLoadEvent) -> Void) async throws -> ImageLoadResult {
        let cache = context.cache ?? self.cache
        let coders = context.coders ?? self.coders
        let originalKey = cacheKey(for: url, context: context)
        let decodeOptions = decodeOptions(options, context)
        let queryDisk = context.queryCacheType == .disk || context.queryCacheType == .all

        // Memory, once more inside the job (another job may have just stored it).
        if let hit = try await memoryHit(url, options: options, context: context) { return hit }

        // Disk: the original bytes, decoded and processed as from the network.
        var revalidate: CachedResponse?
        if !options.contains(.fromLoaderOnly), queryDisk {
            if options.contains(.refreshCached) {
                revalidate = try cachedResponse(originalKey, cache: cache)
            } else if let data = try await cache.data(forKey: originalKey) {
                let image = try await process(data, options: options, context: context, coders: coders, decode: decodeOptions)
                try await store(image, data: nil, finalKey: finalKey, originalKey: originalKey, response: nil, options: options,
                                context: context, cache: cache)
                return ImageLoadResult(image: image, data: data, source: .disk, url: url, cacheKey: finalKey)
            }
        }
        if options.contains(.fromCacheOnly) { throw ImageLoadingError.notCached }

        // The network.
        let downloader = context.downloader ?? self.downloader
        let priority: ImageDownloadPriority = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
        var request = ImageDownloadRequest(url: url, priority: priority, headers: context.headers,
                                           decodeOptions: options.contains(.progressiveLoad) ? decodeOptions : nil,
                                           progressive: options.contains(.progressiveLoad), cachedResponse: revalidate)
        request.decodesResult = false
        let download = try await downloader.download(request, progress: { emit(.progress($0)) },
                                                     partialImage: { emit(.partialImage($0)) })
        let image = try await process(download.data, options: options, context: context, coders: coders, decode: decodeOptions)
        try await store(image, data: download.notModified ? nil : download.data, finalKey: finalKey, originalKey: originalKey,
                        response: download.response, options: options, context: context, cache: cache)
        return ImageLoadResult(image: image, data: download.data, source: .network, url: url, cacheKey: finalKey,
                               revalidated: download.notModified)
    }

    private func decodeOptions(_ options: ImageLoadOptions, _ context: ImageLoadContext) -> DecodeOptions {
        var d = context.decodeOptions
        if options.contains(.decodeFirstFrameOnly) { d.firstFrameOnly = true }
        if options.contains(.avoidDecodeImage) { d.decodesFramesLazily = true }
        if options.contains(.preloadAllFrames) { d.decodesFramesLazily = false }
        return d
    }

    /// Decodes (thumbnail or scale-down as asked) and transforms, off the cooperative pool's hot path.
    private func process(_ data: Data, options: ImageLoadOptions, context: ImageLoadContext, coders: ImageCoders,
                         decode: DecodeOptions) async throws -> Image {
        let thumbnail = context.thumbnailPixelSize
        let preserve = context.preserveAspectRatio
        let scaleDown = options.contains(.scaleDownLargeImages) ? context.scaleDownLimitBytes : nil
        let transformer = context.transformer
        let animated = options.contains(.transformAnimatedImage)
        let preload = options.contains(.preloadAllFrames)
        return try await Task.detached(priority: .userInitiated) { () throws -> Image in
            var image: Image
            do {
                if let thumbnail {
                    image = try Thumbnailer.thumbnail(of: data, fitting: thumbnail, preserveAspectRatio: preserve, options: decode, coders: coders)
                } else if let scaleDown {
                    image = try ScaleDown.decode(data, limitBytes: scaleDown, options: decode, coders: coders)
                } else {
                    image = try coders.decode(data, options: decode)
                }
                if preload, image.animation != nil { image = try image.decodingAllFrames(limits: decode.limits) }
                if let transformer, !image.isAnimated || animated {
                    image = try transformer.transform(image.isAnimated ? image.decodingAllFrames(limits: decode.limits) : image,
                                                      animated: animated)
                }
            } catch let e as ImageCodingError {
                throw ImageLoadingError.decodingFailed(e)
            }
            return image
        }.value
    }

    /// The final image to memory under the final key at once; the original bytes to disk under
    /// the original key (with the validators) in the background unless ``ImageLoadOptions/waitStoreCache``.
    private func store(_ image: Image, data: Data?, finalKey: String, originalKey: String, response: DataLoadResponse?,
                       options: ImageLoadOptions, context: ImageLoadContext, cache: any ImageStoring) async throws {
        let storeType = context.storeCacheType
        let serializer = context.cacheSerializer
        let logger = self.logger
        // Memory at once, so a load arriving after this one finds it there.
        if storeType == .memory || storeType == .all {
            try await cache.store(image, data: nil, forKey: finalKey, cacheType: .memory)
        }
        guard storeType == .disk || storeType == .all else { return }
        let work: @Sendable () async throws -> Void = {
            if let data {
                var metadata: [String: String] = [:]
                if let etag = response?.etag { metadata["etag"] = etag }
                if let modified = response?.lastModified { metadata["last-modified"] = modified }
                if let disk = (cache as? ImageCache)?.disk {
                    try disk.setData(data, forKey: originalKey, metadata: metadata)   // bytes and validators in one write
                } else {
                    try await cache.store(nil, data: data, forKey: originalKey, cacheType: .disk)
                }
            } else if let serializer, finalKey == originalKey,
                      try await cache.containsImage(forKey: originalKey, cacheType: .disk) == nil {
                try await cache.store(nil, data: try serializer.serialize(image), forKey: originalKey, cacheType: .disk)
            }
        }
        if options.contains(.waitStoreCache) {
            try await work()
        } else if let data, let disk = (cache as? ImageCache)?.disk {
            // The common case, off the cooperative pool: one serial I/O queue, as SDWebImage's
            // ioQueue, so disk writes never hold a thread that decodes.
            var metadata: [String: String] = [:]
            if let etag = response?.etag { metadata["etag"] = etag }
            if let modified = response?.lastModified { metadata["last-modified"] = modified }
            let pending = metadata
            ioGroup.enter()
            ioQueue.async { [ioGroup] in
                do { try disk.setData(data, forKey: originalKey, metadata: pending) } catch {
                    logger.debug("cache store failed", metadata: ["key": "\(originalKey)", "error": "\(error)"])
                }
                ioGroup.leave()
            }
        } else {
            let id = storeIDs.wrappingAdd(1, ordering: .relaxed).newValue
            let task = Task.detached(priority: .utility) { [weak self] in
                do { try await work() } catch { logger.debug("cache store failed", metadata: ["key": "\(originalKey)", "error": "\(error)"]) }
                _ = self?.pendingStores.withLock { $0.removeValue(forKey: id) }
            }
            pendingStores.withLock { stores in
                // Registered after it may already have finished: keep it only while it runs.
                stores[id] = task
            }
        }
    }

    /// The disk copy and its validators, for a conditional request.
    private func cachedResponse(_ key: String, cache: any ImageStoring) throws -> CachedResponse? {
        guard let disk = (cache as? ImageCache)?.disk, let entry = try disk.entry(forKey: key) else { return nil }
        return CachedResponse(data: entry.data, etag: entry.entry.metadata["etag"], lastModified: entry.entry.metadata["last-modified"])
    }
}
