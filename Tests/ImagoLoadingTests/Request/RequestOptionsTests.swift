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

@Suite("ImageRequest options: each reads and writes exactly the layers it says")
struct RequestOptionsTests {
    /// A loader with one PNG, a manager over mock caches, and the three of them.
    func setUp(policy: ImageManager.DataCachePolicy = .originalData) -> (MockDataLoader, MockDataCache, MockImageStore, ImageManager) {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 32))
        let disk = MockDataCache(), memory = MockImageStore()
        return (loader, disk, memory, makePipeline(loader: loader, memory: memory, disk: disk, policy: policy))
    }

    @Test("disableMemoryCacheWrites stores nothing in memory; disableMemoryCacheReads ignores what is there")
    func memoryOptions() async throws {
        let (loader, _, memory, manager) = setUp()
        let url = loader.url("/a.png")
        _ = try await manager.loadImage(with: ImageRequest(url: url, options: .disableMemoryCacheWrites))
        #expect(memory.stores.isEmpty)
        let second = try await manager.loadImage(with: url)
        #expect(second.source == .disk && memory.stores == [url.absoluteString])
        let reload = try await manager.loadImage(with: ImageRequest(url: url, options: [.disableMemoryCacheReads, .disableDiskCacheReads]))
        #expect(reload.source == .network && loader.count("/a.png") == 2)
    }

    @Test("disableDiskCacheWrites keeps the disk untouched; disableDiskCacheReads goes past what is there")
    func diskOptions() async throws {
        let (loader, disk, _, manager) = setUp()
        let url = loader.url("/a.png")
        _ = try await manager.loadImage(with: ImageRequest(url: url, options: [.disableDiskCacheWrites, .disableMemoryCacheWrites]))
        await manager.finishPendingStores()
        #expect(disk.writeCount == 0)
        _ = try await manager.loadImage(with: ImageRequest(url: url, options: [.waitStoreCache, .disableMemoryCacheWrites]))
        #expect(disk.writeCount == 1)
        let fromDisk = try await manager.loadImage(with: ImageRequest(url: url, options: .disableMemoryCacheWrites))
        #expect(fromDisk.source == .disk)
        let past = try await manager.loadImage(with: ImageRequest(url: url, options: [.disableDiskCacheReads, .disableMemoryCacheWrites]))
        #expect(past.source == .network && loader.count("/a.png") == 3)
    }

    @Test("fromLoaderOnly reads no cache but stores; fromCacheOnly never loads")
    func loaderAndCacheOnly() async throws {
        let (loader, disk, memory, manager) = setUp()
        let url = loader.url("/a.png")
        _ = try await manager.loadImage(with: ImageRequest(url: url, options: .waitStoreCache))
        let reads = disk.readCount
        let fresh = try await manager.loadImage(with: ImageRequest(url: url, options: [.fromLoaderOnly, .waitStoreCache]))
        #expect(fresh.source == .network && disk.readCount == reads && loader.count("/a.png") == 2)
        #expect(memory.stores.count == 2 && disk.writeCount == 2)
        let cached = try await manager.loadImage(with: ImageRequest(url: url, options: [.fromCacheOnly, .disableMemoryCacheReads]))
        #expect(cached.source == .disk && loader.count("/a.png") == 2)
        #expect(await failure { _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/b.png"), options: .fromCacheOnly)) } == .notCached)
        #expect(loader.count("/b.png") == 0)
    }

    @Test("waitStoreCache returns with the bytes on disk; without it the write may still be pending, and is flushed on request")
    func waitStoreCache() async throws {
        let (loader, disk, _, manager) = setUp()
        _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache))
        #expect(disk.keys == [loader.url("/a.png").absoluteString])
        loader.register("/b.png", data: pngFixture(width: 33))
        _ = try await manager.loadImage(with: loader.url("/b.png"))
        await manager.finishPendingStores()
        #expect(disk.keys.count == 2 && disk.writeCount == 2)
    }

    @Test("transformAnimatedImage transforms every frame of an animation; without it an animation is left alone")
    func animatedTransforms() async throws {
        let loader = MockDataLoader()
        let frames = try [Fixtures.gradient(width: 20, height: 10), Fixtures.coordinates(width: 20, height: 10)]
            .map { ImageFrame(buffer: $0, duration: 0.1) }
        loader.register("/anim.gif", data: try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        let flip = ImageTransformers.Resize(size: PixelSize(width: 10, height: 5))
        let untouched = try await manager.loadImage(with: ImageRequest(url: loader.url("/anim.gif"), transformers: [flip]))
        #expect(untouched.image.frameCount == 2 && untouched.image.pixelSize == PixelSize(width: 20, height: 10))
        let every = try await manager.loadImage(
            with: ImageRequest(
                url: loader.url("/anim.gif"), transformers: [flip],
                options: .transformAnimatedImage))
        #expect(every.image.frameCount == 2 && every.image.frames.allSatisfy { $0.buffer.size == PixelSize(width: 10, height: 5) })
        #expect(every.cacheKey != untouched.cacheKey)
    }

    /// Records whether it was handed a lazy animation; resizes every frame to 10×5.
    struct LazyProbe: ImageTransforming {
        final class Record: Sendable { let values = Mutex<[Bool]>([]) }
        let acceptsLazyAnimations: Bool
        let handedLazy = Record()
        var key: String { "probe(\(acceptsLazyAnimations))" }
        func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            try Resampler.resize(buffer, to: PixelSize(width: 10, height: 5))
        }
        func transform(_ image: Image, animated: Bool) throws -> Image {
            handedLazy.values.withLock { $0.append(image.animation != nil) }
            let frames = try (0..<image.frameCount).map { i in
                let frame = try image.frame(at: i)
                return ImageFrame(buffer: try transform(frame.buffer), duration: frame.duration)
            }
            return try Image(frames: frames, loopCount: image.loopCount)
        }
    }

    @Test("a lazy animation reaches a transformer that accepts one as it is; others get every frame decoded first")
    func lazyTransformers() async throws {
        let loader = MockDataLoader()
        let frames = try [
            Fixtures.gradient(width: 20, height: 10), Fixtures.coordinates(width: 20, height: 10),
            Fixtures.gradient(width: 20, height: 10, alpha: true)
        ].map { ImageFrame(buffer: $0, duration: 0.1) }
        loader.register("/anim.gif", data: try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        let all = try await manager.loadImage(with: ImageRequest(url: loader.url("/anim.gif"))).image.decodingAllFrames()
        for accepts in [true, false] {
            let probe = LazyProbe(acceptsLazyAnimations: accepts)
            var request = ImageRequest(url: loader.url("/anim.gif"), transformers: [probe], options: .transformAnimatedImage)
            request.frames = .lazy
            let image = try await manager.loadImage(with: request).image
            #expect(probe.handedLazy.values.withLock { $0 } == [accepts])
            #expect(image.animation == nil && image.frames.count == 3)
            // The same pixels either way: each frame resized from its composited canvas.
            for i in 0..<3 {
                #expect(image.frames[i].buffer == (try Resampler.resize(all.frames[i].buffer, to: PixelSize(width: 10, height: 5))))
            }
        }
    }

    @Test("frames: first gives a still, lazy decodes frames on demand, all decodes them now")
    func frameModes() async throws {
        let loader = MockDataLoader()
        let frames = try [
            Fixtures.gradient(width: 20, height: 10), Fixtures.coordinates(width: 20, height: 10),
            Fixtures.gradient(width: 20, height: 10, alpha: true)
        ].map { ImageFrame(buffer: $0, duration: 0.1) }
        loader.register("/anim.gif", data: try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        var request = ImageRequest(url: loader.url("/anim.gif"))
        request.frames = .lazy
        let lazy = try await manager.loadImage(with: request).image
        #expect(lazy.animation != nil && lazy.frameCount == 3 && lazy.frames.count == 1)
        #expect(try lazy.frame(at: 2).buffer.size == PixelSize(width: 20, height: 10))
        request.frames = .all
        let all = try await manager.loadImage(with: request).image
        #expect(all.animation == nil && all.frames.count == 3)
        #expect(loader.count("/anim.gif") == 2)
    }

    @Test("scale-down bounds the decoded bytes; the pixel format and colour options reach the decoder")
    func decodeSettings() async throws {
        let loader = MockDataLoader()
        loader.register("/big.png", data: pngFixture(width: 400))
        let manager = makePipeline(loader: loader)
        var request = ImageRequest(url: loader.url("/big.png"))
        request.scaleDownLimitBytes = 100 * 75 * 4
        let small = try await manager.loadImage(with: request).image
        #expect(small.byteCount <= 100 * 75 * 4 && small.pixelSize.width < 400)
        var straight = ImageRequest(url: loader.url("/big.png"))
        straight.pixelFormat = .rgba8
        #expect(try await manager.loadImage(with: straight).image.buffer.format == .rgba8)
        #expect(loader.count("/big.png") == 2)
    }

    @Test("the scale comes from @2x/@3x in the URL unless the request sets one")
    func scale() async throws {
        let loader = MockDataLoader()
        loader.register("/icon@3x.png", data: pngFixture(width: 12))
        let manager = makePipeline(loader: loader)
        #expect(try await manager.loadImage(with: loader.url("/icon@3x.png")).image.scale == 3)
        var request = ImageRequest(url: loader.url("/icon@3x.png"))
        request.scale = 1
        let one = try await manager.loadImage(with: request)
        #expect(one.image.scale == 1 && one.cacheKey.hasSuffix("[scale=1.0]"))
    }

    @Test("DataCachePolicy.all keeps both the original bytes and the processed image")
    func policyAll() async throws {
        let (loader, disk, _, manager) = setUp(policy: .all)
        let request = ImageRequest(
            url: loader.url("/a.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8)),
            options: .waitStoreCache)
        _ = try await manager.loadImage(with: request)
        #expect(disk.keys == [loader.url("/a.png").absoluteString, manager.imageKey(for: request)])
        try await manager.cache.remove(request)
        #expect(disk.keys.isEmpty)
    }
}
