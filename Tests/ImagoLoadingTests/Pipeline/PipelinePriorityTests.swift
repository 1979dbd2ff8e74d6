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

@Suite("Pipeline: priorities")
struct PipelinePriorityTests {
    @Test("queued decodes run highest priority first, and a priority raised while waiting counts")
    func decodeOrder() async throws {
        let loader = MockDataLoader()
        for w in [20, 21, 22, 23, 24] { loader.register("/\(w).png", data: pngFixture(width: w)) }
        let decoder = InstrumentedDecoder()
        decoder.hold(width: 20)
        let manager = makePipeline(loader: loader, decoder: decoder, workers: 1)
        let blocker = manager.imageTask(with: ImageRequest(url: loader.url("/20.png")))
        try await waitUntil { decoder.running == 1 }
        var tasks: [ImageTask] = []
        for (w, p) in [(21, ImagePriority.low), (22, .normal), (23, .high), (24, .veryLow)] {
            tasks.append(manager.imageTask(with: ImageRequest(url: loader.url("/\(w).png"), priority: p)))
            try await waitUntil { manager.configuration.processingQueue.counts.waiting == tasks.count }
        }
        tasks[3].priority = .veryHigh  // 24 goes first after all
        decoder.release(width: 20)
        _ = try await blocker.value
        for t in tasks { _ = try await t.value }
        #expect(decoder.started == [20, 24, 23, 22, 21], "\(decoder.started)")
    }

    @Test("a shared load runs at its most urgent caller's priority, down to the download queue")
    func sharedPriority() async throws {
        let loader = MockDataLoader()
        for name in ["block", "a", "b"] { loader.register("/\(name).png", data: pngFixture(width: 20)) }
        loader.hold("/block.png")
        let manager = makePipeline(loader: loader, downloads: 1)
        let block = manager.imageTask(with: ImageRequest(url: loader.url("/block.png")))
        try await waitUntil { loader.runningCount == 1 }
        let a = manager.imageTask(with: ImageRequest(url: loader.url("/a.png"), priority: .normal))
        let bLow = manager.imageTask(with: ImageRequest(url: loader.url("/b.png"), priority: .low))
        try await waitUntil { manager.downloader.activity.queued == 2 }
        // A second caller of b at high priority lifts the shared download of b above a.
        let bHigh = manager.imageTask(with: ImageRequest(url: loader.url("/b.png"), priority: .high))
        #expect(manager.pipeline.processes.count == 3)
        loader.release("/block.png")
        _ = try await block.value
        _ = try await bHigh.value
        _ = try await bLow.value
        _ = try await a.value
        #expect(loader.startOrder == ["/block.png", "/b.png", "/a.png"], "\(loader.startOrder)")
    }
}
