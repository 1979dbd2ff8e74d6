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

/// The result cache (`ImageManager.Configuration.resultCache`): encoded results on disk, read
/// before anything is decoded, keyed by the source's bytes, the processing and the output, kept
/// across managers (processes), and purged with their source.
@Suite("Pipeline: the result cache")
struct ResultCacheTests {
    /// Source and result caches under `directory`, and a manager over them decoding PNG through `decoder`.
    func makeManager(loader: MockDataLoader, decoder: InstrumentedDecoder, directory: URL) throws -> (ImageManager, DiskCache) {
        let registry = ImageCoderRegistry(decoders: [decoder], encoders: [WebPCoder(), JPEGCoder(), PNGCoder()])
        let sources = try DiskCache(directory: directory, configuration: .init(namespace: "sources", maxAge: nil))
        let results = try DiskCache(directory: directory, configuration: .init(namespace: "results", maxAge: nil, inlineThreshold: 0))
        var configuration = ImageManager.Configuration(
            memoryCache: nil, dataCache: sources,
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
            coders: registry, processingQueue: WorkQueue(label: "result-cache-test", maxConcurrentCount: 2))
        configuration.resultCache = results
        return (ImageManager(configuration: configuration), results)
    }

    func request(_ url: URL, side: Int = 40, format: ImageFormat = .webp) -> ImageRequest {
        var request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: PixelSize(width: side, height: side)))
        request.output = ImageRequest.Output(format: format, quality: 0.8)
        return request
    }

    @Test("a result is made once: read back from disk by a new manager (a restarted process), byte for byte, no decode")
    func storedAcrossManagers() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 120))
        let directory = try TestFiles.temporaryDirectory("imago-results")
        let decoder = InstrumentedDecoder()
        let made: EncodedImageResult
        do {
            let (manager, results) = try makeManager(loader: loader, decoder: decoder, directory: directory)
            made = try await manager.loadEncodedImage(with: request(loader.url("/a.png")))
            #expect(made.method == .rendered && decoder.count == 1)
            await manager.finishPendingStores()
            #expect(try results.statistics().count == 1)
        }
        let again = InstrumentedDecoder()
        let (manager, _) = try makeManager(loader: loader, decoder: again, directory: directory)
        let stored = try await manager.loadEncodedImage(with: request(loader.url("/a.png")))
        #expect(stored.method == .stored && stored.source == .disk)
        #expect(try stored.data() == made.data() && stored.format == .webp && stored.pixelSize == made.pixelSize)
        guard case .file = stored.contents else {
            Issue.record("a stored result is sent from its file")
            return
        }
        #expect(again.count == 0, "nothing decoded")
        #expect(loader.count("/a.png") == 1, "the source came from its cache")
        // Another size or format of the same source is another result.
        let other = try await manager.loadEncodedImage(with: request(loader.url("/a.png"), format: .png))
        #expect(other.method == .rendered && other.format == .png && again.count == 1)
        let smaller = try await manager.loadEncodedImage(with: request(loader.url("/a.png"), side: 20))
        #expect(smaller.method == .rendered && smaller.pixelSize.width == 20)
    }

    @Test("other bytes under the same URL never meet the old result: the key holds the source's digest")
    func keyedBySourceBytes() async throws {
        let loader = MockDataLoader()
        loader.register("/b.png", data: pngFixture(width: 120))
        let directory = try TestFiles.temporaryDirectory("imago-results-digest")
        let decoder = InstrumentedDecoder()
        let (manager, results) = try makeManager(loader: loader, decoder: decoder, directory: directory)
        let first = try await manager.loadEncodedImage(with: request(loader.url("/b.png")))
        await manager.finishPendingStores()
        // The origin replaced the image; a refresh fetches the new bytes.
        loader.register("/b.png", data: pngFixture(width: 90))
        var refreshed = request(loader.url("/b.png"))
        refreshed.options.insert(.refreshCached)
        let second = try await manager.loadEncodedImage(with: refreshed)
        #expect(second.method == .rendered && second.pixelSize == PixelSize(width: 40, height: 30))
        #expect(try first.pixelSize != second.pixelSize || first.data() != second.data())
        await manager.finishPendingStores()
        #expect(try results.statistics().count == 2, "one result per version of the source")
    }

    @Test("a purge of the source removes every result made from it, and only those")
    func purgedWithSource() async throws {
        let loader = MockDataLoader()
        loader.register("/c.png", data: pngFixture(width: 120))
        loader.register("/d.png", data: pngFixture(width: 100))
        let directory = try TestFiles.temporaryDirectory("imago-results-purge")
        let decoder = InstrumentedDecoder()
        let (manager, results) = try makeManager(loader: loader, decoder: decoder, directory: directory)
        for side in [20, 30, 40] { _ = try await manager.loadEncodedImage(with: request(loader.url("/c.png"), side: side)) }
        _ = try await manager.loadEncodedImage(with: request(loader.url("/d.png")))
        await manager.finishPendingStores()
        #expect(try results.statistics().count == 4)
        try await manager.cache.purge(ImageRequest(url: loader.url("/c.png")))
        let left = try results.entries().map(\.key)
        #expect(left.count == 1 && left[0].hasPrefix(loader.url("/d.png").absoluteString + " "))
        let again = try await manager.loadEncodedImage(with: request(loader.url("/c.png")))
        #expect(again.method == .rendered && loader.count("/c.png") == 2)
    }

    @Test("a load that skips the disk cache neither reads nor writes results")
    func skipsDisk() async throws {
        let loader = MockDataLoader()
        loader.register("/e.png", data: pngFixture(width: 120))
        let directory = try TestFiles.temporaryDirectory("imago-results-skip")
        let decoder = InstrumentedDecoder()
        let (manager, results) = try makeManager(loader: loader, decoder: decoder, directory: directory)
        var plain = request(loader.url("/e.png"))
        plain.options.insert(.disableDiskCacheWrites)
        _ = try await manager.loadEncodedImage(with: plain)
        await manager.finishPendingStores()
        #expect(try results.statistics().count == 0)
        _ = try await manager.loadEncodedImage(with: request(loader.url("/e.png")))
        await manager.finishPendingStores()
        var unread = request(loader.url("/e.png"))
        unread.options.insert(.disableDiskCacheReads)
        let fresh = try await manager.loadEncodedImage(with: unread)
        #expect(fresh.method == .rendered && decoder.count == 3)
    }

    @Test("DiskCache removes by key prefix: files and manifest rows, nothing else")
    func diskCachePrefixRemoval() throws {
        let cache = try DiskCache(
            directory: try TestFiles.temporaryDirectory("imago-prefix"), configuration: .init(namespace: "p", maxAge: nil, inlineThreshold: 8))
        for (n, key) in ["a => 1", "a => 2", "a =>", "ab => 1", "b => a => 1", "a => 3"].enumerated() {
            // One removed entry inside the manifest, the rest in files.
            try cache.setData(n == 5 ? Data("tiny".utf8) : Data(repeating: UInt8(n), count: 100), forKey: key)
        }
        try cache.removeValues(withKeyPrefix: "a => ")
        #expect(Set(try cache.entries().map(\.key)) == ["a =>", "ab => 1", "b => a => 1"])
        #expect(try cache.data(forKey: "a => 1") == nil && cache.data(forKey: "ab => 1") != nil)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.appendingPathComponent("data").path)
        #expect(files.count == 3, "the removed entries' files are gone: \(files)")
    }
}
