// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

@Suite("ImageManager: memory, disk and network; revalidation; failed URLs; disk writes", .serialized)
struct ManagerCachingTests {
    static func makeManager(disk: Bool = true) throws -> ImageManager {
        let diskCache = disk ? try DiskCache(directory: TestFiles.temporaryDirectory("imago-manager")) : nil
        return ImageManager(configuration: ImageManager.Configuration(dataCache: diskCache))
    }

    @Test("network, then memory, then disk for a second manager on the same disk; keys from the request")
    func sourcesAndKeys() async throws {
        try await withServer { server in
            let dir = try TestFiles.temporaryDirectory("imago-manager")
            let url = server.url("/img/a.png")
            let first = ImageManager(configuration: ImageManager.Configuration(dataCache: try DiskCache(directory: dir)))
            let a = try await first.loadImage(with: ImageRequest(url: url, options: .waitStoreCache))
            #expect(a.source == .network && a.data == LoadingFixtures.png && a.cacheKey == url.absoluteString)
            #expect(try await first.loadImage(with: url).source == .memory)
            let disk = try DiskCache(directory: dir)
            let second = ImageManager(configuration: ImageManager.Configuration(dataCache: disk))
            let fromDisk = try await second.loadImage(with: url)
            #expect(fromDisk.source == .disk && fromDisk.image == a.image)
            #expect(server.count("/img/a.png") == 1)

            // A thumbnail and a transform: original bytes on disk under the URL, the final image in memory under its own key.
            let request = ImageRequest(
                url: url, thumbnail: .init(maxPixelSize: PixelSize(width: 32, height: 32)),
                transformers: [ImageTransformers.Flip(horizontal: true, vertical: false)], options: .waitStoreCache)
            let thumb = try await second.loadImage(with: request)
            #expect(thumb.image.pixelSize == PixelSize(width: 32, height: 24))
            #expect(thumb.cacheKey == second.imageKey(for: request) && thumb.cacheKey != url.absoluteString)
            #expect(thumb.cacheKey.hasPrefix(url.absoluteString + " ["))
            #expect(second.configuration.memoryCache?.image(forKey: thumb.cacheKey) != nil)
            #expect(try disk.contains(url.absoluteString) && !disk.contains(thumb.cacheKey))
            #expect(try await second.loadImage(with: request).source == .memory)
            // fromCacheOnly misses without the network; fromLoaderOnly goes to it even when cached.
            #expect(
                await failure { _ = try await second.loadImage(with: ImageRequest(url: server.url("/img/none.png"), options: .fromCacheOnly)) } == .notCached)
            #expect(try await second.loadImage(with: ImageRequest(url: url, options: .fromLoaderOnly)).source == .network)
            #expect(server.count("/img/a.png") == 2)
            #expect(server.count("/img/none.png") == 0)
            await second.finishPendingStores()
        }
    }

    @Test("refreshCached revalidates with the stored ETag: a 304 keeps the cached bytes")
    func revalidation() async throws {
        try await withServer { server in
            let dir = try TestFiles.temporaryDirectory("imago-manager")
            let disk = try DiskCache(directory: dir)
            let manager = ImageManager(configuration: ImageManager.Configuration(dataCache: disk))
            let url = server.url("/img/a.png")
            let first = try await manager.loadImage(with: ImageRequest(url: url, options: .waitStoreCache))
            let etag = try #require(try disk.entry(forKey: url.absoluteString)?.entry.metadata["etag"])
            let again = try await manager.loadImage(with: ImageRequest(url: url, options: .refreshCached))
            #expect(server.headers("/img/a.png")?["if-none-match"] == etag)
            #expect(again.source == .network && again.revalidated && again.image == first.image && again.data == first.data)
            #expect(server.count("/img/a.png") == 2)
            // A 304 with a new lifetime rewrites the metadata only: the entry's bytes stay where they lie.
            let before = try #require(try disk.entry(forKey: url.absoluteString)?.entry)
            server.register("a.png", data: try #require(try disk.entry(forKey: url.absoluteString)?.data), headers: [("Cache-Control", "max-age=77")])
            _ = try await manager.loadImage(with: ImageRequest(url: url, options: .refreshCached))
            await manager.finishPendingStores()
            let after = try #require(try disk.entry(forKey: url.absoluteString)?.entry)
            #expect(server.count("/img/a.png") == 3 && after.metadata["http-cache-control"] == "max-age=77")
            #expect(after.modified == before.modified && after.size == before.size && after.metadata["etag"] == before.metadata["etag"])
        }
    }

    @Test("the failed-URL rule: lasting failures block until retryFailed, transient ones never do")
    func failedURLs() async throws {
        try await withServer { server in
            server.register("junk.png", data: Data("definitely not an image".utf8))
            let manager = try Self.makeManager(disk: false)
            let missing = server.url("/status/404")
            #expect(await failure { _ = try await manager.loadImage(with: missing) } == .unacceptableStatusCode(404))
            #expect(await failure { _ = try await manager.loadImage(with: missing) } == .blockedFailedURL(missing.absoluteString))
            #expect(server.count("/status/404") == 1)
            #expect(await failure { _ = try await manager.loadImage(with: ImageRequest(url: missing, options: .retryFailed)) } == .unacceptableStatusCode(404))
            #expect(server.count("/status/404") == 2)
            // Undecodable data blocks, and says what was found; a server error and a timeout do not block.
            let junk = server.url("/img/junk.png")
            #expect(await failure { _ = try await manager.loadImage(with: junk) } == .decodingFailed(.unsupportedFormat(nil)))
            #expect(manager.failedURLs.contains(junk))
            let busy = server.url("/status/503")
            _ = await failure { _ = try await manager.loadImage(with: busy) }
            #expect(!manager.failedURLs.contains(busy))
            let slow = ImageManager(
                configuration: ImageManager.Configuration(
                    downloader: ImageDownloader(
                        configuration: ImageDownloaderConfiguration(
                            timeouts: ImageDownloadTimeouts(connect: .milliseconds(200))))))
            #expect(await failure { _ = try await slow.loadImage(with: server.url("/nohead")) } == .timedOut(.connect))
            #expect(!slow.failedURLs.contains(server.url("/nohead")))
            // An invalid URL blocks at once.
            let invalid = URL(string: "http:///nohost.png")!
            #expect(await failure { _ = try await manager.loadImage(with: invalid) } == .invalidURL(invalid.absoluteString))
            #expect(manager.failedURLs.contains(invalid))
            // A success after retrying clears the entry.
            server.register("late.png", data: LoadingFixtures.png)
            manager.failedURLs.insert(server.url("/img/late.png"))
            _ = try await manager.loadImage(with: ImageRequest(url: server.url("/img/late.png"), options: .retryFailed))
            #expect(!manager.failedURLs.contains(server.url("/img/late.png")))
        }
    }

    @Test("a load right after another is served from its pending disk write, not the network")
    func pendingWriteIsRead() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 40))
        let disk = MockDataCache()
        let manager = makePipeline(loader: loader, memory: nil, disk: disk)
        _ = try await manager.loadImage(with: loader.url("/a.png"))
        // At once, before the background write may have run: a thumbnail of the same URL.
        let thumb = try await manager.loadImage(
            with: ImageRequest(
                url: loader.url("/a.png"),
                thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8))))
        #expect(thumb.source == .disk && thumb.image.pixelSize == PixelSize(width: 8, height: 6))
        #expect(loader.count("/a.png") == 1)
        await manager.finishPendingStores()
        #expect(disk.keys == [loader.url("/a.png").absoluteString] && disk.writeCount == 1)
    }

    @Test("bytes that do not decode are never written to disk; bytes-only loads are written as they arrive")
    func onlyGoodBytesAreKept() async throws {
        let loader = MockDataLoader()
        loader.register("/junk.png", data: Data("not an image at all".utf8))
        loader.register("/a.png", data: pngFixture(width: 10))
        let disk = MockDataCache()
        let manager = makePipeline(loader: loader, memory: nil, disk: disk)
        _ = await failure { _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/junk.png"), options: .waitStoreCache)) }
        await manager.finishPendingStores()
        #expect(disk.writeCount == 0)
        _ = try await manager.loadData(with: ImageRequest(url: loader.url("/a.png")))
        await manager.finishPendingStores()
        #expect(disk.keys == [loader.url("/a.png").absoluteString])
    }

    @Test("a download of 1 MiB or more goes to the disk before it decodes and decodes from the file; bytes that do not decode are removed again")
    func largeDownloadsAreWrittenAhead() async throws {
        var noise = [UInt8](repeating: 255, count: 640 * 640 * 4)
        var x: UInt32 = 2_463_534_242
        for i in noise.indices where i % 4 != 3 {
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            noise[i] = UInt8(truncatingIfNeeded: x)
        }
        let image = Image(buffer: try PixelBuffer(width: 640, height: 640, format: .rgba8, bytes: noise))
        let big = try ImageCoderRegistry.shared.encode(image, as: .png)
        #expect(big.count >= ImagePipeline.writeAheadBytes)
        let loader = MockDataLoader()
        loader.register("/big.png", data: big)
        loader.register("/junk.png", data: Data(repeating: 7, count: ImagePipeline.writeAheadBytes + 1))
        let disk = EventRecordingCache(try DiskCache(directory: TestFiles.temporaryDirectory("imago-write-ahead")))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil, dataCache: disk,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))

        let loaded = try await manager.loadImage(with: loader.url("/big.png"))
        #expect(loaded.source == .network && loaded.image.pixelSize == PixelSize(width: 640, height: 640))
        #expect(Fixtures.difference(loaded.image.buffer, image.buffer).max == 0)
        let key = loader.url("/big.png").absoluteString
        // Not on disk; written, then opened (the decode's input), before the load answered.
        #expect(disk.events == ["open \(key)", "set \(key)", "open \(key)"], "\(disk.events)")
        #expect(try disk.contains(key))

        _ = await failure { _ = try await manager.loadImage(with: loader.url("/junk.png")) }
        await manager.finishPendingStores()
        let junk = loader.url("/junk.png").absoluteString
        #expect(disk.events.suffix(4) == ["open \(junk)", "set \(junk)", "open \(junk)", "remove \(junk)"], "\(disk.events)")
        #expect(try !disk.contains(junk) && disk.contains(key))
    }

    @Test("a failing disk cache is skipped (the network answers), except when only the cache may answer")
    func failingDiskCache() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 40))
        let disk = MockDataCache()
        disk.setFailing(true)
        let manager = makePipeline(loader: loader, memory: nil, disk: disk)
        let loaded = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache))
        #expect(loaded.source == .network && loader.count("/a.png") == 1)
        let strict = await failure { _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .fromCacheOnly)) }
        if case .cacheFailed(let e)? = strict { #expect(e.description.contains("set to fail")) } else { Issue.record("\(String(describing: strict))") }
        // A cache failure is not the URL's fault.
        #expect(!manager.failedURLs.contains(loader.url("/a.png")))
    }

    @Test("with processedImages, a processed request stores its encoded result and reads it back; originals are not kept for it")
    func processedImagesPolicy() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 64))
        let disk = MockDataCache()
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(loader: loader, decoder: decoder, memory: nil, disk: disk, policy: .processedImages)
        let request = ImageRequest(
            url: loader.url("/a.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 16, height: 16)),
            options: .waitStoreCache)
        let first = try await manager.loadImage(with: request)
        #expect(first.source == .network && first.image.pixelSize == PixelSize(width: 16, height: 12))
        await manager.finishPendingStores()
        #expect(disk.keys == [manager.imageKey(for: request)])
        let again = try await manager.loadImage(with: request)
        #expect(again.source == .disk && again.image.pixelSize == first.image.pixelSize)
        #expect(Fixtures.difference(again.image.buffer, first.image.buffer).max == 0)
        #expect(loader.count("/a.png") == 1)
        // The plain request keeps its original bytes.
        _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache))
        #expect(disk.keys.contains(loader.url("/a.png").absoluteString))
    }

    @Test("a transformer that fails is named in a typed error, and the URL is not blocked for it")
    func transformFailure() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 20))
        let manager = makePipeline(loader: loader)
        let runs = Counter()
        let request = ImageRequest(url: loader.url("/a.png"), transformers: [CountingTransformer(name: "x", runs: runs, fails: true)])
        let e = await failure { _ = try await manager.loadImage(with: request) }
        #expect(e == .processingFailed(transformer: "Counting(x)", underlying: .invalidArgument("told to fail")), "\(String(describing: e))")
        #expect(!manager.failedURLs.contains(loader.url("/a.png")) && runs.count == 1)
    }
}

/// A disk cache that records the writes, opens and removals made through it, in order.
final class EventRecordingCache: DataCaching {
    private let base: DiskCache
    private let recorded = Mutex<[String]>([])
    var events: [String] { recorded.withLock { $0 } }

    init(_ base: DiskCache) { self.base = base }

    func cachedData(forKey key: String) throws -> CachedData? { try base.cachedData(forKey: key) }
    func openEntry(forKey key: String) throws -> CachedEntry? {
        recorded.withLock { $0.append("open \(key)") }
        return try base.openEntry(forKey: key)
    }
    func contains(_ key: String) throws -> Bool { try base.contains(key) }
    func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        recorded.withLock { $0.append("set \(key)") }
        try base.setData(data, forKey: key, metadata: metadata)
    }
    func removeValue(forKey key: String) throws {
        recorded.withLock { $0.append("remove \(key)") }
        try base.removeValue(forKey: key)
    }
    func removeAll() throws { try base.removeAll() }
    func statistics() throws -> (count: Int, totalSize: Int) { try base.statistics() }
}
