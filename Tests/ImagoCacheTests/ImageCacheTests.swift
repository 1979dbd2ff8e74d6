// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

/// Wraps the PNG decoder and counts decodes, slowly, to expose missing coalescing.
final class CountingPNGDecoder: ImageDecoding {
    let count = Mutex(0)
    func canDecode(_ format: ImageFormat) -> Bool { format == .png }
    func info(of data: Data) throws -> ImageInfo { try PNGCoder().info(of: data) }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        count.withLock { $0 += 1 }
        usleep(50_000)
        return try PNGCoder().decode(data, options: options)
    }
}

@Suite("ImageCache")
struct ImageCacheTests {
    func makeDirectory() throws -> URL {
        try TestFiles.temporaryDirectory("imago-ic")
    }

    func png(alpha: Bool = true) throws -> (Image, Data) {
        let image = Image(buffer: try Fixtures.gradient(width: 24, height: 16, alpha: alpha))
        return (image, try ImageCoderRegistry.shared.encode(image, as: .png))
    }

    @Test("memory, then disk; a disk hit decodes once and is promoted to memory")
    func layers() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = ImageCache(disk: try DiskCache(directory: dir))
        let (image, data) = try png()
        try await cache.store(image, data: data, forKey: "a", cacheType: .disk)
        #expect(try await cache.containsImage(forKey: "a") == .disk)
        let first = try #require(try await cache.image(forKey: "a"))
        #expect(first.source == .disk && first.data == data && first.image.pixelSize == image.pixelSize)
        let second = try #require(try await cache.image(forKey: "a"))
        #expect(second.source == .memory && second.data == nil)
        #expect(try await cache.image(forKey: "a", cacheType: .disk)?.source == .disk)
        #expect(try await cache.image(forKey: "a", cacheType: .none) == nil)
        let stats = try cache.statistics()
        #expect(stats.memoryHits == 1 && stats.diskHits == 2 && stats.misses == 1 && stats.memoryEntries == 1 && stats.diskEntries == 1)
    }

    @Test("without data, images are serialized: PNG with alpha, JPEG without")
    func serializer() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let disk = try DiskCache(directory: dir)
        let cache = ImageCache(disk: disk)
        let alpha = Image(buffer: try Fixtures.gradient(width: 8, height: 8, alpha: true))
        let opaque = Image(buffer: try Fixtures.gradient(width: 8, height: 8), hasAlpha: false)
        try await cache.store(alpha, data: nil, forKey: "alpha")
        try await cache.store(opaque, data: nil, forKey: "opaque")
        #expect(ImageFormat(sniffing: try #require(try disk.data(forKey: "alpha"))) == .png)
        #expect(ImageFormat(sniffing: try #require(try disk.data(forKey: "opaque"))) == .jpeg)
        try await cache.clear(cacheType: .memory)
        let back = try #require(try await cache.image(forKey: "alpha", options: DecodeOptions(pixelFormat: .rgba8)))
        #expect(back.image.buffer == alpha.buffer)
    }

    @Test("cache types scope stores and removals")
    func scoping() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = ImageCache(disk: try DiskCache(directory: dir))
        let (image, data) = try png()
        try await cache.store(image, data: data, forKey: "m", cacheType: .memory)
        #expect(try await cache.containsImage(forKey: "m", cacheType: .disk) == nil)
        #expect(try await cache.containsImage(forKey: "m") == .memory)
        try await cache.store(image, data: data, forKey: "both")
        try await cache.removeImage(forKey: "both", cacheType: .memory)
        #expect(try await cache.containsImage(forKey: "both") == .disk)
        try await cache.removeImage(forKey: "both")
        #expect(try await cache.containsImage(forKey: "both") == nil)
    }

    @Test("twenty concurrent queries for one key share one disk read and one decode")
    func coalescing() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let counter = CountingPNGDecoder()
        let coders = ImageCoderRegistry.makeDefault()
        coders.add(counter)
        let cache = ImageCache(disk: try DiskCache(directory: dir), coders: coders)
        let (_, data) = try png()
        try await cache.store(nil, data: data, forKey: "shared")
        let results = try await withThrowingTaskGroup(of: ImageCacheResult?.self) { group in
            for _ in 0..<20 { group.addTask { try await cache.image(forKey: "shared", cacheType: .disk) } }
            var all: [ImageCacheResult?] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results.allSatisfy { $0?.image.pixelSize == PixelSize(width: 24, height: 16) })
        #expect(counter.count.withLock { $0 } == 1)
        // Different options are a different decode.
        _ = try await cache.image(forKey: "shared", cacheType: .disk, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(counter.count.withLock { $0 } == 2)
    }

    @Test("the scale comes from @2x/@3x in the key")
    func scale() async throws {
        #expect(PathName.displayScale(of: "https://x.test/icons/star@2x.png?v=1") == 2)
        #expect(PathName.displayScale(of: "star@3x.webp") == 3)
        #expect(PathName.displayScale(of: "star.png") == 1)
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = ImageCache(disk: try DiskCache(directory: dir))
        let (_, data) = try png()
        try await cache.store(nil, data: data, forKey: "https://x.test/a@3x.png")
        #expect(try await cache.image(forKey: "https://x.test/a@3x.png")?.image.scale == 3)
    }

    @Test("bytes that do not decode are a miss")
    func undecodable() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = ImageCache(disk: try DiskCache(directory: dir))
        try await cache.store(nil, data: Data("not an image".utf8), forKey: "junk")
        #expect(try await cache.image(forKey: "junk") == nil)
        #expect(try cache.statistics().misses == 1)
    }
}

@Suite("ImageCachesManager")
struct ImageCachesManagerTests {
    func image() throws -> Image { Image(buffer: try Fixtures.gradient(width: 4, height: 4)) }

    @Test("SDWebImage's defaults: store to the highest only, query serially, remove and clear everywhere")
    func defaults() async throws {
        let low = ImageCache(), high = ImageCache()
        let manager = ImageCachesManager(caches: [low, high])
        try await manager.store(try image(), data: nil, forKey: "k")
        #expect(high.memory.contains("k") && !low.memory.contains("k"))
        low.memory.setImage(try image(), forKey: "only-low")
        #expect(try await manager.image(forKey: "only-low")?.source == .memory)
        #expect(try await manager.containsImage(forKey: "only-low") == .memory)
        #expect(try await manager.image(forKey: "nowhere") == nil)
        low.memory.setImage(try image(), forKey: "k")
        try await manager.removeImage(forKey: "k")
        #expect(!high.memory.contains("k") && !low.memory.contains("k"))
        try await manager.clear()
        #expect(low.memory.count == 0 && high.memory.count == 0)
    }

    @Test("each policy selects the caches it says")
    func policies() async throws {
        let low = ImageCache(), high = ImageCache()
        let manager = ImageCachesManager(caches: [low, high])
        manager.storePolicy = .lowestOnly
        try await manager.store(try image(), data: nil, forKey: "a")
        #expect(low.memory.contains("a") && !high.memory.contains("a"))
        manager.storePolicy = .concurrent
        try await manager.store(try image(), data: nil, forKey: "b")
        #expect(low.memory.contains("b") && high.memory.contains("b"))
        manager.queryPolicy = .highestOnly
        #expect(try await manager.image(forKey: "a") == nil)
        manager.queryPolicy = .concurrent
        #expect(try await manager.image(forKey: "a") != nil)
        manager.removePolicy = .highestOnly
        try await manager.removeImage(forKey: "b")
        #expect(low.memory.contains("b") && !high.memory.contains("b"))
        manager.remove(ImageCache.self)
        #expect(manager.cachesByPriority.isEmpty)
    }
}
