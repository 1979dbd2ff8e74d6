// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCoders
import ImagoCore
import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The stages behind ``ImageManager``: fetch (original bytes), decode, process, encode. Each is a
/// `SharedTasks` table, so identical work at every stage is done once, cancelled when
/// its last subscriber leaves, and runs at its most urgent subscriber's priority.
///
/// ```
/// encode[EncodeKey] ── process[ProcessKey] ── decode[DecodeKey] ── fetch[FetchKey] ── downloader[URL]
/// pass-through, rows,   memory, transforms     one decode step      staged writes,      bytes only
/// encode, max_bytes     processed on disk      (final + partial)    disk, network
/// ```
///
/// An ``ImageTask`` enters at the process stage; ``ImageManager/loadEncodedImage(with:source:)``
/// at the encode stage, which fetches first (or takes the caller's ``LoadedSource``) so the
/// header decides the way, and hands the fetched source down so nothing is fetched or parsed twice.
///
/// CPU work (decode, transform, encode) runs on the configuration's processing queue, disk
/// reads on its data-cache queue, disk writes through one ``DiskWriter``.
final class ImagePipeline: Sendable {
    let configuration: ImageManager.Configuration
    let failedURLs: FailedURLList
    let writer: DiskWriter?
    /// Writes to ``ImageManager/Configuration/resultCache``.
    let resultWriter: DiskWriter?
    let logger = Logger(label: "imago.manager")

    let fetches = SharedTasks<ImageRequestKeys.FetchKey, FetchedData, FetchEvent>(name: "fetch")
    let decodes = SharedTasks<ImageRequestKeys.DecodeKey, DecodedImage, ImageStageEvent>(name: "decode")
    let processes = SharedTasks<ImageRequestKeys.ProcessKey, ProcessedImage, ImageStageEvent>(name: "process")
    let encodes = SharedTasks<ImageRequestKeys.EncodeKey, EncodedImage, Never>(name: "encode")
    /// Renders in flight (``ImageManager/Configuration/maxConcurrentRenders``).
    let renders: PriorityGate
    /// Encoded results kept a short while (``ImageManager/Configuration/resultRetention``).
    let results: MemoryCache<ImageRequestKeys.EncodeKey, EncodedImage>?
    /// Recent decodes kept for other sizes of their source (``ImageManager/Configuration/decodedImageRetention``).
    let intermediates: DecodedIntermediates?
    /// Finished images held for another encode of the same pixels (``ImageRequest/holdsProcessedImage``).
    let handoffs: ProcessedHandoff
    /// Encodes started, and those that streamed rows: what tests of coalescing count.
    let encodesStarted = Atomic<Int>(0)
    let encodesStreamed = Atomic<Int>(0)
    /// Decodes served by a kept decode (``intermediates``) instead of decoding.
    let decodesReused = Atomic<Int>(0)
    /// Processes served by a held finished image (``handoffs``) instead of decoding and transforming.
    let processedReused = Atomic<Int>(0)
    /// Uploads to ``ImageManager/Configuration/sharedResults`` under way (at most
    /// ``maxSharedUploads``), and results found there.
    let sharedUploads = Atomic<Int>(0)
    let sharedHits = Atomic<Int>(0)
    /// Sources found in ``ImageManager/Configuration/sharedSources`` instead of downloaded.
    let sharedSourceHits = Atomic<Int>(0)
    /// Uploads to the shared results at once; more are skipped (the next instance to need the
    /// result makes it, or finds it after another's upload).
    static let maxSharedUploads = 16

    init(configuration: ImageManager.Configuration, failedURLs: FailedURLList) {
        self.configuration = configuration
        self.failedURLs = failedURLs
        writer = configuration.dataCache.map(DiskWriter.init)
        resultWriter = configuration.resultCache.map(DiskWriter.init)
        intermediates = configuration.decodedImageRetention.map(DecodedIntermediates.init)
        handoffs = ProcessedHandoff(holdFor: configuration.processedHoldTime)
        renders = PriorityGate(limit: configuration.maxConcurrentRenders ?? configuration.processingQueue.maxConcurrentCount + 1)
        results = configuration.resultRetention.map {
            MemoryCache(costLimit: $0.costLimit, ageLimit: $0.ageLimit, entryCostRatio: 0.25)
        }
    }

    func keys(for request: ImageRequest) -> ImageRequestKeys {
        ImageRequestKeys(request: request, cacheKeyFilter: configuration.cacheKeyFilter, limits: configuration.decodingLimits)
    }

    /// Whether the request has processing whose result the disk may keep.
    func storesProcessed(_ request: ImageRequest) -> Bool {
        configuration.dataCachePolicy != .originalData
            && (request.thumbnail != nil || request.scaleDownLimitBytes != nil || !request.transformers.isEmpty)
    }

    /// Whether the original bytes of `request` go to disk.
    func storesOriginal(_ request: ImageRequest) -> Bool {
        configuration.dataCachePolicy != .processedImages || !storesProcessed(request)
    }

    /// Reads `key` from the disk cache on the data-cache queue. A failing cache counts as a miss
    /// (logged), unless the load may not go elsewhere (`strict`), where it is an error.
    func readDisk(_ key: String, priority: any PrioritySource, strict: Bool) async throws -> CachedData? {
        guard let cache = configuration.dataCache else { return nil }
        if let pending = writer?.pending(forKey: key) { return pending }
        return try await onDataCacheQueue(key, priority: priority, strict: strict) { try cache.cachedData(forKey: key) }
    }

    /// Opens `key` in `cache` (the sources' disk cache or the results') where it lies
    /// (`DataCaching.openEntry(forKey:)`), on the data-cache queue; failures as
    /// ``readDisk(_:priority:strict:)``'s.
    func openDisk(
        _ key: String, in cache: (any DataCaching)?, priority: any PrioritySource, strict: Bool
    ) async throws -> CachedEntry? {
        guard let cache else { return nil }
        return try await onDataCacheQueue(key, priority: priority, strict: strict) { try cache.openEntry(forKey: key) }
    }

    /// Runs a blocking cache call on the data-cache queue, never on the cooperative pool.
    private func onDataCacheQueue<T: Sendable>(
        _ key: String, priority: any PrioritySource, strict: Bool,
        _ body: @escaping @Sendable () throws -> T?
    ) async throws -> T? {
        do {
            return try await configuration.dataCacheQueue.run(priority: priority, body)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if strict { throw ImageLoadingError.cacheFailed(error as? DiskCacheError ?? .store(String(describing: error))) }
            logger.warning("disk cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }
}
