// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@testable import ImagoLoading

/// An image serializer that counts its calls and writes PNG.
final class CountingSerializer: ImageSerializing {
    let calls = Counter()
    func serialize(_ image: Image) throws -> Data {
        calls.increment()
        return try ImageCoderRegistry.shared.encode(image, as: .png)
    }
}

/// `manager.cache`: both layers by request, under the keys a load uses; disk hits decoded by the
/// pipeline, never the network.
@Suite("ImageManager.Cache: the front door to memory and disk by request")
struct ManagerCacheFacadeTests {
    func manager(
        loader: MockDataLoader, policy: ImageManager.DataCachePolicy = .originalData,
        serializer: any ImageSerializing = DefaultImageSerializer()
    ) throws -> ImageManager {
        ImageManager(
            configuration: ImageManager.Configuration(
                dataCache: try DiskCache(directory: TestFiles.temporaryDirectory("imago-facade")), dataCachePolicy: policy, serializer: serializer,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
    }

    @Test("the subscript is the memory layer under the request's image key; a thumbnail is another entry")
    func memorySubscript() throws {
        let loader = MockDataLoader()
        let manager = try manager(loader: loader)
        let request = ImageRequest(url: loader.url("/a.png"))
        let thumbnail = ImageRequest(url: loader.url("/a.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8)))
        #expect(manager.cache[request] == nil)
        let image = Image(buffer: try Fixtures.gradient(width: 6, height: 4))
        manager.cache[request] = image
        #expect(manager.cache[request]?.pixelSize == PixelSize(width: 6, height: 4))
        #expect(manager.configuration.memoryCache?.image(forKey: manager.imageKey(for: request)) != nil)
        #expect(manager.cache[thumbnail] == nil, "a thumbnail's key differs")
        manager.cache[request] = nil
        #expect(manager.cache[request] == nil)
    }

    @Test("image(for:) reads memory, then disk, decoded and processed as the request asks, and never the network")
    func diskDecode() async throws {
        let loader = MockDataLoader()
        let manager = try manager(loader: loader)
        let source = ImageRequest(url: loader.url("/b.png"))
        #expect(try await manager.cache.image(for: source) == nil, "nothing cached: nil, no download")
        #expect(loader.count("/b.png") == 0)
        try await manager.cache.storeData(pngFixture(width: 80), for: source)
        #expect(try await manager.cache.contains(source) == .disk)
        let thumb = ImageRequest(url: loader.url("/b.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 20, height: 20)))
        let fromDisk = try #require(try await manager.cache.image(for: thumb, from: .disk))
        #expect(fromDisk.pixelSize == PixelSize(width: 20, height: 15), "decoded through the planner, as a load would")
        #expect(loader.count("/b.png") == 0)
        #expect(try await manager.cache.contains(thumb, in: .memory) == .memory, "a disk hit is promoted to memory")
        #expect(try await manager.cache.data(for: source) == pngFixture(width: 80))
        // A load of the request now finds it: no download either.
        let loaded = try await manager.loadImage(with: source)
        #expect(loaded.source == .disk && loader.count("/b.png") == 0)
    }

    @Test("remove and removeAll clear the layers asked for; contains says where an entry is")
    func removal() async throws {
        let loader = MockDataLoader()
        loader.register("/c.png", data: pngFixture(width: 30))
        let manager = try manager(loader: loader)
        let request = ImageRequest(url: loader.url("/c.png"), options: [.waitStoreCache])
        _ = try await manager.loadImage(with: request)
        #expect(try await manager.cache.contains(request) == .memory)
        #expect(try await manager.cache.contains(request, in: .disk) == .disk)
        try await manager.cache.remove(request, from: .memory)
        #expect(try await manager.cache.contains(request) == .disk)
        try await manager.cache.remove(request)
        #expect(try await manager.cache.contains(request) == nil)
        _ = try await manager.loadImage(with: request)
        #expect(loader.count("/c.png") == 2, "removed from disk too: downloaded again")
        try await manager.cache.removeAll()
        #expect(try await manager.cache.contains(request) == nil)
    }

    @Test("store(_:for:) keeps a processed image in memory and, with processedImages, encoded on disk by the configured serializer")
    func storeProcessed() async throws {
        let loader = MockDataLoader()
        let serializer = CountingSerializer()
        let manager = try manager(loader: loader, policy: .processedImages, serializer: serializer)
        let request = ImageRequest(url: loader.url("/d.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 10, height: 10)))
        try await manager.cache.store(Image(buffer: try Fixtures.gradient(width: 10, height: 7)), for: request)
        #expect(serializer.calls.count == 1)
        manager.cache[request] = nil
        let back = try #require(try await manager.cache.image(for: request))
        #expect(back.pixelSize == PixelSize(width: 10, height: 7) && loader.count("/d.png") == 0)
    }

    @Test("a manager made over an ImageCache keeps its serializer and queue, and reads what the ImageCache stored")
    func overImageCache() async throws {
        let serializer = CountingSerializer()
        let queue = WorkQueue(label: "cache-queue", maxConcurrentCount: 1)
        let cache = ImageCache(
            disk: try DiskCache(directory: TestFiles.temporaryDirectory("imago-facade-cache")), serializer: serializer,
            workQueue: queue)
        let configuration = ImageManager.Configuration(cache: cache)
        #expect(configuration.serializer as? CountingSerializer === serializer, "the serializer is not dropped")
        #expect(configuration.processingQueue === queue)
        // Stored by key through the ImageCache (a large PNG: a file of its own), read back by
        // request and by key, each decoded where it lies by the planner.
        let loader = MockDataLoader()
        let url = loader.url("/e.png")
        let bytes = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 200, height: 150)), as: .png)
        try await cache.store(nil, data: bytes, forKey: url.absoluteString, cacheType: .disk)
        let manager = ImageManager(
            cache: cache,
            downloader: ImageDownloader(
                configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]))
        #expect(try await manager.cache.image(for: ImageRequest(url: url), from: .disk)?.pixelSize == PixelSize(width: 200, height: 150))
        let hit = try #require(try await cache.image(forKey: url.absoluteString, cacheType: .disk))
        #expect(hit.source == .disk && hit.data == bytes && hit.image.pixelSize == PixelSize(width: 200, height: 150))
        #expect(try await cache.containsImage(forKey: url.absoluteString, cacheType: .disk) == .disk)
        try await cache.removeImage(forKey: url.absoluteString)  // both layers: the manager promoted it to memory
        #expect(try await cache.containsImage(forKey: url.absoluteString) == nil)
    }
}
