// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Loads images: memory cache, then disk cache, then the network; decodes (thumbnail,
/// scale-down), transforms and stores the result (SDWebImage's `SDWebImageManager`, built as
/// Nuke's pipeline).
///
/// ```swift
/// import Imago
///
/// let manager = ImageManager.shared
/// let result = try await manager.loadImage(with: URL(string: "https://example.com/photo.jpg")!)
/// print(result.image.pixelSize, result.source)      // 4032x3024 network
///
/// var thumb = ImageRequest(url: URL(string: "https://example.com/photo.jpg")!)
/// thumb.thumbnail = .init(maxPixelSize: PixelSize(width: 256, height: 256))
/// let small = try await manager.loadImage(with: thumb) // no second download
/// ```
///
/// - **One identity per request.** Every key comes from the ``ImageRequest``: the original
///   bytes are stored on disk under its data key, the finished image in memory under its image
///   key (``imageKey(for:)``), which adds every setting that changes the pixels.
/// - **Shared work.** Loads share each stage they agree on: identical requests share
///   everything, a thumbnail and a full load of one URL share the download. Work stops when its
///   last caller leaves, and runs at its most urgent caller's priority.
/// - **Bounded work.** Decoding, transforms and encoding run on the configuration's
///   processing queue (one thread per core by default), highest priority first; a load that
///   is cancelled while it waits there never runs.
/// - **Failed URLs.** A URL that failed for a lasting reason (see ``FailedURLList``) is refused
///   with ``ImageLoadingError/blockedFailedURL(_:)`` until ``ImageRequest/Options/retryFailed``.
/// - **Revalidation.** ``ImageRequest/Options/refreshCached`` sends the stored `ETag` and
///   `Last-Modified`; a 304 keeps the cached bytes.
/// - **Disk writes** run in the background, one at a time. A load of a key whose write is
///   still pending is served from it; ``finishPendingStores()`` waits for them, and a normal
///   process exit waits for them too (up to 10 seconds), so nothing downloaded is lost.
public final class ImageManager: Sendable {
    /// The shared manager: the default configuration over a disk cache in
    /// `DiskCache.defaultDirectory` (memory only when that cannot be opened) and
    /// ``ImageDownloader/shared``.
    public static let shared: ImageManager = {
        var configuration = Configuration(downloader: .shared)
        configuration.dataCache = try? DiskCache(directory: DiskCache.defaultDirectory)
        return ImageManager(configuration: configuration)
    }()

    /// The configuration, fixed at creation.
    public let configuration: Configuration
    /// URLs refused until retried.
    public let failedURLs = FailedURLList()
    let pipeline: ImagePipeline

    /// Creates a manager.
    ///
    /// - Parameter configuration: Default: a ``Configuration`` with every setting at its default
    ///   (a memory cache, no disk cache, a new downloader).
    public init(configuration: Configuration = Configuration()) {
        var configuration = configuration
        if let isolation = configuration.decoderIsolation, configuration.coders.isolationStatistics == nil {
            configuration.coders = configuration.coders.isolating(isolation)
        }
        self.configuration = configuration
        pipeline = ImagePipeline(configuration: configuration, failedURLs: failedURLs)
    }

    /// The downloader.
    public var downloader: ImageDownloader { configuration.downloader }

    /// The key the original bytes of `request` are stored under on disk.
    public func dataKey(for request: ImageRequest) -> String {
        ImageRequestKeys.dataKey(of: request, cacheKeyFilter: configuration.cacheKeyFilter)
    }

    /// The key the finished image of `request` is stored under in memory (and on disk, with
    /// ``DataCachePolicy/processedImages``).
    public func imageKey(for request: ImageRequest) -> String {
        ImageRequestKeys.imageKey(of: request, cacheKeyFilter: configuration.cacheKeyFilter, limits: configuration.decodingLimits)
    }

    // MARK: Loading

    /// Loads the image at `url` with the default request.
    ///
    /// - Throws: as ``loadImage(with:)-(ImageRequest)``.
    nonisolated(nonsending) public func loadImage(with url: URL) async throws(ImageLoadingError) -> ImageLoadResult {
        try await loadImage(with: ImageRequest(url: url))
    }

    /// Loads `request`.
    ///
    /// The memory-cache check runs on the caller's executor, without a suspension, so a hit
    /// from the main actor returns without a hop to another thread (well under a microsecond);
    /// the work of a miss runs in shared stages off the caller.
    ///
    /// - Throws: ``ImageLoadingError``: the download's errors, ``ImageLoadingError/decodingFailed(_:)``,
    ///   ``ImageLoadingError/processingFailed(transformer:underlying:)``,
    ///   ``ImageLoadingError/notCached`` (``ImageRequest/Options/fromCacheOnly``),
    ///   ``ImageLoadingError/blockedFailedURL(_:)``, ``ImageLoadingError/cancelled`` when the
    ///   calling task is cancelled.
    nonisolated(nonsending) public func loadImage(with request: ImageRequest) async throws(ImageLoadingError) -> ImageLoadResult {
        if request.options.readsMemory, !request.options.contains(.queryMemoryData), let memory = configuration.memoryCache {
            let key = ImageRequestKeys.imageKey(
                of: request, cacheKeyFilter: configuration.cacheKeyFilter,
                limits: configuration.decodingLimits)
            if let image = memory.image(forKey: key) {
                return ImageLoadResult(image: image, data: nil, source: .memory, request: request, cacheKey: key)
            }
        }
        return try await makeTask(request, keys: pipeline.keys(for: request), events: false).value
    }

    /// Decodes and transforms `request` from a source already fetched with
    /// ``loadSource(with:progress:)``, through the same shared, bounded decode and process stages
    /// (and memory cache) as ``loadImage(with:)-(ImageRequest)``, without fetching again: what a
    /// caller that has read the source's header (to plan, or to answer about it) uses to get
    /// its pixels.
    ///
    /// - Throws: ``ImageLoadingError``: ``ImageLoadingError/decodingFailed(_:)``,
    ///   ``ImageLoadingError/processingFailed(transformer:underlying:)``,
    ///   ``ImageLoadingError/cancelled`` when the calling task is cancelled.
    public func loadImage(with request: ImageRequest, source: LoadedSource) async throws(ImageLoadingError) -> ImageLoadResult {
        let keys = pipeline.keys(for: request).fetched(digest: source.digest)
        let cell = PriorityCell(request.priority)
        let task = ImageTask(
            request: request, keys: keys,
            outcome: .running(pipeline.process(request, keys: keys, priority: cell, events: false, fetched: source.fetched)),
            priority: cell, pipeline: pipeline)
        return try await task.value
    }

    /// Starts loading `request` and returns its handle: events, priority, cancellation.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        makeTask(request, keys: pipeline.keys(for: request), events: true)
    }

    /// The same load as ``loadImage(with:)-(ImageRequest)``, as a sequence of progress, partial
    /// images and the result. Stop iterating to leave the load.
    public func imageEvents(with request: ImageRequest) -> ImageLoadEvents {
        imageTask(with: request).events
    }

    /// Loads the original bytes of `request` (disk cache, else the network, storing them) without
    /// decoding them: what a tool that saves or forwards images needs, without holding bitmaps.
    ///
    /// - Throws: ``ImageLoadingError``, as ``loadImage(with:)-(ImageRequest)`` but for decoding;
    ///   ``ImageLoadingError/cacheFailed(_:)`` when a cached file cannot be read.
    ///
    /// - Parameters:
    ///   - request: What to load; its processing settings are ignored.
    ///   - progress: Called as bytes arrive. Default `nil`.
    public func loadData(
        with request: ImageRequest,
        progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil
    ) async throws(ImageLoadingError) -> DataLoadResult {
        let loaded = try await loadSource(with: request, progress: progress)
        guard loaded.image == nil else { throw .rejected("the request gives a decoded image, which has no bytes to load") }
        let data: Data
        do {
            data = try ImagePipeline.contents(of: loaded.input)
        } catch {
            throw ImageLoadingError(error)
        }
        return DataLoadResult(
            data: data, response: loaded.response, source: loaded.source, revalidated: loaded.revalidated,
            etag: loaded.etag, lastModified: loaded.lastModified)
    }

    /// Fetches the source of `request` (the disk cache, else one download shared by every load of
    /// it, stored) and decodes no pixel: what a caller needs to decide the output before asking
    /// for it. The bytes stay where they are (a cached file is not read); the header is read
    /// when ``LoadedSource/info()`` first asks. Handed to ``loadEncodedImage(with:source:)``,
    /// the source is decoded without a second fetch or a second reading of its header.
    ///
    /// ```swift
    /// let source = try await manager.loadSource(with: request)
    /// let info = try source.info()
    /// request.output.format = info.hasAlpha ? .png : .jpeg
    /// let encoded = try await manager.loadEncodedImage(with: request, source: source)
    /// ```
    ///
    /// - Parameters:
    ///   - request: What to load; its processing settings are ignored.
    ///   - progress: Called as bytes arrive. Default `nil`.
    /// - Throws: ``ImageLoadingError``, as ``loadImage(with:)-(ImageRequest)`` but for decoding.
    public func loadSource(
        with request: ImageRequest,
        progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil
    ) async throws(ImageLoadingError) -> LoadedSource {
        if let failure = refusal(of: request) { throw failure }
        let keys = pipeline.keys(for: request)
        do {
            let fetch = pipeline.fetch(request, keys: keys, priority: PriorityCell(request.priority), events: progress != nil)
            let fetched = try await fetch.value { event in
                if case .progress(let p) = event { progress?(p) }
            }
            await fetched.commitWrite(wait: request.options.contains(.waitStoreCache))
            if fetched.source == .network, let url = request.url { failedURLs.remove(url) }
            return try LoadedSource(fetched: fetched, coders: configuration.coders)
        } catch {
            let e = ImageLoadingError(error)
            if let url = request.url, FailedURLList.blocks(e) { failedURLs.insert(url) }
            throw e
        }
    }

    /// Loads `request` and encodes the finished image as its ``ImageRequest/output`` asks:
    /// the bytes a tool writes or a service sends.
    ///
    /// The encode is a stage of the pipeline: identical requests with identical outputs share one,
    /// and it runs on the processing queue right after its transform, ahead of decodes that start
    /// other loads, so a batch holds about one decoded bitmap per worker. The source's header
    /// chooses the cheapest way ( ``EncodedImageResult/Method``): the fetched bytes themselves
    /// when nothing would change them, a conversion in rows with no bitmap when every pixel stays
    /// as decoded (JPEG or PNG to JPEG or lossy WebP), else a decode (shrinking on load, in the
    /// exact pixel format when nothing resamples), the transformers and the encoder.
    ///
    /// - Parameters:
    ///   - request: What to load and how to encode it.
    ///   - source: The source, already fetched with ``loadSource(with:progress:)`` for this request.
    ///     Default `nil`: fetched here.
    /// - Throws: ``ImageLoadingError``: as ``loadImage(with:)-(ImageRequest)``, and
    ///   ``ImageLoadingError/encodingFailed(_:)`` when the output cannot be written.
    public func loadEncodedImage(with request: ImageRequest, source: LoadedSource? = nil) async throws(ImageLoadingError) -> EncodedImageResult {
        if source == nil, let failure = refusal(of: request) { throw failure }
        var keys = pipeline.keys(for: request)
        if let source { keys = keys.fetched(digest: source.digest) }
        do {
            let encoded: EncodedImage
            if let kept = pipeline.results?.value(forKey: keys.encode) {
                encoded = kept
            } else {
                encoded = try await pipeline.encode(
                    request, keys: keys, priority: PriorityCell(request.priority),
                    fetched: source?.fetched
                ).value()
            }
            var timings = encoded.timings
            if source != nil {
                // The fetch is the caller's, and is reported with its source.
                timings.diskRead = .zero
                timings.download = .zero
            }
            return EncodedImageResult(
                contents: encoded.contents, format: encoded.format, pixelSize: encoded.pixelSize, source: encoded.source,
                revalidated: encoded.revalidated, method: encoded.method, request: request, timings: timings)
        } catch {
            throw ImageLoadingError(error)
        }
    }

    /// Encodes started, and those of them that streamed rows, since the manager was made.
    package var encodeCounts: (started: Int, streamed: Int) {
        (pipeline.encodesStarted.load(ordering: .relaxed), pipeline.encodesStreamed.load(ordering: .relaxed))
    }

    /// Renders waiting for a slot and in one (``Configuration/maxConcurrentRenders``).
    package var renderCounts: (waiting: Int, holding: Int) { pipeline.renders.counts }

    /// Results read from ``Configuration/sharedResults`` (made by another instance) since the
    /// manager was made.
    package var sharedResultHits: Int { pipeline.sharedHits.load(ordering: .relaxed) }
    /// Sources taken from ``Configuration/sharedSources`` instead of downloaded.
    package var sharedSourceHits: Int { pipeline.sharedSourceHits.load(ordering: .relaxed) }
    /// Uploads to ``Configuration/sharedResults`` and ``Configuration/sharedSources`` under way.
    package var sharedUploadsInFlight: Int { pipeline.sharedUploads.load(ordering: .relaxed) }

    /// Decodes served by a kept decode of the same source instead of decoding
    /// (``Configuration/decodedImageRetention``), since the manager was made.
    package var reusedDecodeCount: Int {
        pipeline.decodesReused.load(ordering: .relaxed)
    }

    /// Lets go of the finished image `request`'s load held (``ImageRequest/holdsProcessedImage``)
    /// if no load took it: for a caller that decided against the encode it was held for.
    package func dropHeldImage(for request: ImageRequest, source: LoadedSource) {
        let keys = pipeline.keys(for: request).fetched(digest: source.digest)
        if let identity = ProcessedHandoff.identity(of: keys, digest: source.digest) { _ = pipeline.handoffs.take(identity) }
    }

    /// Loads served by the finished image another encode held for them
    /// (``ImageRequest/holdsProcessedImage``) instead of decoding and transforming, and the
    /// images held now, since the manager was made.
    package var processedHandoffCounts: (reused: Int, held: Int) {
        (pipeline.processedReused.load(ordering: .relaxed), pipeline.handoffs.count)
    }

    /// Drops the encoded results kept past their time (``Configuration/resultRetention``) now,
    /// rather than when the cache is next touched: a long-running process calls it when idle.
    public func removeExpiredResults() {
        pipeline.results?.removeExpired()
    }

    /// Waits until every disk write queued so far is done: sources, processed images and results.
    ///
    /// A process that exits normally (returning from `main`, or calling `exit`) need not call
    /// it: an exit handler waits up to 10 seconds for the writes of every manager still alive.
    /// Call it where waiting matters sooner: before handing the cache directory to another
    /// process, before reporting that a batch is stored, or in a service's graceful shutdown.
    public func finishPendingStores() async {
        await pipeline.writer?.flush()
        await pipeline.resultWriter?.flush()
    }

    // MARK: Tasks

    private func makeTask(_ request: ImageRequest, keys: ImageRequestKeys, events: Bool) -> ImageTask {
        let cell = PriorityCell(request.priority)
        let outcome: ImageTask.Outcome
        if let failure = refusal(of: request) {
            outcome = .finished(.failure(failure))
        } else if request.options.readsMemory, let image = configuration.memoryCache?.image(forKey: keys.imageKey) {
            outcome = .finished(.success(ProcessedImage(image: image, bytes: nil, source: .memory, revalidated: false)))
        } else {
            outcome = .running(pipeline.process(request, keys: keys, priority: cell, events: events))
        }
        return ImageTask(request: request, keys: keys, outcome: outcome, priority: cell, pipeline: pipeline)
    }

    /// Why `request` is refused before any work: an unusable URL (which joins the failed-URL
    /// list) or one already on it.
    private func refusal(of request: ImageRequest) -> ImageLoadingError? {
        guard let url = request.url else { return nil }
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty,
            scheme == "file" || scheme == "data" || url.host?.isEmpty == false
        else {
            failedURLs.insert(url)
            return .invalidURL(url.absoluteString)
        }
        if failedURLs.contains(url), !request.options.contains(.retryFailed) {
            return .blockedFailedURL(url.absoluteString)
        }
        return nil
    }
}
