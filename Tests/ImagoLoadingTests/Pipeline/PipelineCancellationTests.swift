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

@Suite("Pipeline: cancellation by the last subscriber")
struct PipelineCancellationTests {
    @Test("one caller leaving keeps the load for the other; the last one leaving stops the download")
    func lastSubscriberCancels() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 40))
        loader.hold("/a.png")
        let manager = makePipeline(loader: loader)
        let url = loader.url("/a.png")
        let leaving = manager.imageTask(with: ImageRequest(url: url))
        let staying = manager.imageTask(with: ImageRequest(url: url))
        try await waitUntil { loader.runningCount == 1 }
        leaving.cancel()
        #expect(await failure { _ = try await leaving.value } == .cancelled)
        loader.release("/a.png")
        #expect(try await staying.value.image.pixelSize == PixelSize(width: 40, height: 30))
        #expect(loader.count("/a.png") == 1 && loader.cancelledCount == 0)

        // Both leave: the download is cancelled and every stage is gone.
        loader.register("/b.png", data: pngFixture(width: 41))
        loader.hold("/b.png")
        let one = manager.imageTask(with: ImageRequest(url: loader.url("/b.png")))
        let two = Task { try await manager.loadImage(with: loader.url("/b.png")) }
        try await waitUntil { loader.runningCount == 1 }
        one.cancel()
        two.cancel()
        #expect(await failure { _ = try await two.value } == .cancelled)
        try await waitUntil { loader.cancelledCount == 1 }
        try await waitUntil { manager.pipeline.fetches.count == 0 && manager.pipeline.processes.count == 0 }
        #expect(manager.downloader.activity == (0, 0))
        #expect(!manager.failedURLs.contains(loader.url("/b.png")))
    }

    @Test("a load cancelled while its decode waits for a thread never decodes")
    func queuedDecodeDropped() async throws {
        let loader = MockDataLoader()
        loader.register("/busy.png", data: pngFixture(width: 30))
        loader.register("/dropped.png", data: pngFixture(width: 31))
        let decoder = InstrumentedDecoder()
        decoder.hold(width: 30)
        let manager = makePipeline(loader: loader, decoder: decoder, workers: 1)
        let busy = manager.imageTask(with: ImageRequest(url: loader.url("/busy.png")))
        try await waitUntil { decoder.running == 1 }
        let dropped = manager.imageTask(with: ImageRequest(url: loader.url("/dropped.png")))
        try await waitUntil { manager.configuration.processingQueue.counts.waiting == 1 }
        dropped.cancel()
        #expect(await failure { _ = try await dropped.value } == .cancelled)
        try await waitUntil { manager.configuration.processingQueue.counts.waiting == 0 }
        decoder.release(width: 30)
        _ = try await busy.value
        #expect(decoder.started == [30], "\(decoder.started)")
    }

    @Test("leaving an event sequence early leaves the load")
    func stopIterating() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 64), chunks: 64, delay: .milliseconds(20))
        let manager = makePipeline(loader: loader)
        for try await event in manager.imageEvents(with: ImageRequest(url: loader.url("/a.png"))) {
            if case .progress = event { break }
        }
        try await waitUntil { loader.cancelledCount == 1 }
        try await waitUntil { manager.pipeline.processes.count == 0 }
    }
}
