// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore
import ImagoProcessing
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Memory in front of disk, as SDWebImage's `SDImageCache`: decoded images in a
/// ``MemoryCache``, their encoded bytes in a ``DiskCache``.
///
/// - A query checks memory, then disk. A disk hit is decoded with the caller's
///   `DecodeOptions` (its scale read from `@2x`/`@3x` in the key when the options
///   leave it at 1), then promoted to memory.
/// - Concurrent queries for the same key and options share one disk read and one decode, which
///   runs on ``workQueue``, never on the cooperative pool. It stops when every caller has
///   stopped waiting.
/// - Storing an image without its bytes encodes it through the ``serializer``.
///
/// ```swift
/// import Foundation
/// import Imago
///
/// let cache = ImageCache(disk: try DiskCache(directory: DiskCache.defaultDirectory))
/// try await cache.store(image, data: jpegBytes, forKey: "avatar/42")
///
/// if let hit = try await cache.image(forKey: "avatar/42") {
///     print(hit.source)            // .memory now; .disk in the next process
/// }
/// try await cache.removeImage(forKey: "avatar/42", cacheType: .memory)
/// ```
///
/// A disk hit is opened where it lies and decoded by `DecodePlanner`, as the pipeline decodes;
/// every disk call runs on ``workQueue``, never on the cooperative pool. An `ImageManager` made
/// over this cache (`ImageManager(cache:)`) takes its layers, coders, serializer and queue, and
/// its `cache` front door (`manager.cache[request]`) then reads the same entries by request.
public final class ImageCache: ImageStoring {
    /// Hit, miss and size counts.
    public struct Statistics: Sendable, Hashable {
        /// Images in memory.
        public var memoryEntries: Int
        /// Decoded bytes held in memory.
        public var memoryBytes: Int
        /// Entries on disk.
        public var diskEntries: Int
        /// Encoded bytes on disk.
        public var diskBytes: Int
        /// Queries answered from memory.
        public var memoryHits: Int
        /// Queries answered from disk.
        public var diskHits: Int
        /// Queries that found nothing.
        public var misses: Int
    }

    /// The memory layer.
    public let memory: MemoryCache<String, Image>
    /// The disk layer, or `nil` for a memory-only cache.
    public let disk: (any DataCaching)?
    /// Decoders for disk hits. Default `ImageCoderRegistry.shared`.
    public let coders: ImageCoderRegistry
    /// Encodes images stored without their bytes. Default ``DefaultImageSerializer``.
    public let serializer: any ImageSerializing
    /// Where disk reads, decodes and serializing run. Default `WorkQueue.processing`.
    public let workQueue: WorkQueue

    private struct FlightKey: Hashable, Sendable {
        var key: String
        var options: DecodeOptions
    }

    private let diskQueries = SharedTasks<FlightKey, ImageCacheResult?, Never>()
    private let counters = Mutex((memoryHits: 0, diskHits: 0, misses: 0))

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memory: Default: a ``MemoryCache`` with the default cost limit.
    ///   - disk: Default `nil` (memory only); usually a ``DiskCache``.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    ///   - serializer: Default ``DefaultImageSerializer``.
    ///   - workQueue: Default `WorkQueue.processing`.
    public init(
        memory: MemoryCache<String, Image> = MemoryCache(), disk: (any DataCaching)? = nil,
        coders: ImageCoderRegistry = .shared, serializer: any ImageSerializing = DefaultImageSerializer(),
        workQueue: WorkQueue = .processing
    ) {
        self.memory = memory
        self.disk = disk
        self.coders = coders
        self.serializer = serializer
        self.workQueue = workQueue
    }

    /// Memory, then disk (shared with concurrent queries for the same key and options).
    ///
    /// - Throws: ``DiskCacheError`` when the disk manifest cannot be read. Bytes that do not
    ///   decode count as a miss.
    nonisolated(nonsending) public func image(
        forKey key: String, cacheType: ImageCacheType = .all,
        options: DecodeOptions = .default
    ) async throws -> ImageCacheResult? {
        if cacheType.includesMemory, let image = memory.image(forKey: key) {
            counters.withLock { $0.memoryHits += 1 }
            return ImageCacheResult(image: image, data: nil, source: .memory)
        }
        guard cacheType.includesDisk, let disk else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        var decodeOptions = options
        if decodeOptions.scale == 1 { decodeOptions.scale = Double(PathName.displayScale(of: key)) }
        let flight = FlightKey(key: key, options: decodeOptions)
        let memory = self.memory, coders = self.coders, workQueue = self.workQueue, fixedOptions = decodeOptions
        let promote = cacheType.includesMemory
        let query = diskQueries.subscribe(flight, priority: PriorityCell(.normal)) { context in
            try await workQueue.run(priority: context) { () throws -> ImageCacheResult? in
                // Opened where it lies and decoded by the one planner, as the pipeline decodes.
                guard let entry = try disk.openEntry(forKey: key) else { return nil }
                let input: ImageInput
                switch entry.contents {
                case .data(let data): input = ImageInput(data)
                case .file(let file): input = ImageInput(file)
                }
                guard let image = try? DecodePlanner.decode(input, goal: DecodeGoal(options: fixedOptions), coders: coders) else { return nil }
                if promote { memory.setImage(image, forKey: key) }
                return ImageCacheResult(image: image, data: try? input.contents(), source: .disk)
            }
        }
        let result = try await query.value()
        counters.withLock { if result == nil { $0.misses += 1 } else { $0.diskHits += 1 } }
        return result
    }

    /// The bytes on disk for `key`, read on ``workQueue``, not decoded; `nil` without a disk layer.
    ///
    /// - Throws: the disk layer's error when it cannot be read.
    public func data(forKey key: String) async throws -> Data? {
        guard let disk else { return nil }
        return try await workQueue.run { try disk.data(forKey: key) }
    }

    /// Puts `image` in memory and `data` (or, without it, the serialized image) on disk.
    ///
    /// - Throws: ``DiskCacheError`` when writing fails, or the serializer's error.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType = .all) async throws {
        if cacheType.includesMemory, let image { memory.setImage(image, forKey: key) }
        guard cacheType.includesDisk, let disk else { return }
        let serializer = self.serializer
        try await workQueue.run {
            if let data {
                try disk.setData(data, forKey: key)
            } else if let image {
                try disk.setData(try serializer.serialize(image), forKey: key)
            }
        }
    }

    /// Removes `key` from the chosen layers.
    public func removeImage(forKey key: String, cacheType: ImageCacheType = .all) async throws {
        if cacheType.includesMemory { memory.removeImage(forKey: key) }
        if cacheType.includesDisk, let disk { try await workQueue.run { try disk.removeValue(forKey: key) } }
    }

    /// Where `key` is cached (memory first), without decoding, or `nil`.
    public func containsImage(forKey key: String, cacheType: ImageCacheType = .all) async throws -> ImageCacheSource? {
        if cacheType.includesMemory, memory.contains(key) { return .memory }
        if cacheType.includesDisk, let disk, try await workQueue.run({ try disk.contains(key) }) { return .disk }
        return nil
    }

    /// Empties the chosen layers.
    public func clear(cacheType: ImageCacheType = .all) async throws {
        if cacheType.includesMemory { memory.removeAll() }
        if cacheType.includesDisk, let disk { try await workQueue.run { try disk.removeAll() } }
    }

    /// Entry and byte counts for both layers, and the hit and miss counts since creation.
    ///
    /// - Throws: ``DiskCacheError`` when the disk manifest cannot be read.
    public func statistics() throws -> Statistics {
        let diskStats = try disk?.statistics() ?? (count: 0, totalSize: 0)
        let c = counters.withLock { $0 }
        return Statistics(
            memoryEntries: memory.count, memoryBytes: memory.totalCost,
            diskEntries: diskStats.count, diskBytes: diskStats.totalSize,
            memoryHits: c.memoryHits, diskHits: c.diskHits, misses: c.misses)
    }
}
