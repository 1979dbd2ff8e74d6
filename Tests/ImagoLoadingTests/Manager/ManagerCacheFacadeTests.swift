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

    @Test("bytes stored by key outside the manager (a large PNG: a file of its own) are read by request, decoded where they lie, and removed from both layers")
    func storedByKey() async throws {
        let loader = MockDataLoader()
        let disk = try DiskCache(directory: TestFiles.temporaryDirectory("imago-facade-key"))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                dataCache: disk,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        let url = loader.url("/e.png")
        let request = ImageRequest(url: url)
        #expect(manager.dataKey(for: request) == url.absoluteString, "the URL is the key")
        let bytes = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 200, height: 150)), as: .png)
        try disk.setData(bytes, forKey: url.absoluteString)
        #expect(try await manager.cache.contains(request) == .disk)
        #expect(try await manager.cache.image(for: request, from: .disk)?.pixelSize == PixelSize(width: 200, height: 150))
        #expect(try await manager.cache.data(for: request) == bytes)
        #expect(try await manager.cache.contains(request, in: .memory) == .memory, "the disk hit was promoted")
        try await manager.cache.remove(request)
        #expect(try await manager.cache.contains(request) == nil)
        #expect(try !disk.contains(url.absoluteString))
        #expect(loader.count("/e.png") == 0)
    }

    @Test("memory in front of disk: a disk hit decodes once, then memory answers; .disk skips memory, .none looks nowhere")
    func layers() async throws {
        let loader = MockDataLoader()
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(
            loader: loader, decoder: decoder, disk: try DiskCache(directory: TestFiles.temporaryDirectory("imago-facade-layers")))
        let request = ImageRequest(url: loader.url("/f.png"))
        try await manager.cache.storeData(pngFixture(width: 24), for: request)
        #expect(try await manager.cache.contains(request) == .disk)
        #expect(try await manager.cache.image(for: request)?.pixelSize == PixelSize(width: 24, height: 18))
        #expect(try await manager.cache.contains(request) == .memory)
        #expect(try await manager.cache.image(for: request)?.pixelSize == PixelSize(width: 24, height: 18))
        #expect(decoder.count == 1, "the second query is a memory hit")
        #expect(try await manager.cache.image(for: request, from: .disk)?.pixelSize == PixelSize(width: 24, height: 18))
        #expect(decoder.count == 2, ".disk reads the disk whatever memory holds")
        #expect(try await manager.cache.image(for: request, from: .none) == nil)
        // Memory answers before the disk is looked at.
        manager.cache[request] = Image(buffer: try Fixtures.gradient(width: 5, height: 5))
        #expect(try await manager.cache.image(for: request)?.pixelSize == PixelSize(width: 5, height: 5))
        #expect(try await manager.cache.image(for: request, from: .memory)?.pixelSize == PixelSize(width: 5, height: 5))
        #expect(decoder.count == 2 && loader.count("/f.png") == 0)
    }

    @Test("twenty concurrent queries of one request share one decode; another size is another decode")
    func sharedQueries() async throws {
        let loader = MockDataLoader()
        let decoder = InstrumentedDecoder(minimumDuration: .milliseconds(20))
        let manager = makePipeline(
            loader: loader, decoder: decoder, disk: try DiskCache(directory: TestFiles.temporaryDirectory("imago-facade-shared")))
        let request = ImageRequest(url: loader.url("/g.png"))
        try await manager.cache.storeData(pngFixture(width: 24), for: request)
        let sizes = try await withThrowingTaskGroup(of: PixelSize?.self) { group in
            for _ in 0..<20 { group.addTask { try await manager.cache.image(for: request)?.pixelSize } }
            var all: [PixelSize?] = []
            for try await size in group { all.append(size) }
            return all
        }
        #expect(sizes.count == 20 && sizes.allSatisfy { $0 == PixelSize(width: 24, height: 18) })
        #expect(decoder.count == 1, "\(decoder.count) decodes")
        let thumbnail = ImageRequest(url: loader.url("/g.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8)))
        #expect(try await manager.cache.image(for: thumbnail)?.pixelSize == PixelSize(width: 8, height: 6))
        #expect(decoder.count == 2, "another size is another decode")
        #expect(loader.count("/g.png") == 0)
    }

    @Test("a finished image stored without its bytes is encoded by the default serializer: PNG with alpha, JPEG without")
    func defaultSerializer() async throws {
        let loader = MockDataLoader()
        let manager = try manager(loader: loader, policy: .processedImages)
        let small = ImageRequest.Thumbnail(maxPixelSize: PixelSize(width: 8, height: 8))
        let alpha = ImageRequest(url: loader.url("/alpha.png"), thumbnail: small)
        let opaque = ImageRequest(url: loader.url("/opaque.png"), thumbnail: small)
        try await manager.cache.store(Image(buffer: try Fixtures.gradient(width: 8, height: 8, alpha: true)), for: alpha)
        try await manager.cache.store(Image(buffer: try Fixtures.gradient(width: 8, height: 8), hasAlpha: false), for: opaque)
        let disk = try #require(manager.configuration.dataCache)
        #expect(ImageFormat(sniffing: try #require(try disk.data(forKey: manager.imageKey(for: alpha)))) == .png)
        #expect(ImageFormat(sniffing: try #require(try disk.data(forKey: manager.imageKey(for: opaque)))) == .jpeg)
        try await manager.cache.removeAll(from: .memory)
        #expect(try await manager.cache.image(for: alpha)?.pixelSize == PixelSize(width: 8, height: 8))
        #expect(loader.count("/alpha.png") == 0)
    }

    @Test("the layers asked for scope stores: a memory-only store leaves the disk alone, a disk-only store memory")
    func storeScoping() async throws {
        let loader = MockDataLoader()
        let manager = try manager(loader: loader, policy: .processedImages)
        let request = ImageRequest(url: loader.url("/h.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8)))
        let image = Image(buffer: try Fixtures.gradient(width: 8, height: 6))
        try await manager.cache.store(image, for: request, in: .memory)
        #expect(try await manager.cache.contains(request, in: .disk) == nil)
        #expect(try await manager.cache.contains(request) == .memory)
        manager.cache[request] = nil
        try await manager.cache.store(image, for: request, in: .disk)
        #expect(try await manager.cache.contains(request, in: .memory) == nil)
        #expect(try await manager.cache.contains(request) == .disk)
        try await manager.cache.remove(request, from: .disk)
        #expect(try await manager.cache.contains(request) == nil)
    }

    @Test("bytes on disk that do not decode fail the query with decodingFailed, and never reach the network")
    func undecodable() async throws {
        let loader = MockDataLoader()
        let manager = try manager(loader: loader)
        let request = ImageRequest(url: loader.url("/junk.png"))
        try await manager.cache.storeData(Data("not an image".utf8), for: request)
        let error = await failure { _ = try await manager.cache.image(for: request) }
        switch error {
        case .some(.decodingFailed): break
        default: Issue.record("expected decodingFailed, got \(String(describing: error))")
        }
        #expect(manager.cache[request] == nil && loader.count("/junk.png") == 0)
    }
}
