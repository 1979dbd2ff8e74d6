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

@Suite("ImageManager edges: no caches, filters, refresh past processed results, file sources in pieces")
struct ManagerEdgeTests {
    @Test("with no memory cache and no disk cache every load goes to the loader, and nothing is kept")
    func noCaches() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 12))
        let manager = makePipeline(loader: loader, memory: nil, disk: nil)
        for _ in 0..<3 { #expect(try await manager.loadImage(with: loader.url("/a.png")).source == .network) }
        #expect(loader.count("/a.png") == 3)
        try await manager.cache.remove(ImageRequest(url: loader.url("/a.png")))
        await manager.finishPendingStores()
    }

    @Test("the cache-key filter names what is stored: two URLs that filter alike share one entry")
    func filteredKeys() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 12))
        let disk = MockDataCache()
        let registry = ImageCoderRegistry(decoders: [InstrumentedDecoder()], encoders: [PNGCoder()])
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil, dataCache: disk,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]), coders: registry,
                cacheKeyFilter: { url in url.absoluteString.components(separatedBy: "?").first ?? url.absoluteString }))
        let signed = URL(string: loader.url("/a.png").absoluteString + "?sig=1")!
        let resigned = URL(string: loader.url("/a.png").absoluteString + "?sig=2")!
        #expect(try await manager.loadImage(with: ImageRequest(url: signed, options: .waitStoreCache)).source == .network)
        #expect(disk.keys == [loader.url("/a.png").absoluteString])
        #expect(try await manager.loadImage(with: resigned).source == .disk)
        #expect(loader.count("/a.png") == 1)  // the second URL was served from the first's entry
    }

    @Test("refreshCached goes past a processed result on disk to revalidate the source")
    func refreshPastProcessed() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 40))
        let disk = MockDataCache()
        let manager = makePipeline(loader: loader, memory: nil, disk: disk, policy: .all)
        let request = ImageRequest(
            url: loader.url("/a.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 10, height: 10)),
            options: .waitStoreCache)
        _ = try await manager.loadImage(with: request)
        await manager.finishPendingStores()
        #expect(try await manager.loadImage(with: request).source == .disk)
        var refresh = request
        refresh.options.insert(.refreshCached)
        let refreshed = try await manager.loadImage(with: refresh)
        #expect(refreshed.source == .network && loader.count("/a.png") == 2)
    }

    @Test("a large file is read in pieces, with progress, and decodes whole")
    func filePieces() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("big.png")
        var state: UInt32 = 2463534242
        let noise = (0..<(700 * 500 * 4)).map { i -> UInt8 in
            if i % 4 == 3 { return 255 }
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        let bytes = try ImageCoderRegistry.shared.encode(Image(buffer: PixelBuffer(width: 700, height: 500, format: .rgba8, bytes: noise)), as: .png)
        #expect(bytes.count > 256 << 10)
        try bytes.write(to: file)
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(
                    configuration: ImageDownloaderConfiguration(progressInterval: .zero))))
        var seen: [Int] = []
        var result: ImageLoadResult?
        for try await event in manager.imageEvents(with: ImageRequest(url: file)) {
            switch event {
            case .progress(let p): seen.append(p.receivedBytes)
            case .completed(let r): result = r
            case .partialImage: break
            }
        }
        #expect(result?.image.pixelSize == PixelSize(width: 700, height: 500) && result?.data == bytes)
        #expect(seen.count >= 2 && seen.last == bytes.count && seen == seen.sorted())
        // A folder is not a file.
        let folder = await failure { _ = try await manager.loadImage(with: dir) }
        if case .fileUnreadable? = folder {} else if case .emptyBody? = folder {} else { Issue.record("\(String(describing: folder))") }
    }

    @Test("a per-request thumbnail of a progressive load gets partial images at the thumbnail's size, scale-down too")
    func progressiveScaleDown() async throws {
        try await withServer { server in
            let manager = patientManager()
            var request = ImageRequest(url: server.url("/gated/p.jpg?parts=3"), options: .progressive)
            request.scaleDownLimitBytes = 160 * 120 * 4
            var partials: [Image] = []
            var final: Image?
            for try await event in manager.imageEvents(with: request) {
                switch event {
                case .partialImage(let image):
                    partials.append(image)
                    server.openGate()
                case .completed(let r): final = r.image
                case .progress: break
                }
            }
            let image = try #require(final)
            #expect(image.byteCount <= 160 * 120 * 4 && partials.count >= 2)
            #expect(partials.allSatisfy { $0.pixelSize == image.pixelSize }, "\(partials.map(\.pixelSize)) vs \(image.pixelSize)")
        }
    }
}
