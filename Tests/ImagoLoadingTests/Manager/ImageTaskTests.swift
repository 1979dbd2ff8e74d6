// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("ImageTask: handles for hits, failures and running loads")
struct ImageTaskTests {
    @Test("a task over a memory hit completes at once with one event; cancelling it does nothing")
    func memoryHitTask() async throws {
        let store = MockImageStore()
        let loader = MockDataLoader()
        let manager = makePipeline(loader: loader, memory: store)
        let url = loader.url("/x.png")
        store.setImage(Image(buffer: try Fixtures.gradient(width: 4, height: 4)), forKey: url.absoluteString)
        let task = manager.imageTask(with: ImageRequest(url: url))
        task.cancel()
        var events: [String] = []
        for try await event in task.events {
            if case .completed(let r) = event { events.append("completed \(r.source)") } else { events.append("other") }
        }
        #expect(events == ["completed memory"] && task.cacheKey == url.absoluteString, "\(events) \(task.cacheKey)")
    }

    @Test("a refused request's task fails at once; its events throw the same error")
    func refusedTask() async throws {
        let manager = makePipeline(loader: MockDataLoader())
        let invalid = URL(string: "http:///nohost.png")!
        let task = manager.imageTask(with: ImageRequest(url: invalid))
        #expect(await failure { _ = try await task.value } == .invalidURL(invalid.absoluteString))
        await #expect(throws: ImageLoadingError.invalidURL(invalid.absoluteString)) {
            for try await _ in manager.imageTask(with: ImageRequest(url: invalid)).events {}
        }
    }

    @Test("a task's priority can be read and changed; a finished task's cancel is harmless")
    func priority() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 8))
        let manager = makePipeline(loader: loader)
        let task = manager.imageTask(with: ImageRequest(url: loader.url("/a.png"), priority: .low))
        #expect(task.priority == .low)
        task.priority = .veryHigh
        #expect(task.priority == .veryHigh)
        let result = try await task.value
        task.cancel()
        #expect(result.source == .network && result.request.priority == .low)
    }

    @Test("a downloader task's priority and value; the downloader's activity counts")
    func downloaderTask() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 8))
        loader.hold("/a.png")
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let task = downloader.task(for: ImageDownloadRequest(url: loader.url("/a.png"), priority: .low))
        task.priority = .high
        #expect(task.priority == .high)
        try await waitUntil { downloader.activity == (0, 1) }
        loader.release("/a.png")
        #expect(try await task.value().data == pngFixture(width: 8))
        #expect(downloader.activity == (0, 0))
    }
}
