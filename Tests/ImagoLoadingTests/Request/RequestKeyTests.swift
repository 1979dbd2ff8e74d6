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

@Suite("One key per request identity")
struct RequestKeyTests {
    let url: URL

    init() throws {
        url = try #require(URL(string: "https://img.example/a@2x.png?v=1"))
    }

    @Test("a plain request is keyed by its URL; every setting that changes the pixels changes the image key, and nothing else does")
    func imageKeys() {
        let manager = ImageManager()
        let plain = ImageRequest(url: url)
        #expect(manager.imageKey(for: plain) == url.absoluteString && manager.dataKey(for: plain) == url.absoluteString)
        var variants: [ImageRequest] = []
        var r = plain
        r.thumbnail = .init(maxPixelSize: PixelSize(width: 10, height: 10))
        variants.append(r)
        r = plain
        r.thumbnail = .init(maxPixelSize: PixelSize(width: 10, height: 10), preserveAspectRatio: false)
        variants.append(r)
        r = plain
        r.scaleDownLimitBytes = 1 << 20
        variants.append(r)
        r = plain
        r.frames = .first
        variants.append(r)
        r = plain
        r.frames = .lazy
        variants.append(r)
        r = plain
        r.pixelFormat = .rgba8
        variants.append(r)
        r = plain
        r.colorManagement = false
        variants.append(r)
        r = plain
        r.scale = 3
        variants.append(r)
        r = plain
        r.transformers = [ImageTransformers.Resize(size: PixelSize(width: 5, height: 5))]
        variants.append(r)
        r = plain
        r.transformers = [ImageTransformers.Resize(size: PixelSize(width: 5, height: 5), quality: .bilinear)]
        variants.append(r)
        r = plain
        r.transformers = [ImageTransformers.Resize(size: PixelSize(width: 5, height: 5))]
        r.options = .transformAnimatedImage
        variants.append(r)
        let keys = variants.map(manager.imageKey(for:))
        #expect(Set(keys).count == variants.count, "\(keys)")
        #expect(keys.allSatisfy { $0.hasPrefix(url.absoluteString + " [") })
        // Priority, headers, options and limits decide how, not what: same image key.
        r = plain
        r.priority = .veryHigh
        r.headers = ["X": "1"]
        r.options = [.waitStoreCache, .retryFailed]
        r.limits = DecodingLimits(maxPixels: 10)
        r.scale = 2  // what the @2x name says anyway
        #expect(manager.imageKey(for: r) == url.absoluteString)
    }

    @Test("no URL's key can equal another request's processed key")
    func noCollisions() {
        let manager = ImageManager()
        var thumb = ImageRequest(url: url)
        thumb.thumbnail = .init(maxPixelSize: PixelSize(width: 10, height: 10))
        let key = manager.imageKey(for: thumb)
        #expect(key.contains(" "))
        // A URL cannot contain a space, so it cannot spell that key.
        #expect(URL(string: key) == nil || URL(string: key)?.absoluteString != key)
    }

    @Test("the cache-key filter and a request's own cache key name the data; data sources are keyed by their key")
    func dataKeys() {
        let manager = ImageManager(
            configuration: ImageManager.Configuration(cacheKeyFilter: { u in
                u.absoluteString.replacingOccurrences(of: "?v=1", with: "")
            }))
        #expect(manager.dataKey(for: ImageRequest(url: url)) == "https://img.example/a@2x.png")
        var own = ImageRequest(url: url)
        own.cacheKey = "avatar:7"
        #expect(manager.dataKey(for: own) == "avatar:7" && manager.imageKey(for: own) == "avatar:7")
        #expect(manager.dataKey(for: ImageRequest(data: Data([1]), key: "blob:1")) == "blob:1")
    }

    @Test("first-frame and all-frame loads of one animation are separate memory entries (the first no longer wins)")
    func framesAreSeparate() async throws {
        let loader = MockDataLoader()
        let frames = try [
            Fixtures.gradient(width: 20, height: 10), Fixtures.coordinates(width: 20, height: 10),
            Fixtures.gradient(width: 20, height: 10, alpha: true)
        ].map { ImageFrame(buffer: $0, duration: 0.1) }
        let gif = try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif)
        loader.register("/anim.gif", data: gif)
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        var first = ImageRequest(url: loader.url("/anim.gif"))
        first.frames = .first
        #expect(try await manager.loadImage(with: first).image.frameCount == 1)
        let all = try await manager.loadImage(with: ImageRequest(url: loader.url("/anim.gif")))
        #expect(all.image.frameCount == 3 && all.source == .network)
        #expect(try await manager.loadImage(with: first).image.frameCount == 1)
        #expect(try await manager.loadImage(with: ImageRequest(url: loader.url("/anim.gif"))).image.frameCount == 3)
    }

    @Test("the resize transformer's key includes its resampling quality")
    func resizeKey() {
        let lanczos = ImageTransformers.Resize(size: PixelSize(width: 5, height: 5))
        let bilinear = ImageTransformers.Resize(size: PixelSize(width: 5, height: 5), quality: .bilinear)
        #expect(lanczos.key != bilinear.key)
    }
}
