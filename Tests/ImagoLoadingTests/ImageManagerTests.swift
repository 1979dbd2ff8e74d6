import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
@testable import ImagoLoading
import ImagoProcessing
import ImagoTestSupport
import Synchronization
import Testing

@Suite("ImageManager: caches, network, coalescing, failed URLs; ImagePrefetcher", .serialized)
struct ImageManagerTests {
    static func makeManager(disk: Bool = true) throws -> ImageManager {
        let diskCache = disk ? try DiskCache(directory: TestFiles.temporaryDirectory("imago-manager")) : nil
        return ImageManager(cache: ImageCache(disk: diskCache), downloader: ImageDownloader())
    }

    @Test("1000 concurrent loads of 20 URLs make exactly 20 origin requests, and each image is right")
    func coalescing() async throws {
        try await withServer { server in
            for i in 0..<20 { server.register("f\(i).png", data: LoadingFixtures.png(seed: i)) }
            let manager = try Self.makeManager()
            let sizes = try await withThrowingTaskGroup(of: (Int, PixelSize).self) { group in
                for n in 0..<1000 {
                    group.addTask {
                        let i = n % 20
                        return (i, try await manager.loadImage(with: server.url("/img/f\(i).png")).image.pixelSize)
                    }
                }
                var out: [(Int, PixelSize)] = []
                for try await r in group { out.append(r) }
                return out
            }
            #expect(sizes.count == 1000)
            for (i, size) in sizes { #expect(size == PixelSize(width: 40 + i % 17, height: 30 + i % 13)) }
            #expect(server.totalCount == 20, "\(server.totalCount) origin requests")
        }
    }

    @Test("network, then memory, then disk for a second manager on the same disk; keys as SDWebImage's")
    func sourcesAndKeys() async throws {
        try await withServer { server in
            let dir = try TestFiles.temporaryDirectory("imago-manager")
            let url = server.url("/img/a.png")
            let first = ImageManager(cache: ImageCache(disk: try DiskCache(directory: dir)))
            let a = try await first.loadImage(with: url, options: .waitStoreCache)
            #expect(a.source == .network && a.data == LoadingFixtures.png && a.cacheKey == url.absoluteString)
            #expect(try await first.loadImage(with: url).source == .memory)
            let second = ImageManager(cache: ImageCache(disk: try DiskCache(directory: dir)))
            let fromDisk = try await second.loadImage(with: url)
            #expect(fromDisk.source == .disk && fromDisk.image == a.image)
            #expect(server.count("/img/a.png") == 1)

            // A thumbnail and a transform: original bytes on disk under the URL, the final image in memory under its own key.
            let context = ImageLoadContext(transformer: ImageTransformers.Flip(horizontal: true, vertical: false), thumbnailPixelSize: PixelSize(width: 32, height: 32))
            let thumb = try await second.loadImage(with: url, options: .waitStoreCache, context: context)
            #expect(thumb.image.pixelSize == PixelSize(width: 32, height: 24))
            #expect(thumb.cacheKey == second.finalCacheKey(for: url, context: context) && thumb.cacheKey != url.absoluteString)
            let cache = try #require(second.cache as? ImageCache)
            #expect(cache.memory.contains(thumb.cacheKey))
            #expect(try cache.disk?.contains(url.absoluteString) == true)
            #expect(try cache.disk?.contains(thumb.cacheKey) == false)
            #expect(try await second.loadImage(with: url, context: context).source == .memory)
            // fromCacheOnly misses without the network; fromLoaderOnly goes to it even when cached.
            #expect(await failure { _ = try await second.loadImage(with: server.url("/img/none.png"), options: .fromCacheOnly) } == .notCached)
            #expect(try await second.loadImage(with: url, options: .fromLoaderOnly).source == .network)
            #expect(server.count("/img/a.png") == 2)
            #expect(server.count("/img/none.png") == 0)
        }
    }

    @Test("refreshCached revalidates with the stored ETag: a 304 keeps the cached bytes")
    func revalidation() async throws {
        try await withServer { server in
            let manager = try Self.makeManager()
            let url = server.url("/img/a.png")
            let first = try await manager.loadImage(with: url, options: .waitStoreCache)
            let etag = try #require((manager.cache as? ImageCache)?.disk?.entry(forKey: url.absoluteString)?.entry.metadata["etag"])
            let again = try await manager.loadImage(with: url, options: .refreshCached)
            #expect(server.headers("/img/a.png")?["if-none-match"] == etag)
            #expect(again.source == .network && again.image == first.image && again.data == first.data)
            #expect(server.count("/img/a.png") == 2)
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
            #expect(await failure { _ = try await manager.loadImage(with: missing, options: .retryFailed) } == .unacceptableStatusCode(404))
            #expect(server.count("/status/404") == 2)
            // Undecodable data blocks; a server error and a timeout do not.
            let junk = server.url("/img/junk.png")
            if case .decodingFailed = await failure({ _ = try await manager.loadImage(with: junk) }) {} else { Issue.record("junk decoded") }
            #expect(manager.failedURLs.contains(junk))
            let busy = server.url("/status/503")
            _ = await failure { _ = try await manager.loadImage(with: busy) }
            #expect(!manager.failedURLs.contains(busy))
            let slow = ImageManager(cache: ImageCache(), downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(
                timeouts: ImageDownloadTimeouts(connect: .milliseconds(200)))))
            #expect(await failure { _ = try await slow.loadImage(with: server.url("/nohead")) } == .timedOut(.connect))
            #expect(!slow.failedURLs.contains(server.url("/nohead")))
            // An invalid URL blocks at once.
            let invalid = URL(string: "http:///nohost.png")!
            #expect(await failure { _ = try await manager.loadImage(with: invalid) } == .invalidURL(invalid.absoluteString))
            #expect(manager.failedURLs.contains(invalid))
            // A success after retrying clears the entry.
            server.register("late.png", data: LoadingFixtures.png)
            manager.failedURLs.insert(server.url("/img/late.png"))
            _ = try await manager.loadImage(with: server.url("/img/late.png"), options: .retryFailed)
            #expect(!manager.failedURLs.contains(server.url("/img/late.png")))
        }
    }

    @Test("progressive loads stream partial images; one caller leaving leaves the load to the other")
    func eventsAndCancellation() async throws {
        try await withServer { server in
            let manager = try Self.makeManager(disk: false)
            var partials = 0
            var final: ImageLoadResult?
            for try await event in manager.imageEvents(with: server.url("/gated/p.jpg?parts=3"), options: .progressiveLoad) {
                switch event {
                case .partialImage: #expect(final == nil); partials += 1; server.openGate()
                case .completed(let r): final = r
                case .progress: break
                }
            }
            #expect(partials >= 2)
            #expect(final?.image == (try ImageCoders.shared.decode(LoadingFixtures.progressiveJPEG)))

            let url = server.url("/slow/a.png?chunk=64&delay=30")
            let leaving = Task { try await manager.loadImage(with: url) }
            let staying = Task { try await manager.loadImage(with: url) }
            try await Task.sleep(for: .milliseconds(40))
            leaving.cancel()
            #expect(await failure { _ = try await leaving.value } == .cancelled)
            #expect(try await staying.value.data == LoadingFixtures.png)
            #expect(server.count("/slow/a.png") == 1)
        }
    }

    @Test("the prefetcher loads a list three at a time and counts finished, skipped and failed")
    func prefetcher() async throws {
        try await withServer { server in
            for i in 0..<6 { server.register("f\(i).png", data: LoadingFixtures.png(seed: i)) }
            let manager = try Self.makeManager()
            _ = try await manager.loadImage(with: server.url("/img/f0.png"), options: .waitStoreCache)
            _ = try await manager.loadImage(with: server.url("/img/f1.png"), options: .waitStoreCache)
            let prefetcher = ImagePrefetcher(manager: manager)
            let updates = Mutex<[Int]>([])
            let urls = (0..<6).map { server.url("/img/f\($0).png") } + [server.url("/status/404")]
            let summary = await prefetcher.prefetch(urls) { s in updates.withLock { $0.append(s.completed) } }
            #expect(summary == ImagePrefetcher.Summary(total: 7, finished: 4, skipped: 2, failed: 1))
            #expect(updates.withLock { $0 } == Array(1...7))
            #expect(server.count("/img/f0.png") == 1 && server.count("/img/f5.png") == 1)
            // Everything prefetched is now a memory hit.
            #expect(try await manager.loadImage(with: urls[5]).source == .memory)

            // Cancelling stops what has not finished; it counts as failed.
            // Each transfer takes seconds; nine of them three at a time would take ten.
            let slow = (0..<9).map { server.url("/slow/p.jpg?chunk=512&delay=100&n=\($0)") }
            let start = ContinuousClock.now
            let running = Task { await prefetcher.prefetch(slow) }
            try await Task.sleep(for: .milliseconds(150))
            prefetcher.cancelAll()
            let cancelled = await running.value
            #expect(cancelled == ImagePrefetcher.Summary(total: 9, finished: 0, skipped: 0, failed: 9), "\(cancelled)")
            #expect(ContinuousClock.now - start < .seconds(3))
        }
    }
}

/// Forwards to an ``ImageCache`` and records the executor each lookup ran on.
final class IsolationRecordingCache: ImageStoring {
    let base = ImageCache()
    let lookupsOnMainActor = Mutex<[Bool]>([])

    nonisolated(nonsending) func image(forKey key: String, cacheType: ImageCacheType,
                                       options: DecodeOptions) async throws -> ImageCacheResult? {
        let isolation = #isolation
        lookupsOnMainActor.withLock { $0.append(isolation === MainActor.shared) }
        return try await base.image(forKey: key, cacheType: cacheType, options: options)
    }

    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        try await base.store(image, data: data, forKey: key, cacheType: cacheType)
    }

    func removeImage(forKey key: String, cacheType: ImageCacheType) async throws {
        try await base.removeImage(forKey: key, cacheType: cacheType)
    }

    func containsImage(forKey key: String, cacheType: ImageCacheType) async throws -> ImageCacheSource? {
        try await base.containsImage(forKey: key, cacheType: cacheType)
    }

    func clear(cacheType: ImageCacheType) async throws { try await base.clear(cacheType: cacheType) }
}

@Suite("ImageManager memory hits")
struct ImageManagerMemoryHitTests {
    @Test("a memory hit runs on the caller's executor: no hop off the main actor and back")
    @MainActor
    func memoryHitStaysOnCaller() async throws {
        let cache = IsolationRecordingCache()
        let manager = ImageManager(cache: cache, downloader: ImageDownloader())
        defer { Task { try? await manager.downloader.shutdown() } }
        let url = URL(string: "http://127.0.0.1:9/never-fetched.png")!
        let image = Image(buffer: try Fixtures.gradient(width: 8, height: 8))
        try await cache.store(image, data: nil, forKey: manager.cacheKey(for: url), cacheType: .memory)
        let result = try await manager.loadImage(with: url)
        #expect(result.source == .memory && result.image == image)
        #expect(cache.lookupsOnMainActor.withLock { $0 } == [true])
    }
}
