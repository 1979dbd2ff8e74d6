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

@Suite("Pipeline: bounded parallel work, bounded memory")
struct PipelineConcurrencyTests {
    @Test("at most N decodes run at once, and N do when there is work for them", arguments: [1, 2, 3])
    func boundedDecodes(_ workers: Int) async throws {
        let loader = MockDataLoader()
        for w in 10..<22 { loader.register("/\(w).png", data: pngFixture(width: w)) }
        let decoder = InstrumentedDecoder(minimumDuration: .milliseconds(30))
        let manager = makePipeline(loader: loader, decoder: decoder, workers: workers)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 10..<22 { group.addTask { _ = try await manager.loadImage(with: loader.url("/\(w).png")) } }
            try await group.waitForAll()
        }
        #expect(decoder.count == 12)
        #expect(decoder.peak == workers, "peak \(decoder.peak) with \(workers) workers")
    }

    /// The decoded images waiting for their transforms, as each transform saw them.
    final class Backlog: Sendable {
        let state = Mutex((transformed: 0, peak: 0))
    }

    /// A PNG decoder for a queue of one lane that keeps the lane until everything it expects
    /// waits behind it: the decodes still to come and the transforms of the loads decoded before
    /// it that have not run. What the lane takes next is then the queue's choice alone, whatever
    /// the machine's load, rather than a race with the tasks that queue the transforms.
    final class QueueGatedDecoder: ImageDecoding {
        private let base = PNGCoder()
        private let started = Mutex(0)
        private let queue: WorkQueue
        private let total: Int
        private let backlog: Backlog
        init(queue: WorkQueue, total: Int, backlog: Backlog) {
            self.queue = queue
            self.total = total
            self.backlog = backlog
        }
        var count: Int { started.withLock { $0 } }
        func canDecode(_ format: ImageFormat) -> Bool { format == .png }
        func info(of data: Data) throws -> ImageInfo { try base.info(of: data) }
        func decode(_ data: Data, options: DecodeOptions) throws -> Image {
            let k = started.withLock { n in
                n += 1
                return n
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while queue.counts.waiting < total - k + (k - 1 - backlog.state.withLock { $0.transformed }),
                ContinuousClock.now < deadline
            {
                Thread.sleep(forTimeInterval: 0.001)
            }
            return try base.decode(data, options: options)
        }
    }

    /// Records, as each transform runs, how many decoded images are waiting for theirs.
    struct BacklogProbe: ImageTransforming {
        let decoder: QueueGatedDecoder
        let backlog: Backlog
        var key: String { "Backlog" }
        func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            let decoded = decoder.count
            backlog.state.withLock { s in
                s.peak = max(s.peak, decoded - s.transformed)
                s.transformed += 1
            }
            return buffer
        }
    }

    @Test("a load's transform goes before other loads' decodes: decoded bitmaps do not pile up behind the queue")
    func transformsBeforeNewDecodes() async throws {
        let loader = MockDataLoader()
        for w in 10..<18 { loader.register("/\(w).png", data: pngFixture(width: w)) }
        let queue = WorkQueue(label: "test", maxConcurrentCount: 1)
        let backlog = Backlog()
        let decoder = QueueGatedDecoder(queue: queue, total: 8, backlog: backlog)
        let registry = ImageCoderRegistry(decoders: [decoder], encoders: [PNGCoder()])
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil, dataCache: nil, serializer: DefaultImageSerializer(coders: registry),
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
                coders: registry, processingQueue: queue))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 10..<18 {
                group.addTask {
                    var request = ImageRequest(url: loader.url("/\(w).png"))
                    request.transformers = [BacklogProbe(decoder: decoder, backlog: backlog)]
                    _ = try await manager.loadImage(with: request)
                }
            }
            try await group.waitForAll()
        }
        let seen = backlog.state.withLock { $0 }
        #expect(seen.transformed == 8 && decoder.count == 8)
        // A transform waits at most for the decode that took the lane before it was queued: two
        // decoded images at most. First-in-first-out alone would decode all 8 before the first
        // transform.
        #expect(seen.peak <= 2, "\(seen.peak) decoded images waited for their transforms at once")
    }

    @Test("a flood of large images: the memory cache keeps to its limit, and nothing else keeps the bitmaps")
    func floodStaysWithinLimit() async throws {
        let loader = MockDataLoader()
        // 24 images of 1000x750: 3 MB decoded each, 72 MB in all, against a 40 MB cache.
        let bytes = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 1000, height: 750)), as: .png)
        for i in 0..<24 { loader.register("/big\(i).png", data: bytes) }
        let cache = MemoryCache<String, Image>(costLimit: 40 << 20)
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(loader: loader, decoder: decoder, workers: 2, memory: cache)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<24 {
                group.addTask {
                    let r = try await manager.loadImage(with: loader.url("/big\(i).png"))
                    #expect(r.image.pixelSize == PixelSize(width: 1000, height: 750))
                }
            }
            try await group.waitForAll()
        }
        #expect(decoder.peak <= 2)
        #expect(cache.totalCost <= 40 << 20, "\(cache.totalCost) bytes in a 40 MB cache")
        #expect(cache.count <= 13 && cache.count >= 10, "\(cache.count) images cached")
        // The stages hold nothing once every load is done.
        #expect(manager.pipeline.processes.count == 0 && manager.pipeline.decodes.count == 0 && manager.pipeline.fetches.count == 0)
    }
}
