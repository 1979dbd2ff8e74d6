#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCache
import ImagoCoders
import ImagoCore
import Logging

/// The stages behind ``ImageManager``: fetch (original bytes), decode, process. Each is a
/// `SharedTasks` table, so identical work at every stage is done once, cancelled when
/// its last subscriber leaves, and runs at its most urgent subscriber's priority.
///
/// ```
/// ImageTask ── process[ProcessKey] ── decode[DecodeKey] ── fetch[FetchKey] ── downloader[URL]
///              memory, transforms     one decode step      staged writes,      bytes only
///              processed on disk      (final + partial)    disk, network
/// ```
///
/// CPU work (decode, transform, encode) runs on the configuration's processing queue, disk
/// reads on its data-cache queue, disk writes through one ``DiskWriter``.
final class ImagePipeline: Sendable {
    let configuration: ImageManager.Configuration
    let failedURLs: FailedURLList
    let writer: DiskWriter?
    let logger = Logger(label: "imago.manager")

    let fetches = SharedTasks<ImageRequestKeys.FetchKey, FetchedData, FetchEvent>()
    let decodes = SharedTasks<ImageRequestKeys.DecodeKey, DecodedImage, ImageStageEvent>()
    let processes = SharedTasks<ImageRequestKeys.ProcessKey, ProcessedImage, ImageStageEvent>()

    init(configuration: ImageManager.Configuration, failedURLs: FailedURLList) {
        self.configuration = configuration
        self.failedURLs = failedURLs
        writer = configuration.dataCache.map(DiskWriter.init)
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
        do {
            return try await configuration.dataCacheQueue.run(priority: priority) { try cache.cachedData(forKey: key) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if strict { throw ImageLoadingError.cacheFailed(String(describing: error)) }
            logger.warning("disk cache read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }
}
