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

/// Results shared through a real object store (`ImageManager.Configuration.sharedResults`,
/// `ObjectStoreResults` over S3 and over Swift): a result one manager made is read by another
/// with caches of its own, without a decode, and a purge removes it from the store.
@Suite("Shared results in a real object store", .serialized, .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason))
struct SharedResultsTests {
    static func stores(_ store: ObjectStore) -> [(String, ObjectStoreResults.Store)] {
        [
            (
                "s3",
                .s3(
                    S3Settings(region: "us-east-1", endpoint: store.url, credentials: .init(accessKeyID: "test:tester", secretAccessKey: "testing")),
                    bucket: "shared-results")
            ),
            (
                "swift",
                .swift(
                    SwiftStorageSettings(authURL: store.url.appendingPathComponent("auth/v1.0"), username: "test:tester", apiKey: "testing"),
                    container: "shared-results")
            )
        ]
    }

    @Test("store, read back with metadata, miss, and purge by key prefix (other sources' results kept), over S3 and Swift")
    func objectStoreResults() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("shared-results")
        for (name, location) in Self.stores(store) {
            let results = ObjectStoreResults(location, prefix: "/r/\(name)/")
            #expect(results.prefix == "r/\(name)")
            let a1 = "https://o/a.jpg => 00ab rs:fit:100 {webp q80}", a2 = "https://o/a.jpg => 00ab rs:fit:200 {webp q80}"
            let b1 = "https://o/b.jpg => 00cd rs:fit:100 {webp q80}"
            for (key, byte) in [(a1, UInt8(1)), (a2, 2), (b1, 3)] {
                try await results.store(CachedData(data: Data(repeating: byte, count: 1000), metadata: ["format": "webp", "width": "100"]), forKey: key)
            }
            let read = try #require(try await results.result(forKey: a2), "\(name)")
            #expect(read.data == Data(repeating: 2, count: 1000) && read.metadata == ["format": "webp", "width": "100"], "\(name)")
            #expect(try await results.result(forKey: "https://o/a.jpg => 00ab other {png}") == nil, "\(name)")
            try await results.removeResults(withKeyPrefix: "https://o/a.jpg => ")
            #expect(try await results.result(forKey: a1) == nil && results.objectName(forKey: a1).hasPrefix(results.groupName("https://o/a.jpg => ")))
            #expect(try await results.result(forKey: a2) == nil, "\(name)")
            #expect(try await results.result(forKey: b1)?.data == Data(repeating: 3, count: 1000), "\(name): another source's result stays")
        }
    }

    /// A manager with source and result caches of its own, sharing `shared`.
    func manager(_ loader: MockDataLoader, shared: ObjectStoreResults, decoder: InstrumentedDecoder) throws -> ImageManager {
        let directory = try TestFiles.temporaryDirectory("imago-shared")
        var configuration = ImageManager.Configuration(
            memoryCache: nil, dataCache: try DiskCache(directory: directory, configuration: .init(namespace: "sources", maxAge: nil)),
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
            coders: ImageCoderRegistry(decoders: [decoder], encoders: [WebPCoder(), PNGCoder()]),
            processingQueue: WorkQueue(label: "shared-results-test", maxConcurrentCount: 2))
        configuration.resultCache = try DiskCache(directory: directory, configuration: .init(namespace: "results", maxAge: nil))
        configuration.sharedResults = shared
        return ImageManager(configuration: configuration)
    }

    @Test("made on one host, served by another without a decode; copied into its own cache; a purge reaches the store")
    func acrossManagers() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("shared-results")
        for (name, location) in Self.stores(store) {
            let shared = ObjectStoreResults(location, prefix: "across/\(name)")
            let loader = MockDataLoader()
            loader.register("/p.png", data: pngFixture(width: 120))
            var request = ImageRequest(url: loader.url("/p.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 40, height: 40)))
            request.output = ImageRequest.Output(format: .webp, quality: 0.8)

            let firstDecoder = InstrumentedDecoder()
            let first = try manager(loader, shared: shared, decoder: firstDecoder)
            let made = try await first.loadEncodedImage(with: request)
            #expect(made.method == .rendered && firstDecoder.count == 1, "\(name)")
            // The upload runs in the background.
            try await eventuallyAsync { first.sharedUploadsInFlight == 0 }

            let secondDecoder = InstrumentedDecoder()
            let second = try manager(loader, shared: shared, decoder: secondDecoder)
            let served = try await second.loadEncodedImage(with: request)
            #expect(served.method == .stored && secondDecoder.count == 0, "\(name): no decode on the second host")
            #expect(try served.data() == made.data() && served.pixelSize == made.pixelSize && served.format == .webp, "\(name)")
            #expect(second.sharedResultHits == 1)
            await second.finishPendingStores()
            let again = try await second.loadEncodedImage(with: request)
            #expect(again.method == .stored && second.sharedResultHits == 1, "\(name): then from its own cache")

            try await first.cache.purge(request)
            let third = try manager(loader, shared: shared, decoder: InstrumentedDecoder())
            #expect(try await third.loadEncodedImage(with: request).method == .rendered, "\(name): purged from the store too")
        }
    }

    /// Waits until `condition` holds (at most 30 s of polling).
    func eventuallyAsync(sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool) async throws {
        try await poll(.seconds(30), every: .milliseconds(20), sourceLocation: sourceLocation, condition)
    }

    @Test("sources shared: downloaded once for every manager, fresh by the origin's word, revalidated when stale, purged")
    func sharedSources() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("shared-results")
        let origin = try await TestHTTPServer.start()
        origin.register("fresh.png", data: pngFixture(width: 60), headers: [("Cache-Control", "max-age=3600")])
        origin.register("stale.png", data: pngFixture(width: 70), headers: [("Cache-Control", "max-age=0")])
        let shared = ObjectStoreResults(Self.stores(store)[0].1, prefix: "sources-test")
        func manager() throws -> ImageManager {
            var configuration = ImageManager.Configuration(
                memoryCache: nil,
                dataCache: try DiskCache(directory: try TestFiles.temporaryDirectory("imago-shared-sources"), maxAge: nil),
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [HTTPDataLoader()]))
            configuration.sharedSources = shared
            return ImageManager(configuration: configuration)
        }
        let first = try manager()
        let fresh = ImageRequest(url: origin.url("/img/fresh.png"), options: [.waitStoreCache])
        let stale = ImageRequest(url: origin.url("/img/stale.png"), options: [.waitStoreCache])
        let made = try await first.loadData(with: fresh).data
        _ = try await first.loadData(with: stale)
        try await eventuallyAsync { first.sharedUploadsInFlight == 0 }
        #expect(origin.count("/img/fresh.png") == 1 && origin.count("/img/stale.png") == 1)

        let second = try manager()
        let taken = try await second.loadData(with: fresh)
        #expect(taken.data == made && origin.count("/img/fresh.png") == 1, "from the shared sources, not the origin")
        #expect(second.sharedSourceHits == 1)
        let revalidated = try await second.loadData(with: stale)
        #expect(revalidated.revalidated && origin.count("/img/stale.png") == 2, "stale by the origin's word: revalidated, 304")
        #expect(second.sharedSourceHits == 1)

        try await first.cache.purge(fresh)
        let third = try manager()
        _ = try await third.loadData(with: fresh)
        #expect(origin.count("/img/fresh.png") == 2 && third.sharedSourceHits == 0, "purged from the store too")
        await origin.stop()
    }

    @Test("two managers missing one source at once: the first claims the download, the second waits for its upload (Swift's conditional create)")
    func claimedDownload() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("shared-results")
        let origin = try await TestHTTPServer.start()
        origin.register("slow.png", data: pngFixture(width: 200))
        let shared = ObjectStoreResults(Self.stores(store)[1].1, prefix: "claims-test")
        #expect(await shared.claim("k", lease: .seconds(20)), "the first claim is taken")
        #expect(await shared.claim("k", lease: .seconds(20)) == false, "a live claim is held")
        await shared.release("k")
        #expect(await shared.claim("k", lease: .seconds(0)), "released: taken again")
        #expect(await shared.claim("k", lease: .seconds(20)), "an expired claim is taken over")
        await shared.release("k")

        func manager() throws -> ImageManager {
            var configuration = ImageManager.Configuration(
                memoryCache: nil,
                dataCache: try DiskCache(directory: try TestFiles.temporaryDirectory("imago-claims"), maxAge: nil),
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [HTTPDataLoader()]))
            configuration.sharedSources = shared
            return ImageManager(configuration: configuration)
        }
        let first = try manager(), second = try manager()
        // About 0.5 s to download: the second asks while the first is still downloading.
        let request = ImageRequest(url: origin.url("/slow/slow.png?chunk=1000&delay=25"), options: [.waitStoreCache])
        async let a = first.loadData(with: request)
        try await Task.sleep(for: .milliseconds(150))
        async let b = second.loadData(with: request)
        let (made, waited) = try await (a, b)
        #expect(made.data == waited.data)
        #expect(origin.count("/slow/slow.png") == 1, "downloaded once for both")
        #expect(second.sharedSourceHits == 1)
        await origin.stop()
    }
}
