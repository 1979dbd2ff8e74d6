// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

@Suite("ImagePrefetcher", .serialized)
struct PrefetcherTests {
    @Test("the prefetcher loads a list three at a time and counts finished, skipped and failed")
    func prefetcher() async throws {
        try await withServer { server in
            for i in 0..<6 { server.register("f\(i).png", data: LoadingFixtures.png(seed: i)) }
            let manager = ImageManager(
                configuration: ImageManager.Configuration(dataCache: try DiskCache(directory: TestFiles.temporaryDirectory("imago-manager"))))
            _ = try await manager.loadImage(with: ImageRequest(url: server.url("/img/f0.png"), options: .waitStoreCache))
            _ = try await manager.loadImage(with: ImageRequest(url: server.url("/img/f1.png"), options: .waitStoreCache))
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
            await manager.finishPendingStores()
        }
    }

    @Test("prefetched loads run at low priority: a caller's load waiting behind them goes first")
    func lowPriority() async throws {
        let loader = MockDataLoader()
        for i in 0..<6 { loader.register("/p\(i).png", data: pngFixture(width: 20 + i)) }
        loader.register("/now.png", data: pngFixture(width: 40))
        // Whichever prefetch reaches the one download slot first holds it.
        for i in 0..<6 { loader.hold("/p\(i).png") }
        let manager = makePipeline(loader: loader, downloads: 1)
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 3)
        let prefetching = Task { await prefetcher.prefetch((0..<6).map { loader.url("/p\($0).png") }) }
        try await waitUntil { loader.runningCount == 1 && manager.downloader.activity.queued == 2 }
        let now = Task { try await manager.loadImage(with: loader.url("/now.png")) }
        try await waitUntil { manager.downloader.activity.queued == 3 }
        for i in 0..<6 { loader.release("/p\(i).png") }
        _ = try await now.value
        #expect(await prefetching.value.finished == 6)
        let order = loader.startOrder
        #expect(order.count == 7 && order[0].hasPrefix("/p") && order[1] == "/now.png", "\(order)")
    }
}

@Suite("ImagePrefetcher with requests")
struct PrefetcherRequestTests {
    @Test("requests are prefetched as given: their processing is what lands in memory")
    func requests() async throws {
        let loader = MockDataLoader()
        for i in 0..<4 { loader.register("/r\(i).png", data: pngFixture(width: 40 + i)) }
        let memory = MockImageStore()
        let manager = makePipeline(loader: loader, memory: memory)
        let requests = (0..<4).map { ImageRequest(url: loader.url("/r\($0).png"), thumbnail: .init(maxPixelSize: PixelSize(width: 8, height: 8))) }
        let summary = await ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 2).prefetch(requests)
        #expect(summary == ImagePrefetcher.Summary(total: 4, finished: 4, skipped: 0, failed: 0) && summary.completed == 4)
        #expect(Set(memory.stores) == Set(requests.map(manager.imageKey(for:))))
        let again = await ImagePrefetcher(manager: manager).prefetch(requests)
        #expect(again.skipped == 4 && loader.totalCount == 4)
        #expect(await ImagePrefetcher(manager: manager).prefetch([URL]()) == ImagePrefetcher.Summary(total: 0, finished: 0, skipped: 0, failed: 0))
    }
}
