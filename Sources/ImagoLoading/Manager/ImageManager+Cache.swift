// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCache
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ImageManager {
    /// The manager's caches, by request (Nuke's `ImagePipeline.Cache`): the one front door to
    /// what a load would find in memory and on disk, under the keys the load itself uses.
    ///
    /// ```swift
    /// let cache = manager.cache
    /// if let image = cache[request] { show(image) }                  // memory, at once
    /// let fromDisk = try await cache.image(for: request)              // memory, else disk, decoded as the request asks
    /// try await cache.storeData(jpegBytes, for: request)              // the original bytes, for later loads
    /// try await cache.remove(request)                                 // memory and disk
    /// ```
    ///
    /// Disk calls run on the manager's data-cache queue, never on the cooperative pool; a disk hit
    /// decodes through the pipeline (the decode planner, the transformers), never anywhere else.
    public struct Cache: Sendable {
        let manager: ImageManager

        /// The finished image of `request` in the memory cache (under ``ImageManager/imageKey(for:)``),
        /// or `nil`; setting stores or removes it. Never touches the disk.
        public subscript(request: ImageRequest) -> Image? {
            get { manager.configuration.memoryCache?.image(forKey: manager.imageKey(for: request)) }
            nonmutating set {
                let key = manager.imageKey(for: request)
                if let newValue {
                    manager.configuration.memoryCache?.setImage(newValue, forKey: key)
                } else {
                    manager.configuration.memoryCache?.removeImage(forKey: key)
                }
            }
        }

        /// The finished image of `request` from the caches alone, never the network: memory, then
        /// (with `.disk` in `caches`) the disk, where a processed entry or the original bytes are
        /// decoded and processed as the request asks, by the same stages a load runs.
        ///
        /// - Parameters:
        ///   - request: The request whose finished image is wanted; its keys name the entries.
        ///   - caches: Which layers to look in. Default `.all`.
        /// - Returns: The image, or `nil` when neither layer has it.
        /// - Throws: ``ImageLoadingError``: a disk cache that cannot be read
        ///   (``ImageLoadingError/cacheFailed(_:)``), bytes that do not decode, a transformer's failure.
        public func image(for request: ImageRequest, from caches: ImageCacheType = .all) async throws(ImageLoadingError) -> Image? {
            if caches == .memory || caches == .all, let image = self[request] { return image }
            guard caches == .disk || caches == .all else { return nil }
            var local = request
            local.options.insert(.fromCacheOnly)
            local.options.insert(.retryFailed)
            if caches == .disk { local.options.insert(.disableMemoryCacheReads) }
            do {
                return try await manager.loadImage(with: local).image
            } catch .notCached {
                return nil
            }
        }

        /// The original bytes of `request` on disk (under ``ImageManager/dataKey(for:)``), a
        /// pending write's included, or `nil`.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the disk cache cannot be read.
        public func data(for request: ImageRequest) async throws(ImageLoadingError) -> Data? {
            do {
                return try await manager.pipeline.readDisk(
                    manager.dataKey(for: request), priority: PriorityCell(request.priority),
                    strict: true)?.data
            } catch {
                throw ImageLoadingError(error)
            }
        }

        /// Stores `data` as the original bytes of `request` on disk, so that its later loads (of
        /// any size or transform) decode them rather than download them.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when it cannot be written; nothing is
        ///   thrown without a disk cache (there is nowhere to store).
        public func storeData(_ data: Data, for request: ImageRequest) async throws(ImageLoadingError) {
            guard let disk = manager.configuration.dataCache else { return }
            let key = manager.dataKey(for: request)
            try await onDataCacheQueue { try disk.setData(data, forKey: key, metadata: [:]) }
        }

        /// Stores `image` as the finished image of `request`: in memory, and (with `.disk` in
        /// `caches`, when the manager's policy keeps processed images on disk) encoded by the
        /// manager's serializer under the request's image key.
        ///
        /// - Throws: ``ImageLoadingError/encodingFailed(_:)`` when the serializer fails,
        ///   ``ImageLoadingError/cacheFailed(_:)`` when the disk cannot be written.
        public func store(_ image: Image, for request: ImageRequest, in caches: ImageCacheType = .all) async throws(ImageLoadingError) {
            if caches == .memory || caches == .all { self[request] = image }
            guard caches == .disk || caches == .all, manager.pipeline.storesProcessed(request),
                let disk = manager.configuration.dataCache
            else { return }
            let key = manager.imageKey(for: request), serializer = manager.configuration.serializer
            let bytes: Data
            do {
                bytes = try await manager.configuration.processingQueue.run { try serializer.serialize(image) }
            } catch let error as ImageCodingError {
                throw .encodingFailed(error)
            } catch {
                throw ImageLoadingError(error)
            }
            try await onDataCacheQueue { try disk.setData(bytes, forKey: key, metadata: [:]) }
        }

        /// Where `request` is cached, memory first, without reading or decoding anything; `nil`
        /// when it is not.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the disk cache cannot be read.
        public func contains(_ request: ImageRequest, in caches: ImageCacheType = .all) async throws(ImageLoadingError) -> ImageCacheSource? {
            if caches == .memory || caches == .all, self[request] != nil { return .memory }
            guard caches == .disk || caches == .all, let disk = manager.configuration.dataCache else { return nil }
            let keys = [manager.imageKey(for: request), manager.dataKey(for: request)]
            let found = try await onDataCacheQueue { try keys.contains { try disk.contains($0) } }
            return found ? .disk : nil
        }

        /// Removes the finished image of `request` from memory and its bytes (original and
        /// processed) from disk, as the layers in `caches` say.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the disk cannot be written.
        public func remove(_ request: ImageRequest, from caches: ImageCacheType = .all) async throws(ImageLoadingError) {
            if caches == .memory || caches == .all { self[request] = nil }
            guard caches == .disk || caches == .all, let disk = manager.configuration.dataCache else { return }
            let keys = [manager.imageKey(for: request), manager.dataKey(for: request)]
            try await onDataCacheQueue { for key in keys { try disk.removeValue(forKey: key) } }
        }

        /// Forgets everything kept of `request`'s source: its finished image in memory, its
        /// bytes (original and processed) on disk or waiting to be written, and the encoded
        /// results kept a short while (``Configuration/resultRetention``, all of them: they live
        /// seconds), and every result of the source in the result cache
        /// (``Configuration/resultCache``, by key prefix). The next load downloads the source
        /// again. For an origin that replaced an image before its cache lifetime ran out.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the disk cannot be written, or
        ///   the result cache cannot remove by key prefix.
        public func purge(_ request: ImageRequest) async throws(ImageLoadingError) {
            self[request] = nil
            manager.pipeline.results?.removeAll()
            manager.pipeline.intermediates?.removeAll()
            let keys = [manager.imageKey(for: request), manager.dataKey(for: request)]
            if let writer = manager.pipeline.writer {
                for key in keys { await writer.purge(forKey: key) }
            } else if let disk = manager.configuration.dataCache {
                try await onDataCacheQueue { for key in keys { try disk.removeValue(forKey: key) } }
            }
            // Every result made from the source, whatever its size or format.
            if let results = manager.pipeline.resultWriter {
                do {
                    try await results.purge(keyPrefix: ImageRequestKeys.resultPrefix(dataKey: manager.dataKey(for: request)))
                } catch is CancellationError {
                    throw .cancelled
                } catch {
                    throw .cacheFailed(error as? DiskCacheError ?? .store(String(describing: error)))
                }
            }
            if let shared = manager.configuration.sharedSources {
                do {
                    try await shared.removeResults(withKeyPrefix: manager.dataKey(for: request))
                } catch {
                    throw .cacheFailed(.store("the shared sources could not be purged: \(error)"))
                }
            }
            if let shared = manager.configuration.sharedResults {
                do {
                    try await shared.removeResults(withKeyPrefix: ImageRequestKeys.resultPrefix(dataKey: manager.dataKey(for: request)))
                } catch {
                    throw .cacheFailed(.store("the shared results could not be purged: \(error)"))
                }
            }
        }

        /// Empties the layers in `caches`.
        ///
        /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the disk cannot be written.
        public func removeAll(from caches: ImageCacheType = .all) async throws(ImageLoadingError) {
            if caches == .memory || caches == .all {
                manager.configuration.memoryCache?.removeAllImages()
                manager.pipeline.intermediates?.removeAll()
            }
            guard caches == .disk || caches == .all, let disk = manager.configuration.dataCache else { return }
            try await onDataCacheQueue { try disk.removeAll() }
        }

        /// Runs a blocking disk call on the data-cache queue; its failure as ``ImageLoadingError/cacheFailed(_:)``.
        private func onDataCacheQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws(ImageLoadingError) -> T {
            do {
                return try await manager.configuration.dataCacheQueue.run(body)
            } catch is CancellationError {
                throw .cancelled
            } catch {
                throw .cacheFailed(error as? DiskCacheError ?? .store(String(describing: error)))
            }
        }
    }

    /// The caches, by request: the memory and disk entries a load of a request would find (see
    /// ``Cache``).
    public var cache: Cache { Cache(manager: self) }
}
