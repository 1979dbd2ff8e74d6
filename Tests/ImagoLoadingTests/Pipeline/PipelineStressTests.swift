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

@Suite("Pipeline under churn: many loads, mixed requests, random cancellations")
struct PipelineStressTests {
    @Test("every load that finishes has the right image; cancelled ones say so; nothing is left running")
    func churn() async throws {
        let loader = MockDataLoader()
        for i in 0..<8 { loader.register("/s\(i).png", data: pngFixture(width: 20 + i), chunks: 4, delay: .milliseconds(1)) }
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(
            loader: loader, decoder: decoder, workers: 2, memory: MemoryCache<String, Image>(costLimit: 64 << 10),
            disk: MockDataCache(), downloads: 3)
        let runs = Counter()
        let outcomes = Tally()
        var generator = SystemRandomNumberGenerator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<400 {
                let i = Int.random(in: 0..<8, using: &generator)
                var request = ImageRequest(url: loader.url("/s\(i).png"), priority: ImagePriority.allCases.randomElement(using: &generator)!)
                switch n % 4 {
                case 1: request.thumbnail = .init(maxPixelSize: PixelSize(width: 8, height: 8))
                case 2: request.transformers = [CountingTransformer(name: "c", runs: runs)]
                case 3: request.options = .progressive
                default: break
                }
                let cancelAfter = Int.random(in: 0..<6, using: &generator) == 0 ? Duration.milliseconds(Int.random(in: 0..<10, using: &generator)) : nil
                let expected = request.thumbnail == nil ? PixelSize(width: 20 + i, height: (20 + i) * 3 / 4) : nil
                let load = request
                group.addTask {
                    let task = manager.imageTask(with: load)
                    if let cancelAfter {
                        try await Task.sleep(for: cancelAfter)
                        task.cancel()
                    }
                    do {
                        let image = try await task.value.image
                        let right = expected.map { image.pixelSize == $0 } ?? (image.pixelSize.width == 8)
                        outcomes.add(right ? "finished" : "wrong")
                    } catch ImageLoadingError.cancelled {
                        outcomes.add("cancelled")
                    }
                }
            }
            try await group.waitForAll()
        }
        let o = outcomes.counts
        #expect(o["wrong"] == nil && o["finished", default: 0] + o["cancelled", default: 0] == 400 && o["finished", default: 0] > 200, "\(o)")
        try await waitUntil { manager.pipeline.fetches.count == 0 && manager.pipeline.decodes.count == 0 && manager.pipeline.processes.count == 0 }
        #expect(manager.downloader.activity == (0, 0))
        #expect(manager.configuration.processingQueue.counts == (0, 0))
        #expect(decoder.peak <= 2)
        await manager.finishPendingStores()
    }

    @Test("a manager made from a configuration uses its memory cache, its data cache and its coders")
    func fromConfiguration() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 16))
        let memory = MemoryCache<String, Image>()
        let disk = MockDataCache()
        let decoder = InstrumentedDecoder()
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: memory, dataCache: disk,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
                coders: ImageCoderRegistry(decoders: [decoder])))
        let request = ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache)
        let result = try await manager.loadImage(with: request)
        #expect(memory.image(forKey: result.cacheKey) == result.image)
        #expect(disk.keys == [loader.url("/a.png").absoluteString])
        #expect(decoder.count == 1, "decoded by the configured coders")
        #expect(try await manager.cache.contains(request) == .memory)
    }

    @Test("events come in order: progress never falls, partial images before the result, the result last")
    func eventOrder() async throws {
        let loader = MockDataLoader()
        let jpeg = LoadingFixtures.progressiveJPEG
        loader.register("/p.jpg", data: jpeg, chunks: 16, delay: .milliseconds(3))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(
                    configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, progressInterval: .zero), loaders: [loader])))
        var received: [Int] = []
        var kinds: [String] = []
        for try await event in manager.imageEvents(with: ImageRequest(url: loader.url("/p.jpg"), options: .progressive)) {
            switch event {
            case .progress(let p):
                received.append(p.receivedBytes)
                kinds.append("p")
            case .partialImage: kinds.append("i")
            case .completed: kinds.append("c")
            }
        }
        #expect(received == received.sorted() && received.last == jpeg.count)
        #expect(kinds.last == "c" && kinds.filter { $0 == "c" }.count == 1)
        #expect(kinds.contains("i"), "\(kinds)")
    }
}

/// Counts by name, from any thread.
final class Tally: Sendable {
    private let state = Mutex<[String: Int]>([:])
    func add(_ name: String) { state.withLock { $0[name, default: 0] += 1 } }
    var counts: [String: Int] { state.withLock { $0 } }
}
